#pragma once
// Warp tier: one task per group of GroupSize lanes of a warp (32: a whole warp). The group's threads own adjacent
// column tiles and run a wavefront down the rows, each thread one row behind its left neighbour; the carry moves
// right by one shuffle per row. A strip is GroupSize*R columns wide, so long queries cross global memory rarely.
#include "../config.hpp"
#include "exchange.cuh"

namespace cudp::tiers {

template <int GroupSize = 32, int ColumnsPerThread = 16, int BlockThreads = 128>
struct WarpTier {
  static_assert(GroupSize >= 2 && GroupSize <= 32 && (GroupSize & (GroupSize - 1)) == 0, "a power-of-two part of a warp");
  static constexpr const char* name = "warp";
  static constexpr int group_size = GroupSize;
  static constexpr int columns_per_thread = ColumnsPerThread;
  static constexpr int block_threads = BlockThreads;
  // Nothing in shared memory: carries and accumulators move by shuffles.
  template <class Carry, class Acc>
  struct TempStorage {};

  template <class Carry, class Acc>
  CUDP_DEVICE static Carry pass_right(const Carry& out, int, int, TempStorage<Carry, Acc>&) {
    return detail::shuffle_up<GroupSize>(out);
  }
  template <class Acc, class Carry, class Merge>
  CUDP_DEVICE static Acc reduce(Acc v, int, TempStorage<Carry, Acc>&, Merge merge) {
    CUDP_UNROLL
    for (int offset = GroupSize / 2; offset > 0; offset /= 2) v = merge(v, detail::shuffle_xor<GroupSize>(v, offset));
    return v;
  }
};

}  // namespace cudp::tiers
