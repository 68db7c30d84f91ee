#pragma once
// Block tier: one task per block. Every thread of the block owns a column tile; the wavefront runs across the
// whole block with the carry passed through shared memory and one barrier per row, so a single huge target gets a
// whole multiprocessor, and strips of BlockThreads*R columns bound the query's length only by memory.
#include "../config.hpp"

namespace cudp::tiers {

template <int ColumnsPerThread = 8, int BlockThreads = 256>
struct BlockTier {
  static constexpr const char* name = "block";
  static constexpr int group_size = BlockThreads;
  static constexpr int columns_per_thread = ColumnsPerThread;
  static constexpr int block_threads = BlockThreads;
  // Two rows of carries, alternating, so a thread may write step q+1's while a slower one still reads step q's.
  static constexpr int exchange_bytes(int carry_bytes) { return 2 * BlockThreads * carry_bytes; }

  template <class T>
  CUDP_DEVICE static T pass_right(const T& out, int rank, int step, void* smem) {
    T* slots = static_cast<T*>(smem) + (step & 1) * BlockThreads;
    slots[rank] = out;
    __syncthreads();
    return rank > 0 ? slots[rank - 1] : out;
  }
  template <class T, class Merge>
  CUDP_DEVICE static T reduce(T v, int rank, void* smem, Merge merge) {
    T* slots = static_cast<T*>(smem);
    __syncthreads();
    slots[rank] = v;
    __syncthreads();
    for (int stride = BlockThreads / 2; stride > 0; stride /= 2) {
      if (rank < stride) slots[rank] = merge(slots[rank], slots[rank + stride]);
      __syncthreads();
    }
    return slots[0];
  }
};

}  // namespace cudp::tiers
