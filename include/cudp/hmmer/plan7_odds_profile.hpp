#pragma once
// The probability-space profile that HMMER 3.3.2's Forward, Backward, posterior decoding, stochastic traceback and
// optimal-accuracy alignment read (the float part of a P7_OPROFILE): emission odds exp(msc) and transition
// probabilities, in HMMER's striped SSE layout.
//
// Why striped, on a host that could just loop over nodes: hmmsearch's domain definition samples 200 stochastic
// tracebacks per multi-domain region with a reseeded random number generator, and every sampled step compares a
// uniform deviate with sums of these floats. To sample the same tracebacks (and so the same envelopes, domain
// counts and null2 corrections) the floats must be HMMER's to the last bit, which means the same operations in the
// same order: four lanes, node k = q + 1 + r*Q in lane r of vector q, Q = max(2, ceil(M/4)), and every sum taken in
// lane order with HMMER's horizontal-sum pattern. The exponentials are Easel's SSE polynomial (esl_sse_expf), not
// libm's, as p7_oprofile.c uses it for every emission and transition.
//
// The arithmetic assumes IEEE single precision without fused multiply-add contraction (SSE has none); the headers
// that depend on it switch contraction off for GCC and Clang. It also assumes HMMER's floating-point mode: every
// thread that runs it calls use_hmmer_float_mode() (float_mode.hpp) first.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "float_mode.hpp"
#include "plan7_odds_layout.hpp"
#include "plan7_profile.hpp"

#if defined(__clang__)
#define CUDP_PLAN7_NO_FP_CONTRACT _Pragma("clang fp contract(off)")
#else
#define CUDP_PLAN7_NO_FP_CONTRACT
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

