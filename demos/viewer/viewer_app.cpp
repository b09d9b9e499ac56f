#include "viewer_app.h"

#include <chrono>
#include <cstdio>
#include <string>

#include "agrid_render/image.h"
#include "agrid_render/renderer.h"
#include "agrid_render/snapshot.h"
#include "frame_rate.h"
#include "grid_cells.h"
#include "orbit_camera.h"
#include "overlays.h"
#include "picking.h"
#include "simulation.h"
#include "viewer_input.h"
#include "viewer_panel.h"
#include "viewer_window.h"

namespace agrid::viewer {
namespace {

/// The longest frame time WASD flies for: a stalled frame must not throw the camera far away.
constexpr float kMaxFlySeconds = 0.1f;

using Clock = std::chrono::steady_clock;
using Milliseconds = std::chrono::duration<double, std::milli>;

/// Everything a frame works on.
class Viewer {
 public:
  explicit Viewer(const Options& options)
      : options_(options),
        window_("agrid-viewer", !options.quit),  // measuring: never wait for the screen
        simulation_(options.scene, options.bodies, options.seed, options.broadphase, options.threads) {
    install_input_callbacks(window_.handle(), events_);
    panel_.threads = static_cast<int>(simulation_.threads());
    start_overlays(options);
    camera_.frame(render::take_snapshot(simulation_.world(), meshes_).bounds);
  }

  int run() {
    while (!window_.should_close()) {
      events_ = {};
      window_.poll_events();
      control_.update(window_.handle(), events_, frame_seconds(), camera_);
      const bool last_frame = options_.quit ? scripted_step() : interactive_step();
      const auto drawing = Clock::now();
      draw_scene();
      if (last_frame && !options_.with_panel) screenshot();
      const auto gui = Clock::now();
      window_.begin_gui();
      const PanelRequests requests = draw_panel(simulation_, frame_rate_, paused_, panel_);
      window_.draw_gui();
      if (last_frame && options_.with_panel) screenshot();
      window_.swap();
      draw_ms_ += Milliseconds(gui - drawing).count();
      gui_and_swap_ms_ += Milliseconds(Clock::now() - gui).count();
      frame_rate_.frame();
      apply(requests);
      if (last_frame) break;
    }
    if (options_.report_fps) report_fps();
    return 0;
  }

 private:
  void start_overlays(const Options& options) {
    Overlays& o = panel_.overlays;
    o.aabbs = options.aabbs ? AabbOverlay::all : options.pick.empty() ? AabbOverlay::none : AabbOverlay::picked;
    o.pairs = options.pairs;
    o.colour_by_pairs = options.colour_by_pairs;
    o.rays = options.rays;
    o.cells = options.cell_depth.has_value();
    o.cell_depth = options.cell_depth.value_or(Overlays::kDefaultCellDepth);
  }

  // Picks the body under the window pixel (x, y), or none.
  void pick_at(double x, double y) {
    int width = 0;
    int height = 0;
    window_.window_size(width, height);
    const PickRay ray = ray_through(camera_.camera(), x, y, width, height);
    panel_.overlays.picked = simulation_.pick(ray.from, ray.to);
  }

  void screenshot() const {
    if (!options_.screenshot.empty()) render::write_png(options_.screenshot, window_.read_back_buffer());
  }

  float frame_seconds() {
    const auto now = std::chrono::steady_clock::now();
    const float seconds = std::chrono::duration<float>(now - last_frame_).count();
    last_frame_ = now;
    return seconds < kMaxFlySeconds ? seconds : kMaxFlySeconds;
  }

  // --quit: one step a frame until --steps, switching broadphase halfway if asked; true on the
  // frame after the last step (or the first frame, for --steps 0).
  bool scripted_step() {
    if (scripted_steps_ < options_.steps) {
      if (options_.switch_to && scripted_steps_ == options_.steps / 2) rebuild(*options_.switch_to);
      simulation_.step();
      ++scripted_steps_;
    }
    const bool done = scripted_steps_ == options_.steps;
    if (done && options_.pick.size() == 2) pick_at(options_.pick[0], options_.pick[1]);
    return done;
  }

