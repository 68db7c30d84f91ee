#pragma once
// Thread tier: one task (a packed word of targets) per thread, many per block, all walking the query strips in
// step so that each strip's profile tile is loaded into shared memory once per block. Best for the bulk of short
// and medium targets: no communication at all, the carry between strips goes through global memory.
#include "../config.hpp"

namespace cudp::tiers {

template <int ColumnsPerThread = 16, int BlockThreads = 128>
struct ThreadTier {
  static constexpr const char* name = "thread";
  static constexpr int group_size = 1;
  static constexpr int columns_per_thread = ColumnsPerThread;
  static constexpr int block_threads = BlockThreads;
  // Nothing in shared memory: a thread is its own group.
  template <class Carry, class Acc>
  struct TempStorage {};

  template <class Carry, class Acc>
  CUDP_DEVICE static Carry pass_right(const Carry& out, int, int, TempStorage<Carry, Acc>&) { return out; }
  template <class Acc, class Carry, class Merge>
  CUDP_DEVICE static Acc reduce(const Acc& v, int, TempStorage<Carry, Acc>&, Merge) { return v; }
};

}  // namespace cudp::tiers
