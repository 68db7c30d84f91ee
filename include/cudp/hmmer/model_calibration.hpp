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
// All the random sequences are drawn first, in that order; the filters then score them on any number of threads
// (each score depends on its sequence alone) and the fits read the scores in drawing order, so the parameters do
// not depend on the thread count. The filters are HMMER's own arithmetic: MSV (SSV first) and the Viterbi filter in
// the striped SSE2 words of hmmer/striped_msv.hpp and striped_viterbi_filter.hpp (bit for bit p7_MSVFilter's and
// p7_ViterbiFilter's), and the striped Forward parser of plan7_posterior.hpp (four sequences at a time where the CPU
// has AVX-512: plan7_parser_groups.hpp), which needs HMMER's floating-point mode: each thread sets it while it
// scores and restores its own mode after. Where the host has no SSE2 lanes the scalar reference filters
// (plan7_filter_reference.hpp) give the same scores, more slowly.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
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
#include "plan7_parser_groups.hpp"
#include "plan7_posterior.hpp"
#include "plan7_profile.hpp"
#include "striped_tables.hpp"
#include "../engine/sequences.hpp"
#include "../host/parallel_for.hpp"
#include "../lanes/sse.hpp"
#include "../tiers/striped_rows_host.hpp"

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
  // Whether every model starts the generator from the same seed, and so draws the same sequences.
  bool reseeds() const { return reseed_; }

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

// The random sequences of one calibration, in the order HMMER draws them: EmN of length EmL for MSV, EvN of EvL for
// the Viterbi filter, EfN of EfL for Forward, end to end.
struct CalibrationSequences {
  std::vector<std::uint8_t> residues;
  std::vector<std::uint64_t> offsets{0};
  std::uint32_t viterbi_first = 0, forward_first = 0;  // the MSV sequences come first

  bool empty() const { return offsets.size() == 1; }
  engine::SequencesView view() const { return {residues.data(), offsets.data(), offsets.size() - 1}; }
};

inline CalibrationSequences draw_calibration_sequences(EaselFastRandom& random, const NullModel& null_model,
                                                       const CalibrationOptions& options) {
  const EaselChooser choose(null_model.frequencies);
  CalibrationSequences s;
  const auto total = static_cast<std::size_t>(options.EmN) * static_cast<std::size_t>(options.EmL) +
                     static_cast<std::size_t>(options.EvN) * static_cast<std::size_t>(options.EvL) +
                     static_cast<std::size_t>(options.EfN) * static_cast<std::size_t>(options.EfL);
  s.residues.resize(total);
  s.offsets.reserve(static_cast<std::size_t>(options.EmN + options.EvN + options.EfN) + 1);
  auto draw = [&](int n, int L) {
    for (int i = 0; i < n; ++i) {
      const std::uint64_t at = s.offsets.back();
      easel_iid_sequence(random, choose, static_cast<std::size_t>(L), s.residues.data() + at);
      s.offsets.push_back(at + static_cast<std::uint64_t>(L));
    }
  };
  draw(options.EmN, options.EmL);
  s.viterbi_first = static_cast<std::uint32_t>(s.offsets.size() - 1);
  draw(options.EvN, options.EvL);
  s.forward_first = static_cast<std::uint32_t>(s.offsets.size() - 1);
  draw(options.EfN, options.EfL);
  return s;
}

// Another implementation of the calibration's MSV and Viterbi filters, with HMMER's answers (the host search's
// filters in the CPU's widest vectors, say). Each is handed the filter profile (set for the sequences' length), the
// sequences, the ids of those to score, all of that length, and a thread count, and answers per id in order, or
// nothing to leave the filter to calibrate()'s own. An empty function leaves it too.
struct CalibrationFilters {
  template <class Profile>
  using Filter = std::function<std::optional<std::vector<FilterResult>>(
      const Profile&, const engine::SequencesView&, const std::vector<std::uint32_t>&, int)>;
  Filter<MsvFilterProfile> msv;
  Filter<ViterbiFilterProfile> viterbi;
};

