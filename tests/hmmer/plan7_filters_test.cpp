// HMMER 3.3.2's quantized filters on the host: the byte/word conversions against hand-worked values, and the
// scalar filters against float versions of the same models (the quantized scores may differ from them only by
// rounding) on the hmmer-examples models and sequences. tests/oracle/hmmsearch_filters.py compares the filters'
// pass counts with hmmsearch itself.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cudp/hmmer/plan7.hpp"
#include "cudp/hmmer/plan7_filter_reference.hpp"
#include "cudp/io/fasta.hpp"
#include "cudp/hmmer/hmm_file.hpp"
#include "../support/test_data.hpp"

namespace {

using cudp::hmmer::FilterStatus;
using cudp::hmmer::MsvFilterProfile;
using cudp::hmmer::Plan7Profile;
using cudp::hmmer::ViterbiFilterProfile;

constexpr double kLn2 = 0.69314718055994529;

// HMMER's word conversion written out here, not taken from the implementation: a score in nats times the word
// scale (500 / ln 2: a bit is 500 units), rounded half away from zero in float, saturated to 16 bits; minus
// infinity is the floor.
int expected_viterbi_word(float scale, float nats) {
  if (nats == -std::numeric_limits<float>::infinity()) return -32768;
  const float units = std::round(scale * nats);
  return units >= 32767.0f ? 32767 : (units <= -32768.0f ? -32768 : static_cast<int>(units));
}

struct Example {
  cudp::hmmer::HmmModel hmm;
  Plan7Profile profile;
  cudp::io::SequenceSet targets;
};

Example load(const std::string& model, const std::string& sequences) {
  Example e;
  e.hmm = cudp::hmmer::read_hmm_file(cudp::test::hmmer_examples_file(model)).at(0);
  const auto& alphabet = cudp::hmmer::plan7_alphabet_of(e.hmm.alphabet);
  e.profile = cudp::hmmer::configure_profile(e.hmm, cudp::hmmer::default_null_model(alphabet));
  e.targets = cudp::io::read_fasta(cudp::test::hmmer_examples_file(sequences), alphabet.sequence_alphabet);
  return e;
}

// The MSV model in float: uniform entry, no transitions inside a diagonal, E->J = E->C = 1/2, N/C/J loops left
// out (the filters' -3 nat approximation), N->B = J->B = C->T = 3/(L+3). What the byte MSV approximates.
float float_msv(const Plan7Profile& p, const std::uint8_t* codes, std::size_t L) {
  const float minus_infinity = -std::numeric_limits<float>::infinity();
  const float entry = std::log(2.0f / (static_cast<float>(p.M) * static_cast<float>(p.M + 1)));
  const float move = std::log(3.0f / static_cast<float>(L + 3));
  std::vector<float> previous(static_cast<std::size_t>(p.M) + 1, minus_infinity), current(previous);
  float J = minus_infinity, C = minus_infinity, B = move + entry;
  for (std::size_t i = 0; i < L; ++i) {
    float E = minus_infinity;
    for (int k = 1; k <= p.M; ++k) {
      current[k] = std::max(previous[k - 1], B) + p.match_score(k, codes[i]);
      E = std::max(E, current[k]);
    }
    J = std::max(J, E + std::log(0.5f));
    C = std::max(C, E + std::log(0.5f));
    B = std::max(0.0f, J) + move + entry;
    std::swap(previous, current);
  }
  return C + move - 3.0f;
}

// The reference Viterbi with the Viterbi filter's length model: N, C, J loops free, -3 nats at the end.
float float_viterbi_like_filter(Plan7Profile p, const std::uint8_t* codes, std::size_t L) {
  p.set_target_length(static_cast<std::int64_t>(L));
  p.n.loop = p.c.loop = p.j.loop = 0.0f;
  return static_cast<float>(cudp::hmmer::viterbi_score<double>(p, codes, L)) - 3.0f;
}

// Each node's best-scoring residue, repeated: a sequence the filters cannot represent the score of.
std::vector<std::uint8_t> repeated_consensus(const Plan7Profile& p, int copies) {
  std::vector<std::uint8_t> codes;
  for (int c = 0; c < copies; ++c) {
    for (int k = 1; k <= p.M; ++k) {
      int best = 0;
      for (int x = 1; x < p.alphabet->K; ++x) {
        if (p.match_score(k, x) > p.match_score(k, best)) best = x;
      }
      codes.push_back(static_cast<std::uint8_t>(best));
    }
  }
  return codes;
}

}  // namespace

