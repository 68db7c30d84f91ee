#pragma once
// HMMER 3.3.2's quantized filter profiles (p7_oprofile.c's mf_conversion and vf_conversion), built from a
// configured Plan7 search profile. The GPU MSV/SSV and Viterbi filters must reproduce HMMER's scores bit for bit,
// so the rounding here is HMMER's: scores are scaled in float, rounded with roundf, then saturated.
//
// MSV/SSV (unsigned bytes, "costs"): scale 3/ln2 (third bits), base 190. Emission costs are biased:
//   cost(k, x) = bias - round(scale * msc(k, x)), 255 (= impossible) where that exceeds 255,
// with bias = round(scale * max(0, best match score)), so the best residue costs 0. The MSV model has uniform
// entry (tBM from 2/(M(M+1)), not the occupancy-weighted one), E->C = E->J = 1/2, and a single N/J/C move cost
// tJB from 3/(L+3) for a target of length L; the N, C, J self-loops are left out and approximated by -3 nats.
//
// Viterbi filter (signed 16-bit words): scale 500/ln2, base 12000, -32768 is -infinity. Transitions and match
// scores are rounded log probabilities; II is kept <= -1 so that an insert loop can never be free. N/C/J loops
// are 0 (the same -3 nat approximation) and their moves are rounded log(3/(L+3)) in multihit mode.
// ddbound = max_k (tDD(k) + tDM(k+1) - tBM(k+2)) bounds how much a D->D chain can gain over entering from B: the
// Lazy-F test of the filter.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "plan7_profile.hpp"

namespace cudp::hmmer {

namespace detail {
// eslCONST_LOG2, as HMMER's scales divide by it in double before storing them in float.
inline constexpr double kLn2 = 0.69314718055994529;
}  // namespace detail

// HMMER's unbiased_byteify: a non-positive log probability to a cost in scale units, saturating at 255.
inline std::uint8_t msv_unbiased_cost(float scale, float score) {
  const float cost = -1.0f * std::round(scale * score);
  return cost > 255.0f ? std::uint8_t{255} : static_cast<std::uint8_t>(static_cast<int>(cost));
}

// HMMER's biased_byteify: an emission score to bias - round(scale * score), 255 where that would exceed 255.
// Scores never exceed the one that defines the bias, so the sum stays in 0..255.
inline std::uint8_t msv_biased_cost(float scale, std::uint8_t bias, float score) {
  const float cost = -1.0f * std::round(scale * score);
  if (cost > 255.0f - static_cast<float>(bias)) return 255;
  return static_cast<std::uint8_t>((static_cast<int>(cost) + bias) & 0xFF);
}

// HMMER's wordify: a score to round(scale * score), saturated to int16 (-infinity becomes -32768).
inline std::int16_t viterbi_word(float scale, float score) {
  const float scaled = std::round(scale * score);
  if (scaled >= 32767.0f) return 32767;
  if (scaled <= -32768.0f) return -32768;
  return static_cast<std::int16_t>(scaled);
}

struct MsvFilterProfile {
  int M = 0;
  int Kp = 0;
  float scale = static_cast<float>(3.0 / detail::kLn2);
  std::uint8_t base = 190;
  std::uint8_t bias = 0;
  std::uint8_t entry_cost = 0;      // tbm_b: B -> M_k, the same for every k
  std::uint8_t end_cost = 0;        // tec_b: E -> C and E -> J
  std::uint8_t move_cost = 0;       // tjb_b: N -> B, J -> B, C -> T, depends on the target length
  std::int64_t target_length = 0;
  std::vector<std::uint8_t> costs;  // costs[x * (M+1) + k], k = 1..M; column 0 unused

  std::uint8_t cost(int k, int code) const {
    return costs[static_cast<std::size_t>(code) * static_cast<std::size_t>(M + 1) + static_cast<std::size_t>(k)];
  }
  // p7_oprofile_ReconfigMSVLength.
  void set_target_length(std::int64_t L) {
    move_cost = msv_unbiased_cost(scale, std::log(3.0f / static_cast<float>(L + 3)));
    target_length = L;
  }
};

// Core transitions of the Viterbi filter, as words, per node k (0..M). "from" transitions (MM, IM, DM, MD, MI,
// II, DD) are those out of node k; entry is B -> M_k. Nodes whose transition does not exist hold -32768.
struct ViterbiFilterNode {
  std::int16_t entry = -32768;
  std::int16_t mm = -32768, im = -32768, dm = -32768;  // into M_{k+1}
  std::int16_t md = -32768, dd = -32768;               // into D_{k+1}
  std::int16_t mi = -32768, ii = -32768;               // into I_k
};

struct ViterbiFilterProfile {
  int M = 0;
  int Kp = 0;
  float scale = static_cast<float>(500.0 / detail::kLn2);
  std::int16_t base = 12000;
  std::vector<std::int16_t> match;  // match[x * (M+1) + k], k = 1..M
  std::vector<ViterbiFilterNode> nodes;
  std::int16_t e_loop = 0, e_move = 0;  // E -> J, E -> C
  std::int16_t n_move = 0, j_move = 0, c_move = 0;  // N -> B, J -> B, C -> T; the N, J, C loops are 0
  std::int16_t ddbound = -32768;
  float expected_j_uses = 1.0f;
  std::int64_t target_length = 0;

