#pragma once
// The tile tier: each node of a traversal as a matrix product. For one category and one child c of a node,
//
//     T[p][s] = sum_j X[p][j] P[s][j]        (X: the child's partials over a tile of patterns, P: its edge's matrix)
//
// and the node's vector is the join of its children's T. A block owns a tile of patterns for the whole traversal
// (patterns never meet, so blocks never wait on each other and a traversal is still one launch) and all the
// categories of those patterns, one group of threads per category: a group stages the matrix and the child's tile
// in shared memory, and each thread keeps a small grid of (pattern, state) outputs in registers, so that every
// value read from shared memory feeds several multiply-adds (CUDA cores, FmaTile) or goes into a tensor-core MMA
// (MmaTile). The block then takes each pattern's largest value over states and categories, settles its exponent
// (settle_exponent) and rescales in registers before the values go out, once.
//
// Against the by-state tier at 61 states (tiers/pruning.cuh): that tier reads one shared value per multiply-add
// and stages every matrix for 16 patterns; here a matrix is staged once per tile of about patterns / SMs patterns
// (40 for 5000 patterns on an H100), and the whole evaluation went from 2.43 to 0.65 ms (phylo/pruning_tuning.hpp).
//
// The tier knows the policy's members and nothing else: join/unit for the children, edge_add/edge_zero (the fold
// that through_edge is) for the products, through_edge_to_state for tips seen as one state or none, and the
// rescaling members. MmaTile needs Policy::sum_of_products (the fold is the dot product).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "pruning_buffers.hpp"

namespace cudp::tiers {

namespace tile_detail {

CUDP_HD constexpr int round_up(int x, int to) { return (x + to - 1) / to * to; }

using tiers::sums_products;

// A barrier for one group (a multiple of 32 threads): groups step through their categories on their own, so that
// one group's staging overlaps another's products. barrier.sync, not bar.sync: the latter assumes a converged
// warp, which the compiler does not ensure before inline assembly (racecheck caught the difference).
CUDP_DEVICE void group_sync(int id, int threads) {
  asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// One value from global to shared memory without passing through registers, so that a thread has all its staging
// copies in flight at once (one memory latency per stage rather than one per batch of loads).
CUDP_DEVICE void copy_async(float* shared, const float* global) {
  asm volatile(
      "cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(shared))),
      "l"(global)
      : "memory");
}
CUDP_DEVICE void copy_async(double* shared, const double* global) {
  asm volatile(
      "cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(shared))),
      "l"(global)
      : "memory");
}
CUDP_DEVICE void wait_copies() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// Non-negative reals order as their bit patterns do, so a pattern's largest value is an integer atomicMax.
template <class Real>
using Bits = std::conditional_t<sizeof(Real) == 4, unsigned, unsigned long long>;
CUDP_DEVICE void store_max(unsigned* slot, float v) { atomicMax(slot, __float_as_uint(v)); }
CUDP_DEVICE void store_max(unsigned long long* slot, double v) {
  atomicMax(slot, static_cast<unsigned long long>(__double_as_longlong(v)));
}
CUDP_DEVICE float from_bits(unsigned u) { return __uint_as_float(u); }
CUDP_DEVICE double from_bits(unsigned long long u) { return __longlong_as_double(static_cast<long long>(u)); }

// A float rounded to TF32 (10-bit mantissa), to nearest with ties away from zero as cvt.rna does, for finite values.
CUDP_DEVICE std::uint32_t tf32_bits(float x) { return (__float_as_uint(x) + 0x1000u) & 0xffffe000u; }

CUDP_DEVICE void mma(float& c0, float& c1, float& c2, float& c3, std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                     std::uint32_t a3, std::uint32_t b0, std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

CUDP_DEVICE void mma(double& c0, double& c1, double& c2, double& c3, double a0, double a1, double a2, double a3,
                     double b0, double b1) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+d"(c0), "+d"(c1), "+d"(c2), "+d"(c3)
               : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
}

}  // namespace tile_detail

// CUDA cores. A thread holds Rows patterns x Cols states: patterns `units` apart (units = pattern groups per
// category group) and states ceil(S / Cols) apart, so that the lanes of a warp cover consecutive states (coalesced
// stores, conflict-free matrix rows) and share patterns (broadcast tile rows). Both operands are read 16 bytes at a
// time along j; rows sit an odd number of 16-byte units apart.
template <class Policy, int Rows, int Cols>
struct FmaTile {
  using Real = typename Policy::Value;
  static constexpr int states = Policy::states;
  static constexpr int rows = Rows, cols = Cols;
  static constexpr int state_groups = (states + Cols - 1) / Cols;
  static constexpr int matrix_rows = state_groups * Cols;
  static constexpr int vector = 16 / static_cast<int>(sizeof(Real));
  static constexpr int width = tile_detail::round_up(states, vector);
  static constexpr int stride = (width / vector) % 2 == 1 ? width : width + vector;
  // Two Rows x Cols grids (the node's values and one child's products) must stay in registers.
  static constexpr int max_threads = sizeof(Real) == 4 ? 768 : 512;
  CUDP_HD static int patterns(int units) { return units * Rows; }
  CUDP_HD static int threads(int units) { return tile_detail::round_up(units * state_groups, 32); }
  CUDP_HD static constexpr int column(int j) { return j; }

