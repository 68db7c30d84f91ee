#pragma once
// A pattern's log-likelihood from the terms of a root or edge request, shared by the host and the device backends.
#include <cmath>
#include <cudp/config.hpp>
#include <cudp/phylo/substitution_model.hpp>
#include <cudp/tiers/pruning_buffers.hpp>

#include "backend.hpp"

namespace cudp_beagle {

// Each term is a value times a power of two (its buffers' exponents); the terms are added with their powers taken
// to the largest, so that a term whose value alone would underflow still counts. weights [buffer][category],
// frequencies [buffer][state]. NaN when a term is; -infinity when every term is 0.
template <class Policy, class Real>
CUDP_HD double site_log_likelihood(const cudp::tiers::PruningBuffers<Real>& b, const SiteTerm* terms, int count,
                                   const Real* weights, const Real* frequencies, int pattern) {
  double sum = 0;
  int top = 0;
  bool any = false;
  for (int i = 0; i < count; ++i) {
    const SiteTerm t = terms[i];
    const Real* w = weights + static_cast<long long>(t.weights) * b.categories;
    const Real* f = frequencies + static_cast<long long>(t.frequencies) * Policy::states;
    const double value =
        t.child < 0
            ? static_cast<double>(cudp::tiers::root_pattern<Policy>(b, t.parent, f, w, pattern))
            : static_cast<double>(cudp::tiers::edge_pattern<Policy>(b, t.parent, t.child, t.matrix, f, w, pattern));
    const int exponent = cudp::tiers::buffer_exponent(b, t.parent, pattern) +
                         (t.child < 0 ? 0 : cudp::tiers::buffer_exponent(b, t.child, pattern));
    if (value != value) return value;
    if (value <= 0) continue;
    if (!any) {
      sum = value;
      top = exponent;
      any = true;
    } else if (exponent > top) {
      sum = std::ldexp(sum, top - exponent) + value;
      top = exponent;
    } else {
      sum += std::ldexp(value, exponent - top);
    }
  }
  return any ? std::log(sum) + top * 0.69314718055994530942 : -INFINITY;
}

using cudp::phylo::transition_entry;

}  // namespace cudp_beagle
