#pragma once
// Vec3 and Box: the value types every agrid interface takes.

namespace agrid {

/// A point or direction in 3-D space (single precision, like the boxes of a physics engine).
struct Vec3 {
  float x = 0.0f;  ///< The x coordinate.
  float y = 0.0f;  ///< The y coordinate.
  float z = 0.0f;  ///< The z coordinate.

  /// Component by axis index: 0 is x, 1 is y, 2 is z.
  [[nodiscard]] constexpr float operator[](int axis) const noexcept {
    return axis == 0 ? x : (axis == 1 ? y : z);
  }
};

/// A closed axis-aligned box [min, max]; see is_valid() for which boxes take part.
struct Box {
  Vec3 min;  ///< The lowest corner.
  Vec3 max;  ///< The highest corner.
};

/// True iff the box has no NaN coordinate and min <= max on every axis.
/// Invalid boxes overlap nothing; infinite coordinates are valid.
[[nodiscard]] constexpr bool is_valid(const Box& b) noexcept {
  // Written as "min <= max" so that a NaN on either side makes the box invalid.
  return b.min.x <= b.max.x && b.min.y <= b.max.y && b.min.z <= b.max.z;
}

/// True iff both boxes are valid and overlap as closed boxes (touching counts).
[[nodiscard]] constexpr bool overlaps(const Box& a, const Box& b) noexcept {
  return is_valid(a) && is_valid(b) && a.min.x <= b.max.x && b.min.x <= a.max.x &&
         a.min.y <= b.max.y && b.min.y <= a.max.y && a.min.z <= b.max.z && b.min.z <= a.max.z;
}

}  // namespace agrid
