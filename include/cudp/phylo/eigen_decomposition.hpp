#pragma once
// The eigen system of a reversible rate matrix, by Eigen's symmetric solver. A reversible Q is similar to a
// symmetric matrix, S = Pi^1/2 Q Pi^-1/2, so the decomposition is that of S (real eigenvalues, orthonormal
// eigenvectors U) and V = Pi^-1/2 U, V^-1 = U^T Pi^1/2: stable, and exact to rounding.
#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "substitution_model.hpp"

namespace cudp::phylo {

inline EigenSystem decompose(const SubstitutionModel& model) {
  const auto n = static_cast<std::size_t>(model.states);
  for (const double f : model.frequencies)
    if (!(f > 0)) throw std::invalid_argument("decompose: every stationary frequency must be positive");
  const std::vector<double> q = model.rate_matrix();
  std::vector<double> root(n);
  for (std::size_t i = 0; i < n; ++i) root[i] = std::sqrt(model.frequencies[i]);
  const auto size = static_cast<Eigen::Index>(n);
  Eigen::MatrixXd s(size, size);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      // Symmetric by construction; averaging the two halves keeps it exactly so for the solver.
      const double upper = root[i] * q[i * n + j] / root[j], lower = root[j] * q[j * n + i] / root[i];
      s(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = i == j ? q[i * n + i] : 0.5 * (upper + lower);
    }
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(s);
  if (solver.info() != Eigen::Success) throw std::runtime_error("decompose: the eigen solver did not converge");
  EigenSystem e;
  e.states = model.states;
  e.values.resize(n);
  e.vectors.resize(n * n);
  e.inverse.resize(n * n);
  const Eigen::MatrixXd& u = solver.eigenvectors();
  for (std::size_t k = 0; k < n; ++k) e.values[k] = solver.eigenvalues()(static_cast<Eigen::Index>(k));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      const double v = u(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k));
      e.vectors[i * n + k] = v / root[i];
      e.inverse[k * n + i] = v * root[i];
    }
  return e;
}

}  // namespace cudp::phylo