  int units, pattern_group, state_group;
  CUDP_DEVICE FmaTile(int thread, int units_)
      : units(units_), pattern_group(thread / state_groups), state_group(thread % state_groups) {}
  CUDP_DEVICE bool active() const { return pattern_group < units; }
  CUDP_DEVICE int pattern(int i) const { return pattern_group + units * i; }
  CUDP_DEVICE int state(int j) const { return state_group + state_groups * j; }

  CUDP_DEVICE void product(Real (&acc)[Rows][Cols], const Real* matrix, const Real* tile) const {
    struct alignas(16) Vector {
      Real v[vector];
    };
    const Real* x[Rows];
    const Real* m[Cols];
    CUDP_UNROLL
    for (int i = 0; i < Rows; ++i) x[i] = tile + pattern(i) * stride;
    CUDP_UNROLL
    for (int j = 0; j < Cols; ++j) m[j] = matrix + state(j) * stride;
    // Only j < S: the fold need not be a sum, so zero padding is never folded in.
    constexpr int whole = states / vector * vector;
    CUDP_UNROLL
    for (int k = 0; k < whole; k += vector) {
      Vector xv[Rows];
      CUDP_UNROLL
      for (int i = 0; i < Rows; ++i) xv[i] = *reinterpret_cast<const Vector*>(x[i] + k);
      CUDP_UNROLL
      for (int j = 0; j < Cols; ++j) {
        const Vector mv = *reinterpret_cast<const Vector*>(m[j] + k);
        CUDP_UNROLL
        for (int i = 0; i < Rows; ++i) CUDP_UNROLL
        for (int v = 0; v < vector; ++v) acc[i][j] = Policy::edge_add(acc[i][j], mv.v[v], xv[i].v[v]);
      }
    }
    CUDP_UNROLL
    for (int k = whole; k < states; ++k) CUDP_UNROLL
    for (int i = 0; i < Rows; ++i) CUDP_UNROLL
    for (int j = 0; j < Cols; ++j) acc[i][j] = Policy::edge_add(acc[i][j], m[j][k], x[i][k]);
  }
};

// Tensor cores, m16n8k8 (TF32 for float, FP64 for double): M = parent states (16 per MMA), N = patterns (8 per
// warp), K = child states, zero-padded to 8. The matrix is the row-major A and the child's tile the column-major B
// as both are stored, so nothing is transposed. A lane's outputs are the accumulator fragment's: patterns 2t, 2t+1
// of its warp's 8, states g and g + 8 of every block of 16 (g = lane / 4, t = lane % 4).
//
// float: Passes = 3 splits each operand into a TF32 head and a TF32 tail and adds the three products that matter
// (tail x head, head x tail, head x head): 1e-8 of the log-likelihood from double at 20 and 61 states, against
// 1e-9 on the CUDA cores. Passes = 1 rounds each operand once: 1e-6 of the log-likelihood, 1e-3 of a value.
// Columns are stored with j and j + 4 side by side, so that each lane's two values of one row are one 8-byte load;
// rows sit 8 (mod 16) words apart, so the loads of a warp meet no bank twice.
// double: FP64 MMA (products exact, sums rounded to nearest); rows sit 4 (mod 8) doubles apart.
template <class Policy, int Passes>
struct MmaTile {
  using Real = typename Policy::Value;
  static constexpr bool single = sizeof(Real) == 4;
  static constexpr int states = Policy::states;
  static constexpr int m_tiles = (states + 15) / 16;
  static constexpr int rows = 2, cols = 2 * m_tiles;
  static constexpr int matrix_rows = 16 * m_tiles;
  static constexpr int width = tile_detail::round_up(states, 8);
  static constexpr int stride = single ? (width % 16 == 8 ? width : width + 8) : width + 4;
  static constexpr int max_threads = 640;
  CUDP_HD static int patterns(int units) { return units * 8; }
  CUDP_HD static int threads(int units) { return units * 32; }
  CUDP_HD static constexpr int column(int j) { return single ? (j & ~7) | ((j & 3) << 1) | ((j >> 2) & 1) : j; }

