// The reallocations of shrink_if_far_below, compiled once for the element types most arrays hold
// (see reallocate in slack_growth.h).

#include "common/slack_growth.h"

namespace agrid::detail {

template void reallocate(std::vector<std::uint32_t>&, std::size_t);
template void reallocate(std::vector<std::uint64_t>&, std::size_t);
template void reallocate(std::vector<Box>&, std::size_t);
template void reallocate(std::vector<Pair>&, std::size_t);
template void reallocate(std::vector<std::vector<std::uint64_t>>&, std::size_t);

}  // namespace agrid::detail
