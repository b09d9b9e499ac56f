#include "peer.h"

#include "peers_impl.h"

namespace agrid::peers {

std::string Peer::cannot_take(std::span<const Box> /*boxes*/) const { return {}; }

std::vector<std::unique_ptr<Peer>> make_peers() {
  std::vector<std::unique_ptr<Peer>> peers;
  peers.push_back(make_brute_force_simd());
  peers.push_back(make_uniform_grid());
  peers.push_back(make_sap());
  return peers;
}

}  // namespace agrid::peers
