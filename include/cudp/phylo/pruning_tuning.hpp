#pragma once
// Which pruning tier runs a state count on the GPU (tiers/pruning.cuh), measured on an H100 with
// bench/phylo_bench.cu (single / double precision, ms per full evaluation, transition matrices included):
//   4 states (64 taxa, 100k patterns): one thread per pattern, 0.44 / 0.62 (tile tier, 2 blocks per SM, 0.48 / 1.34:
//     4 values a pattern are too few to share).
//   20 states (64 taxa, 20k patterns): tile tier on CUDA cores with 2 blocks per SM, 0.68 / 1.52 (1 block 0.75 /
//     1.94; tensor cores 1.22 / 1.42; one thread per (pattern, state) 1.88 / 2.77).
//   61 states (32 taxa, 5k patterns): tile tier on tensor cores, 0.65-0.68 / 0.72 (three TF32 products: 1e-8 of the
//     log-likelihood from double; CUDA cores 0.65 / 0.85; 2 blocks per SM 1.0 / 0.97; by state 2.43 / 3.29).
#include "../tiers/pruning_buffers.hpp"

namespace cudp::phylo {

inline tiers::PruningTuning pruning_tuning_for(int states) {
  if (states < 16) return {tiers::PruningTier::by_pattern, 1, 1};
  if (states < 32) return {tiers::PruningTier::by_tile, 1, 2};
  return {tiers::PruningTier::by_tile_tensor, 1, 1};
}

}  // namespace cudp::phylo
