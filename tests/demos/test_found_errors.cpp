// found_errors, the rule behind agrid-demo's exit code 1: any missing pair or missed ray hit
// fails every broadphase; an extra pair fails the exact ones (agrid, simple), an extra ray hit
// fails agrid; dbvt's and sap's extra pairs are by design.

#include <gtest/gtest.h>

#include "demo_run.h"

namespace agrid::demo {
namespace {

using scenes::BroadphaseKind;

RunResult result(BroadphaseKind kind, std::uint64_t missing, std::uint64_t extra) {
  RunResult r;
  r.kind = kind;
  r.missing_pairs = missing;
  r.extra_pairs = extra;
  return r;
}

TEST(DemoFoundErrors, MissingPairsFailEveryBroadphase) {
  for (const BroadphaseKind kind : {BroadphaseKind::dbvt, BroadphaseKind::sap, BroadphaseKind::simple, BroadphaseKind::agrid}) {
    EXPECT_TRUE(found_errors(result(kind, 1, 0))) << scenes::name(kind);
    EXPECT_FALSE(found_errors(result(kind, 0, 0))) << scenes::name(kind);
  }
}

TEST(DemoFoundErrors, ExtraPairsFailOnlyTheExactBroadphases) {
  EXPECT_TRUE(found_errors(result(BroadphaseKind::agrid, 0, 1)));
  EXPECT_TRUE(found_errors(result(BroadphaseKind::simple, 0, 1)));
  EXPECT_FALSE(found_errors(result(BroadphaseKind::dbvt, 0, 1)));
  EXPECT_FALSE(found_errors(result(BroadphaseKind::sap, 0, 1)));
}

TEST(DemoFoundErrors, RaysMissedFailAllAndExtraRayHitsFailAgrid) {
  RunResult missed = result(BroadphaseKind::dbvt, 0, 0);
  missed.rays_missed = 1;
  EXPECT_TRUE(found_errors(missed));
  RunResult extra = result(BroadphaseKind::agrid, 0, 0);
  extra.rays_extra = 1;
  EXPECT_TRUE(found_errors(extra));
  extra.kind = BroadphaseKind::dbvt;
  EXPECT_FALSE(found_errors(extra));
}

}  // namespace
}  // namespace agrid::demo
