#pragma once
// HMMER's null model ("null1"): residues drawn i.i.d. from background frequencies, sequence length geometric with
// mean L. Profile emission scores are log odds against these frequencies, so the null model's score for a
// sequence reduces to its length distribution.
#include <cmath>
#include <cstdint>
#include <vector>

#include "plan7_alphabet.hpp"

namespace cudp::hmmer {

struct NullModel {
  const Plan7Alphabet* alphabet = nullptr;
  std::vector<float> frequencies;  // one per canonical residue, summing to 1
};

// Amino-acid composition of Swiss-Prot 50.8 (October 2006), in Easel's residue order ACDEFGHIKLMNPQRSTVWY: the
// background HMMER 3 uses for every protein profile.
inline const std::vector<float>& hmmer_amino_background() {
  static const std::vector<float> frequencies{
      0.0787945f, 0.0151600f, 0.0535222f, 0.0668298f, 0.0397062f,  // A C D E F
      0.0695071f, 0.0229198f, 0.0590092f, 0.0594422f, 0.0963728f,  // G H I K L
      0.0237718f, 0.0414386f, 0.0482904f, 0.0395639f, 0.0540978f,  // M N P Q R
      0.0683364f, 0.0540687f, 0.0673417f, 0.0114135f, 0.0304133f,  // S T V W Y
  };
  return frequencies;
}

// HMMER's default: the Swiss-Prot composition for protein, uniform for nucleotides.
inline NullModel default_null_model(const Plan7Alphabet& alphabet) {
  NullModel model{&alphabet, {}};
  if (alphabet.kind == bio::AlphabetKind::Protein) {
    model.frequencies = hmmer_amino_background();
  } else {
    model.frequencies.assign(static_cast<std::size_t>(alphabet.K), 1.0f / static_cast<float>(alphabet.K));
  }
  return model;
}

// Log probability (nats) of a length-L sequence under the null model with its length distribution set to mean L:
// L emissions through the self-loop p1 = L/(L+1), then the exit 1 - p1. The residue terms cancel against the log
// odds emission scores. Computed with HMMER's mix of float and double so that scores agree to the last bits.
inline float null1_score(std::int64_t L) {
  const float p1 = static_cast<float>(L) / static_cast<float>(L + 1);
  return static_cast<float>(static_cast<float>(L) * std::log(static_cast<double>(p1)) +
                            std::log(1.0 - static_cast<double>(p1)));
}

// null1_score, looked up for the lengths below 65,536 (nearly every target's), which are computed once per process:
// the MSV decisions of every target of a database need it, and its two logarithms were a third of their time.
inline float null1_score_by_table(std::int64_t L) {
  static const std::vector<float> table = [] {
    std::vector<float> t(std::size_t{1} << 16);
    for (std::size_t n = 0; n < t.size(); ++n) t[n] = null1_score(static_cast<std::int64_t>(n));
    return t;
  }();
  return L >= 0 && static_cast<std::uint64_t>(L) < table.size() ? table[static_cast<std::size_t>(L)] : null1_score(L);
}

}  // namespace cudp::hmmer
