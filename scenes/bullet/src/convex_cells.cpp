#include "convex_cells.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace agrid::scenes::detail {
namespace {

/// A point in double: the cells are cut in double and handed to Bullet in float.
struct Point {
  double x, y, z;
};

Point operator+(Point a, Point b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Point operator-(Point a, Point b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Point operator*(Point a, double s) { return {a.x * s, a.y * s, a.z * s}; }
double dot(Point a, Point b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Point cross(Point a, Point b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
double length(Point a) { return std::sqrt(dot(a, a)); }
Point point(const btVector3& v) { return {v.x(), v.y(), v.z()}; }

/// A face: its corners in order around it. A convex piece is the list of its faces.
using Polygon = std::vector<Point>;
using Polyhedron = std::vector<Polygon>;

/// Distances from a cutting plane below this count as on it (the box is about unit size).
constexpr double kOnPlane = 1e-12;
/// Corners closer than this are one corner.
constexpr double kSameCorner = 1e-9;
/// The Halton bases of the three axes: the first three primes.
constexpr std::array<std::uint32_t, 3> kHaltonBases = {2, 3, 5};

Polyhedron box_faces(Point lo, Point hi) {
  const auto corner = [&](int i) { return Point{i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z}; };
  // Corner i has bit 0 for x, 1 for y, 2 for z; each face lists four corners around it.
  const int faces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  Polyhedron box;
  for (const auto& face : faces) box.push_back({corner(face[0]), corner(face[1]), corner(face[2]), corner(face[3])});
  return box;
}

// The distinct points of `points`, in their order.
std::vector<Point> distinct(const std::vector<Point>& points) {
  std::vector<Point> out;
  for (const Point& p : points) {
    const bool seen = std::any_of(out.begin(), out.end(), [&](const Point& q) { return length(p - q) < kSameCorner; });
    if (!seen) out.push_back(p);
  }
  return out;
}

// The points, all on a plane of normal n, in order around their centre: the new face a cut makes.
Polygon around(const std::vector<Point>& points, Point n) {
  Polygon face = distinct(points);
  if (face.size() < 3) return {};
  Point centre{0, 0, 0};
  for (const Point& p : face) centre = centre + p;
  centre = centre * (1.0 / static_cast<double>(face.size()));
  const Point u = face[0] - centre;
  const Point v = cross(n, u);
  std::sort(face.begin(), face.end(), [&](const Point& a, const Point& b) {
    return std::atan2(dot(a - centre, v), dot(a - centre, u)) < std::atan2(dot(b - centre, v), dot(b - centre, u));
  });
  return face;
}

// Keeps the part of the piece where dot(n, p) <= d (Sutherland-Hodgman on every face), closed
// by a new face on the plane if the plane cut anything away.
Polyhedron cut(const Polyhedron& piece, Point n, double d) {
  Polyhedron kept;
  std::vector<Point> on_plane;
  bool cut_away = false;
  for (const Polygon& face : piece) {
    Polygon out;
    for (std::size_t i = 0; i < face.size(); ++i) {
      const Point a = face[i];
      const Point b = face[(i + 1) % face.size()];
      const double da = dot(n, a) - d;
      const double db = dot(n, b) - d;
      if (da <= kOnPlane) out.push_back(a);
      cut_away = cut_away || da > kOnPlane;
      if (std::abs(da) <= kOnPlane) on_plane.push_back(a);
      if ((da < -kOnPlane && db > kOnPlane) || (da > kOnPlane && db < -kOnPlane)) {
        const Point crossing = a + (b - a) * (da / (da - db));
        out.push_back(crossing);
        on_plane.push_back(crossing);
      }
    }
    if (out.size() >= 3) kept.push_back(std::move(out));
  }
  if (cut_away) {
    Polygon cap = around(on_plane, n);
    if (cap.size() >= 3) kept.push_back(std::move(cap));
  }
  return kept;
}

// Corners, centroid and volume of a convex piece: tetrahedra from an inner point to each face's fan.
ConvexCell describe(const Polyhedron& piece) {
  std::vector<Point> all;
  for (const Polygon& face : piece) all.insert(all.end(), face.begin(), face.end());
  const std::vector<Point> corners = distinct(all);
  Point inner{0, 0, 0};
  for (const Point& p : corners) inner = inner + p;
  inner = inner * (1.0 / static_cast<double>(corners.size()));
  double volume = 0;
  Point moment{0, 0, 0};
  for (const Polygon& face : piece) {
    for (std::size_t i = 1; i + 1 < face.size(); ++i) {
      const double tetra = std::abs(dot(face[0] - inner, cross(face[i] - inner, face[i + 1] - inner))) / 6;
      volume += tetra;
      moment = moment + (inner + face[0] + face[i] + face[i + 1]) * (tetra / 4);
    }
  }
  const Point centroid = moment * (1.0 / volume);
  ConvexCell cell;
  for (const Point& p : corners) {
    const Point r = p - centroid;
    cell.corners.emplace_back(static_cast<btScalar>(r.x), static_cast<btScalar>(r.y), static_cast<btScalar>(r.z));
  }
  const auto single = [](double v) { return static_cast<btScalar>(v); };
  cell.centroid = btVector3(single(centroid.x), single(centroid.y), single(centroid.z));
  cell.volume = volume;
  return cell;
}

double radical_inverse(std::uint32_t index, std::uint32_t base) {
  double scale = 1;
  double value = 0;
  for (; index > 0; index /= base) {
    scale /= base;
    value += scale * (index % base);
  }
  return value;
}

}  // namespace

std::vector<ConvexCell> voronoi_cells(std::span<const btVector3> sites, const btVector3& lo, const btVector3& hi) {
  std::vector<ConvexCell> cells;
  for (const btVector3& site : sites) {
    Polyhedron piece = box_faces(point(lo), point(hi));
    for (const btVector3& other : sites) {
      if (&other == &site) continue;
      // The bisecting plane: nearer to the site on the side where dot(n, p) <= d.
      const Point toward = point(other) - point(site);
      const Point n = toward * (1.0 / length(toward));
      piece = cut(piece, n, dot(n, (point(site) + point(other)) * 0.5));
    }
    cells.push_back(describe(piece));
  }
  return cells;
}

std::vector<btVector3> halton_points(std::uint32_t count, const btVector3& lo, const btVector3& hi) {
  std::vector<btVector3> points;
  for (std::uint32_t i = 1; i <= count; ++i) {
    btVector3 p;
    for (int k = 0; k < 3; ++k) {
      const double u = radical_inverse(i, kHaltonBases[static_cast<std::size_t>(k)]);
      p[k] = static_cast<btScalar>(lo[k] + u * (hi[k] - lo[k]));
    }
    points.push_back(p);
  }
  return points;
}

}  // namespace agrid::scenes::detail
