#pragma once
// hmmsearch's biased-composition filter (p7_bg_SetFilter + p7_bg_FilterScore in HMMER 3.3.2).
//
// A target that passes the MSV filter only because its composition resembles the model's (a low-complexity or
// repeat-rich sequence) should not reach the expensive stages. HMMER rescores the MSV score against a second null
// model, a two-state HMM: state 0 emits the background composition, state 1 the model's mean match composition
// (the COMPO line). The filter score is that HMM's Forward log-odds against the background, with the null1 length
// distribution imposed; the MSV P-value is recomputed with it in place of null1 and must still pass F1. The same
// "filtersc" then replaces null1 in the Viterbi and Forward filter P-values.
//
// Every number is single precision in the order Easel computes it (esl_hmm_Forward: per-row max rescaling, logs
// in double stored as float, summed in float), so the score is HMMER's to the last bit and pass counts agree.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "hmm_file.hpp"
#include "null_model.hpp"
#include "plan7_alphabet.hpp"
#include "plan7_profile.hpp"

namespace cudp::hmmer {

// HMMER's p7_hmm_SetComposition, for models whose file has no COMPO line: the mean residue composition of the
// paths through the core model, match and insert emissions weighted by the states' expected occupancy
// (p7_hmm_CalculateOccupancy: match occupancy as in profile configuration, insert occupancy from the expected
// insert run length where M_k is occupied). Normalised with Easel's compensated sum.
inline std::vector<float> model_composition(const HmmModel& hmm) {
  const int M = hmm.length;
  const int K = hmm.residues();
  const std::vector<float> mocc = detail::match_occupancy(hmm);
  std::vector<float> iocc(static_cast<std::size_t>(M) + 1, 0.0f);
  iocc[0] = hmm.transition(0, kMI) / hmm.transition(0, kIM);
  for (int k = 1; k <= M; ++k) {
    iocc[static_cast<std::size_t>(k)] =
        mocc[static_cast<std::size_t>(k)] * hmm.transition(k, kMI) / hmm.transition(k, kIM);
  }
  std::vector<float> compo(static_cast<std::size_t>(K), 0.0f);
  for (int x = 0; x < K; ++x) compo[static_cast<std::size_t>(x)] += iocc[0] * hmm.insert_probability(0, x);
  for (int k = 1; k <= M; ++k) {
    for (int x = 0; x < K; ++x) {
      compo[static_cast<std::size_t>(x)] += mocc[static_cast<std::size_t>(k)] * hmm.match_probability(k, x);
    }
    for (int x = 0; x < K; ++x) {
      compo[static_cast<std::size_t>(x)] += iocc[static_cast<std::size_t>(k)] * hmm.insert_probability(k, x);
    }
  }
  float sum = 0.0f, compensation = 0.0f;
  for (float v : compo) {
    const float y = v - compensation;
    const float t = sum + y;
    compensation = (t - sum) - y;
    sum = t;
  }
  if (sum != 0.0f) {
    for (float& v : compo) v /= sum;
  }
  return compo;
}

class BiasFilter {
 public:
  BiasFilter() = default;

  // composition: the model's COMPO line (K probabilities); M: model length, which sets the mean length M/8 of a
  // biased segment.
  BiasFilter(const NullModel& null_model, const std::vector<float>& composition, int M)
      : alphabet_(null_model.alphabet) {
    if (alphabet_ == nullptr) throw std::invalid_argument("BiasFilter: null model without an alphabet");
    const int K = alphabet_->K;
    const int Kp = alphabet_->Kp;
    if (static_cast<int>(composition.size()) != K || static_cast<int>(null_model.frequencies.size()) != K) {
      throw std::invalid_argument("BiasFilter: composition and background must have K entries");
    }
    const float L1 = static_cast<float>(static_cast<double>(static_cast<float>(M)) / 8.0);
    biased_leave_ = 1.0f / (L1 + 1.0f);
    biased_stay_ = L1 / (L1 + 1.0f);
    // Emission odds against the background: state 0 emits the background itself (odds 1 up to rounding), state 1
    // the composition. Degenerate codes average probability over background mass, as esl_hmm_Configure does.
    odds_.assign(static_cast<std::size_t>(Kp) * 2, 1.0f);
    const std::vector<float>& f = null_model.frequencies;
    for (int x = 0; x < K; ++x) {
      odds_[static_cast<std::size_t>(x) * 2 + 0] = f[static_cast<std::size_t>(x)] / f[static_cast<std::size_t>(x)];
      odds_[static_cast<std::size_t>(x) * 2 + 1] =
          composition[static_cast<std::size_t>(x)] / f[static_cast<std::size_t>(x)];
    }
    for (int x = K + 1; x <= Kp - 3; ++x) {
      for (int state = 0; state < 2; ++state) {
        float numerator = 0.0f, denominator = 0.0f;
        for (int y = 0; y < K; ++y) {
          if ((alphabet_->degenerate[static_cast<std::size_t>(x)] >> y) & 1u) {
            numerator += state == 0 ? f[static_cast<std::size_t>(y)] : composition[static_cast<std::size_t>(y)];
            denominator += f[static_cast<std::size_t>(y)];
          }
        }
        odds_[static_cast<std::size_t>(x) * 2 + static_cast<std::size_t>(state)] =
            denominator > 0.0f ? numerator / denominator : 0.0f;
      }
    }
  }

  // p7_bg_FilterScore for a target of length L (L > 0), in nats: to be used where null1_score(L) would be.
  float score(const std::uint8_t* codes, std::size_t L) const {
    // p7_bg_SetLength runs before every target and sets the background state's self-loop to the null1 p1.
    const float p1 = static_cast<float>(L) / static_cast<float>(L + 1);
    const float t00 = p1, t01 = 1.0f - p1;
    const float t10 = biased_leave_, t11 = biased_stay_;
    float total = 0.0f;
    float d0 = odds(codes[0], 0) * 0.999f;
    float d1 = odds(codes[0], 1) * 0.001f;
    float max = rescale(d0, d1);
    total += static_cast<float>(std::log(static_cast<double>(max)));
    for (std::size_t i = 1; i < L; ++i) {
      float n0 = 0.0f;
      n0 += d0 * t00;
      n0 += d1 * t10;
      n0 *= odds(codes[i], 0);
      float n1 = 0.0f;
      n1 += d0 * t01;
      n1 += d1 * t11;
      n1 *= odds(codes[i], 1);
      d0 = n0;
      d1 = n1;
      max = rescale(d0, d1);
      total += static_cast<float>(std::log(static_cast<double>(max)));
    }
    float end = 0.0f;
    end += d0 * 1.0f;
    end += d1 * 1.0f;
    total += static_cast<float>(std::log(static_cast<double>(end)));
    const float length_term = static_cast<float>(L) * static_cast<float>(std::log(p1));
    return total + length_term + static_cast<float>(std::log(static_cast<float>(1.0 - static_cast<double>(p1))));
  }

 private:
  float odds(std::uint8_t code, int state) const {
    return odds_[static_cast<std::size_t>(code) * 2 + static_cast<std::size_t>(state)];
  }

  static float rescale(float& a, float& b) {
    float max = 0.0f;
    max = a > max ? a : max;
    max = b > max ? b : max;
    a /= max;
    b /= max;
    return max;
  }

  const Plan7Alphabet* alphabet_ = nullptr;
  float biased_leave_ = 0, biased_stay_ = 0;
  std::vector<float> odds_;  // odds_[code * 2 + state]
};

}  // namespace cudp::hmmer
