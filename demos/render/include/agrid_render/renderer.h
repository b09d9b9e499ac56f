#pragma once
// The OpenGL 3.3 core renderer of snapshots: one instanced draw per unit shape and per cached
// mesh, one Lambert + ambient shader. It draws into whatever GL context and framebuffer are
// current (an offscreen FBO, or a viewer's window).

#include <memory>
#include <optional>
#include <vector>

#include <glm/vec3.hpp>

#include "agrid_render/camera.h"
#include "agrid_render/snapshot.h"

namespace agrid::render {

/// Wireframe boxes of one colour (a picked body's AABB, a grid's cells), drawn with the shapes.
struct WireBoxes {
  std::vector<Bounds> boxes;
  glm::vec3 colour{1.0f};
};

/// Segments of one colour, two ends each (a scene's rays), drawn with the shapes (depth-tested).
struct ColouredLines {
  std::vector<glm::vec3> ends;
  glm::vec3 colour{1.0f};
};

/// What to draw besides the shapes, and from where.
struct DrawOptions {
  /// Dark blue-grey, so that grey static shapes stand out.
  static constexpr glm::vec3 kDefaultBackground{0.12f, 0.13f, 0.16f};

  bool aabbs = false;                   ///< Overlay every object's AABB as a wireframe.
  bool colour_by_state = true;          ///< Colour by BodyState; false: every shape the awake colour.
  std::vector<glm::vec3> lines;         ///< Segments drawn over everything, two ends each (a viewer's pairs).
  /// Per collision object (Instance::object), its shapes' colour, replacing colour_by_state for
  /// all but static objects (a viewer's colouring by pair count; a ground pairs with everything).
  std::vector<glm::vec3> object_colours;
  std::vector<WireBoxes> wire_boxes;        ///< More wireframes, each set in its colour.
  std::vector<ColouredLines> coloured_lines;///< More segments, each set in its colour.
  std::optional<Camera> camera;         ///< Default: Camera::framing(snapshot.bounds).
  glm::vec3 background = kDefaultBackground;
};

/// Draws snapshots with the GL context current at construction (which must stay current, and
/// alive, while the renderer is used and destroyed).
class Renderer {
 public:
  /// Compiles the shader and uploads the unit shapes; throws std::runtime_error without GL 3.3.
  Renderer();
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  /// Clears the current framebuffer's `width` x `height` viewport and draws `snapshot`.
  void draw(const Snapshot& snapshot, const DrawOptions& options, int width, int height);
  /// Frees the GPU copies of cached meshes: call it after MeshCache::clear(), whose freed
  /// meshes' addresses may come back for new ones.
  void forget_meshes();

 private:
  struct Gpu;
  std::unique_ptr<Gpu> gpu_;
};

}  // namespace agrid::render
