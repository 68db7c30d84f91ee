#pragma once
// A pattern's log-likelihood from the terms of a root or edge request, shared by the host and the device backends.
#include <cmath>
#include <cudp/config.hpp>
#include <cudp/phylo/substitution_model.hpp>
#include <cudp/tiers/pruning_buffers.hpp>

#include "backend.hpp"

namespace cudp_beagle {

// A pattern's terms added up: each is a value times a power of two (its buffers' exponents), added with their powers
// taken to the largest, so that a term whose value alone would underflow still counts. NaN when a term is;
// -infinity when every term is 0.
class SiteSum {
 public:
  // False once a term was NaN (the sum is then that NaN, whatever follows).
  CUDP_HD bool add(double value, int exponent) {
    if (value != value) {
      sum_ = value;
      nan_ = true;
      return false;
    }
    if (value <= 0) return true;
    if (!any_) {
      sum_ = value;
      top_ = exponent;
      any_ = true;
    } else if (exponent > top_) {
      sum_ = std::ldexp(sum_, top_ - exponent) + value;
      top_ = exponent;
    } else {
      sum_ += std::ldexp(value, exponent - top_);
    }
    return true;
  }
  CUDP_HD double log_likelihood() const {
    if (nan_) return sum_;
    return any_ ? std::log(sum_) + top_ * 0.69314718055994530942 : -INFINITY;
  }

 private:
  double sum_ = 0;
  int top_ = 0;
  bool any_ = false, nan_ = false;
};

// A root term's value, or an edge term's, before its exponents.
template <class Policy, class Real>
CUDP_HD double site_term_value(const cudp::tiers::PruningBuffers<Real>& b, const SiteTerm& t, const Real* weights,
                               const Real* frequencies, int pattern) {
  const Real* w = weights + static_cast<long long>(t.weights) * b.categories;
  const Real* f = frequencies + static_cast<long long>(t.frequencies) * Policy::states;
  return t.child < 0
             ? static_cast<double>(cudp::tiers::root_pattern<Policy>(b, t.parent, f, w, pattern))
             : static_cast<double>(cudp::tiers::edge_pattern<Policy>(b, t.parent, t.child, t.matrix, f, w, pattern));
}

// The power of two a term's value is to be multiplied by.
template <class Real>
CUDP_HD int site_term_exponent(const cudp::tiers::PruningBuffers<Real>& b, const SiteTerm& t, int pattern) {
  return cudp::tiers::buffer_exponent(b, t.parent, pattern) +
         (t.child < 0 ? 0 : cudp::tiers::buffer_exponent(b, t.child, pattern));
}

// weights [buffer][category], frequencies [buffer][state].
template <class Policy, class Real>
CUDP_HD double site_log_likelihood(const cudp::tiers::PruningBuffers<Real>& b, const SiteTerm* terms, int count,
                                   const Real* weights, const Real* frequencies, int pattern) {
  SiteSum sum;
  for (int i = 0; i < count; ++i)
    if (!sum.add(site_term_value<Policy>(b, terms[i], weights, frequencies, pattern),
                 site_term_exponent(b, terms[i], pattern)))
      break;
  return sum.log_likelihood();
}

using cudp::phylo::transition_entry;

}  // namespace cudp_beagle
