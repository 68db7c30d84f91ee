#pragma once
// The host's pruning tier. Site patterns are independent through a whole traversal, so each thread takes a block
// of patterns and runs every operation on it: one hand-out per block instead of one barrier per node, and a block's
// partials stay in cache from the children to their parent.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "../host/parallel_for.hpp"
#include "pruning_buffers.hpp"

namespace cudp::tiers {

inline constexpr int host_pruning_block = 64;

template <class Policy, class Real>
void prune_on_host(const PruningBuffers<Real>& b, const std::vector<PruningOperation>& operations, int threads = 0) {
  static_assert(Policy::states > 0, "a pruning policy names its state count");
  if (b.states != Policy::states) throw std::invalid_argument("prune_on_host: buffers and policy differ in states");
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
