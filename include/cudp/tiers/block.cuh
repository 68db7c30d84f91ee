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
  // What the block keeps in shared memory: two rows of carries, alternating, so a thread may write step q+1's while
  // a slower one still reads step q's; once the rows are done, the same memory holds the reduction's tree.
  template <class Carry, class Acc>
  union TempStorage {
    Carry exchange[2][BlockThreads];
    Acc reduce[BlockThreads];
  };

  template <class Carry, class Acc>
  CUDP_DEVICE static Carry pass_right(const Carry& out, int rank, int step, TempStorage<Carry, Acc>& temp) {
    Carry* slots = temp.exchange[0] + (step & 1) * BlockThreads;  // row step & 1
    slots[rank] = out;
    __syncthreads();
    return rank > 0 ? slots[rank - 1] : out;
  }
  template <class Acc, class Carry, class Merge>
  CUDP_DEVICE static Acc reduce(Acc v, int rank, TempStorage<Carry, Acc>& temp, Merge merge) {
    Acc* slots = temp.reduce;
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