TEST_CASE("HMMER's byte and word conversions", "[plan7][filters]") {
  const float scale_b = static_cast<float>(3.0 / kLn2);
  const float scale_w = static_cast<float>(500.0 / kLn2);
  CHECK(cudp::hmmer::msv_unbiased_cost(scale_b, std::log(0.5f)) == 3);  // one bit is three third-bits
  CHECK(cudp::hmmer::msv_unbiased_cost(scale_b, -1000.0f) == 255);
  CHECK(cudp::hmmer::msv_unbiased_cost(scale_b, -std::numeric_limits<float>::infinity()) == 255);
  // With bias 14 (the best score rounds to 14 third-bits): +3.2 nats is 13.85 third-bits, rounded 14, cost 0.
  CHECK(cudp::hmmer::msv_biased_cost(scale_b, 14, 3.2f) == 0);
  CHECK(cudp::hmmer::msv_biased_cost(scale_b, 14, 0.0f) == 14);
  CHECK(cudp::hmmer::msv_biased_cost(scale_b, 14, -1.0f) == 14 + 4);   // 4.33 third-bits rounds to 4
  CHECK(cudp::hmmer::msv_biased_cost(scale_b, 14, -56.0f) == 255);     // 242 + 14 > 255
  CHECK(cudp::hmmer::msv_biased_cost(scale_b, 14, -std::numeric_limits<float>::infinity()) == 255);
  CHECK(cudp::hmmer::viterbi_word(scale_w, std::log(0.5f)) == -500);
  CHECK(cudp::hmmer::viterbi_word(scale_w, 1.0f) == 721);
  CHECK(cudp::hmmer::viterbi_word(scale_w, 100.0f) == 32767);
  CHECK(cudp::hmmer::viterbi_word(scale_w, -std::numeric_limits<float>::infinity()) == -32768);
}

TEST_CASE("filter profiles of globins4", "[plan7][filters][hmmer-examples]") {
  const Example e = load("tutorial/globins4.hmm", "tutorial/HBB_HUMAN");
  const Plan7Profile& p = e.profile;
  const MsvFilterProfile msv = cudp::hmmer::make_msv_filter_profile(p, 400);
  float best = 0;
  for (int x = 0; x < p.alphabet->K; ++x)
    for (int k = 1; k <= p.M; ++k) best = std::max(best, p.match_score(k, x));
  CHECK(msv.bias == static_cast<int>(std::round(msv.scale * best)));
  CHECK(msv.end_cost == 3);
  CHECK(msv.move_cost == static_cast<int>(-std::round(msv.scale * std::log(3.0f / 403.0f))));
  CHECK(msv.entry_cost == static_cast<int>(-std::round(msv.scale * std::log(2.0f / (149.0f * 150.0f)))));
  int zero_costs = 0;
  for (int x = 0; x < p.alphabet->K; ++x) {
    for (int k = 1; k <= p.M; ++k) {
      const int expected = msv.bias - static_cast<int>(std::round(msv.scale * p.match_score(k, x)));
      CHECK(msv.cost(k, x) == std::min(expected, 255));
      zero_costs += msv.cost(k, x) == 0;
    }
  }
  CHECK(zero_costs >= 1);  // the best residue costs nothing
  CHECK(msv.cost(1, p.alphabet->Kp - 1) == 255);  // missing data '~' is impossible

  const ViterbiFilterProfile vf = cudp::hmmer::make_viterbi_filter_profile(p, 400);
  CHECK(vf.e_loop == -500);
  CHECK(vf.e_move == -500);
  CHECK(vf.scale == static_cast<float>(500.0 / kLn2));
  CHECK(vf.n_move == expected_viterbi_word(vf.scale, std::log(3.0f / 403.0f)));
  CHECK(vf.n_move == -3535);  // log(3/403) = -4.9003 nats = -7.0696 bits = -3534.8 units
  for (int k = 1; k < p.M; ++k) {
    CHECK(vf.nodes[k].ii <= -1);
    CHECK(vf.nodes[k].mm == expected_viterbi_word(vf.scale, p.transition(k, cudp::hmmer::kMM)));
  }
  CHECK(vf.nodes[p.M].mm == -32768);
  CHECK(vf.nodes[0].mm == -32768);
  CHECK(vf.ddbound > -32768);
  CHECK(vf.ddbound < 32767);
}

