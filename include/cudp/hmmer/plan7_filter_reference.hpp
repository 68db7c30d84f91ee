#pragma once
// Scalar reference versions of HMMER 3.3.2's SIMD filters (p7_SSVFilter, p7_MSVFilter, p7_ViterbiFilter): plain
// loops over nodes, the same saturating byte/word arithmetic, the same order of operations, so that scores and
// statuses are bit-identical to what hmmsearch's filters return. The striped SIMD layout does not change any
// value (padding nodes behave as -infinity), so it is not reproduced, except where HMMER's control flow reads a
// value of it (the Lazy-F maximum of the Viterbi filter includes node M's M->D, which is -32768 + M(i,M)).
//
// MSV (bytes; 0 is -infinity, base 190 is a score of 0):
//   M(i,k) = max(M(i-1,k-1), B) +sat bias -sat cost(k, x_i)      M(i-1,0) = 0
//   E = max_k M(i,k); overflow (score +inf) as soon as E +sat bias reaches 255
//   J = max(J, E -sat tEC); B = max(base, J) -sat (tJB + tBM)       J(0) = 0, B(0) = base -sat (tJB + tBM)
//   score = (J(L) - tJB - base) / scale - 3 nats (the N, C, J loops' approximate cost).
// SSV drops J (one hit): H(i,k) = max(H(i-1,k-1) + bias - cost, 0) measured from B; it answers only when the
// J state could not have been used and its shifted baseline keeps the overflow test sound, else NoResult and
// HMMER falls back to the MSV DP. p7_MSVFilter = SSV, then MSV on NoResult.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "plan7_filters.hpp"

