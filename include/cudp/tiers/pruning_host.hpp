#pragma once
// The host's pruning tier. Site patterns are independent through a whole traversal, so each thread takes a block
// of patterns and runs every operation on it: one hand-out per block instead of one barrier per node, and a block's
// partials stay in cache from the children to their parent. Felsenstein's pruning (a policy whose fold is the dot
// product) runs in vector lanes where the compiler has them (pruning_host_lanes.hpp), to the same bits as the scalar
// loop that serves every other policy.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "../host/parallel_for.hpp"
#include "pruning_buffers.hpp"
#include "pruning_host_lanes.hpp"

namespace cudp::tiers {

inline constexpr int host_pruning_block = 64;

template <class Policy, class Real>
void prune_on_host(const PruningBuffers<Real>& b, const std::vector<PruningOperation>& operations, int threads = 0) {
  static_assert(Policy::states > 0, "a pruning policy names its state count");
  if (b.states != Policy::states) throw std::invalid_argument("prune_on_host: buffers and policy differ in states");
#if defined(CUDP_HAS_PRUNING_LANES)
  if constexpr (sums_products<Policy>::value) {
    constexpr int block_patterns = pruning_lanes::block_patterns<Real, Policy::states>();
    const auto block_kernel = pruning_lanes::prune_block_for_this_host<Policy, Real, block_patterns>();
    host::parallel_for(
        (static_cast<std::size_t>(b.patterns) + block_patterns - 1) / block_patterns, threads, [] { return 0; },
        [&](int, std::size_t block) {
          const int first = static_cast<int>(block) * block_patterns;
          const int last = std::min(b.patterns, first + block_patterns);
          for (const PruningOperation& op : operations) block_kernel(b, op, first, last);
        });
    return;
  }
#endif
  const std::size_t blocks = (static_cast<std::size_t>(b.patterns) + host_pruning_block - 1) / host_pruning_block;
  host::parallel_for(
      blocks, threads, [] { return 0; },
      [&](int, std::size_t block) {
        const int first = static_cast<int>(block) * host_pruning_block;
        const int last = std::min(b.patterns, first + host_pruning_block);
        for (const PruningOperation& op : operations)
          for (int p = first; p < last; ++p) prune_pattern<Policy>(b, op, p);
      });
}

}  // namespace cudp::tiers