namespace cudp::hmmer {

// Four single-precision lanes: one SSE register of HMMER's striped matrices. A GCC/Clang vector, so that every
// operation below is one SSE instruction, lane by lane the same IEEE operation as HMMER's (no fused multiply-add:
// contraction is off in these headers).
using Float4 = float __attribute__((vector_size(16)));
using Int4 = int __attribute__((vector_size(16)));
struct Lanes4 {
  Float4 v = {0, 0, 0, 0};
};

namespace lanes4 {
inline Lanes4 splat(float x) { return Lanes4{Float4{x, x, x, x}}; }
inline Lanes4 add(const Lanes4& a, const Lanes4& b) {
  CUDP_PLAN7_NO_FP_CONTRACT
  return Lanes4{a.v + b.v};
}
inline Lanes4 mul(const Lanes4& a, const Lanes4& b) {
  CUDP_PLAN7_NO_FP_CONTRACT
  return Lanes4{a.v * b.v};
}
// _mm_max_ps: a where a > b, else b (b on ties and NaN).
inline Lanes4 max(const Lanes4& a, const Lanes4& b) { return Lanes4{a.v > b.v ? a.v : b.v}; }
// v where the transition t is possible (t > 0), else 0: HMMER's and-with-compare mask in its OA recursion.
inline Lanes4 where_possible(const Lanes4& t, const Lanes4& v) {
  return Lanes4{t.v > Float4{0, 0, 0, 0} ? v.v : Float4{0, 0, 0, 0}};
}
// _mm_movemask_ps(_mm_cmpgt_ps(a, b)) != 0.
inline bool any_greater(const Lanes4& a, const Lanes4& b) {
  const Int4 greater = a.v > b.v;
  return (greater[0] | greater[1] | greater[2] | greater[3]) != 0;
}
// Every lane +0 or -0: a carried D->D value that adds nothing from here on and stays 0.
inline bool all_zero(const Lanes4& a) {
  const Int4 zero = a.v == Float4{0, 0, 0, 0};
  return (zero[0] & zero[1] & zero[2] & zero[3]) != 0;
}
// esl_sse_rightshift_ps(a, fill): lane r takes lane r-1, lane 0 takes `fill` (node k-1 in the striped layout).
inline Lanes4 shift_up(const Lanes4& a, float fill = 0.0f) { return Lanes4{Float4{fill, a.v[0], a.v[1], a.v[2]}}; }
// The left shift of the Backward: lane r takes lane r+1, lane 3 takes 0 (node k+1).
inline Lanes4 shift_down(const Lanes4& a) { return Lanes4{Float4{a.v[1], a.v[2], a.v[3], 0.0f}}; }
// The horizontal sum HMMER writes with two shuffles: (a0 + a1) + (a2 + a3).
inline float sum(const Lanes4& a) {
  CUDP_PLAN7_NO_FP_CONTRACT
  const float low = a.v[0] + a.v[1];
  const float high = a.v[2] + a.v[3];
  return low + high;
}
}  // namespace lanes4

namespace detail {
// esl_vec_FSum: Easel sums float vectors with Kahan compensation (null2 totals, normalisations).
inline float easel_sum(const float* v, std::size_t n) {
  CUDP_PLAN7_NO_FP_CONTRACT
  float sum = 0.0f, c = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    const float y = v[i] - c;
    const float t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum;
}
}  // namespace detail

// esl_sse_expf, one lane at a time: a Cephes polynomial after range reduction by powers of 2.
inline float easel_sse_expf(float x) {
  CUDP_PLAN7_NO_FP_CONTRACT
  const float maxlogf = 88.3762626647949f;
  const float minlogf = -88.3762626647949f;
  const bool too_big = x > maxlogf;
  const bool too_small = x <= minlogf;  // also true for -infinity
  if (std::isnan(x)) return x;
  if (too_small) return 0.0f;
  if (too_big) return std::numeric_limits<float>::infinity();
  float fx = x * static_cast<float>(1.44269504088896341);  // eslCONST_LOG2R
  fx = fx + 0.5f;
  int k = static_cast<int>(fx);  // truncation, as cvttps
  float tmp = static_cast<float>(k);
  if (tmp > fx) tmp = tmp - 1.0f;  // floor
  fx = tmp;
  k = static_cast<int>(fx);
  tmp = fx * 0.693359375f;
  float z = fx * -2.12194440e-4f;
  x = x - tmp;
  x = x - z;
  z = x * x;
  float y = 1.9875691500E-4f;
  y = y * x;
  y = y + 1.3981999507E-3f;
  y = y * x;
  y = y + 8.3334519073E-3f;
  y = y * x;
  y = y + 4.1665795894E-2f;
  y = y * x;
  y = y + 1.6666665459E-1f;
  y = y * x;
  y = y + 5.0000001201E-1f;
  y = y * z;
  y = y + x;
  y = y + 1.0f;
  const std::uint32_t bits = static_cast<std::uint32_t>(k + 127) << 23;
  float two_to_k;
  std::memcpy(&two_to_k, &bits, sizeof two_to_k);
  return y * two_to_k;
}

class StripedOddsProfile {
 public:
  StripedOddsProfile() = default;

  // p7_oprofile_Convert's float part (fb_conversion), from a configured search profile. Starts in multihit mode
  // for length 100, as hmmsearch's profile; set_mode() reconfigures.
  explicit StripedOddsProfile(const Plan7Profile& profile) : M_(profile.M), Kp_(profile.alphabet->Kp) {
    Q_ = std::max(2, (M_ - 1) / 4 + 1);
    match_.assign(static_cast<std::size_t>(Kp_) * static_cast<std::size_t>(Q_), Lanes4{});
    for (int x = 0; x < Kp_; ++x) {
      for (int q = 0; q < Q_; ++q) {
        Lanes4& odds = match_[static_cast<std::size_t>(x) * static_cast<std::size_t>(Q_) + static_cast<std::size_t>(q)];
        for (int r = 0; r < 4; ++r) {
          const int k = q + 1 + r * Q_;
          odds.v[r] = easel_sse_expf(k <= M_ ? profile.match_score(k, x) : Plan7Profile::minus_infinity);
        }
      }
    }
    transitions_.assign(static_cast<std::size_t>(Q_) * 7, Lanes4{});
    dd_.assign(static_cast<std::size_t>(Q_), Lanes4{});
    for (int q = 0; q < Q_; ++q) {
      for (int r = 0; r < 4; ++r) {
        const int k = q + 1 + r * Q_;  // the node of this lane
        // Into M_k: B->M_k and the transitions out of node k-1. Out of node k: M->D, M->I, I->I, D->D.
        const int from = k - 1;
        auto node_score = [&](int node, HmmTransition t) {
          return node < M_ ? profile.transition(node, t) : Plan7Profile::minus_infinity;
        };
        const float scores[7] = {from < M_ ? profile.entry[static_cast<std::size_t>(k)] : Plan7Profile::minus_infinity,
                                 node_score(from, kMM),
                                 node_score(from, kIM),
                                 node_score(from, kDM),
                                 node_score(k, kMD),
                                 node_score(k, kMI),
                                 node_score(k, kII)};
        for (int t = 0; t < 7; ++t)
          transitions_[static_cast<std::size_t>(q) * 7 + static_cast<std::size_t>(t)].v[r] = easel_sse_expf(scores[t]);
        dd_[static_cast<std::size_t>(q)].v[r] = easel_sse_expf(node_score(k, kDD));
      }
    }
    set_mode(true, 100);
  }

