#pragma once
// Striped-rows tier: a row-synchronous recurrence (the Plan7 filters) with the model striped across a group of G
// lanes (recurrences/striped.hpp), one target per group, rows in order. Q segments per lane sit in registers,
// chosen at compile time per model-size bucket. A group is a power-of-two part of a warp (WarpStripedGroup), or for
// models of thousands of nodes several whole warps of the block (BlockStripedGroup), which then exchange across
// warps through shared memory. The groups of a warp take neighbouring targets of a length-sorted list and step
// together to the warp's longest, each recording its own result at its last row or when the policy finishes early,
// so every shuffle runs on a converged warp.
//
// Policy contract (see hmmer/striped_msv.hpp): Model (device pointers and constants, with a StripedShape),
// Columns<Seg> (per-lane node constants, load()), Cells<Seg> (per-lane DP words), Specials (row-uniform state),
// Result; begin(), row(), finished(), finish(). The group object gives the policy lane(), shift<L>(), up(), max(), sum(), any();
// row() and finish() must be called by the whole group (they may shuffle, vote and, across warps, synchronise).
#include <cstdint>
#include <type_traits>

#include "../config.hpp"
#include "../recurrences/concepts.hpp"
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

// A group of W = G / 32 whole warps. Every exchange goes through the group's slots in shared memory behind one named
// barrier of the group's G threads; the slots alternate between two halves, so a warp that runs ahead writes the
// other half while the last readers of this one finish (the barrier of the next exchange orders them).
template <int G>
struct BlockStripedGroup {
  static_assert(G > 32 && G % 32 == 0 && (G & (G - 1)) == 0, "a power-of-two number of whole warps");
  static constexpr int size = G;
  static constexpr int warps = G / 32;
  int rank = 0;
  int barrier = 1;                   // the named barrier of this group (0 is __syncthreads')
  unsigned int* slots = nullptr;     // 2 x G words of shared memory
  mutable int half = 0;

  CUDP_DEVICE int lane() const { return rank; }
  template <class L>
  CUDP_DEVICE typename L::word shift(typename L::word w, typename L::word fill) const {
    using Word = typename L::word;
    Word below = __shfl_up_sync(0xffffffffu, w, 1);
    unsigned int* s = next_slots();
    if ((rank & 31) == 31) s[rank] = bits(w);
    sync();
    if (rank == 0) {
      below = fill;
    } else if ((rank & 31) == 0) {
      below = from_bits<Word>(s[rank - 1]);
    }
    return recurrences::shift_in<L>(w, below);
  }
  CUDP_DEVICE int max(int v) const {
    CUDP_UNROLL
    for (int offset = 16; offset > 0; offset /= 2) {
      const int other = __shfl_xor_sync(0xffffffffu, v, offset);
      v = v > other ? v : other;
    }
    const unsigned int* s = gather_warps(bits(v));
    v = from_bits<int>(s[0]);
    CUDP_UNROLL
    for (int k = 1; k < warps; ++k) v = v > from_bits<int>(s[k]) ? v : from_bits<int>(s[k]);
    return v;
  }
  CUDP_DEVICE float sum(float v) const {
    CUDP_UNROLL
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    const unsigned int* s = gather_warps(bits(v));
    v = from_bits<float>(s[0]);
    CUDP_UNROLL
    for (int k = 1; k < warps; ++k) v += from_bits<float>(s[k]);
    return v;
  }
  template <class T>
  CUDP_DEVICE T up(T v, int offset) const {
    unsigned int* s = next_slots();
    s[rank] = bits(v);
    sync();
    return rank >= offset ? from_bits<T>(s[rank - offset]) : v;
  }
  CUDP_DEVICE bool any(bool p) const {
    const unsigned int* s = gather_warps(__any_sync(0xffffffffu, p) ? 1u : 0u);
    unsigned int seen = 0;
    CUDP_UNROLL
    for (int k = 0; k < warps; ++k) seen |= s[k];
    return seen != 0;
  }

