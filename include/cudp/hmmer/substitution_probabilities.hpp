#pragma once
// The probabilities a substitution matrix implies, given background frequencies (Easel 0.48's
// esl_scorematrix_ProbifyGivenBG, then esl_scorematrix_JointToConditionalOnQuery): what phmmer and
// hmmbuild --singlemx turn a query residue into a match emission distribution with.
//
// A score matrix s(a,b) read as log odds log(p_ab / (f_a f_b)) / lambda fixes lambda by sum_ab f_a f_b e^(lambda
// s(a,b)) = 1. Easel finds that root by Newton/Raphson from the far side (lambda large, where the sum exceeds 1), so
// as not to land on the trivial root lambda = 0; the joint probabilities follow, then the marginals over degenerate
// codes, then the conditionals P(b | a) = P(a,b) / P(a,X). Every step is double precision in Easel's order, so that
// the match emissions, stored in float, carry the same bits as HMMER's.
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "easel_score_matrices.hpp"
#include "plan7_alphabet.hpp"

namespace cudp::hmmer {

struct SubstitutionProbabilities {
  double lambda = 0;
  int Kp = 0;
  // Kp x Kp, row-major. joint: P(a,b), canonical and degenerate codes (gap, '*' and '~' rows and columns are 0).
  // conditional: P(b | a) for every query code a that is a residue; rows of the gap, '*' and '~' are 0.
  std::vector<double> joint;
  std::vector<double> conditional;

  const double* conditional_row(int a) const {
    return &conditional[static_cast<std::size_t>(a) * static_cast<std::size_t>(Kp)];
  }
};

namespace detail {

// sum_ab fi fj e^(lambda s) - 1 and its derivative in lambda, summed in Easel's loop order.
inline void lambda_equation(const EaselProteinMatrix& S, const std::vector<double>& f, double lambda, double& fx,
                            double& dfx) {
  fx = 0.0;
  dfx = 0.0;
  for (int i = 0; i < 20; ++i) {
    for (int j = 0; j < 20; ++j) {
      const double s = static_cast<double>(S.scores[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
      const double term = f[static_cast<std::size_t>(i)] * f[static_cast<std::size_t>(j)] * std::exp(lambda * s);
      fx += term;
      dfx += term * s;
    }
  }
  fx -= 1.0;
}

inline double solve_matrix_lambda(const EaselProteinMatrix& S, const std::vector<double>& f) {
  int max_score = S.scores[0][0];
  for (const auto& row : S.scores) {
    for (int s : row) max_score = s > max_score ? s : max_score;
  }
  double fx = -1.0, dfx = 0.0;
  double guess = 1.0 / static_cast<double>(max_score);
  for (; guess < 50.0; guess *= 2.0) {
    lambda_equation(S, f, guess, fx, dfx);
    if (fx > 0) break;
  }
  if (fx <= 0) throw std::invalid_argument(std::string("score matrix ") + S.name + " has no valid solution for lambda");

  // Easel's rootfinder defaults: 1e-15 absolute and relative step tolerance, no residual test, 100 iterations.
  double x = guess;
  lambda_equation(S, f, x, fx, dfx);
  for (int iteration = 1;; ++iteration) {
    if (iteration > 100)
      throw std::runtime_error(std::string("failed to solve score matrix ") + S.name + " for lambda");
    const double previous = x;
    x = x - fx / dfx;
    lambda_equation(S, f, x, fx, dfx);
    if (fx == 0) break;
    if (std::fabs(x - previous) < 1e-15 + 1e-15 * x) break;
  }
  return x;
}

}  // namespace detail

// The matrix's probabilities for query and target both drawn from `background` (K canonical frequencies, given in
// double as HMMER converts its float background).
inline SubstitutionProbabilities substitution_probabilities(const EaselProteinMatrix& S,
                                                            const std::vector<double>& background,
                                                            const Plan7Alphabet& alphabet = plan7_amino()) {
  if (alphabet.K != 20 || background.size() != 20) {
    throw std::invalid_argument("substitution_probabilities: protein matrices need the amino alphabet");
  }
  const int K = alphabet.K;
  const int Kp = alphabet.Kp;
  const auto n = static_cast<std::size_t>(Kp);
  SubstitutionProbabilities out;
  out.Kp = Kp;
  out.lambda = detail::solve_matrix_lambda(S, background);
  std::vector<double>& P = out.joint;
  P.assign(n * n, 0.0);
  auto at = [&](int a, int b) -> double& { return P[static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b)]; };
  auto degenerate = [&](int code, int x) {
    return ((alphabet.degenerate[static_cast<std::size_t>(code)] >> x) & 1u) != 0;
  };
  for (int i = 0; i < K; ++i) {
    for (int j = 0; j < K; ++j) {
      at(i, j) = background[static_cast<std::size_t>(i)] * background[static_cast<std::size_t>(j)] *
                 std::exp(out.lambda *
                          static_cast<double>(S.scores[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]));
    }
  }
  // Marginals over degenerate codes: canonical rows first (their degenerate columns), then degenerate rows, whose
  // degenerate columns sum the row's own canonical entries. The order of the sums is Easel's.
  const int first_degenerate = K + 1;
  const int last_degenerate = Kp - 3;
  for (int i = 0; i < K; ++i) {
    for (int jp = first_degenerate; jp <= last_degenerate; ++jp) {
      for (int j = 0; j < K; ++j) {
        if (degenerate(jp, j)) at(i, jp) += at(i, j);
      }
    }
  }
  for (int ip = first_degenerate; ip <= last_degenerate; ++ip) {
    for (int j = 0; j < K; ++j) {
      for (int i = 0; i < K; ++i) {
        if (degenerate(ip, i)) at(ip, j) += at(i, j);
      }
    }
    for (int jp = first_degenerate; jp <= last_degenerate; ++jp) {
      for (int j = 0; j < K; ++j) {
        if (degenerate(jp, j)) at(ip, jp) += at(ip, j);
      }
    }
  }
  // P(b | a) = P(a,b) / P(a,X); the X column is the last one rewritten, so every division sees the marginal.
  out.conditional = P;
  const int any = alphabet.any();
  for (int a = 0; a < Kp - 2; ++a) {
    for (int b = 0; b < Kp - 2; ++b) {
      double& c = out.conditional[static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b)];
      const double marginal = out.conditional[static_cast<std::size_t>(a) * n + static_cast<std::size_t>(any)];
      c = marginal == 0.0 ? 0.0 : c / marginal;
    }
  }
  return out;
}

}  // namespace cudp::hmmer
