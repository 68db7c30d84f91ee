#pragma once
// Reference dynamic programming over a configured Plan7 profile: the generic (non-vectorised) Viterbi and Forward
// algorithms, in log space, one row of the matrix at a time. Written for clarity: these are the oracles the GPU
// filters and the Forward policy are tested against, not a search engine.
//
// Rows are target residues i = 1..L, columns nodes k = 1..M. Row i depends on row i-1 through M, I and through
// the special states: B at row i-1 feeds every M_k at row i. D_k depends on row i itself (M_{k-1}, D_{k-1}).
//   M(i,k) = msc(k, x_i) + op{ M(i-1,k-1)+t_MM, I(i-1,k-1)+t_IM, D(i-1,k-1)+t_DM, B(i-1)+entry(k) }
//   I(i,k) = isc(k, x_i) + op{ M(i-1,k)+t_MI, I(i-1,k)+t_II }                    (k < M)
//   D(i,k) =               op{ M(i,k-1)+t_MD, D(i,k-1)+t_DD }
//   E(i)   = op over k of { M(i,k), D(i,k) }                                      (local exit, probability 1)
//   J(i) = op{ J(i-1)+J_loop, E(i)+E_loop }   C(i) = op{ C(i-1)+C_loop, E(i)+E_move }
//   N(i) = N(i-1)+N_loop                      B(i) = op{ N(i)+N_move, J(i)+J_move }
// with N(0) = 0, B(0) = N_move, and the score C(L) + C_move. op is max for Viterbi, log-sum-exp for Forward.
// Transition and emission scores are those of the profile (log probabilities, emissions as log odds), so the
// result is a log-odds score in nats against the null model's residue composition; the null model's length term
// (null1_score) is subtracted to get a bit score.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "null_model.hpp"
#include "plan7_profile.hpp"

