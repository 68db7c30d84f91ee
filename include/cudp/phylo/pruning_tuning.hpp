#pragma once
// Which pruning tier runs a state count on the GPU (tiers/pruning.cuh), measured on an H100 with
// bench/phylo_bench.cu (bench/RESULTS.md, 2026-11-24, single precision): one thread per pattern at 4 states
// (0.46 ms; by state 0.78), one per (pattern, state) at 20 (1.46 ms; by pattern 3.53, 4 patterns per thread 2.04),
// and the same with 4 patterns per thread at 61, where each block stages its matrices for more patterns (2.40 ms;
// 1 per thread 3.44, by pattern 5.69). Double precision ranks them the same way.
#include "../tiers/pruning_buffers.hpp"

namespace cudp::phylo {

inline tiers::PruningTuning pruning_tuning_for(int states) {
  if (states < 16) return {tiers::PruningTier::by_pattern, 1};
  if (states < 32) return {tiers::PruningTier::by_state, 1};
  return {tiers::PruningTier::by_tile_tensor, 1, 1};  // provisional: to be measured
}

}  // namespace cudp::phylo
