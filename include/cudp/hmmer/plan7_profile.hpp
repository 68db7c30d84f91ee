#pragma once
// A Plan7 search profile: an HMMER3 core model configured for local alignment to target sequences, in log space
// (nats), the way HMMER 3.3's p7_ProfileConfig and p7_ReconfigLength configure it for hmmsearch.
//
// States per node k = 1..M: match M_k and delete D_k, insert I_k for k < M. Specials: N (unaligned prefix), B
// (begin), E (end), C (unaligned suffix), J (unaligned residues between hits). Local mode means:
//   - B -> M_k for any k (no B -> D entry), with probability proportional to the occupancy of M_k in the core
//     model, normalised so that every fragment k..k' weighs the same when occupancies are 1: 2 / (M (M+1));
//   - M_k -> E and D_k -> E for any k with probability 1 (a score accounting choice of HMMER's, not a distribution);
//   - insert emissions score 0: HMMER ignores the file's insert emissions and emits inserts from the background.
// Multihit mode lets E go to J or C with probability 1/2 each; unihit sends E to C.
// Target length L sets the N, C and J self-loops so that the unaligned residues, split over 2 + (expected J
// visits) flanks, have mean L: loop = L / (L + 2 + nJ), move = (2 + nJ) / (L + 2 + nJ). This must be redone for
// every target (set_target_length) before scoring it.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hmm_file.hpp"
#include "null_model.hpp"
#include "plan7_alphabet.hpp"

namespace cudp::hmmer {

enum class Plan7Mode { MultihitLocal, UnihitLocal };

inline const Plan7Alphabet& plan7_alphabet_of(HmmAlphabet alphabet) {
  switch (alphabet) {
    case HmmAlphabet::Amino:
      return plan7_amino();
    case HmmAlphabet::Dna:
      return plan7_dna();
    default:
      return plan7_rna();
  }
}

// Log probabilities of leaving a special state by its self-loop or by its move (N->B, E->C, C->T, J->B).
struct SpecialTransitions {
  float loop = 0;
  float move = 0;
};

struct Plan7Profile {
  static constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

  std::string name;
  const Plan7Alphabet* alphabet = nullptr;
  int M = 0;
  Plan7Mode mode = Plan7Mode::MultihitLocal;
  std::optional<HmmStats> stats;

  // transitions[k*7 + t]: log probability of core transition t (HmmTransition) out of node k, k = 1..M-1.
  // Node 0 (the begin node is replaced by the entry distribution) and node M (its exits go to E) hold -inf.
  std::vector<float> transitions;
  std::vector<float> entry;  // entry[k] = log P(B -> M_k), k = 1..M; entry[0] = -inf
  // Emission log odds per residue code (all Kp codes, degenerate ones included): row x holds nodes 0..M.
  std::vector<float> match_scores;
  std::vector<float> insert_scores;

  SpecialTransitions n, e, c, j;
  float expected_j_uses = 1.0f;  // nJ: 1 for multihit, 0 for unihit
  std::int64_t target_length = 0;

  float transition(int k, HmmTransition t) const {
    return transitions[static_cast<std::size_t>(k) * kTransitionCount + t];
  }
  float match_score(int k, int code) const { return match_scores[row(code) + static_cast<std::size_t>(k)]; }
  float insert_score(int k, int code) const { return insert_scores[row(code) + static_cast<std::size_t>(k)]; }
  bool multihit() const { return mode == Plan7Mode::MultihitLocal; }

  // HMMER's p7_ReconfigLength, in the same float arithmetic.
  void set_target_length(std::int64_t L) {
    const float pmove = (2.0f + expected_j_uses) / (static_cast<float>(L) + 2.0f + expected_j_uses);
    const float ploop = 1.0f - pmove;
    const float log_loop = static_cast<float>(std::log(static_cast<double>(ploop)));
    const float log_move = static_cast<float>(std::log(static_cast<double>(pmove)));
    n = c = j = SpecialTransitions{log_loop, log_move};
    target_length = L;
  }