  // The window's keys, then one step unless paused.
  bool interactive_step() {
    if (events_.toggle_pause) paused_ = !paused_;
    if (events_.reset) reset();
    if (events_.shoot) simulation_.shoot_box(camera_.eye(), camera_.forward());
    if (control_.click()) pick_at(control_.click()->x, control_.click()->y);
    if (!paused_ || events_.single_step) simulation_.step();
    return false;
  }

  void apply(const PanelRequests& requests) {
    if (requests.switch_to) rebuild(*requests.switch_to);
    if (requests.threads) simulation_.set_threads(*requests.threads);
    if (requests.toggle_pause) paused_ = !paused_;
    if (requests.single_step) simulation_.step();
    if (requests.reset) reset();
  }

  // The old world's shapes are freed: so must be the meshes made of them.
  void rebuild(scenes::BroadphaseKind kind) {
    simulation_.rebuild(kind);
    panel_.overlays.picked.reset();  // the new world's objects are other objects
    meshes_.clear();
    renderer_.forget_meshes();
  }

  void reset() {
    rebuild(simulation_.kind());
    camera_.frame(render::take_snapshot(simulation_.world(), meshes_).bounds);
  }

  void draw_scene() {
    int width = 0;
    int height = 0;
    window_.framebuffer_size(width, height);
    if (width <= 0 || height <= 0) return;  // minimised
    const render::Snapshot snapshot = render::take_snapshot(simulation_.world(), meshes_);
    render::DrawOptions draw;
    draw.camera = camera_.camera();
    add_overlays(simulation_, panel_.overlays, cells_, draw);
    renderer_.draw(snapshot, draw, width, height);
  }

  [[nodiscard]] double per_frame(double total_ms) const {
    return frame_rate_.frames() == 0 ? 0 : total_ms / static_cast<double>(frame_rate_.frames());
  }

  void report_fps() const {
    const BroadphaseTotals& totals = simulation_.totals()[static_cast<std::size_t>(simulation_.kind())];
    std::printf("agrid-viewer: %.1f frames per second (%llu frames in %.2f s; %s, %d objects, %s, %u threads; "
                "mean step %.2f ms, broadphase %.3f ms; GL: %s)\n"
                "agrid-viewer: per frame: scene snapshot and draw calls %.2f ms, panel and swap %.2f ms (llvmpipe "
                "draws at the swap)\n",
                frame_rate_.overall(), static_cast<unsigned long long>(frame_rate_.frames()), frame_rate_.seconds(),
                simulation_.scene().c_str(), simulation_.objects(), std::string(scenes::name(simulation_.kind())).c_str(),
                simulation_.threads(), totals.mean_step_ms(), totals.mean_broadphase_ms(), window_.gl_renderer().c_str(),
                per_frame(draw_ms_), per_frame(gui_and_swap_ms_));
  }

  const Options& options_;
  ViewerWindow window_;  // first: the GL context everything below draws with
  render::Renderer renderer_;
  render::MeshCache meshes_;
  Simulation simulation_;
  GridCells cells_;  ///< The cells overlay's grid, kept between frames.
  OrbitCamera camera_;
  CameraControl control_;
  InputEvents events_;
  PanelState panel_;
  FrameRate frame_rate_;
  std::chrono::steady_clock::time_point last_frame_ = std::chrono::steady_clock::now();
  double draw_ms_ = 0;          ///< Summed over the frames: snapshot and the scene's GL calls.
  double gui_and_swap_ms_ = 0;  ///< Summed over the frames: the panel and the swap.
  std::uint32_t scripted_steps_ = 0;
  bool paused_ = false;
};

}  // namespace

int run_viewer(const Options& options) {
  Viewer viewer(options);
  return viewer.run();
}

}  // namespace agrid::viewer
