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
  static constexpr int exchange_bytes(int) { return 0; }

  template <class T>
  CUDP_DEVICE static T pass_right(const T& out, int, int, void*) { return out; }
  template <class T, class Merge>
  CUDP_DEVICE static T reduce(const T& v, int, void*, Merge) { return v; }
};

}  // namespace cudp::tiers
