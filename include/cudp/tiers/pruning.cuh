#pragma once
// The device's pruning tiers. Patterns never meet, so a whole traversal is one launch however deep the tree:
//   by pattern: one thread per pattern runs every operation on its own (prune_pattern). A warp reads the same
//               matrix entries (a broadcast) and consecutive patterns' partials. Few states: 4.
//   by state:   a block takes a few patterns and puts one thread on each (pattern, parent state); the block steps
//               through the operations together, with each category's two matrices staged in shared memory. For
//               20 or 61 states the one-thread-per-pattern tier has too few threads for the GPU (5000 patterns
//               are 5000 threads) and re-reads each child vector once per parent state.
//   by tile:    a block per tile of patterns, each node a matrix product on CUDA or tensor cores
//               (pruning_by_tile.cuh). 61 states: 5000 patterns x 4 categories are few (pattern, state) threads
//               for a GPU, each reading one shared value per multiply-add; a tile reuses each value many times.
#include <cuda_runtime.h>

#include <type_traits>

#include "pruning_buffers.hpp"
#include "pruning_by_tile.cuh"

namespace cudp::tiers {

template <class Policy, class Real>
__global__ void prune_traversal_kernel(PruningBuffers<Real> b, const PruningOperation* operations, int count) {
  const int pattern = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (pattern >= b.patterns) return;
  for (int i = 0; i < count; ++i) prune_pattern<Policy>(b, operations[i], pattern);
}

// blockDim = (states, y); each thread takes its state for Rounds patterns, y apart, so that a block covers
// y x Rounds patterns and stages each matrix once for all of them. Shared memory: the two matrices of one category,
// rows padded to an odd stride (conflict-free when a warp's threads read one row each), then one value per
// (pattern, state) for the rescale and one exponent per pattern.
template <class Policy, int Rounds, class Real>
__global__ void prune_traversal_by_state_kernel(PruningBuffers<Real> b, const PruningOperation* operations, int count) {
  constexpr int S = Policy::states;
  constexpr int stride = S | 1;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const int y = static_cast<int>(blockDim.y), slots = y * Rounds;
  Real* rows = reinterpret_cast<Real*>(shared_bytes);              // [child][S][stride]
  Real* largest = rows + 2 * S * stride;                           // [slot][S]
  int* exponent_of = reinterpret_cast<int*>(largest + S * slots);  // [slot]
  const int s = static_cast<int>(threadIdx.x), local = static_cast<int>(threadIdx.y);
  const int first = static_cast<int>(blockIdx.x) * slots;
  const int thread = local * S + s, threads = S * y;
  for (int i = 0; i < count; ++i) {
    const PruningOperation op = operations[i];
    Real mine[Rounds];
    for (int r = 0; r < Rounds; ++r) mine[r] = 0;
    for (int c = 0; c < b.categories; ++c) {
      __syncthreads();  // the last category's rows are read, and the last operation's partials written
      for (int k = 0; k < 2; ++k) {
        if (op.child[k] < 0 || op.matrix[k] < 0) continue;
        const Real* m = b.matrix(op.matrix[k], c);
        for (int e = thread; e < S * S; e += threads) rows[(k * S + e / S) * stride + e % S] = m[e];
      }
      __syncthreads();
      for (int r = 0; r < Rounds; ++r) {
        const int pattern = first + r * y + local;
        if (pattern >= b.patterns) break;
        Real out = Policy::unit();
        for (int k = 0; k < 2; ++k) {
          const int child = op.child[k];
          if (child < 0) continue;
          if (op.matrix[k] < 0) {
            out = Policy::join(out, b.partial(child, c, pattern)[s]);
            continue;
          }
          const Real* row = rows + (k * S + s) * stride;
          if (b.is_tip(child)) {
            const int code = b.tip_code(child, pattern);
            out = Policy::join(out, code <= S ? Policy::through_edge_to_state(row, code)
                                              : Policy::through_edge(row, b.code_set(code)));
          } else {
            out = Policy::join(out, Policy::through_edge(row, b.partial(child, c, pattern)));
          }
        }
        b.partial(op.destination, c, pattern)[s] = out;
        mine[r] = out > mine[r] ? out : mine[r];
      }
    }
    // The pattern's largest value over its states (the threads of the pattern) and categories settles its exponent.
    for (int r = 0; r < Rounds; ++r) largest[(r * y + local) * S + s] = mine[r];
    __syncthreads();
    if (s == 0)
      for (int r = 0; r < Rounds; ++r) {
        const int slot = r * y + local, pattern = first + slot;
        exponent_of[slot] = 0;
        if (pattern >= b.patterns) continue;
        Real top = 0;
        for (int t = 0; t < S; ++t) top = largest[slot * S + t] > top ? largest[slot * S + t] : top;
        exponent_of[slot] = settle_exponent<Policy>(b, op, pattern, top);
      }
    __syncthreads();
    for (int r = 0; r < Rounds; ++r) {
      const int slot = r * y + local, pattern = first + slot;
      if (pattern >= b.patterns || exponent_of[slot] == 0) continue;
      for (int c = 0; c < b.categories; ++c) {
        Real* v = b.partial(op.destination, c, pattern) + s;
        *v = Policy::rescaled(*v, exponent_of[slot]);
      }
    }
  }
}

// One traversal on `stream` with the given tier (and, by state, 1 or 4 patterns per thread). Returns the launch's
// status for the caller to check (tiers do not throw). The tensor-core tiers need Policy::sum_of_products; for a
// policy without it they run on the CUDA cores.
template <class Policy, class Real>
cudaError_t launch_pruning(PruningTuning tuning, const PruningBuffers<Real>& b, const PruningOperation* operations,
                           int count, cudaStream_t stream) {
  constexpr int S = Policy::states;
  if (b.patterns == 0) return cudaSuccess;
  if (tuning.tier == PruningTier::by_tile_tensor || tuning.tier == PruningTier::by_tile_tf32) {
    if constexpr (tile_detail::sums_products<Policy>::value) {
      if constexpr (std::is_same_v<Real, float>) {
        if (tuning.tier == PruningTier::by_tile_tf32)
          return launch_pruning_by_tile<Policy, MmaTile<Policy, 1>>(tuning, b, operations, count, stream);
        return launch_pruning_by_tile<Policy, MmaTile<Policy, 3>>(tuning, b, operations, count, stream);
      } else {
        return launch_pruning_by_tile<Policy, MmaTile<Policy, 1>>(tuning, b, operations, count, stream);
      }
    }
    tuning.tier = PruningTier::by_tile;
  }
  if (tuning.tier == PruningTier::by_tile)
    // 4 x 4 floats or 5 x 4 doubles a thread: a tile of 40 patterns (5000 patterns on 132 SMs) in 640 or 512 threads.
    return launch_pruning_by_tile<Policy, FmaTile<Policy, sizeof(Real) == 4 ? 4 : 5, 4>>(tuning, b, operations, count,
                                                                                         stream);
  if (tuning.tier == PruningTier::by_pattern) {
    constexpr int threads = 128;
    prune_traversal_kernel<Policy><<<(b.patterns + threads - 1) / threads, threads, 0, stream>>>(b, operations, count);
  } else {
    const int y = S >= 256 ? 1 : 256 / S;
    const auto launch = [&](auto kernel, int rounds) {
      const int slots = y * rounds;
      const std::size_t shared = sizeof(Real) * (2 * S * (S | 1) + S * slots) + sizeof(int) * slots;
      const cudaError_t status =
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared));
      if (status != cudaSuccess) return status;
      kernel<<<(b.patterns + slots - 1) / slots, dim3(S, y), shared, stream>>>(b, operations, count);
      return cudaGetLastError();
    };
    return tuning.patterns_per_thread >= 4 ? launch(prune_traversal_by_state_kernel<Policy, 4, Real>, 4)
                                           : launch(prune_traversal_by_state_kernel<Policy, 1, Real>, 1);
  }
  return cudaGetLastError();
}

}  // namespace cudp::tiers
