#pragma once
// The lattice's limits: how deep a grid splits and how finely it divides space. C++11, like
// config.h, and the same in every standard.

#include <cstdint>

namespace agrid {

/// The deepest level of a grid below its root (level 0): each level splits a cell 4x4x4, two
/// bits a level per axis, and 2 * 12 = 24 bits is as many as a float's significand holds.
constexpr std::uint32_t kMaxDepth = 12;

/// Lattice steps per axis of a grid's root, 4^kMaxDepth = 2^24: a cell at kMaxDepth is one step
/// wide, and every step is an integer a float holds exactly.
constexpr std::uint32_t kLatticeSteps = std::uint32_t{1} << (2 * kMaxDepth);

}  // namespace agrid
