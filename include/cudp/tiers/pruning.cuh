#pragma once
// The device's pruning tier: one thread per site pattern runs the whole operation list. Patterns never meet, so the
// traversal needs no barrier between nodes and is one launch however deep the tree; a warp reads the same matrix
// entries (a broadcast) and consecutive patterns' partials (coalesced).
#include <cuda_runtime.h>

#include "pruning_buffers.hpp"

namespace cudp::tiers {

template <class Policy, class Real>
__global__ void prune_traversal_kernel(PruningBuffers<Real> b, const PruningOperation* operations, int count) {
  const int pattern = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (pattern >= b.patterns) return;
  for (int i = 0; i < count; ++i) prune_pattern<Policy>(b, operations[i], pattern);
}

// Each pattern's likelihood at the root as log(scaled sum) + exponents x ln 2, mixed with the invariable part
// when there is one, and weighted: out_weighted[p] = weight[p] x log L_p, out_site[p] = log L_p.
template <class Policy, class Real>
__global__ void root_log_likelihood_kernel(PruningBuffers<Real> b, int root, const Real* frequencies,
                                           const Real* category_weights, const int* internal, int internal_count,
                                           const double* invariable, const double* pattern_weights,
                                           double* out_site, double* out_weighted) {
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
