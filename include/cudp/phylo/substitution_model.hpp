#pragma once
// Reversible substitution models: exchangeabilities and stationary frequencies, the rate matrix Q they make
// (scaled to one expected substitution per unit of branch length), and the eigen system of Q from which every
// transition matrix P(t) = V exp(Lambda t) V^-1 follows (made by eigen_decomposition.hpp, kept apart so that
// device code need not compile Eigen).
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "../config.hpp"

namespace cudp::phylo {

struct SubstitutionModel {
  int states = 0;
  std::vector<double> exchangeabilities;  // [i][j], symmetric, diagonal unused
  std::vector<double> frequencies;        // [state], positive, summing to 1

  double exchangeability(int i, int j) const {
    return exchangeabilities[static_cast<std::size_t>(i) * static_cast<std::size_t>(states) +
                             static_cast<std::size_t>(j)];
  }

  // Q with rows summing to 0 and -sum_i pi_i q_ii = 1.
  std::vector<double> rate_matrix() const {
    const auto n = static_cast<std::size_t>(states);
    std::vector<double> q(n * n, 0.0);
    double mean = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double row = 0;
      for (std::size_t j = 0; j < n; ++j) {
        if (i == j) continue;
        q[i * n + j] = exchangeabilities[i * n + j] * frequencies[j];
        row += q[i * n + j];
      }
      q[i * n + i] = -row;
      mean += frequencies[i] * row;
    }
    for (double& v : q) v /= mean;
    return q;
  }
};

// One entry of P(t) = V exp(Lambda t) V^-1 from the exponentials scaled[k] = exp(lambda_k t): sum_k V[i][k]
// scaled[k] V^-1[k][j]. Rounding can leave an entry a few ulps below zero; it is a probability, so it is clamped.
// The host's matrices and the device kernels (the module's and the BEAGLE library's) all call it.
CUDP_HD double transition_entry(int states, const double* vectors, const double* inverse, const double* scaled, int i,
                                int j) {
  double sum = 0;
  for (int k = 0; k < states; ++k) sum += vectors[i * states + k] * scaled[k] * inverse[k * states + j];
  return sum < 0 ? 0 : sum;
}

struct EigenSystem {
  int states = 0;
  std::vector<double> values;   // [k]
  std::vector<double> vectors;  // V [i][k]
  std::vector<double> inverse;  // V^-1 [k][j]

  // P(t), row-major, into out.
  void transition_matrix(double t, double* out) const {
    std::vector<double> scaled(static_cast<std::size_t>(states));
    for (int k = 0; k < states; ++k)
      scaled[static_cast<std::size_t>(k)] = std::exp(values[static_cast<std::size_t>(k)] * t);
    for (int i = 0; i < states; ++i)
      for (int j = 0; j < states; ++j)
        out[i * states + j] = transition_entry(states, vectors.data(), inverse.data(), scaled.data(), i, j);
  }
};

}  // namespace cudp::phylo
