#include "reports.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace agrid::bullet_detail {

void Reports::set_misuse_handler(btAdaptiveGridMessageHandler handler, void* context) noexcept {
  misuse_handler_ = handler;
  misuse_context_ = context;
}

void Reports::set_warning_handler(btAdaptiveGridMessageHandler handler, void* context) noexcept {
  warning_handler_ = handler;
  warning_context_ = context;
}

void Reports::misuse(const std::string& message) const {
  if (misuse_handler_ == nullptr) throw std::invalid_argument(message);
  misuse_handler_(message.c_str(), misuse_context_);
}

void Reports::warn(const std::string& message) const {
  if (warning_handler_ != nullptr) {
    warning_handler_(message.c_str(), warning_context_);
    return;
  }
  std::printf("%s\n", message.c_str());  // as Bullet prints its own warnings
}

namespace {
/// What is wrong with [lo, hi] on the first axis where something is.
[[nodiscard]] const char* fault(const btVector3& lo, const btVector3& hi) {
  for (int axis = 0; axis < 3; ++axis) {
    if (std::isnan(lo[axis]) || std::isnan(hi[axis])) return "a NaN";
  }
  return "min > max";
}

[[nodiscard]] std::string text(const btVector3& v) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "(%g, %g, %g)", static_cast<double>(v.x()), static_cast<double>(v.y()),
                static_cast<double>(v.z()));
  return buffer;
}
}  // namespace

std::string invalid_aabb_warning(const btBroadphaseProxy& proxy) {
  return std::string("btAdaptiveGridBroadphase: warning: the AABB of the proxy with unique id ") +
         std::to_string(proxy.m_uniqueId) + " has " + fault(proxy.m_aabbMin, proxy.m_aabbMax) + ": min " +
         text(proxy.m_aabbMin) + ", max " + text(proxy.m_aabbMax) +
         "; it pairs with nothing and no query finds it until it is valid. Reported once: "
         "lastStepStats().m_invalidObjects counts such objects every step.";
}

}  // namespace agrid::bullet_detail