  int warp, g, t;
  CUDP_DEVICE MmaTile(int thread, int) : warp(thread >> 5), g((thread & 31) >> 2), t(thread & 3) {}
  CUDP_DEVICE bool active() const { return true; }
  CUDP_DEVICE int pattern(int i) const { return 8 * warp + 2 * t + i; }
  CUDP_DEVICE int state(int j) const { return 16 * (j >> 1) + g + 8 * (j & 1); }

  CUDP_DEVICE void product(Real (&acc)[rows][cols], const Real* matrix, const Real* tile) const {
    using tile_detail::mma;
    using tile_detail::tf32_bits;
    const Real* x = tile + (8 * warp + g) * stride;
    const Real* m = matrix + g * stride;
#pragma unroll 1
    for (int k = 0; k < width; k += 8) {
      if constexpr (single) {
        const float2 xb = *reinterpret_cast<const float2*>(x + k + 2 * t);
        const std::uint32_t b0 = tf32_bits(xb.x), b1 = tf32_bits(xb.y);
        std::uint32_t b0_tail = 0, b1_tail = 0;
        if constexpr (Passes == 3) {
          b0_tail = tf32_bits(xb.x - __uint_as_float(b0));
          b1_tail = tf32_bits(xb.y - __uint_as_float(b1));
        }
        CUDP_UNROLL
        for (int mt = 0; mt < m_tiles; ++mt) {
          const float2 lo = *reinterpret_cast<const float2*>(m + 16 * mt * stride + k + 2 * t);
          const float2 hi = *reinterpret_cast<const float2*>(m + (16 * mt + 8) * stride + k + 2 * t);
          const std::uint32_t a0 = tf32_bits(lo.x), a1 = tf32_bits(hi.x), a2 = tf32_bits(lo.y), a3 = tf32_bits(hi.y);
          // The MMA truncates its float sums: a running sum carried through it loses part of an ulp per step,
          // always downwards (1.1e-7 of the 61-state log-likelihood). Each k step starts from zero instead and is
          // added in round-to-nearest (1.3e-8).
          float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
          if constexpr (Passes == 3) {
            // The small products first, so that they are not lost against the large one.
            mma(c0, c1, c2, c3, tf32_bits(lo.x - __uint_as_float(a0)), tf32_bits(hi.x - __uint_as_float(a1)),
                tf32_bits(lo.y - __uint_as_float(a2)), tf32_bits(hi.y - __uint_as_float(a3)), b0, b1);
            mma(c0, c1, c2, c3, a0, a1, a2, a3, b0_tail, b1_tail);
          }
          mma(c0, c1, c2, c3, a0, a1, a2, a3, b0, b1);
          acc[0][2 * mt] += c0;
          acc[1][2 * mt] += c1;
          acc[0][2 * mt + 1] += c2;
          acc[1][2 * mt + 1] += c3;
        }
      } else {
        // Two grids of doubles already fill most of the registers: one k step at a time (see the loop's pragma).
        const double b0 = x[k + t], b1 = x[k + t + 4];
        CUDP_UNROLL
        for (int mt = 0; mt < m_tiles; ++mt) {
          const double* lo = m + 16 * mt * stride + k + t;
          const double* hi = lo + 8 * stride;
          mma(acc[0][2 * mt], acc[1][2 * mt], acc[0][2 * mt + 1], acc[1][2 * mt + 1], lo[0], hi[0], lo[4], hi[4], b0,
              b1);
        }
      }
    }
  }
};

namespace tile_detail {

// Starts copying `values` consecutive values (rows of S) from global memory into rows of Tile::stride, columns
// placed by Tile::column; wait_copies() and a barrier finish it.
template <class Tile, class Real>
CUDP_DEVICE void stage_rows(Real* shared, const Real* global, int values, int thread, int threads) {
  constexpr int S = Tile::states;
  // Value e sits at (e / S, e % S); both step by `threads` without a division per value.
  const int row_step = threads / S, column_step = threads - row_step * S;
  int r = thread / S, k = thread - r * S;
  for (int e = thread; e < values; e += threads) {
    copy_async(shared + r * Tile::stride + Tile::column(k), global + e);
    r += row_step;
    k += column_step;
    if (k >= S) {
      k -= S;
      ++r;
    }
  }
}

}  // namespace tile_detail

// blockDim = groups x Tile::threads(units); block b owns patterns [b x tile, (b + 1) x tile), tile =
// Tile::patterns(units); group z takes categories z, z + groups, ... Shared memory: per group the matrix
// (Tile::matrix_rows rows) and the child's tile (tile rows), rows of Tile::stride with the padding zero; then one
// largest value and one exponent per pattern.
template <class Policy, class Tile>
__global__ void __launch_bounds__(Tile::max_threads, 1)
    prune_traversal_by_tile_kernel(PruningBuffers<typename Policy::Value> b, const PruningOperation* operations,
                                   int count, int groups, int units) {
  using Real = typename Policy::Value;
  using Bits = tile_detail::Bits<Real>;
  constexpr int S = Policy::states, stride = Tile::stride, R = Tile::rows, C = Tile::cols;
  const int tile_patterns = Tile::patterns(units), group_threads = Tile::threads(units);
  const int group_values = (Tile::matrix_rows + tile_patterns) * stride;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Real* const shared = reinterpret_cast<Real*>(shared_bytes);
  Bits* const largest = reinterpret_cast<Bits*>(shared + groups * group_values);
  int* const exponent_of = reinterpret_cast<int*>(largest + tile_patterns);

  const int thread = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const int z = thread / group_threads, local = thread % group_threads, barrier = 1 + z;
  Real* const matrix = shared + z * group_values;
  Real* const child_tile = matrix + Tile::matrix_rows * stride;
  const Tile tile(local, units);
  const int first = static_cast<int>(blockIdx.x) * tile_patterns;
  const int turns = (b.categories + groups - 1) / groups;
  const int valid = min(tile_patterns, b.patterns - first);

  // Padding rows and columns stay zero for the whole traversal: staging writes only rows < S (< valid) and j < S.
  const int words = static_cast<int>(
      (static_cast<std::size_t>(groups) * group_values * sizeof(Real) + tile_patterns * (sizeof(Bits) + sizeof(int))) /
      4);
  for (int w = thread; w < words; w += threads) reinterpret_cast<std::uint32_t*>(shared_bytes)[w] = 0;
  __syncthreads();

  for (int o = 0; o < count; ++o) {
    const PruningOperation op = operations[o];
    Real top[R];
    Real out[R][C];
    CUDP_UNROLL
    for (int i = 0; i < R; ++i) top[i] = 0;
    int last_category = z;
    for (int turn = 0; turn < turns; ++turn) {
      const int c = z + turn * groups;
      if (c >= b.categories) {
        // A group with one category fewer passes the same barriers as the others. Not needed for correctness (no
        // group touches another's rows), but racecheck reported races between groups that had passed different
        // numbers of named barriers, and none once the numbers matched.
        for (int k = 0; k < 2; ++k)
          if ((k == 0 ? op.child[0] : op.child[1]) >= 0 && (k == 0 ? op.matrix[0] : op.matrix[1]) >= 0) {
            tile_detail::group_sync(barrier, group_threads);
            tile_detail::group_sync(barrier, group_threads);
          }
        continue;
      }
      last_category = c;
      const bool last = c + groups >= b.categories;
      CUDP_UNROLL
      for (int i = 0; i < R; ++i) CUDP_UNROLL
      for (int j = 0; j < C; ++j) out[i][j] = Policy::unit();
      for (int k = 0; k < 2; ++k) {
        // Not op.child[k]: a run-time index would put the operation in local memory.
        const int child = k == 0 ? op.child[0] : op.child[1], edge = k == 0 ? op.matrix[0] : op.matrix[1];
        if (child < 0) continue;
        if (edge < 0) {
          // Handed over unchanged; each thread reads the values it wrote itself (the child may be the destination).
          if (!tile.active()) continue;
          CUDP_UNROLL
          for (int i = 0; i < R; ++i) {
            const int p = tile.pattern(i);
            if (p >= valid) continue;
            const Real* v = b.partial(child, c, first + p);
            CUDP_UNROLL
            for (int j = 0; j < C; ++j)
              if (tile.state(j) < S) out[i][j] = Policy::join(out[i][j], v[tile.state(j)]);
          }
          continue;
        }
        const bool tip = b.is_tip(child);
        tile_detail::group_sync(barrier, group_threads);  // the last product has read the shared rows
        tile_detail::stage_rows<Tile>(matrix, b.matrix(edge, c), S * S, local, group_threads);
        if (!tip)
          tile_detail::stage_rows<Tile>(child_tile, b.partial(child, c, first), valid * S, local, group_threads);
        tile_detail::wait_copies();
        tile_detail::group_sync(barrier, group_threads);
        if (!tile.active()) continue;
        if (tip) {
          CUDP_UNROLL
          for (int i = 0; i < R; ++i) {
            const int p = tile.pattern(i);
            if (p >= valid) continue;
            const int code = __ldg(b.tip_codes + static_cast<std::int64_t>(child) * b.patterns + first + p);
            CUDP_UNROLL
            for (int j = 0; j < C; ++j) {
              const int s = tile.state(j);
              if (s >= S) continue;
              const Real* row = matrix + s * stride;
              Real v;
              if (code <= S) {
                // The row as the policy indexes it: entry `code` sits at column(code).
                v = Policy::through_edge_to_state(row + (Tile::column(code) - code), code);
              } else {
                const Real* set = b.code_set(code);
                v = Policy::edge_zero();
                for (int q = 0; q < S; ++q) v = Policy::edge_add(v, row[Tile::column(q)], set[q]);
              }
              out[i][j] = Policy::join(out[i][j], v);
            }
          }
        } else {
          Real acc[R][C];
          CUDP_UNROLL
          for (int i = 0; i < R; ++i) CUDP_UNROLL
          for (int j = 0; j < C; ++j) acc[i][j] = Policy::edge_zero();
          tile.product(acc, matrix, child_tile);
          CUDP_UNROLL
          for (int i = 0; i < R; ++i) CUDP_UNROLL
          for (int j = 0; j < C; ++j) out[i][j] = Policy::join(out[i][j], acc[i][j]);
        }
      }
      // Every category but the group's last goes out now; the last waits in registers for the exponent.
      if (!tile.active()) continue;
      CUDP_UNROLL
      for (int i = 0; i < R; ++i) {
        const int p = tile.pattern(i);
        if (p >= valid) continue;
        Real* dst = b.partial(op.destination, c, first + p);
        CUDP_UNROLL
        for (int j = 0; j < C; ++j) {
          const int s = tile.state(j);
          if (s >= S) continue;
          top[i] = out[i][j] > top[i] ? out[i][j] : top[i];
          if (!last || !Policy::rescales) dst[s] = out[i][j];
        }
      }
    }
    if constexpr (Policy::rescales) {
      if (tile.active()) {
        CUDP_UNROLL
        for (int i = 0; i < R; ++i)
          if (tile.pattern(i) < valid) tile_detail::store_max(largest + tile.pattern(i), top[i]);
      }
      __syncthreads();
      for (int p = thread; p < valid; p += threads) {
        const Real l = tile_detail::from_bits(largest[p]);
        largest[p] = 0;
        exponent_of[p] = settle_exponent<Policy>(b, op, first + p, l);
      }
      __syncthreads();
      if (!tile.active()) continue;
      CUDP_UNROLL
      for (int i = 0; i < R; ++i) {
        const int p = tile.pattern(i);
        if (p >= valid) continue;
        const int e = exponent_of[p];
        if (e != 0) {
          CUDP_UNROLL
          for (int j = 0; j < C; ++j) out[i][j] = Policy::rescaled(out[i][j], e);
          for (int c = z; c < last_category; c += groups) {
            Real* v = b.partial(op.destination, c, first + p);
            CUDP_UNROLL
            for (int j = 0; j < C; ++j)
              if (tile.state(j) < S) v[tile.state(j)] = Policy::rescaled(v[tile.state(j)], e);
          }
        }
        Real* dst = b.partial(op.destination, last_category, first + p);
        CUDP_UNROLL
        for (int j = 0; j < C; ++j)
          if (tile.state(j) < S) dst[tile.state(j)] = out[i][j];
      }
    }
  }
}

// One traversal with the tile tier. The tile is sized so that the patterns make about blocks_per_multiprocessor
// blocks per SM (one wave), within the tile's thread limit and the device's shared memory.
template <class Policy, class Tile>
cudaError_t launch_pruning_by_tile(const PruningTuning& tuning, const PruningBuffers<typename Policy::Value>& b,
                                   const PruningOperation* operations, int count, cudaStream_t stream) {
  using Real = typename Policy::Value;
  if (b.patterns == 0 || b.categories == 0 || count == 0) return cudaSuccess;
  int device = 0, multiprocessors = 0, shared_limit = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess)
    status = cudaDeviceGetAttribute(&shared_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (status != cudaSuccess) return status;
  constexpr int max_groups = 4;  // the categories of a block's patterns side by side; more take turns
  const int groups = std::min(b.categories, max_groups);
  const auto shared_bytes = [&](int units) {
    const int tile = Tile::patterns(units);
    return static_cast<std::size_t>(groups) * (Tile::matrix_rows + tile) * Tile::stride * sizeof(Real) +
           static_cast<std::size_t>(tile) * (sizeof(tile_detail::Bits<Real>) + sizeof(int));
  };
  const auto fits = [&](int units) {
    return groups * Tile::threads(units) <= Tile::max_threads &&
           shared_bytes(units) <= static_cast<std::size_t>(shared_limit);
  };
  const long long blocks_wanted =
      static_cast<long long>(multiprocessors) * std::max(1, tuning.blocks_per_multiprocessor);
  const int per_block = static_cast<int>((b.patterns + blocks_wanted - 1) / blocks_wanted);
  int units = std::max(1, (per_block + Tile::patterns(1) - 1) / Tile::patterns(1));
  while (units > 1 && !fits(units)) --units;
  if (!fits(units)) return cudaErrorInvalidConfiguration;
  const int tile = Tile::patterns(units);
  const std::size_t bytes = shared_bytes(units);
  const auto kernel = prune_traversal_by_tile_kernel<Policy, Tile>;
  status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (status != cudaSuccess) return status;
  kernel<<<(b.patterns + tile - 1) / tile, groups * Tile::threads(units), bytes, stream>>>(b, operations, count, groups,
                                                                                           units);
  return cudaGetLastError();
}

}  // namespace cudp::tiers
