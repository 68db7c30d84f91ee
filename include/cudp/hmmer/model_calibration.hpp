#pragma once
// E-value calibration of a profile HMM (HMMER 3.3.2's p7_Calibrate, evalues.c), as hmmbuild and phmmer run it for
// every model they build: lambda from the model, then three short simulations on random i.i.d. sequences drawn
// from the background, each fitting a location to the scores of HMMER's own filters:
//   lambda = ln 2 + 1.44 / (M H), H the mean relative entropy (bits) of the match emissions: an edge-effect
//            correction of the ideal ln 2, shared by the three distributions;
//   MSV mu:      Gumbel location of EmN MSV filter scores of length-EmL sequences, lambda fixed;
//   Viterbi mu:  the same for EvN Viterbi filter scores of length EvL;
//   Forward tau: a Gumbel (mu and lambda) fitted to EfN Forward scores of length EfL, its 1 - Eft quantile moved
//                back by log(Eft) / lambda: the origin of an exponential tail of slope lambda.
// Scores are bits against null1, a filter score that overflows stands at the largest score it can represent. The
// random sequences come from one Easel fast generator reseeded with the seed before the first simulation, and
// consumed in the order MSV, Viterbi, Forward, so the same seed draws the same sequences as HMMER.
//
// The filter scores are those of the exact host filters (plan7_filter_reference.hpp for MSV and Viterbi,
// plan7_posterior.hpp's striped Forward), which need HMMER's floating-point mode; calibrate() sets it for the
// calling thread while it runs and restores the caller's mode after.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "easel_gumbel.hpp"
#include "easel_random.hpp"
#include "easel_random_sequence.hpp"
#include "float_mode.hpp"
#include "hmm_file.hpp"
#include "null_model.hpp"
#include "plan7_filter_reference.hpp"
#include "plan7_filters.hpp"
#include "plan7_odds_profile.hpp"
#include "plan7_posterior.hpp"
#include "plan7_profile.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

namespace cudp::hmmer {

// hmmbuild's and phmmer's --EmL ... --Eft, and --seed. Seed 0 draws an arbitrary seed once, and the generator then
// runs on from model to model instead of being reseeded (HMMER's "one-time arbitrary seed").
struct CalibrationOptions {
  int EmL = 200, EmN = 200;
  int EvL = 200, EvN = 200;
  int EfL = 100, EfN = 200;
  double Eft = 0.04;
  std::uint32_t seed = 42;
};

// The generator calibration draws from, in HMMER's builder: reseeded before every model unless the seed is 0.
class CalibrationRandom {
 public:
  explicit CalibrationRandom(std::uint32_t seed = 42) : reseed_(seed != 0) {
    if (seed == 0) seed = std::random_device{}() | 1u;
    random_.init(seed);
  }
  EaselFastRandom& for_next_model() {
    if (reseed_) random_.init(random_.seed());
    return random_;
  }

 private:
  bool reseed_;
  EaselFastRandom random_;
};

// p7_MeanMatchRelativeEntropy: bits per match state, each state's sum in float with a double log2 term.
inline double mean_match_relative_entropy(const HmmModel& hmm, const NullModel& null_model) {
  CUDP_PLAN7_NO_FP_CONTRACT
  const int K = hmm.residues();
  double mean = 0.0;
  for (int k = 1; k <= hmm.length; ++k) {
    float kl = 0.0f;
    for (int x = 0; x < K; ++x) {
      const float p = hmm.match_probability(k, x);
      const float q = null_model.frequencies[static_cast<std::size_t>(x)];
      if (p > 0.0f) {
        if (q == 0.0f) return INFINITY;
        kl = static_cast<float>(static_cast<double>(kl) +
                                static_cast<double>(p) * std::log2(static_cast<double>(p / q)));
      }
    }
    mean += kl;
  }
  return mean / static_cast<double>(hmm.length);
}

// p7_Lambda.
inline double calibration_lambda(const HmmModel& hmm, const NullModel& null_model) {
  return 0.69314718055994529 + 1.44 / (static_cast<double>(hmm.length) * mean_match_relative_entropy(hmm, null_model));
}

namespace detail {

// (score - null1) in bits, as evalues.c stores a sample: a float difference divided in double.
inline double calibration_bits(float nats, float null_nats) {
  return static_cast<double>(nats - null_nats) / 0.69314718055994529;
}

}  // namespace detail

// The STATS LOCAL parameters of hmm: what p7_Calibrate stores in the model (as floats).
inline HmmStats calibrate(const HmmModel& hmm, const NullModel& null_model, const CalibrationOptions& options,
                          EaselFastRandom& random) {
  CUDP_PLAN7_NO_FP_CONTRACT
  if (hmm.length < 1) throw std::invalid_argument("calibrate: the model has no nodes");
  const ScopedHmmerFloatMode float_mode;
  const double lambda = calibration_lambda(hmm, null_model);
  // The profile is configured for length EvL; each simulation sets its own length.
  const Plan7Profile profile = configure_profile(hmm, null_model, Plan7Mode::MultihitLocal, options.EvL);
  std::vector<std::uint8_t> codes;
  std::vector<double> samples;

  // n scores in bits of random length-L sequences; a filter that overflows stands at the largest score it has.
  auto sample_filter = [&](int n, int L, auto filter, float ceiling) {
    samples.assign(static_cast<std::size_t>(n), 0.0);
    for (double& sample : samples) {
      easel_iid_sequence(random, null_model.frequencies, static_cast<std::size_t>(L), codes);
      const FilterResult r = filter(codes);
      sample = detail::calibration_bits(r.status == FilterStatus::Overflow ? ceiling : r.nats, null1_score(L));
    }
  };
  MsvFilterProfile msv = make_msv_filter_profile(profile, options.EmL);
  sample_filter(
      options.EmN, options.EmL, [&](const auto& c) { return msv_filter(msv, c.data(), c.size()); },
      static_cast<float>(255 - msv.base) / msv.scale);
  const double msv_mu = gumbel_fit_location(samples, lambda);

  ViterbiFilterProfile viterbi = make_viterbi_filter_profile(profile, options.EvL);
  sample_filter(
      options.EvN, options.EvL, [&](const auto& c) { return viterbi_filter(viterbi, c.data(), c.size()); },
      static_cast<float>((32767.0 - static_cast<double>(viterbi.base)) / static_cast<double>(viterbi.scale)));
  const double viterbi_mu = gumbel_fit_location(samples, lambda);

  StripedOddsProfile odds(profile);
  odds.set_mode(true, options.EfL);
  StripedMatrix matrix;
  samples.assign(static_cast<std::size_t>(options.EfN), 0.0);
  for (double& sample : samples) {
    easel_iid_sequence(random, null_model.frequencies, static_cast<std::size_t>(options.EfL), codes);
    const float fsc = striped_forward(odds, codes.data(), options.EfL, matrix, false);
    sample = detail::calibration_bits(fsc, null1_score(options.EfL));
  }
  const GumbelFit forward = gumbel_fit(samples);
  const double tau = gumbel_quantile(1.0 - options.Eft, forward.mu, forward.lambda) + std::log(options.Eft) / lambda;

  HmmStats stats;
  stats.msv_lambda = stats.viterbi_lambda = stats.forward_lambda = static_cast<float>(lambda);
  stats.msv_mu = static_cast<float>(msv_mu);
  stats.viterbi_mu = static_cast<float>(viterbi_mu);
  stats.forward_tau = static_cast<float>(tau);
  return stats;
}

}  // namespace cudp::hmmer

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