 private:
  std::size_t row(int code) const { return static_cast<std::size_t>(code) * static_cast<std::size_t>(M + 1); }
};

namespace detail {

// P(M_k is used) for a path through the core model entered at B: node 1 unless B goes to D_1, then each node
// either keeps the path in M/I or picks it up again from D. HMMER computes it in float with one double step.
inline std::vector<float> match_occupancy(const HmmModel& hmm) {
  const int M = hmm.length;
  std::vector<float> occupancy(static_cast<std::size_t>(M) + 1, 0.0f);
  occupancy[1] = hmm.transition(0, kMI) + hmm.transition(0, kMM);
  for (int k = 2; k <= M; ++k) {
    const float previous = occupancy[static_cast<std::size_t>(k) - 1];
    const float stay = previous * (hmm.transition(k - 1, kMM) + hmm.transition(k - 1, kMI));
    occupancy[static_cast<std::size_t>(k)] =
        static_cast<float>(stay + (1.0 - previous) * hmm.transition(k - 1, kDM));
  }
  return occupancy;
}

// C's log() on a float argument: computed in double, then stored as float, as HMMER does throughout configuration.
inline float log_of(float p) { return static_cast<float>(std::log(static_cast<double>(p))); }

// A degenerate code scores the background-weighted mean of the scores of the residues it may stand for.
inline float expected_score(const Plan7Alphabet& alphabet, int code, const std::vector<float>& scores,
                            const std::vector<float>& background) {
  float sum = 0.0f;
  float weight = 0.0f;
  for (int x = 0; x < alphabet.K; ++x) {
    if ((alphabet.degenerate[static_cast<std::size_t>(code)] >> x) & 1u) {
      sum += scores[static_cast<std::size_t>(x)] * background[static_cast<std::size_t>(x)];
      weight += background[static_cast<std::size_t>(x)];
    }
  }
  return sum / weight;
}

}  // namespace detail

// Configures hmm for searching, against the given null model, for targets of length L (change it later with
// set_target_length). The model must be in the null model's alphabet.
inline Plan7Profile configure_profile(const HmmModel& hmm, const NullModel& null_model,
                                      Plan7Mode mode = Plan7Mode::MultihitLocal, std::int64_t L = 400) {
  const Plan7Alphabet& alphabet = plan7_alphabet_of(hmm.alphabet);
  if (null_model.alphabet != &alphabet) {
    throw std::invalid_argument("configure_profile: model '" + hmm.name + "' is " + alphabet_name(hmm.alphabet) +
                                " but the null model is " + (null_model.alphabet ? null_model.alphabet->name : "unset"));
  }
  const int M = hmm.length;
  const auto nodes = static_cast<std::size_t>(M) + 1;
  const float minus_infinity = Plan7Profile::minus_infinity;

  Plan7Profile profile;
  profile.name = hmm.name;
  profile.alphabet = &alphabet;
  profile.M = M;
  profile.mode = mode;
  profile.stats = hmm.stats;

  // Entry: occupancy-weighted, normalised over all (start, end) fragment pairs.
  const std::vector<float> occupancy = detail::match_occupancy(hmm);
  float Z = 0.0f;
  for (int k = 1; k <= M; ++k) Z += occupancy[static_cast<std::size_t>(k)] * static_cast<float>(M - k + 1);
  profile.entry.assign(nodes, minus_infinity);
  for (int k = 1; k <= M; ++k) {
    profile.entry[static_cast<std::size_t>(k)] = detail::log_of(occupancy[static_cast<std::size_t>(k)] / Z);
  }

  profile.transitions.assign(nodes * kTransitionCount, minus_infinity);
  for (int k = 1; k < M; ++k) {
    for (int t = 0; t < kTransitionCount; ++t) {
      profile.transitions[static_cast<std::size_t>(k) * kTransitionCount + static_cast<std::size_t>(t)] =
          detail::log_of(hmm.transition(k, static_cast<HmmTransition>(t)));
    }
  }

  // Match emissions: log odds for canonical residues, expected scores for degenerate codes, -inf for the gap,
  // not-a-residue and missing-data codes.
  const int K = alphabet.K;
  const int Kp = alphabet.Kp;
  profile.match_scores.assign(static_cast<std::size_t>(Kp) * nodes, minus_infinity);
  profile.insert_scores.assign(static_cast<std::size_t>(Kp) * nodes, minus_infinity);
  std::vector<float> scores(static_cast<std::size_t>(Kp), minus_infinity);
  for (int k = 1; k <= M; ++k) {
    for (int x = 0; x < K; ++x) {
      scores[static_cast<std::size_t>(x)] = static_cast<float>(
          std::log(static_cast<double>(hmm.match_probability(k, x)) / null_model.frequencies[static_cast<std::size_t>(x)]));
    }
    for (int x = K + 1; x <= Kp - 3; ++x) {
      scores[static_cast<std::size_t>(x)] = detail::expected_score(alphabet, x, scores, null_model.frequencies);
    }
    for (int x = 0; x < Kp; ++x) {
      profile.match_scores[static_cast<std::size_t>(x) * nodes + static_cast<std::size_t>(k)] =
          scores[static_cast<std::size_t>(x)];
    }
  }
  // Insert emissions score 0 for every residue, degenerate or not; there is no I_M.
  for (int x = 0; x < Kp; ++x) {
    if (!alphabet.is_residue(x)) continue;
    for (int k = 1; k < M; ++k) profile.insert_scores[static_cast<std::size_t>(x) * nodes + static_cast<std::size_t>(k)] = 0.0f;
  }

  const float log_half = -0.69314718055994529f;
  if (mode == Plan7Mode::MultihitLocal) {
    profile.e = SpecialTransitions{log_half, log_half};
    profile.expected_j_uses = 1.0f;
  } else {
    profile.e = SpecialTransitions{minus_infinity, 0.0f};
    profile.expected_j_uses = 0.0f;
  }
  profile.set_target_length(L);
  return profile;
}

}  // namespace cudp::hmmer