TEST_CASE("byte MSV and word Viterbi filters agree with their float models up to rounding", "[plan7][filters][hmmer-examples]") {
  struct Case {
    const char* model;
    const char* sequences;
  };
  const Case cases[] = {{"tutorial/globins4.hmm", "tutorial/globins45.fa"},
                        {"tutorial/fn3.hmm", "tutorial/globins45.fa"},
                        {"tutorial/Pkinase.hmm", "tutorial/globins45.fa"},
                        {"tutorial/MADE1.hmm", "tutorial/dna_target.fa"}};
  int msv_compared = 0, vit_compared = 0, ssv_answers = 0, msv_overflows = 0, vit_overflows = 0;
  double worst_msv = 0, worst_vit = 0;
  for (const Case& c : cases) {
    const Example e = load(c.model, c.sequences);
    MsvFilterProfile msv = cudp::hmmer::make_msv_filter_profile(e.profile, 400);
    ViterbiFilterProfile vf = cudp::hmmer::make_viterbi_filter_profile(e.profile, 400);
    for (std::size_t s = 0; s < e.targets.size(); ++s) {
      const std::size_t L = e.targets.length(s);
      const std::uint8_t* codes = e.targets.data(s);
      msv.set_target_length(static_cast<std::int64_t>(L));
      vf.set_target_length(static_cast<std::int64_t>(L));
      INFO(c.model << " target " << e.targets.names[s] << " L=" << L);

      const auto dp = cudp::hmmer::msv_filter_dp(msv, codes, L);
      const auto ssv = cudp::hmmer::ssv_filter(msv, codes, L);
      const auto msv_result = cudp::hmmer::msv_filter(msv, codes, L);
      if (ssv.status != FilterStatus::NoResult) {
        // Where SSV answers, it must be what the MSV DP computes: the J state could not have mattered.
        ++ssv_answers;
        CHECK(ssv.status == dp.status);
        if (dp.status == FilterStatus::Ok) CHECK(ssv.nats == dp.nats);
      }
      CHECK(msv_result.status == (ssv.status == FilterStatus::NoResult ? dp.status : ssv.status));
      const float msv_reference = float_msv(e.profile, codes, L);
      // The bytes hold 255 - bias - base third-bits above the base; higher scores overflow (+infinity).
      const float msv_ceiling =
          static_cast<float>(255 - msv.bias - msv.base - msv.end_cost - msv.move_cost) / msv.scale - 3.0f;
      if (dp.status == FilterStatus::Overflow) {
        CHECK(msv_reference > msv_ceiling - 2.0f);
        ++msv_overflows;
      } else if (msv_reference > -30) {
        // Each residue's score is rounded to a third of a bit (at most 0.058 nats), and the two differ where
        // the byte DP floors at -infinity; on real scores, the sum of rounding errors stays small.
        CHECK(msv_reference < msv_ceiling + 2.0f);
        worst_msv = std::max(worst_msv, std::fabs(double(dp.nats) - msv_reference));
        CHECK(dp.nats == Approx(msv_reference).margin(1.0));
        ++msv_compared;
      }

      const auto vit = cudp::hmmer::viterbi_filter(vf, codes, L);
      // Lazy-F only skips D->D work that cannot matter: the exhaustive filter scores the same.
      const auto vit_exhaustive = cudp::hmmer::viterbi_filter(vf, codes, L, cudp::hmmer::LazyF::AlwaysClose);
      CHECK(vit_exhaustive.status == vit.status);
      if (vit.status == FilterStatus::Ok) CHECK(vit_exhaustive.nats == vit.nats);
      const float reference = float_viterbi_like_filter(e.profile, codes, L);
      const float vit_ceiling = static_cast<float>(32767 + vf.e_move + vf.c_move - vf.base) / vf.scale - 3.0f;
      if (vit.status == FilterStatus::Overflow) {
        CHECK(reference > vit_ceiling - 0.1f);
        ++vit_overflows;
      } else if (reference > -60) {  // far below the base, the words saturate
        CHECK(reference < vit_ceiling + 0.1f);
        worst_vit = std::max(worst_vit, std::fabs(double(vit.nats) - reference));
        CHECK(vit.nats == Approx(reference).margin(0.05));
        ++vit_compared;
      }
    }
  }
  CHECK(msv_compared > 50);
  CHECK(vit_compared > 50);
  CHECK(ssv_answers > 50);
  CHECK(msv_overflows > 10);  // globins4 against the globins
  CHECK(vit_overflows > 10);
  WARN("MSV vs float MSV: " << msv_compared << " targets, max |diff| " << worst_msv << " nats; Viterbi filter vs "
       "float Viterbi: " << vit_compared << " targets, max |diff| " << worst_vit << " nats");
}

