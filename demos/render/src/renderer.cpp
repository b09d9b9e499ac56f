#include "agrid_render/renderer.h"

#include <epoxy/gl.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>
#include <glm/matrix.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "unit_shapes.h"

namespace agrid::render {
namespace {

/// Colours by state: static grey, asleep blue-ish, awake orange-ish; the AABB overlay green.
constexpr glm::vec3 kStaticColour{0.62f, 0.62f, 0.62f};
constexpr glm::vec3 kAsleepColour{0.35f, 0.52f, 0.88f};
constexpr glm::vec3 kAwakeColour{0.96f, 0.56f, 0.20f};
constexpr glm::vec3 kAabbColour{0.30f, 0.90f, 0.40f};
/// Overlay lines (DrawOptions::lines): white, apart from every state's colour and the AABBs'.
constexpr glm::vec3 kLineColour{0.95f, 0.95f, 0.95f};
/// The fixed light: from above, front right (towards the default camera), and its ambient share.
constexpr glm::vec3 kLightDirection{0.4f, 1.0f, 0.6f};
constexpr float kAmbient = 0.3f;
/// The OpenGL version the renderer needs (3.3 core), as libepoxy reports it.
constexpr int kRequiredGlVersion = 33;
/// Attribute locations: vertex position and normal, then the instance's model matrix (four
/// columns), colour and normal matrix (three columns).
constexpr GLuint kPositionLocation = 0;
constexpr GLuint kNormalLocation = 1;
constexpr GLuint kModelLocation = 2;
constexpr GLuint kColourLocation = 6;
constexpr GLuint kNormalMatrixLocation = 7;
constexpr GLuint kModelColumns = 4;
constexpr GLuint kNormalMatrixColumns = 3;

constexpr const char* kVertexShader = R"(#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in mat4 a_model;
layout(location = 6) in vec3 a_colour;
layout(location = 7) in mat3 a_normal_matrix;
uniform mat4 u_view_projection;
out vec3 v_normal;
out vec3 v_colour;
void main() {
  gl_Position = u_view_projection * (a_model * vec4(a_position, 1.0));
  v_normal = a_normal_matrix * a_normal;
  v_colour = a_colour;
}
)";

constexpr const char* kFragmentShader = R"(#version 330 core
in vec3 v_normal;
in vec3 v_colour;
uniform vec3 u_light;
uniform float u_ambient;
uniform bool u_lit;
out vec4 o_colour;
void main() {
  // Two-sided: triangle meshes and planes are seen from either side, whatever their winding.
  float diffuse = abs(dot(normalize(v_normal), u_light));
  float light = u_lit ? u_ambient + (1.0 - u_ambient) * diffuse : 1.0;
  o_colour = vec4(v_colour * light, 1.0);
}
)";

/// What the shader reads per instance.
struct GpuInstance {
  glm::mat4 model;
  glm::vec3 colour;
  /// Instances are scaled unevenly (boxes, capsules): normals take the inverse transpose, here
  /// once per instance rather than per vertex (llvmpipe spends most of a frame on vertices).
  glm::mat3 normal_matrix;

  GpuInstance(const glm::mat4& m, const glm::vec3& c)
      : model(m), colour(c), normal_matrix(glm::transpose(glm::inverse(glm::mat3(m)))) {}
};

glm::vec3 colour_of(BodyState state) {
  switch (state) {
    case BodyState::static_body: return kStaticColour;
    case BodyState::asleep: return kAsleepColour;
    case BodyState::awake: break;
  }
  return kAwakeColour;
}

// Frees `object` and throws with its info log unless `ok`: a shader that does not compile or a
// program that does not link (`what` says which).
template <class GetLog, class Remove>
void require(GLint ok, GLuint object, GetLog get_log, Remove remove, const char* what) {
  if (ok == GL_TRUE) return;
  char log[1024] = {};
  get_log(object, sizeof log, nullptr, log);
  remove(object);
  throw std::runtime_error(std::string("renderer: shader does not ") + what + ": " + log);
}

GLuint compile(GLenum kind, const char* source) {
  const GLuint shader = glCreateShader(kind);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  require(ok, shader, glGetShaderInfoLog, glDeleteShader, "compile");
  return shader;
}

