#pragma once
// checked: the one place a Config is refused, for every structure built from one.

#include <stdexcept>
#include <string>

#include "agrid/config.h"

namespace agrid::detail {

/// `config` itself; throws std::invalid_argument naming its problem if it is unusable.
[[nodiscard]] inline const Config& checked(const Config& config) {
  if (const char* problem = config.problem()) {
    throw std::invalid_argument("agrid::Config: " + std::string(problem));
  }
  return config;
}

}  // namespace agrid::detail
