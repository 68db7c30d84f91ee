#pragma once
// The device's pruning tiers. Patterns never meet, so a whole traversal is one launch however deep the tree:
//   by pattern: one thread per pattern runs every operation on its own (prune_pattern). A warp reads the same
//               matrix entries (a broadcast) and consecutive patterns' partials. Few states: 4.
//   by state:   a block takes a few patterns and puts one thread on each (pattern, parent state); the block steps
//               through the operations together, with each category's two matrices staged in shared memory. For
//               20 or 61 states the one-thread-per-pattern tier has too few threads for the GPU (5000 patterns
//               are 5000 threads) and re-reads each child vector once per parent state.
#include <cuda_runtime.h>

#include "pruning_buffers.hpp"

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
    if constexpr (Policy::rescales) {
      for (int r = 0; r < Rounds; ++r) largest[(r * y + local) * S + s] = mine[r];
      __syncthreads();
      if (s == 0)
        for (int r = 0; r < Rounds; ++r) {
          const int slot = r * y + local, pattern = first + slot;
          exponent_of[slot] = 0;
          if (pattern >= b.patterns) continue;
          Real top = 0;
          for (int t = 0; t < S; ++t) top = largest[slot * S + t] > top ? largest[slot * S + t] : top;
          int exponent = op.child[0] == op.destination ? *b.exponent(op.destination, pattern) : 0;
          if (Policy::needs_rescale(top)) {
            exponent_of[slot] = Policy::rescale_exponent(top);
            exponent += exponent_of[slot];
          }
          *b.exponent(op.destination, pattern) = exponent;
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
}

// One traversal on `stream` with the given tier (and, by state, 1 or 4 patterns per thread). Returns the launch's
// status for the caller to check (tiers do not throw).
template <class Policy, class Real>
cudaError_t launch_pruning(PruningTuning tuning, const PruningBuffers<Real>& b, const PruningOperation* operations,
                           int count, cudaStream_t stream) {
  constexpr int S = Policy::states;
  if (b.patterns == 0) return cudaSuccess;
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

// Each pattern's likelihood at the root as log(scaled sum) + exponents x ln 2, mixed with the invariable part
// when there is one, and weighted: out_weighted[p] = weight[p] x log L_p, out_site[p] = log L_p.
template <class Policy, class Real>
__global__ void root_log_likelihood_kernel(PruningBuffers<Real> b, int root, const Real* frequencies,
                                           const Real* category_weights, const int* internal, int internal_count,
                                           const double* invariable, const double* pattern_weights, double* out_site,
                                           double* out_weighted) {
  const int p = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (p >= b.patterns) return;
  const double scaled = static_cast<double>(root_pattern<Policy>(b, root, frequencies, category_weights, p));
  const int exponent = total_exponent(b, internal, internal_count, p);
  double site = scaled > 0 ? log(scaled) + exponent * 0.69314718055994530942 : -INFINITY;
  if (invariable[p] > 0) {
    const double inv = log(invariable[p]);
    const double hi = fmax(site, inv), lo = fmin(site, inv);
    site = hi + log1p(exp(lo - hi));
  }
  out_site[p] = site;
  out_weighted[p] = pattern_weights[p] * site;
}

}  // namespace cudp::tiers