GLuint link_program() {
  const GLuint vertex = compile(GL_VERTEX_SHADER, kVertexShader);
  const GLuint fragment = compile(GL_FRAGMENT_SHADER, kFragmentShader);
  const GLuint program = glCreateProgram();
  glAttachShader(program, vertex);
  glAttachShader(program, fragment);
  glLinkProgram(program);
  glDeleteShader(vertex);
  glDeleteShader(fragment);
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  require(ok, program, glGetProgramInfoLog, glDeleteProgram, "link");
  return program;
}

// A mesh on the GPU: its vertices, and a vertex array that also reads the instance buffer.
struct GpuMesh {
  GLuint vao = 0;
  GLuint vbo = 0;
  GLuint ebo = 0;  ///< Indices, or 0 for an unindexed mesh.
  GLsizei vertices = 0;
  GLenum mode = GL_TRIANGLES;
  /// Closed, wound counter-clockwise seen from outside: its back faces are hidden by its front
  /// ones, and culled. Hulls, triangle meshes and planes are not: seen from either side.
  bool closed = false;

  GpuMesh(const Mesh& mesh, GLenum draw_mode, GLuint instance_buffer, bool closed_surface = false)
      : mode(draw_mode), closed(closed_surface) {
    vertices = static_cast<GLsizei>(mesh.draw_count());
    std::vector<glm::vec3> interleaved;
    interleaved.reserve(2 * mesh.vertex_count());
    for (std::size_t i = 0; i < mesh.vertex_count(); ++i) interleaved.insert(interleaved.end(), {mesh.positions[i], mesh.normals[i]});
    glGenVertexArrays(1, &vao);
    glGenBuffers(1, &vbo);
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(interleaved.size() * sizeof(glm::vec3)), interleaved.data(),
                 GL_STATIC_DRAW);
    if (!mesh.indices.empty()) {
      glGenBuffers(1, &ebo);
      glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo);  // recorded in the vertex array
      glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(mesh.indices.size() * sizeof(std::uint32_t)),
                   mesh.indices.data(), GL_STATIC_DRAW);
    }
    const auto stride = static_cast<GLsizei>(2 * sizeof(glm::vec3));
    glEnableVertexAttribArray(kPositionLocation);
    glVertexAttribPointer(kPositionLocation, 3, GL_FLOAT, GL_FALSE, stride, nullptr);
    glEnableVertexAttribArray(kNormalLocation);
    glVertexAttribPointer(kNormalLocation, 3, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(sizeof(glm::vec3)));
    glBindBuffer(GL_ARRAY_BUFFER, instance_buffer);
    const auto instance_stride = static_cast<GLsizei>(sizeof(GpuInstance));
    for (GLuint column = 0; column < kModelColumns; ++column) {
      glEnableVertexAttribArray(kModelLocation + column);
      glVertexAttribPointer(kModelLocation + column, 4, GL_FLOAT, GL_FALSE, instance_stride,
                            reinterpret_cast<void*>(offsetof(GpuInstance, model) + column * sizeof(glm::vec4)));
      glVertexAttribDivisor(kModelLocation + column, 1);
    }
    glEnableVertexAttribArray(kColourLocation);
    glVertexAttribPointer(kColourLocation, 3, GL_FLOAT, GL_FALSE, instance_stride,
                          reinterpret_cast<void*>(offsetof(GpuInstance, colour)));
    glVertexAttribDivisor(kColourLocation, 1);
    for (GLuint column = 0; column < kNormalMatrixColumns; ++column) {
      glEnableVertexAttribArray(kNormalMatrixLocation + column);
      glVertexAttribPointer(kNormalMatrixLocation + column, 3, GL_FLOAT, GL_FALSE, instance_stride,
                            reinterpret_cast<void*>(offsetof(GpuInstance, normal_matrix) + column * sizeof(glm::vec3)));
      glVertexAttribDivisor(kNormalMatrixLocation + column, 1);
    }
    glBindVertexArray(0);
  }
  ~GpuMesh() {
    if (ebo != 0) glDeleteBuffers(1, &ebo);
    glDeleteBuffers(1, &vbo);
    glDeleteVertexArrays(1, &vao);
  }
  GpuMesh(const GpuMesh&) = delete;
  GpuMesh& operator=(const GpuMesh&) = delete;
};

glm::vec3 colour_of(BodyState state, bool by_state) { return by_state ? colour_of(state) : kAwakeColour; }

// An instance's colour: its object's when DrawOptions gives one per object (but for static
// objects: a ground in every pair would flood the picture), else its state's.
struct Palette {
  const DrawOptions& options;

