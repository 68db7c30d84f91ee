#pragma once
// Striped-rows tier: a row-synchronous recurrence (the Plan7 filters) with the model striped across a group of G
// lanes of a warp (recurrences/striped.hpp), one target per group, rows in order. Q segments per lane sit in
// registers, chosen at compile time per model-size bucket. The groups of a warp take neighbouring targets of a
// length-sorted list and step together to the warp's longest, each recording its own result at its last row or
// when the policy finishes early, so every shuffle runs on a converged warp.
//
// Policy contract (see recurrences/plan7_msv.hpp): Model (device pointers and constants, with a StripedShape),
// Columns<Seg> (per-lane node constants, load()), Cells<Seg> (per-lane DP words), Specials (row-uniform state),
// Result; begin(), row(), finished(), finish(). The group object gives the policy lane(), shift<L>(), up(), max(), sum(), any();
// row() and finish() must be called by the whole warp (they may shuffle and vote).
#include <cstdint>

#include "../config.hpp"
#include "../recurrences/striped.hpp"
#include "striped_targets.hpp"

namespace cudp::tiers {

template <int G>
struct WarpStripedGroup {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "a power-of-two part of a warp");
  static constexpr int size = G;  // also the stride between a lane's segments in a striped table row
  int rank = 0;
  CUDP_DEVICE int lane() const { return rank; }
  template <class L>
  CUDP_DEVICE typename L::word shift(typename L::word w, typename L::word fill) const {
    const typename L::word below = __shfl_up_sync(0xffffffffu, w, 1, G);
    return recurrences::shift_in<L>(w, rank == 0 ? fill : below);
  }
  CUDP_DEVICE int max(int v) const {
    CUDP_UNROLL
    for (int offset = G / 2; offset > 0; offset /= 2) {
      const int other = __shfl_xor_sync(0xffffffffu, v, offset, G);
      v = v > other ? v : other;
    }
    return v;
  }
  CUDP_DEVICE float sum(float v) const {
    CUDP_UNROLL
    for (int offset = G / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset, G);
    return v;
  }
  // The value of the lane `offset` ranks down (a lane's own value where there is none).
  template <class T>
  CUDP_DEVICE T up(T v, int offset) const {
    return __shfl_up_sync(0xffffffffu, v, offset, G);
  }
  // Over the whole warp, not just this group: for decisions where doing more work than needed is harmless.
  CUDP_DEVICE bool any(bool p) const { return __any_sync(0xffffffffu, p); }
};

template <class Policy, int G, int Q, int BlockThreads = 128>
__global__ void __launch_bounds__(BlockThreads)
    striped_rows_kernel(typename Policy::Model md, StripedTargets targets, typename Policy::Result* results) {
  using Word = typename Policy::Word;
  using Seg = recurrences::FixedSegments<Word, Q>;
  constexpr int groups_per_warp = 32 / G;
  const int lane32 = static_cast<int>(threadIdx.x & 31u);
  const WarpStripedGroup<G> g{lane32 % G};
  const int group_in_warp = lane32 / G;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * BlockThreads + threadIdx.x) / 32;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * BlockThreads / 32;

  typename Policy::template Columns<Seg> columns;
  columns.load(md, g);

  for (std::size_t first = warp * groups_per_warp; first < targets.count; first += warps * groups_per_warp) {
    const std::size_t t = first + static_cast<std::size_t>(group_in_warp);
    const bool real = t < targets.count;
    const std::uint32_t id = real ? targets.ids[t] : 0;
    const std::uint64_t start = targets.offsets[id];
    const std::uint32_t length = real ? static_cast<std::uint32_t>(targets.offsets[id + 1] - start) : 0;
    std::uint32_t rows = length;
    CUDP_UNROLL
    for (int offset = 16; offset > 0; offset /= 2) {
      const std::uint32_t other = __shfl_xor_sync(0xffffffffu, rows, offset);
      rows = rows > other ? rows : other;
    }

    typename Policy::template Cells<Seg> cells;
    typename Policy::Specials specials;
    Policy::begin(md, length, cells, specials);
    typename Policy::Result result{};
    bool done = length == 0;
    for (std::uint32_t i0 = 0; i0 < rows; i0 += G) {
      const std::uint32_t mine = i0 + static_cast<std::uint32_t>(g.rank);
      const int code = mine < length ? targets.residues[start + mine] : 0;
      const int chunk = rows - i0 < static_cast<std::uint32_t>(G) ? static_cast<int>(rows - i0) : G;
      for (int r = 0; r < chunk; ++r) {
        Policy::row(md, g, columns, cells, specials, __shfl_sync(0xffffffffu, code, r, G));
        const bool record = !done && (Policy::finished(specials) || i0 + static_cast<std::uint32_t>(r) + 1 == length);
        if (__any_sync(0xffffffffu, record)) {  // finish() may reduce over the group: the whole warp calls it
          const typename Policy::Result answer = Policy::finish(md, g, specials);
          if (record) {
            result = answer;
            done = true;
            Policy::begin(md, 0, cells, specials);  // idle from a fresh start, so its votes stay quiet
          }
        }
      }
      if (__all_sync(0xffffffffu, done)) break;  // every group of the warp has its answer (overflow ends early)
    }
    if (real && g.rank == 0) results[t] = result;
  }
}

}  // namespace cudp::tiers
