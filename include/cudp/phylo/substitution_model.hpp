#pragma once
// Reversible substitution models: exchangeabilities and stationary frequencies, the rate matrix Q they make
// (scaled to one expected substitution per unit of branch length), and the eigen system of Q from which every
// transition matrix P(t) = V exp(Lambda t) V^-1 follows (made by eigen_decomposition.hpp, kept apart so that
// device code need not compile Eigen).
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

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

struct EigenSystem {
  int states = 0;
  std::vector<double> values;   // [k]
  std::vector<double> vectors;  // V [i][k]
  std::vector<double> inverse;  // V^-1 [k][j]

  // P(t)[i][j] = sum_k V[i][k] exp(lambda_k t) V^-1[k][j]. Rounding can leave entries a few ulps below zero; they
  // are probabilities, so they are clamped.
  void transition_matrix(double t, double* out) const {
    const auto n = static_cast<std::size_t>(states);
    std::vector<double> scaled(n);
    for (std::size_t k = 0; k < n; ++k) scaled[k] = std::exp(values[k] * t);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double sum = 0;
        for (std::size_t k = 0; k < n; ++k) sum += vectors[i * n + k] * scaled[k] * inverse[k * n + j];
        out[i * n + j] = sum < 0 ? 0 : sum;
      }
  }
};

}  // namespace cudp::phylo
