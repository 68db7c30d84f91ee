#pragma once
// The likelihood as a function of one edge's length t, with its first and second derivatives, for Newton-Raphson
// on branch lengths. With U the partials on the edge's upper side (the rest of the tree) and D those below it, a
// pattern's likelihood in category c is
//
//     f_c(t) = sum_i pi_i U_i sum_j P_ij(r_c t) D_j = sum_k a_k exp(lambda_k r_c t),
//     a_k = (sum_i pi_i U_i V[i][k]) (sum_j V^-1[k][j] D_j),
//
// because P(t) = V exp(Lambda t) V^-1. The a_k (the edge's spectrum) are made once per edge; each Newton step then
// costs one exponential per (category, k) instead of new matrices and a new pruning step. Host and device both
// call these bodies.
#include <cmath>

#include "../config.hpp"
#include "../tiers/pruning_buffers.hpp"
#include "tree_likelihood.hpp"

namespace cudp::phylo {

// The likelihood of the whole data at one edge length, and its derivatives (in log-likelihood units).
struct EdgeDerivatives {
  double log_likelihood = 0, first = 0, second = 0;
};

// Where an edge's spectrum comes from: the buffer below the edge (a tip or partials) and the buffer of partials
// above it, as PruningBuffers number them, and the model in double precision.
struct EdgeModel {
  int states = 0, categories = 0;
  const double* frequencies = nullptr;  // [state]
  const double* values = nullptr;       // eigenvalues [k]
  const double* vectors = nullptr;      // V [i][k]
  const double* inverse = nullptr;      // V^-1 [k][j]
  const double* rates = nullptr;        // [category]
  const double* weights = nullptr;      // [category]
};

// The spectrum a_k of one (category, pattern): spectrum[k], k < States.
template <int States, class Real>
CUDP_HD void edge_spectrum(const tiers::PruningBuffers<Real>& b, const EdgeModel& m, int below, int above, int category,
                           int pattern, double* spectrum) {
  constexpr int S = States;
  const Real* upper = b.partial(above, category, pattern);
  double weighted_upper[S];
  CUDP_UNROLL
  for (int i = 0; i < S; ++i) weighted_upper[i] = m.frequencies[i] * static_cast<double>(upper[i]);
  // The lower side: a tip's allowed states (one state, all of them, or an ambiguity set), or partials.
  int code = S + 1;
  const Real* lower = nullptr;
  if (b.is_tip(below)) {
    code = b.tip_code(below, pattern);
    if (code > S) lower = b.code_set(code);
  } else {
    lower = b.partial(below, category, pattern);
  }
  for (int k = 0; k < S; ++k) {
    double left = 0;
    CUDP_UNROLL
    for (int i = 0; i < S; ++i) left += weighted_upper[i] * m.vectors[i * S + k];
    double right = 0;
    if (lower != nullptr) {
      CUDP_UNROLL
      for (int j = 0; j < S; ++j) right += m.inverse[k * S + j] * static_cast<double>(lower[j]);
    } else if (code < S) {
      right = m.inverse[k * S + code];
    } else {  // any state: V^-1 times the vector of ones
      CUDP_UNROLL
      for (int j = 0; j < S; ++j) right += m.inverse[k * S + j];
    }
    spectrum[k] = left * right;
  }
}

// One pattern's likelihood terms at length t from its spectra ([category][k], `stride` apart per category): the
// variable part f and its derivatives f', f'' in the partials' scaled units.
template <int States>
CUDP_HD void edge_pattern_terms(const EdgeModel& m, const double* spectra, long long stride, double t, double& f,
                                double& f1, double& f2) {
  f = f1 = f2 = 0;
  for (int c = 0; c < m.categories; ++c) {
    const double* a = spectra + c * stride;
    double g = 0, g1 = 0, g2 = 0;
    CUDP_UNROLL
    for (int k = 0; k < States; ++k) {
      const double rate = m.values[k] * m.rates[c];
      const double term = a[k] * std::exp(rate * t);
      g += term;
      g1 += term * rate;
      g2 += term * rate * rate;
    }
    f += m.weights[c] * g;
    f1 += m.weights[c] * g1;
    f2 += m.weights[c] * g2;
  }
}

// A pattern's contribution to the log-likelihood and its derivatives. The likelihood is f 2^exponent + invariable;
// the derivatives are ratios, in which the power of two cancels except against the invariable part.
CUDP_HD EdgeDerivatives edge_pattern_derivatives(double f, double f1, double f2, int exponent, double invariable) {
  EdgeDerivatives d;
  d.log_likelihood = pattern_log_likelihood(f, exponent, invariable);
  // 2^-exponent may overflow to infinity for a deep tree's tiny variable part: the ratios are then 0, as they are.
  const double whole = invariable > 0 ? f + std::ldexp(invariable, -exponent) : f;
  if (whole > 0) {
    d.first = f1 / whole;
    d.second = f2 / whole - d.first * d.first;
  }
  return d;
}

}  // namespace cudp::phylo
