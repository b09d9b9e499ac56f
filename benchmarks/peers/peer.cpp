#include "peer.h"

#include "peers_impl.h"

namespace agrid::peers {

std::string Peer::cannot_take(std::span<const Box> /*boxes*/) const { return {}; }

std::vector<std::unique_ptr<Peer>> make_peers() {
  std::vector<std::unique_ptr<Peer>> peers;
  peers.push_back(make_brute_force_simd());
  peers.push_back(make_uniform_grid());
  peers.push_back(make_sap());
  peers.push_back(make_dac());
  peers.push_back(make_kd_sweep());
  peers.push_back(make_parallel_bisap());
#ifdef AGRID_PEERS_BULLET
  peers.push_back(make_bt_dbvt());
  peers.push_back(make_bt_dbvt_frame2());
  peers.push_back(make_bt_axis_sweep());
  peers.push_back(make_bt_axis_sweep_frame2());
#endif
  peers.push_back(make_fcl_dynamic_tree());
  peers.push_back(make_fcl_sap());
  peers.push_back(make_fcl_interval_tree());
  peers.push_back(make_fcl_spatial_hash());
  return peers;
}

}  // namespace agrid::peers