  // The profile whose tables() these are, in multihit mode for length 100 (what a device hands to a host stand-in).
  explicit StripedOddsProfile(const OddsTables& t) : M_(t.M), Q_(t.Q) {
    Kp_ = static_cast<int>(t.match.size() / (static_cast<std::size_t>(Q_) * 4));
    const auto unflatten = [](const std::vector<float>& from, std::vector<Lanes4>& to) {
      to.assign(from.size() / 4, Lanes4{});
      for (std::size_t i = 0; i < to.size(); ++i)
        for (int r = 0; r < 4; ++r) to[i].v[r] = from[i * 4 + static_cast<std::size_t>(r)];
    };
    unflatten(t.match, match_);
    unflatten(t.transitions, transitions_);
    unflatten(t.dd, dd_);
    xf_ = t.xf;
    set_mode(true, 100);
  }

  // p7_oprofile_ReconfigMultihit / ReconfigUnihit, then ReconfigLength for targets of length L.
  void set_mode(bool multihit, std::int64_t L) {
    multihit_ = multihit;
    xf_.e_move = multihit ? 0.5f : 1.0f;
    xf_.e_loop = multihit ? 0.5f : 0.0f;
    set_length(L);
  }
  void set_length(std::int64_t L) {
    xf_ = specials_for_length(xf_, multihit_, L);
    length_ = L;
  }

  int M() const { return M_; }
  int Q() const { return Q_; }
  int Kp() const { return Kp_; }
  bool multihit() const { return multihit_; }
  std::int64_t length() const { return length_; }
  const OddsSpecials& xf() const { return xf_; }
  // The striped match odds for residue code x: Q vectors.
  const Lanes4* match(int x) const { return &match_[static_cast<std::size_t>(x) * static_cast<std::size_t>(Q_)]; }
  const Lanes4& transition(int q, OddsTransition t) const {
    return transitions_[static_cast<std::size_t>(q) * 7 + static_cast<std::size_t>(t)];
  }
  const Lanes4& dd(int q) const { return dd_[static_cast<std::size_t>(q)]; }
  // The tables as plain floats (for the GPU), with the specials of multihit mode.
  OddsTables tables() const {
    OddsTables t;
    t.M = M_;
    t.Q = Q_;
    t.xf = xf_;
    t.xf.e_move = t.xf.e_loop = 0.5f;
    const auto flatten = [](const std::vector<Lanes4>& lanes, std::vector<float>& to) {
      to.resize(lanes.size() * 4);
      for (std::size_t i = 0; i < lanes.size(); ++i)
        for (int r = 0; r < 4; ++r) to[i * 4 + static_cast<std::size_t>(r)] = lanes[i].v[r];
    };
    flatten(match_, t.match);
    flatten(transitions_, t.transitions);
    flatten(dd_, t.dd);
    return t;
  }
  // Node k's lane (q, r).
  int segment_of(int k) const { return (k - 1) % Q_; }
  int lane_of(int k) const { return (k - 1) / Q_; }

 private:
  int M_ = 0, Q_ = 2, Kp_ = 0;
  bool multihit_ = true;
  std::int64_t length_ = 0;
  std::vector<Lanes4> match_;        // [x][q]
  std::vector<Lanes4> transitions_;  // [q][7]
  std::vector<Lanes4> dd_;           // [q]: D_k -> D_{k+1}
  OddsSpecials xf_;
};

}  // namespace cudp::hmmer

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