namespace detail {

// (score - null1) in bits, as evalues.c stores a sample: a float difference divided in double.
inline double calibration_bits(float nats, float null_nats) {
  return static_cast<double>(nats - null_nats) / 0.69314718055994529;
}

inline std::vector<std::uint32_t> calibration_ids(std::uint32_t first, int n) {
  std::vector<std::uint32_t> ids(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = first + static_cast<std::uint32_t>(i);
  return ids;
}

// p7_MSVFilter's answers for the sequences `ids` of db, all of length L (the profile's target length).
inline std::vector<FilterResult> calibration_msv(const MsvFilterProfile& profile, const engine::SequencesView& db,
                                                 const std::vector<std::uint32_t>& ids, std::uint32_t L,
                                                 int threads) {
  std::vector<FilterResult> out(ids.size());
#if CUDP_HAS_SSE_LANES
  using Lane = lanes::u8x16;
  const auto tables = stripe_msv<Lane>(profile, striped_shape_for(profile.M, 1, Lane::width), L);
  const auto targets = [&](const std::vector<std::uint32_t>& which) {
    return tiers::StripedTargets{db.residues, db.offsets, which.data(), static_cast<std::uint32_t>(which.size())};
  };
  // SSV answers most targets; the MSV DP takes those it leaves (NoResult), as p7_MSVFilter does.
  const auto ssv = tiers::striped_rows_on_host<Plan7Ssv<Lane>>(tables.host_ssv_model(), targets(ids), threads);
  std::vector<std::uint32_t> undecided;
  std::vector<std::size_t> where;
  for (std::size_t n = 0; n < ids.size(); ++n) {
    out[n] = ssv_filter_result(profile, tables, L, ssv[n]);
    if (out[n].status == FilterStatus::NoResult) {
      undecided.push_back(ids[n]);
      where.push_back(n);
    }
  }
  if (undecided.empty()) return out;
  const auto msv = tiers::striped_rows_on_host<Plan7Msv<Lane>>(tables.host_model(), targets(undecided), threads);
  for (std::size_t n = 0; n < undecided.size(); ++n) out[where[n]] = msv_filter_result(profile, tables, L, msv[n]);
#else
  host::parallel_for(ids.size(), threads, [] { return 0; },
                     [&](int, std::size_t n) { out[n] = msv_filter(profile, db.data(ids[n]), db.length(ids[n])); });
#endif
  return out;
}

// p7_ViterbiFilter's answers for the sequences `ids` of db, all of length L (the profile's target length).
inline std::vector<FilterResult> calibration_viterbi(const ViterbiFilterProfile& profile,
                                                     const engine::SequencesView& db,
                                                     const std::vector<std::uint32_t>& ids, std::uint32_t L,
                                                     int threads) {
  std::vector<FilterResult> out(ids.size());
  std::vector<std::uint8_t> in_words(ids.size(), 0);
#if CUDP_HAS_SSE_LANES
  using Lane = lanes::s16x8;
  std::uint64_t unsafe_codes = 0;
  if (viterbi_filter_fits_words(profile, L, unsafe_codes)) {
    std::vector<std::uint32_t> fit;
    std::vector<std::size_t> where;
    for (std::size_t n = 0; n < ids.size(); ++n) {
      if (!holds_any_code(db, ids[n], unsafe_codes)) {
        fit.push_back(ids[n]);
        where.push_back(n);
        in_words[n] = 1;
      }
    }
    const auto tables = stripe_viterbi<Lane>(profile, striped_shape_for(profile.M, 1, Lane::width), L);
    const auto raw = tiers::striped_rows_on_host<Plan7ViterbiFilter<Lane>>(
        tables.host_model(),
        tiers::StripedTargets{db.residues, db.offsets, fit.data(), static_cast<std::uint32_t>(fit.size())},
        threads);
    for (std::size_t n = 0; n < fit.size(); ++n) out[where[n]] = viterbi_filter_result(profile, tables, L, raw[n]);
  }
#endif
  // What the words cannot score exactly (see viterbi_filter_fits_words), or everything without SSE2 lanes.
  host::parallel_for(ids.size(), threads, [] { return 0; }, [&](int, std::size_t n) {
    if (!in_words[n]) out[n] = viterbi_filter(profile, db.data(ids[n]), db.length(ids[n]));
  });
  return out;
}

// p7_ForwardParser's scores in nats for the sequences `ids` of db, all of length L, in the multihit length model of
// L (odds.set_mode(true, L)). Four sequences at a time where the CPU has AVX-512 (plan7_parser_groups.hpp: each
// one's special rows bit for bit the single-sequence parser's), one at a time otherwise.
inline std::vector<float> calibration_forward(const StripedOddsProfile& odds, const engine::SequencesView& db,
                                              const std::vector<std::uint32_t>& ids, int L, int threads) {
  std::vector<float> out(ids.size());
  if (parser_group_width() == kParserGroupSize) {
    constexpr std::size_t G = kParserGroupSize;
    const OddsSpecials length_model = multihit_specials(L);
    host::parallel_for((ids.size() + G - 1) / G, threads, [] { return 0; }, [&](int, std::size_t g) {
      const ScopedHmmerFloatMode float_mode;
      ParserGroupTarget group[G];
      std::vector<float> rows[G];
      int count = 0;
      for (std::size_t n = g * G; n < std::min(ids.size(), g * G + G); ++n, ++count) {
        rows[count].resize((static_cast<std::size_t>(L) + 1) * kSpecialCount);
        group[count] = {db.data(ids[n]), L, rows[count].data(), nullptr, false};
      }
      forward_parsers_for_group(odds, group, count);
      StripedMatrix fwd;
      for (int t = 0; t < count; ++t) {
        adopt_parser_specials(fwd, odds.M(), odds.Q(), L, rows[t].data(), true, true);
        out[g * G + static_cast<std::size_t>(t)] = forward_parser_score(length_model, fwd);
      }
    });
    return out;
  }
  host::parallel_for(ids.size(), threads, [] { return StripedMatrix{}; }, [&](StripedMatrix& matrix, std::size_t n) {
    const ScopedHmmerFloatMode float_mode;
    out[n] = striped_forward(odds, db.data(ids[n]), L, matrix, false);
  });
  return out;
}

}  // namespace detail

// The STATS LOCAL parameters of hmm from the random sequences drawn for it (draw_calibration_sequences with the
// same options), scored on `threads` threads, by `filters` where they answer: what p7_Calibrate stores in the model
// (as floats).
inline HmmStats calibrate(const HmmModel& hmm, const NullModel& null_model, const CalibrationOptions& options,
                          const CalibrationSequences& sequences, int threads = 1,
                          const CalibrationFilters& filters = {}) {
  CUDP_PLAN7_NO_FP_CONTRACT
  if (hmm.length < 1) throw std::invalid_argument("calibrate: the model has no nodes");
  const std::size_t expected = static_cast<std::size_t>(options.EmN + options.EvN + options.EfN);
  if (sequences.offsets.size() != expected + 1)
    throw std::invalid_argument("calibrate: the sequences were not drawn for these options");
  const ScopedHmmerFloatMode float_mode;
  const double lambda = calibration_lambda(hmm, null_model);
  // The profile is configured for length EvL; each simulation sets its own length.
  const Plan7Profile profile = configure_profile(hmm, null_model, Plan7Mode::MultihitLocal, options.EvL);
  const engine::SequencesView db = sequences.view();
  std::vector<double> samples;

  // A filter's answers as samples in bits; one that overflowed stands at the largest score the filter has.
  auto fill_samples = [&](const std::vector<FilterResult>& results, int L, float ceiling) {
    samples.assign(results.size(), 0.0);
    for (std::size_t n = 0; n < results.size(); ++n) {
      const FilterResult& r = results[n];
      samples[n] = detail::calibration_bits(r.status == FilterStatus::Overflow ? ceiling : r.nats, null1_score(L));
    }
  };
  // The answers of `theirs` where it gives them for every id, of `ours` otherwise.
  auto answers = [&](const auto& theirs, const auto& profile_, const std::vector<std::uint32_t>& ids, auto ours) {
    if (theirs) {
      if (auto out = theirs(profile_, db, ids, threads); out && out->size() == ids.size()) return std::move(*out);
    }
    return ours(profile_, db, ids, threads);
  };
  const MsvFilterProfile msv = make_msv_filter_profile(profile, options.EmL);
  const auto EmL = static_cast<std::uint32_t>(options.EmL);
  fill_samples(answers(filters.msv, msv, detail::calibration_ids(0, options.EmN),
                       [&](const auto& p, const auto& d, const auto& ids, int t) {
                         return detail::calibration_msv(p, d, ids, EmL, t);
                       }),
               options.EmL, static_cast<float>(255 - msv.base) / msv.scale);
  const double msv_mu = gumbel_fit_location(samples, lambda);

  const ViterbiFilterProfile viterbi = make_viterbi_filter_profile(profile, options.EvL);
  const auto EvL = static_cast<std::uint32_t>(options.EvL);
  fill_samples(answers(filters.viterbi, viterbi, detail::calibration_ids(sequences.viterbi_first, options.EvN),
                       [&](const auto& p, const auto& d, const auto& ids, int t) {
                         return detail::calibration_viterbi(p, d, ids, EvL, t);
                       }),
               options.EvL,
               static_cast<float>((32767.0 - static_cast<double>(viterbi.base)) / static_cast<double>(viterbi.scale)));
  const double viterbi_mu = gumbel_fit_location(samples, lambda);

  StripedOddsProfile odds(profile);
  odds.set_mode(true, options.EfL);
  const std::vector<float> forward_nats =
      detail::calibration_forward(odds, db, detail::calibration_ids(sequences.forward_first, options.EfN), options.EfL,
                                  threads);
  samples.assign(forward_nats.size(), 0.0);
  for (std::size_t n = 0; n < forward_nats.size(); ++n)
    samples[n] = detail::calibration_bits(forward_nats[n], null1_score(options.EfL));
  const GumbelFit forward = gumbel_fit(samples);
  const double tau = gumbel_quantile(1.0 - options.Eft, forward.mu, forward.lambda) + std::log(options.Eft) / lambda;

  HmmStats stats;
  stats.msv_lambda = stats.viterbi_lambda = stats.forward_lambda = static_cast<float>(lambda);
  stats.msv_mu = static_cast<float>(msv_mu);
  stats.viterbi_mu = static_cast<float>(viterbi_mu);
  stats.forward_tau = static_cast<float>(tau);
  return stats;
}

// The same, drawing the sequences from `random` first (HMMER's order).
inline HmmStats calibrate(const HmmModel& hmm, const NullModel& null_model, const CalibrationOptions& options,
                          EaselFastRandom& random, int threads = 1, const CalibrationFilters& filters = {}) {
  return calibrate(hmm, null_model, options, draw_calibration_sequences(random, null_model, options), threads,
                   filters);
}

}  // namespace cudp::hmmer

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