TEST_CASE("a long run of consensus overflows both filters, and the target passes", "[plan7][filters][hmmer-examples]") {
  const Example e = load("tutorial/globins4.hmm", "tutorial/HBB_HUMAN");
  const auto codes = repeated_consensus(e.profile, 20);
  MsvFilterProfile msv = cudp::hmmer::make_msv_filter_profile(e.profile, static_cast<std::int64_t>(codes.size()));
  ViterbiFilterProfile vf = cudp::hmmer::make_viterbi_filter_profile(e.profile, static_cast<std::int64_t>(codes.size()));
  const auto msv_result = cudp::hmmer::msv_filter(msv, codes.data(), codes.size());
  CHECK(msv_result.status == FilterStatus::Overflow);
  CHECK(std::isinf(msv_result.nats));
  CHECK(cudp::hmmer::msv_filter_dp(msv, codes.data(), codes.size()).status == FilterStatus::Overflow);
  CHECK(cudp::hmmer::viterbi_filter(vf, codes.data(), codes.size()).status == FilterStatus::Overflow);
  const auto pipeline =
      cudp::hmmer::run_filter_pipeline(msv, vf, *e.hmm.stats, codes.data(), codes.size(), 0.02, 1e-3);
  CHECK(pipeline.passed_msv);
  CHECK(pipeline.passed_viterbi);
  CHECK(pipeline.msv_pvalue == 0.0);

  // A few consensus residues fit in the ranges.
  auto one = repeated_consensus(e.profile, 1);
  one.resize(8);
  msv.set_target_length(static_cast<std::int64_t>(one.size()));
  vf.set_target_length(static_cast<std::int64_t>(one.size()));
  CHECK(cudp::hmmer::msv_filter(msv, one.data(), one.size()).status == FilterStatus::Ok);
  CHECK(cudp::hmmer::viterbi_filter(vf, one.data(), one.size()).status == FilterStatus::Ok);
}

TEST_CASE("the length model moves the filter scores by the N->B and C->T costs", "[plan7][filters][hmmer-examples]") {
  const Example e = load("tutorial/globins4.hmm", "tutorial/HBB_HUMAN");
  // The start of HBB_HUMAN: a weak hit, whose scores fit in the filters' ranges.
  const std::vector<std::uint8_t> hit(e.targets.data(0), e.targets.data(0) + 15);
  // Padding with missing data ('~', impossible in every match state) adds no score: only the length changes.
  std::vector<std::uint8_t> padded = hit;
  padded.resize(hit.size() * 10, static_cast<std::uint8_t>(e.profile.alphabet->Kp - 1));

  MsvFilterProfile msv = cudp::hmmer::make_msv_filter_profile(e.profile, 400);
  ViterbiFilterProfile vf = cudp::hmmer::make_viterbi_filter_profile(e.profile, 400);
  msv.set_target_length(static_cast<std::int64_t>(hit.size()));
  vf.set_target_length(static_cast<std::int64_t>(hit.size()));
  const int msv_move_short = msv.move_cost;
  const int vf_move_short = vf.n_move;
  const auto msv_short = cudp::hmmer::msv_filter(msv, hit.data(), hit.size());
  const auto vit_short = cudp::hmmer::viterbi_filter(vf, hit.data(), hit.size());
  msv.set_target_length(static_cast<std::int64_t>(padded.size()));
  vf.set_target_length(static_cast<std::int64_t>(padded.size()));
  CHECK(msv.move_cost > msv_move_short);  // a longer target makes N->B and C->T less likely
  CHECK(vf.n_move < vf_move_short);
  const auto msv_long = cudp::hmmer::msv_filter(msv, padded.data(), padded.size());
  const auto vit_long = cudp::hmmer::viterbi_filter(vf, padded.data(), padded.size());
  REQUIRE(msv_short.status == FilterStatus::Ok);
  REQUIRE(msv_long.status == FilterStatus::Ok);
  // The hit enters once and leaves once: the score moves by twice the change of the move cost.
  CHECK(msv_short.nats - msv_long.nats ==
        Approx(2.0 * (msv.move_cost - msv_move_short) / msv.scale).margin(1e-4));
  CHECK(vit_short.nats - vit_long.nats == Approx(2.0 * (vf_move_short - vf.n_move) / vf.scale).margin(1e-4));
  // And the filter profiles refuse a target of another length.
  CHECK_THROWS_AS(cudp::hmmer::msv_filter(msv, hit.data(), hit.size()), std::invalid_argument);
  CHECK_THROWS_AS(cudp::hmmer::viterbi_filter(vf, hit.data(), hit.size()), std::invalid_argument);
}