  glm::vec3 operator()(const Instance& i) const {
    const bool moves = i.state != BodyState::static_body;
    if (moves && i.object < options.object_colours.size()) return options.object_colours[i.object];
    return colour_of(i.state, options.colour_by_state);
  }
};

std::vector<GpuInstance> gpu_instances(const std::vector<Instance>& instances, const Palette& palette) {
  std::vector<GpuInstance> out;
  out.reserve(instances.size());
  for (const Instance& i : instances) out.emplace_back(i.model, palette(i));
  return out;
}

// The unit cube's edges scaled and moved onto each box.
std::vector<GpuInstance> wire_instances(const std::vector<Bounds>& boxes, const glm::vec3& colour) {
  std::vector<GpuInstance> out;
  out.reserve(boxes.size());
  for (const Bounds& b : boxes) {
    glm::mat4 model(1.0f);
    for (int axis = 0; axis < 3; ++axis) model[axis][axis] = (b.max[axis] - b.min[axis]) * 0.5f;
    model[3] = glm::vec4((b.min + b.max) * 0.5f, 1.0f);
    out.emplace_back(model, colour);
  }
  return out;
}

// The segments' ends as one unindexed line mesh, drawn as a single instance at the identity.
Mesh line_mesh(const std::vector<glm::vec3>& ends) {
  Mesh mesh;
  mesh.positions.assign(ends.begin(), ends.end() - static_cast<std::ptrdiff_t>(ends.size() % 2));
  // Lines are drawn unlit: any normal will do.
  mesh.normals.assign(mesh.positions.size(), glm::vec3(0.0f, 1.0f, 0.0f));
  return mesh;
}

}  // namespace

struct Renderer::Gpu {
  GLuint program = 0;
  GLint view_projection = -1;
  GLint light = -1;
  GLint ambient = -1;
  GLint lit = -1;
  GLuint instances = 0;
  std::unique_ptr<GpuMesh> cube;
  std::unique_ptr<GpuMesh> sphere;
  std::unique_ptr<GpuMesh> cylinder;
  std::unique_ptr<GpuMesh> edges;
  std::unordered_map<const Mesh*, std::unique_ptr<GpuMesh>> meshes;

  // Uploads `batch` to the instance buffer and draws `mesh` once per instance.
  void draw(const GpuMesh& mesh, const std::vector<GpuInstance>& batch) const {
    if (batch.empty()) return;
    glBindBuffer(GL_ARRAY_BUFFER, instances);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(batch.size() * sizeof(GpuInstance)), batch.data(),
                 GL_STREAM_DRAW);
    glBindVertexArray(mesh.vao);
    // Culled before rasterisation: half of a solid's triangles never reach llvmpipe's tiles.
    if (mesh.closed) {
      glEnable(GL_CULL_FACE);
    } else {
      glDisable(GL_CULL_FACE);
    }
    if (mesh.ebo != 0) {
      glDrawElementsInstanced(mesh.mode, mesh.vertices, GL_UNSIGNED_INT, nullptr, static_cast<GLsizei>(batch.size()));
    } else {
      glDrawArraysInstanced(mesh.mode, 0, mesh.vertices, static_cast<GLsizei>(batch.size()));
    }
  }

  const GpuMesh& uploaded(const Mesh& mesh) {
    std::unique_ptr<GpuMesh>& slot = meshes[&mesh];
    if (!slot) slot = std::make_unique<GpuMesh>(mesh, GL_TRIANGLES, instances);
    return *slot;
  }
};

Renderer::Renderer() : gpu_(std::make_unique<Gpu>()) {
  if (epoxy_gl_version() < kRequiredGlVersion || !epoxy_is_desktop_gl()) {
    throw std::runtime_error("renderer: needs desktop OpenGL 3.3 core; the current context has " +
                             std::to_string(epoxy_gl_version() / 10) + "." + std::to_string(epoxy_gl_version() % 10));
  }
  gpu_->program = link_program();
  gpu_->view_projection = glGetUniformLocation(gpu_->program, "u_view_projection");
  gpu_->light = glGetUniformLocation(gpu_->program, "u_light");
  gpu_->ambient = glGetUniformLocation(gpu_->program, "u_ambient");
  gpu_->lit = glGetUniformLocation(gpu_->program, "u_lit");
  glGenBuffers(1, &gpu_->instances);
  // The cylinder is open, but only ever drawn between a capsule's two caps.
  gpu_->cube = std::make_unique<GpuMesh>(detail::unit_cube(), GL_TRIANGLES, gpu_->instances, true);
  gpu_->sphere = std::make_unique<GpuMesh>(detail::unit_sphere(), GL_TRIANGLES, gpu_->instances, true);
  gpu_->cylinder = std::make_unique<GpuMesh>(detail::unit_cylinder(), GL_TRIANGLES, gpu_->instances, true);
  gpu_->edges = std::make_unique<GpuMesh>(detail::unit_cube_edges(), GL_LINES, gpu_->instances);
}

