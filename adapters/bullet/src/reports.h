#pragma once
// Reports: where btAdaptiveGridBroadphase sends a misuse of its calls and its warnings, the
// handlers the user set (setMisuseHandler, setWarningHandler) or the defaults.

#include <string>

#include "agrid/bullet/btAdaptiveGridBroadphase.h"

namespace agrid::bullet_detail {

/// The adapter's two message channels. A misuse goes to the handler, or is thrown as
/// std::invalid_argument; a warning goes to the handler, or is printed with printf (Bullet's
/// convention). The invalid-AABB warning is given at most once in a broadphase's life.
class Reports {
 public:
  /// A null handler restores the default.
  void set_misuse_handler(btAdaptiveGridMessageHandler handler, void* context) noexcept;
  /// A null handler restores the default.
  void set_warning_handler(btAdaptiveGridMessageHandler handler, void* context) noexcept;

  /// Reports a misuse; returns only if the user's handler does.
  void misuse(const std::string& message) const;
  /// Reports a warning.
  void warn(const std::string& message) const;

  /// True until invalid_aabb_reported(): the invalid-AABB warning is still to be given.
  [[nodiscard]] bool invalid_aabb_unreported() const noexcept { return !invalid_aabb_reported_; }
  void invalid_aabb_reported() noexcept { invalid_aabb_reported_ = true; }

 private:
  btAdaptiveGridMessageHandler misuse_handler_ = nullptr;
  void* misuse_context_ = nullptr;
  btAdaptiveGridMessageHandler warning_handler_ = nullptr;
  void* warning_context_ = nullptr;
  bool invalid_aabb_reported_ = false;
};

/// The warning for the first invalid AABB: the proxy's unique id, the box and what is wrong
/// with it, and what the broadphase does with it.
[[nodiscard]] std::string invalid_aabb_warning(const btBroadphaseProxy& proxy);

}  // namespace agrid::bullet_detail