  std::int16_t match_score(int k, int code) const {
    return match[static_cast<std::size_t>(code) * static_cast<std::size_t>(M + 1) + static_cast<std::size_t>(k)];
  }
  // p7_oprofile_ReconfigRestLength, for the Viterbi filter's words.
  void set_target_length(std::int64_t L) {
    const float pmove = (2.0f + expected_j_uses) / (static_cast<float>(L) + 2.0f + expected_j_uses);
    n_move = j_move = c_move = viterbi_word(scale, std::log(pmove));
    target_length = L;
  }
};

// mf_conversion: the MSV/SSV byte profile for target length L.
inline MsvFilterProfile make_msv_filter_profile(const Plan7Profile& profile, std::int64_t L) {
  MsvFilterProfile msv;
  msv.M = profile.M;
  msv.Kp = profile.alphabet->Kp;
  const auto columns = static_cast<std::size_t>(profile.M) + 1;
  // The bias is set by the best emission score of a canonical residue (insert scores, 0, count too).
  float best = 0.0f;
  for (int x = 0; x < profile.alphabet->K; ++x) {
    for (int k = 1; k <= profile.M; ++k) best = std::max(best, profile.match_score(k, x));
  }
  msv.bias = msv_unbiased_cost(msv.scale, -1.0f * best);
  msv.costs.assign(static_cast<std::size_t>(msv.Kp) * columns, 255);
  for (int x = 0; x < msv.Kp; ++x) {
    for (int k = 1; k <= profile.M; ++k) {
      msv.costs[static_cast<std::size_t>(x) * columns + static_cast<std::size_t>(k)] =
          msv_biased_cost(msv.scale, msv.bias, profile.match_score(k, x));
    }
  }
  const float M = static_cast<float>(profile.M);
  msv.entry_cost = msv_unbiased_cost(msv.scale, std::log(2.0f / (M * (M + 1.0f))));
  msv.end_cost = msv_unbiased_cost(msv.scale, std::log(0.5f));
  msv.set_target_length(L);
  return msv;
}

// vf_conversion: the Viterbi filter word profile for target length L.
inline ViterbiFilterProfile make_viterbi_filter_profile(const Plan7Profile& profile, std::int64_t L) {
  ViterbiFilterProfile vf;
  const int M = profile.M;
  vf.M = M;
  vf.Kp = profile.alphabet->Kp;
  const auto columns = static_cast<std::size_t>(M) + 1;
  vf.match.assign(static_cast<std::size_t>(vf.Kp) * columns, -32768);
  for (int x = 0; x < vf.Kp; ++x) {
    for (int k = 1; k <= M; ++k) {
      vf.match[static_cast<std::size_t>(x) * columns + static_cast<std::size_t>(k)] =
          viterbi_word(vf.scale, profile.match_score(k, x));
    }
  }
  auto word = [&](float score, std::int16_t ceiling) {
    return std::min(viterbi_word(vf.scale, score), ceiling);
  };
  vf.nodes.assign(columns, ViterbiFilterNode{});
  for (int k = 0; k <= M; ++k) {
    ViterbiFilterNode& node = vf.nodes[static_cast<std::size_t>(k)];
    if (k >= 1) node.entry = word(profile.entry[static_cast<std::size_t>(k)], 0);
    if (k < M) {  // node M has no outgoing core transitions; node 0's are all -infinity in the profile
      node.mm = word(profile.transition(k, kMM), 0);
      node.im = word(profile.transition(k, kIM), 0);
      node.dm = word(profile.transition(k, kDM), 0);
      node.md = word(profile.transition(k, kMD), 0);
      node.mi = word(profile.transition(k, kMI), 0);
      node.ii = word(profile.transition(k, kII), -1);  // a free insert loop would never end
      node.dd = viterbi_word(vf.scale, profile.transition(k, kDD));
    }
  }
  vf.e_loop = viterbi_word(vf.scale, profile.e.loop);
  vf.e_move = viterbi_word(vf.scale, profile.e.move);
  vf.expected_j_uses = profile.expected_j_uses;
  // Lazy-F bound, over the same node range as HMMER (k = 2..M-2, entry into M_{k+2}).
  int bound = -32768;
  for (int k = 2; k < M - 1; ++k) {
    const int gain = static_cast<int>(viterbi_word(vf.scale, profile.transition(k, kDD))) +
                     static_cast<int>(viterbi_word(vf.scale, profile.transition(k + 1, kDM))) -
                     static_cast<int>(viterbi_word(vf.scale, profile.entry[static_cast<std::size_t>(k) + 2]));
    bound = std::max(bound, gain);
  }
  vf.ddbound = static_cast<std::int16_t>(bound);
  vf.set_target_length(L);
  return vf;
}

}  // namespace cudp::hmmer