 private:
  CUDP_DEVICE void sync() const { asm volatile("bar.sync %0, %1;" ::"r"(barrier), "r"(G) : "memory"); }
  CUDP_DEVICE unsigned int* next_slots() const {
    unsigned int* s = slots + half * G;
    half ^= 1;
    return s;
  }
  // Each warp's value (lane 0's) in slots 0 .. warps-1, visible to the whole group.
  CUDP_DEVICE const unsigned int* gather_warps(unsigned int v) const {
    unsigned int* s = next_slots();
    if ((rank & 31) == 0) s[rank / 32] = v;
    sync();
    return s;
  }
  template <class T>
  CUDP_DEVICE static unsigned int bits(T v) {
    static_assert(sizeof(T) == 4, "32-bit exchange words");
    unsigned int u;
    __builtin_memcpy(&u, &v, 4);
    return u;
  }
  template <class T>
  CUDP_DEVICE static T from_bits(unsigned int u) {
    T v;
    __builtin_memcpy(&v, &u, 4);
    return v;
  }
};

template <int G>
using StripedGroup = std::conditional_t<(G <= 32), WarpStripedGroup<G>, BlockStripedGroup<G>>;

template <class Policy, int G, int Q, int BlockThreads = 128>
__global__ void __launch_bounds__(BlockThreads)
    striped_rows_kernel(typename Policy::Model md, StripedTargets targets, typename Policy::Result* results) {
  using Word = typename Policy::Word;
  using Seg = recurrences::FixedSegments<Word, Q>;
  static_assert(recurrences::check_striped_row_policy<Policy>());
  static_assert(BlockThreads % G == 0 && (G <= 32 || BlockThreads / G <= 15), "whole groups, named barriers 1-15");
  constexpr bool across_warps = G > 32;
  constexpr int groups_per_warp = across_warps ? 1 : 32 / G;
  constexpr int warps_per_group = across_warps ? G / 32 : 1;
  constexpr int broadcast = across_warps ? 32 : G;  // rows whose residues a warp loads at once
  const int lane32 = static_cast<int>(threadIdx.x & 31u);
  StripedGroup<G> g;
  g.rank = static_cast<int>(threadIdx.x % G);
  if constexpr (across_warps) {
    __shared__ unsigned int slots[BlockThreads / G][2 * G];
    const int group_in_block = static_cast<int>(threadIdx.x / G);
    g.barrier = 1 + group_in_block;
    g.slots = slots[group_in_block];
  }
  const int group_in_warp = across_warps ? 0 : lane32 / G;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * BlockThreads + threadIdx.x) / 32;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * BlockThreads / 32;

  typename Policy::template Columns<Seg> columns;
  columns.load(md, g);

  // The loop bound is the warp's (or the group's) first target, so that its lanes go round together.
  const std::size_t stride = warps / warps_per_group * groups_per_warp;
  for (std::size_t first = warp / warps_per_group * groups_per_warp; first < targets.count; first += stride) {
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
    for (std::uint32_t i0 = 0; i0 < rows; i0 += broadcast) {
      const std::uint32_t mine = i0 + static_cast<std::uint32_t>(lane32 % broadcast);
      const int code = mine < length ? targets.residues[start + mine] : 0;
      const int chunk = rows - i0 < static_cast<std::uint32_t>(broadcast) ? static_cast<int>(rows - i0) : broadcast;
      for (int r = 0; r < chunk; ++r) {
        Policy::row(md, g, columns, cells, specials, __shfl_sync(0xffffffffu, code, r, broadcast));
        const bool record = !done && (Policy::finished(specials) || i0 + static_cast<std::uint32_t>(r) + 1 == length);
        // finish() may reduce over the group: the whole warp (the whole group, when it spans warps, which then
        // all see the same record) calls it
        if (__any_sync(0xffffffffu, record)) {
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