namespace cudp::hmmer {

namespace detail {

template <typename Real>
struct MaxOp {
  static Real combine(Real a, Real b) { return std::max(a, b); }
};

// log(e^a + e^b), exact (HMMER's generic code uses a table; its vectorised Forward, which hmmsearch reports, is
// exact up to float rounding).
template <typename Real>
struct LogSumOp {
  static Real combine(Real a, Real b) {
    if (a < b) std::swap(a, b);
    if (b == -std::numeric_limits<Real>::infinity()) return a;
    return a + std::log1p(std::exp(b - a));
  }
};

template <typename Real, typename Op>
Real plan7_dp(const Plan7Profile& profile, const std::uint8_t* codes, std::size_t L) {
  if (profile.target_length != static_cast<std::int64_t>(L)) {
    throw std::invalid_argument("plan7 reference DP: the profile is configured for length " +
                                std::to_string(profile.target_length) + " but the target has " + std::to_string(L) +
                                " residues (call set_target_length)");
  }
  const Real minus_infinity = -std::numeric_limits<Real>::infinity();
  const int M = profile.M;
  const auto nodes = static_cast<std::size_t>(M) + 1;
  auto t = [&](int k, HmmTransition which) { return static_cast<Real>(profile.transition(k, which)); };

  std::vector<Real> previous_m(nodes, minus_infinity), previous_i(nodes, minus_infinity),
      previous_d(nodes, minus_infinity);
  std::vector<Real> m(nodes, minus_infinity), ins(nodes, minus_infinity), d(nodes, minus_infinity);

  Real n_state = 0;
  Real b_state = profile.n.move;
  Real c_state = minus_infinity;
  Real j_state = minus_infinity;

  for (std::size_t i = 1; i <= L; ++i) {
    const int x = codes[i - 1];
    Real e_state = minus_infinity;
    for (int k = 1; k <= M; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      Real into_match = Op::combine(Op::combine(previous_m[kk - 1] + t(k - 1, kMM),
                                                previous_i[kk - 1] + t(k - 1, kIM)),
                                    Op::combine(previous_d[kk - 1] + t(k - 1, kDM),
                                                b_state + static_cast<Real>(profile.entry[kk])));
      m[kk] = into_match + static_cast<Real>(profile.match_score(k, x));
      ins[kk] = k < M ? Op::combine(previous_m[kk] + t(k, kMI), previous_i[kk] + t(k, kII)) +
                            static_cast<Real>(profile.insert_score(k, x))
                      : minus_infinity;
      d[kk] = Op::combine(m[kk - 1] + t(k - 1, kMD), d[kk - 1] + t(k - 1, kDD));
      e_state = Op::combine(e_state, Op::combine(m[kk], d[kk]));
    }
    j_state = Op::combine(j_state + profile.j.loop, e_state + profile.e.loop);
    c_state = Op::combine(c_state + profile.c.loop, e_state + profile.e.move);
    n_state = n_state + profile.n.loop;
    b_state = Op::combine(n_state + profile.n.move, j_state + profile.j.move);
    std::swap(m, previous_m);
    std::swap(ins, previous_i);
    std::swap(d, previous_d);
  }
  return c_state + profile.c.move;
}

}  // namespace detail

// Score of the best path (p7_GViterbi), in nats. The profile must be set to this target's length.
template <typename Real = float>
Real viterbi_score(const Plan7Profile& profile, const std::uint8_t* codes, std::size_t L) {
  return detail::plan7_dp<Real, detail::MaxOp<Real>>(profile, codes, L);
}

// Log of the summed probability of all paths (p7_GForward), in nats.
template <typename Real = float>
Real forward_score(const Plan7Profile& profile, const std::uint8_t* codes, std::size_t L) {
  return detail::plan7_dp<Real, detail::LogSumOp<Real>>(profile, codes, L);
}

// A log-odds score in nats against the null model, as bits; float like HMMER's per-sequence scores.
inline float bit_score(float profile_nats, float null_nats) {
  return static_cast<float>((profile_nats - null_nats) / 0.69314718055994529);
}

// Survival function of a Gumbel(mu, lambda): P(S >= x), with HMMER's (Easel's) guard for tiny tails.
inline double gumbel_survival(double x, double mu, double lambda) {
  const double y = lambda * (x - mu);
  const double minus_e_to_minus_y = -std::exp(-y);
  if (std::fabs(minus_e_to_minus_y) < 5e-9) return -minus_e_to_minus_y;
  return 1.0 - std::exp(minus_e_to_minus_y);
}

// Survival function of an exponential tail starting at tau: P(S >= x) = exp(-lambda (x - tau)), 1 below tau.
inline double exponential_survival(double x, double tau, double lambda) {
  if (x < tau) return 1.0;
  return std::exp(-lambda * (x - tau));
}

inline double forward_pvalue(float bits, const HmmStats& stats) {
  return exponential_survival(bits, stats.forward_tau, stats.forward_lambda);
}
inline double viterbi_pvalue(float bits, const HmmStats& stats) {
  return gumbel_survival(bits, stats.viterbi_mu, stats.viterbi_lambda);
}
inline double msv_pvalue(float bits, const HmmStats& stats) {
  return gumbel_survival(bits, stats.msv_mu, stats.msv_lambda);
}

// Everything hmmsearch's final stage reports for one target without null2: Forward and Viterbi scores, the null
// model's, bit scores and (when the model has STATS lines) P-values. P-values are NaN without STATS.
struct Plan7TargetScores {
  float forward_nats = 0;
  float viterbi_nats = 0;
  float null_nats = 0;
  float forward_bits = 0;
  float viterbi_bits = 0;
  double forward_pvalue = std::numeric_limits<double>::quiet_NaN();
  double viterbi_pvalue = std::numeric_limits<double>::quiet_NaN();
};

// Sets the profile's length model to L, then scores the target.
template <typename Real = float>
Plan7TargetScores score_target(Plan7Profile& profile, const std::uint8_t* codes, std::size_t L) {
  profile.set_target_length(static_cast<std::int64_t>(L));
  Plan7TargetScores s;
  s.forward_nats = static_cast<float>(forward_score<Real>(profile, codes, L));
  s.viterbi_nats = static_cast<float>(viterbi_score<Real>(profile, codes, L));
  s.null_nats = null1_score(static_cast<std::int64_t>(L));
  s.forward_bits = bit_score(s.forward_nats, s.null_nats);
  s.viterbi_bits = bit_score(s.viterbi_nats, s.null_nats);
  if (profile.stats) {
    s.forward_pvalue = forward_pvalue(s.forward_bits, *profile.stats);
    s.viterbi_pvalue = viterbi_pvalue(s.viterbi_bits, *profile.stats);
  }
  return s;
}

}  // namespace cudp::hmmer