Renderer::~Renderer() {
  if (!gpu_) return;
  gpu_->meshes.clear();
  gpu_->cube.reset();
  gpu_->sphere.reset();
  gpu_->cylinder.reset();
  gpu_->edges.reset();
  glDeleteBuffers(1, &gpu_->instances);
  glDeleteProgram(gpu_->program);
}

void Renderer::forget_meshes() { gpu_->meshes.clear(); }

void Renderer::draw(const Snapshot& snapshot, const DrawOptions& options, int width, int height) {
  if (width <= 0 || height <= 0) {
    throw std::invalid_argument("renderer: cannot draw into a " + std::to_string(width) + "x" + std::to_string(height) +
                                " viewport");
  }
  glViewport(0, 0, width, height);
  glClearColor(options.background.r, options.background.g, options.background.b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glCullFace(GL_BACK);
  glFrontFace(GL_CCW);
  const Camera camera = options.camera ? *options.camera : Camera::framing(snapshot.bounds);
  const glm::mat4 view_projection = camera.view_projection(static_cast<float>(width) / static_cast<float>(height));
  glUseProgram(gpu_->program);
  glUniformMatrix4fv(gpu_->view_projection, 1, GL_FALSE, glm::value_ptr(view_projection));
  const glm::vec3 light = glm::normalize(kLightDirection);
  glUniform3f(gpu_->light, light.x, light.y, light.z);
  glUniform1f(gpu_->ambient, kAmbient);
  glUniform1i(gpu_->lit, GL_TRUE);

  const Palette palette{options};
  gpu_->draw(*gpu_->cube, gpu_instances(snapshot.boxes, palette));
  gpu_->draw(*gpu_->sphere, gpu_instances(snapshot.spheres, palette));
  gpu_->draw(*gpu_->cylinder, gpu_instances(snapshot.cylinders, palette));
  std::unordered_map<const Mesh*, std::vector<GpuInstance>> by_mesh;
  for (const MeshInstance& m : snapshot.meshes) by_mesh[m.mesh].emplace_back(m.instance.model, palette(m.instance));
  for (const auto& [mesh, batch] : by_mesh) gpu_->draw(gpu_->uploaded(*mesh), batch);

  if (options.aabbs) {
    glUniform1i(gpu_->lit, GL_FALSE);
    gpu_->draw(*gpu_->edges, wire_instances(snapshot.aabbs, kAabbColour));
  }
  for (const WireBoxes& set : options.wire_boxes) {
    glUniform1i(gpu_->lit, GL_FALSE);
    gpu_->draw(*gpu_->edges, wire_instances(set.boxes, set.colour));
  }
  if (options.lines.size() >= 2) {
    // The segments change every frame: a buffer of their own, uploaded and freed here.
    const GpuMesh lines(line_mesh(options.lines), GL_LINES, gpu_->instances);
    glUniform1i(gpu_->lit, GL_FALSE);
    // Over everything: pairs join centres, which lie inside the shapes that would hide them.
    glDisable(GL_DEPTH_TEST);
    gpu_->draw(lines, {GpuInstance(glm::mat4(1.0f), kLineColour)});
    glEnable(GL_DEPTH_TEST);
  }
  for (const ColouredLines& set : options.coloured_lines) {
    if (set.ends.size() < 2) continue;
    // Depth-tested, unlike the pair lines: a ray ending on a surface should be seen to.
    const GpuMesh lines(line_mesh(set.ends), GL_LINES, gpu_->instances);
    glUniform1i(gpu_->lit, GL_FALSE);
    gpu_->draw(lines, {GpuInstance(glm::mat4(1.0f), set.colour)});
  }
  glBindVertexArray(0);
  glUseProgram(0);
  glDisable(GL_CULL_FACE);  // GL's default, as other drawing in the context expects
}

}  // namespace agrid::render
