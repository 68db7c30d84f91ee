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
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "../config.hpp"
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

// The two-state HMM of the filter, as plain numbers a kernel can take by value: emission odds by residue code and
// state, and the biased state's transitions.
struct BiasModel {
  static constexpr int kCodes = 32;  // Kp of every Plan7 alphabet (amino 29, DNA/RNA 18) fits
  float odds[kCodes * 2];            // odds[code * 2 + state]
  float biased_leave = 0, biased_stay = 0;
};

// A target's bias-filter Forward sum (BiasFilter::forward_sum) computed elsewhere, a GPU: `certain` when it is
// the host's float to the last bit (see device_bias_filter.cuh), else the host computes it again.
struct BiasSum {
  float nats = 0;
  bool certain = false;
};

namespace detail {
// Single-precision operations rounded as written: on the device never fused into an FMA, as on the host (SSE2).
CUDP_HD float mul_rn(float a, float b) {
#if CUDP_DEVICE_PASS
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
CUDP_HD float add_rn(float a, float b) {
#if CUDP_DEVICE_PASS
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
CUDP_HD float div_rn(float a, float b) {
#if CUDP_DEVICE_PASS
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
}  // namespace detail

// The part of p7_bg_FilterScore that reads the residues (L > 0): the scaled Forward of the two-state HMM, each
// row rescaled by its largest cell and the logarithms of those scales summed, then the end. `log_of(x)` is
// (float) log((double) x), Easel's; `row(d0, d1)` sees each row after its rescaling (a device checks for values a
// flush-to-zero host would lose). The host's and the device's operations are the same, in the same order.
template <class Log, class Row>
CUDP_HD float bias_forward_sum(const BiasModel& m, const std::uint8_t* codes, std::uint32_t L, Log&& log_of,
                               Row&& row) {
  using detail::add_rn;
  using detail::div_rn;
  using detail::mul_rn;
  // p7_bg_SetLength runs before every target and sets the background state's self-loop to the null1 p1.
  const float p1 = div_rn(static_cast<float>(L), static_cast<float>(L + 1));
  const float t00 = p1, t01 = add_rn(1.0f, -p1);
  const float t10 = m.biased_leave, t11 = m.biased_stay;
  auto rescale = [&](float& a, float& b) {
    float max = 0.0f;
    max = a > max ? a : max;
    max = b > max ? b : max;
    a = div_rn(a, max);
    b = div_rn(b, max);
    return max;
  };
  float d0 = mul_rn(m.odds[codes[0] * 2 + 0], 0.999f);
  float d1 = mul_rn(m.odds[codes[0] * 2 + 1], 0.001f);
  float total = log_of(rescale(d0, d1));
  row(d0, d1);
  for (std::uint32_t i = 1; i < L; ++i) {
    const std::uint8_t x = codes[i];
    const float n0 = mul_rn(add_rn(mul_rn(d0, t00), mul_rn(d1, t10)), m.odds[x * 2 + 0]);
    const float n1 = mul_rn(add_rn(mul_rn(d0, t01), mul_rn(d1, t11)), m.odds[x * 2 + 1]);
    d0 = n0;
    d1 = n1;
    total = add_rn(total, log_of(rescale(d0, d1)));
    row(d0, d1);
  }
  return add_rn(total, log_of(add_rn(d0, d1)));
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
    if (Kp > BiasModel::kCodes) throw std::invalid_argument("BiasFilter: an alphabet of more than 32 codes");
    const float L1 = static_cast<float>(static_cast<double>(static_cast<float>(M)) / 8.0);
    model_.biased_leave = 1.0f / (L1 + 1.0f);
    model_.biased_stay = L1 / (L1 + 1.0f);
    // Emission odds against the background: state 0 emits the background itself (odds 1 up to rounding), state 1
    // the composition. Degenerate codes average probability over background mass, as esl_hmm_Configure does.
    std::fill(std::begin(model_.odds), std::end(model_.odds), 1.0f);
    const std::vector<float>& f = null_model.frequencies;
    for (int x = 0; x < K; ++x) {
      model_.odds[x * 2 + 0] = f[static_cast<std::size_t>(x)] / f[static_cast<std::size_t>(x)];
      model_.odds[x * 2 + 1] = composition[static_cast<std::size_t>(x)] / f[static_cast<std::size_t>(x)];
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
        model_.odds[x * 2 + state] = denominator > 0.0f ? numerator / denominator : 0.0f;
      }
    }
  }

  const BiasModel& model() const { return model_; }

  // p7_bg_FilterScore for a target of length L (L > 0), in nats: to be used where null1_score(L) would be.
  float score(const std::uint8_t* codes, std::size_t L) const { return finish(forward_sum(codes, L), L); }

  // Its residue part (bias_forward_sum), and the rest from that sum: the null1 length distribution imposed.
  float forward_sum(const std::uint8_t* codes, std::size_t L) const {
    return bias_forward_sum(
        model_, codes, static_cast<std::uint32_t>(L),
        [](float x) { return static_cast<float>(std::log(static_cast<double>(x))); }, [](float, float) {});
  }
  float finish(float forward_sum, std::size_t L) const {
    const float p1 = static_cast<float>(L) / static_cast<float>(L + 1);
    const float length_term = static_cast<float>(L) * static_cast<float>(std::log(p1));
    return forward_sum + length_term + static_cast<float>(std::log(static_cast<float>(1.0 - static_cast<double>(p1))));
  }

 private:
  const Plan7Alphabet* alphabet_ = nullptr;
  BiasModel model_{};
};

}  // namespace cudp::hmmer