namespace cudp::hmmer {

enum class FilterStatus {
  Ok,        // score is the filter's score
  Overflow,  // the score left the representable range: +infinity, the target passes (HMMER's eslERANGE)
  NoResult,  // SSV only: the J state might have been used, or its overflow test is not conclusive (eslENORESULT)
};

struct FilterResult {
  FilterStatus status = FilterStatus::Ok;
  float nats = 0;  // +inf on Overflow
};

namespace detail {

inline std::uint8_t add_saturated_u8(int a, int b) { return static_cast<std::uint8_t>(std::min(a + b, 255)); }
inline std::uint8_t sub_saturated_u8(int a, int b) { return static_cast<std::uint8_t>(std::max(a - b, 0)); }
inline std::int16_t add_saturated_s16(int a, int b) {
  return static_cast<std::int16_t>(std::clamp(a + b, -32768, 32767));
}

inline void require_length(std::int64_t configured, std::size_t L, const char* what) {
  if (configured != static_cast<std::int64_t>(L)) {
    throw std::invalid_argument(std::string(what) + ": the filter profile is configured for length " +
                                std::to_string(configured) + " but the target has " + std::to_string(L) +
                                " residues (call set_target_length)");
  }
}

// Both byte filters end the same way: C->T from the J value, in HMMER's float arithmetic.
// (move_cost: tJB of the target's length, as set_target_length would set it.)
inline float msv_nats_from_j(const MsvFilterProfile& p, int move_cost, int j) {
  float score = static_cast<float>(j - move_cost) - static_cast<float>(p.base);
  score /= p.scale;
  return static_cast<float>(static_cast<double>(score) - 3.0);
}
inline float msv_nats_from_j(const MsvFilterProfile& p, int j) { return msv_nats_from_j(p, p.move_cost, j); }

// The Viterbi filter's score from its final C state, in HMMER's float arithmetic (c_move: C->T of the target's
// length).
inline float viterbi_nats_from_c(const ViterbiFilterProfile& p, int c_move, int xC) {
  float score = static_cast<float>(xC) + static_cast<float>(c_move) - static_cast<float>(p.base);
  score /= p.scale;
  return static_cast<float>(static_cast<double>(score) - 3.0);
}

inline FilterResult overflow() { return {FilterStatus::Overflow, std::numeric_limits<float>::infinity()}; }

// HMMER loads tJB + tBM into a byte vector from the sum of two int8 casts: the sum wraps modulo 256.
inline int msv_begin_cost(const MsvFilterProfile& p) { return (p.move_cost + p.entry_cost) & 0xFF; }

}  // namespace detail

// p7_MSVFilter's own DP (the multihit MSV with the J state), without trying SSV first.
inline FilterResult msv_filter_dp(const MsvFilterProfile& p, const std::uint8_t* codes, std::size_t L) {
  detail::require_length(p.target_length, L, "msv_filter_dp");
  const int begin_cost = detail::msv_begin_cost(p);
  std::vector<std::uint8_t> previous(static_cast<std::size_t>(p.M) + 1, 0), current(previous.size(), 0);
  int xJ = 0;
  int xB = detail::sub_saturated_u8(p.base, begin_cost);
  for (std::size_t i = 0; i < L; ++i) {
    int xE = 0;
    for (int k = 1; k <= p.M; ++k) {
      const int from = std::max<int>(previous[static_cast<std::size_t>(k) - 1], xB);
      const int m = detail::sub_saturated_u8(detail::add_saturated_u8(from, p.bias), p.cost(k, codes[i]));
      current[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(m);
      xE = std::max(xE, m);
    }
    if (detail::add_saturated_u8(xE, p.bias) == 255) return detail::overflow();  // tested before J, per row
    xJ = std::max<int>(xJ, detail::sub_saturated_u8(xE, p.end_cost));
    xB = detail::sub_saturated_u8(std::max<int>(p.base, xJ), begin_cost);
    std::swap(previous, current);
  }
  return {FilterStatus::Ok, detail::msv_nats_from_j(p, xJ)};
}

// p7_SSVFilter (ssvfilter.c): single-hit diagonals, with its NoResult cases.
namespace detail {
// p7_SSVFilter's answer from the best diagonal score above B (h, floored at 0, over the whole target) for a target
// whose length model gives N->B = C->T cost move_cost. The DP itself does not depend on the length.
inline FilterResult ssv_from_best(const MsvFilterProfile& p, int move_cost, int best) {
  if (move_cost + p.entry_cost + p.end_cost + p.bias >= 127) return {FilterStatus::NoResult, 0};
  const int limit = 255 - p.bias;  // xE (unsigned, 128 + h) at or beyond this may have overflowed
  int xE = 128 + best;
  if (xE >= limit) {
    if (p.base - move_cost - p.entry_cost < 128) return {FilterStatus::NoResult, 0};
    return overflow();
  }
  xE += p.base - move_cost - p.entry_cost - 128;
  if (xE >= limit) return overflow();
  const int xJ = static_cast<std::uint16_t>(xE - p.end_cost);
  if (xJ > p.base) return {FilterStatus::NoResult, 0};
  return {FilterStatus::Ok, msv_nats_from_j(p, move_cost, xJ)};
}
// Once best reaches this, later rows cannot change the answer.
inline int ssv_decided_at(const MsvFilterProfile& p) { return 127 - p.bias; }
}  // namespace detail

inline FilterResult ssv_filter(const MsvFilterProfile& p, const std::uint8_t* codes, std::size_t L) {
  detail::require_length(p.target_length, L, "ssv_filter");
  if (p.move_cost + p.entry_cost + p.end_cost + p.bias >= 127) return {FilterStatus::NoResult, 0};
  // h = score above B along a diagonal, floored at 0 (a new diagonal starts from B). HMMER keeps it in a signed
  // byte at -128 + h read as unsigned 128 + h: once h passes 127 the byte wraps, but the predecessor on the
  // diagonal already exceeded the overflow limit, so the maximum below only needs the unwrapped values.
  std::vector<int> previous(static_cast<std::size_t>(p.M) + 1, 0), current(previous.size(), 0);
  int best = 0;
  for (std::size_t i = 0; i < L && best < detail::ssv_decided_at(p); ++i) {
    for (int k = 1; k <= p.M; ++k) {
      const int h = std::max(previous[static_cast<std::size_t>(k) - 1] + p.bias - p.cost(k, codes[i]), 0);
      current[static_cast<std::size_t>(k)] = h;
      best = std::max(best, h);
    }
    std::swap(previous, current);
  }
  return detail::ssv_from_best(p, p.move_cost, best);
}

// What p7_MSVFilter returns: SSV's answer, or the MSV DP's where SSV cannot decide.
inline FilterResult msv_filter(const MsvFilterProfile& p, const std::uint8_t* codes, std::size_t L) {
  const FilterResult ssv = ssv_filter(p, codes, L);
  if (ssv.status != FilterStatus::NoResult) return ssv;
  return msv_filter_dp(p, codes, L);
}

// Whether the Viterbi filter follows HMMER's Lazy-F test or closes D under D->D on every row. The test is meant to
// skip only rows where no D->D chain can change the next row's M values, so both give the same score; the
// exhaustive mode exists to check that (and the ddbound it relies on).
enum class LazyF { AsHmmer, AlwaysClose };

// p7_ViterbiFilter (vitfilter.c), multihit or unihit as the profile was configured.
//   M(i,k) = max(B + tBM(k), M(i-1,k-1) + tMM, I(i-1,k-1) + tIM, D(i-1,k-1) + tDM) + msc(k, x_i)
//   I(i,k) = max(M(i-1,k) + tMI, I(i-1,k) + tII)          (no emission score: inserts score 0)
//   D(i,k) = M(i,k-1) + tMD, plus D(i,k-1) + tDD only when the Lazy-F test says a D->D chain could beat B
//   E = max_k M(i,k) (no D->E); overflow when E reaches 32767; C, J, N loops 0; score C(L) + tCT - base, / scale,
//   - 3 nats. All additions saturate to int16; the special states are int16 variables assigned from int sums.
inline FilterResult viterbi_filter(const ViterbiFilterProfile& p, const std::uint8_t* codes, std::size_t L,
                                   LazyF lazy_f = LazyF::AsHmmer) {
  detail::require_length(p.target_length, L, "viterbi_filter");
  using detail::add_saturated_s16;
  const auto columns = static_cast<std::size_t>(p.M) + 1;
  const std::int16_t minus_infinity = -32768;
  std::vector<std::int16_t> m_prev(columns, minus_infinity), i_prev(columns, minus_infinity),
      d_prev(columns, minus_infinity);
  std::vector<std::int16_t> m_cur(columns), i_cur(columns), d_cur(columns);
  std::int16_t xN = p.base;
  std::int16_t xB = static_cast<std::int16_t>(xN + p.n_move);
  std::int16_t xJ = minus_infinity, xC = minus_infinity, xE = minus_infinity;
  for (std::size_t i = 0; i < L; ++i) {
    int e = minus_infinity;
    int d_max = minus_infinity;  // max over the M->D values of this row, node M's included
    m_cur[0] = i_cur[0] = d_cur[0] = minus_infinity;
    for (int k = 1; k <= p.M; ++k) {
      const ViterbiFilterNode& from = p.nodes[static_cast<std::size_t>(k) - 1];
      const auto ku = static_cast<std::size_t>(k);
      int m = add_saturated_s16(xB, p.nodes[ku].entry);
      m = std::max<int>(m, add_saturated_s16(m_prev[ku - 1], from.mm));
      m = std::max<int>(m, add_saturated_s16(i_prev[ku - 1], from.im));
      m = std::max<int>(m, add_saturated_s16(d_prev[ku - 1], from.dm));
      m_cur[ku] = add_saturated_s16(m, p.match_score(k, codes[i]));
      e = std::max<int>(e, m_cur[ku]);
      i_cur[ku] = std::max(add_saturated_s16(m_prev[ku], p.nodes[ku].mi), add_saturated_s16(i_prev[ku], p.nodes[ku].ii));
      d_cur[ku] = add_saturated_s16(m_cur[ku - 1], from.md);  // -32768 + anything saturates for k = 1
      d_max = std::max<int>(d_max, add_saturated_s16(m_cur[ku], p.nodes[ku].md));
    }
    xE = static_cast<std::int16_t>(e);
    if (xE >= 32767) return detail::overflow();
    xC = static_cast<std::int16_t>(std::max(xC + 0, xE + p.e_move));
    xJ = static_cast<std::int16_t>(std::max(xJ + 0, xE + p.e_loop));
    xB = static_cast<std::int16_t>(std::max(xJ + p.j_move, xN + p.n_move));
    if (lazy_f == LazyF::AlwaysClose || d_max + p.ddbound > xB) {
      // Lazy-F found that a D->D chain might matter: close D under D->D (HMMER's sweeps reach this fixpoint).
      for (int k = 2; k <= p.M; ++k) {
        const auto ku = static_cast<std::size_t>(k);
        d_cur[ku] = std::max(d_cur[ku], add_saturated_s16(d_cur[ku - 1], p.nodes[ku - 1].dd));
      }
    }
    std::swap(m_prev, m_cur);
    std::swap(i_prev, i_cur);
    std::swap(d_prev, d_cur);
  }
  if (xC <= minus_infinity) return {FilterStatus::Ok, -std::numeric_limits<float>::infinity()};
  return {FilterStatus::Ok, detail::viterbi_nats_from_c(p, p.c_move, xC)};
}

// The first two stages of hmmsearch's pipeline (p7_Pipeline) without the bias filter (--nobias): the MSV
// P-value against F1, then, only when that P-value is above F2, the Viterbi filter's against F2. Scores are
// converted to bits against the null model's length term as p7_pipeline.c does (float, then a double divide).
struct FilterPipelineResult {
  FilterResult msv, viterbi;
  float null_nats = 0;
  float msv_bits = 0, viterbi_bits = 0;
  double msv_pvalue = 1, viterbi_pvalue = 1;
  bool viterbi_run = false;
  bool passed_msv = false, passed_viterbi = false;
};

inline double filter_gumbel_survival(double x, double mu, double lambda) {
  const double y = lambda * (x - mu);
  const double minus_e_to_minus_y = -std::exp(-y);
  if (std::fabs(minus_e_to_minus_y) < 5e-9) return -minus_e_to_minus_y;
  return 1.0 - std::exp(minus_e_to_minus_y);
}

inline float filter_bits(float nats, float null_nats) {
  return static_cast<float>((nats - null_nats) / 0.69314718055994529);
}

// Sets both filter profiles' length models to L, then runs the stages. Needs the model's STATS lines.
inline FilterPipelineResult run_filter_pipeline(MsvFilterProfile& msv, ViterbiFilterProfile& vf,
                                                const HmmStats& stats, const std::uint8_t* codes,
                                                std::size_t L, double F1, double F2) {
  FilterPipelineResult r;
  msv.set_target_length(static_cast<std::int64_t>(L));
  vf.set_target_length(static_cast<std::int64_t>(L));
  r.null_nats = null1_score(static_cast<std::int64_t>(L));
  r.msv = msv_filter(msv, codes, L);
  r.msv_bits = filter_bits(r.msv.nats, r.null_nats);
  r.msv_pvalue = filter_gumbel_survival(r.msv_bits, stats.msv_mu, stats.msv_lambda);
  if (r.msv_pvalue > F1) return r;
  r.passed_msv = true;
  double P = r.msv_pvalue;
  if (P > F2) {
    r.viterbi_run = true;
    r.viterbi = viterbi_filter(vf, codes, L);
    r.viterbi_bits = filter_bits(r.viterbi.nats, r.null_nats);
    r.viterbi_pvalue = filter_gumbel_survival(r.viterbi_bits, stats.viterbi_mu, stats.viterbi_lambda);
    P = r.viterbi_pvalue;
    if (P > F2) return r;
  }
  r.passed_viterbi = true;
  return r;
}

}  // namespace cudp::hmmer
