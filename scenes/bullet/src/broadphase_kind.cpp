#include "agrid_scenes/broadphase_kind.h"

namespace agrid::scenes {

std::string_view name(BroadphaseKind kind) {
  switch (kind) {
    case BroadphaseKind::dbvt: return "dbvt";
    case BroadphaseKind::sap: return "sap";
    case BroadphaseKind::simple: return "simple";
    case BroadphaseKind::agrid: return "agrid";
    case BroadphaseKind::agrid_fat: return "agrid-fat";
  }
  return "?";
}

bool keeps_exact_pairs(BroadphaseKind kind) { return kind == BroadphaseKind::agrid || kind == BroadphaseKind::simple; }

bool is_agrid(BroadphaseKind kind) { return kind == BroadphaseKind::agrid || kind == BroadphaseKind::agrid_fat; }

}  // namespace agrid::scenes
