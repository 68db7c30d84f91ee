// The striped Plan7 filter policies (MSV in u8x4 and s16x2, the Viterbi filter in s16x2) on the host tier against
// the scalar HMMER reference: identical statuses and scores on random and adversarial models and targets.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cudp/hmmer/striped_tables.hpp"
#include "cudp/lanes/sse.hpp"
#include "cudp/tiers/striped_rows_host.hpp"
#include "striped_filter_check.hpp"

namespace {

using namespace cudp;

template <class L>
void check_msv(test::StripedFilterCase& c) {
  const auto shape = hmmer::striped_shape_for(c.msv.M, 1, L::width);
  const auto tables = hmmer::stripe_msv<L>(c.msv, shape, 100000);
  tiers::StripedTargets targets{c.residues.data(), c.offsets.data(), c.ids.data(), static_cast<std::uint32_t>(c.ids.size())};
  const auto raw = tiers::striped_rows_on_host<hmmer::Plan7Msv<L>>(tables.host_model(), targets, 2);
  int overflows = 0;
  for (std::size_t i = 0; i < c.ids.size(); ++i) {
    const auto got = hmmer::msv_filter_result(c.msv, tables, c.length(c.ids[i]), raw[i]);
    const auto want = test::reference_msv(c, c.ids[i]);
    INFO(L::name << " M=" << c.msv.M << " target " << c.ids[i] << " L=" << c.length(c.ids[i]) << ": "
                 << test::describe(got) << " vs " << test::describe(want));
    CHECK(test::same_filter_result(got, want));
    overflows += want.status == hmmer::FilterStatus::Overflow;
  }
  if (c.msv.M >= 17) CHECK(overflows > 0);  // the consensus runs must reach the top of the bytes
}

// SSV: the striped best diagonal, turned into p7_SSVFilter's answer, equals the scalar SSV (NoResult included).
template <class L>
void check_ssv(test::StripedFilterCase& c, int& no_results) {
  const auto shape = hmmer::striped_shape_for(c.msv.M, 1, L::width);
  const auto tables = hmmer::stripe_msv<L>(c.msv, shape, 100000);
  tiers::StripedTargets targets{c.residues.data(), c.offsets.data(), c.ids.data(), static_cast<std::uint32_t>(c.ids.size())};
  const auto raw = tiers::striped_rows_on_host<hmmer::Plan7Ssv<L>>(tables.host_ssv_model(), targets, 2);
  for (std::size_t i = 0; i < c.ids.size(); ++i) {
    const auto got = hmmer::ssv_filter_result(c.msv, tables, c.length(c.ids[i]), raw[i]);
    c.msv.set_target_length(c.length(c.ids[i]));
    const auto want = hmmer::ssv_filter(c.msv, c.data(c.ids[i]), c.length(c.ids[i]));
    INFO(L::name << " M=" << c.msv.M << " target " << c.ids[i] << " L=" << c.length(c.ids[i]) << ": "
                 << static_cast<int>(got.status) << "/" << got.nats << " vs " << static_cast<int>(want.status) << "/"
                 << want.nats);
    CHECK(got.status == want.status);
    if (want.status == hmmer::FilterStatus::Ok) CHECK(got.nats == want.nats);
    no_results += want.status == hmmer::FilterStatus::NoResult;
  }
}

}  // namespace

TEST_CASE("striped MSV equals HMMER's MSV filter in u8x4 and s16x2", "[plan7][striped]") {
  for (const auto& o : test::striped_model_ladder()) {
    auto c = test::make_striped_case(o, 60, 700);
    check_msv<lanes::u8x4>(c);
    check_msv<lanes::s16x2>(c);
#if CUDP_HAS_SSE_LANES
    check_msv<lanes::u8x16>(c);
#endif
  }
}

template <class L>
void check_viterbi(test::StripedFilterCase& c, const test::RandomModelOptions& o, int& compared, int& overflows) {
  const auto shape = hmmer::striped_shape_for(c.viterbi.M, 1, L::width);
  const auto tables = hmmer::stripe_viterbi<L>(c.viterbi, shape, 100000);
  tiers::StripedTargets targets{c.residues.data(), c.offsets.data(), c.ids.data(), static_cast<std::uint32_t>(c.ids.size())};
  const auto raw = tiers::striped_rows_on_host<hmmer::Plan7ViterbiFilter<L>>(tables.host_model(), targets, 2);
  for (std::size_t i = 0; i < c.ids.size(); ++i) {
    const auto got = hmmer::viterbi_filter_result(c.viterbi, tables, c.length(c.ids[i]), raw[i]);
    const auto want = test::reference_viterbi(c, c.ids[i]);
    INFO(L::name << " M=" << c.viterbi.M << (o.sticky_deletes ? " sticky" : "") << " target " << c.ids[i]
                 << " L=" << c.length(c.ids[i]) << ": " << test::describe(got) << " vs " << test::describe(want));
    CHECK(test::same_filter_result(got, want));
    ++compared;
    overflows += want.status == hmmer::FilterStatus::Overflow;
  }
}

TEST_CASE("striped SSV equals HMMER's SSV filter, NoResult included", "[plan7][striped]") {
  int no_results = 0;
  for (const auto& o : test::striped_model_ladder()) {
    auto c = test::make_striped_case(o, 60, 700);
    check_ssv<lanes::u8x4>(c, no_results);
    check_ssv<lanes::s16x2>(c, no_results);
#if CUDP_HAS_SSE_LANES
    check_ssv<lanes::u8x16>(c, no_results);
#endif
  }
  CHECK(no_results > 0);  // strong hits where the J state might have mattered
}

TEST_CASE("striped Viterbi filter equals HMMER's, Lazy-F included", "[plan7][striped]") {
  int compared = 0, overflows = 0;
  for (const auto& o : test::striped_model_ladder()) {
    auto c = test::make_striped_case(o, 60, 700);
    std::uint64_t unsafe_codes = 0;
    REQUIRE(hmmer::viterbi_filter_fits_words(c.viterbi, 100000, unsafe_codes));
    check_viterbi<lanes::s16x2>(c, o, compared, overflows);
#if CUDP_HAS_SSE_LANES
    check_viterbi<lanes::s16x8>(c, o, compared, overflows);
#endif
  }
  CHECK(overflows > 0);
  CHECK(compared > 1000);
}

TEST_CASE("models the 16-bit words cannot score exactly are refused", "[plan7][striped]") {
  auto c = test::make_striped_case({50, false, 3}, 4, 50);
  std::uint64_t unsafe_codes = 0;
  REQUIRE(hmmer::viterbi_filter_fits_words(c.viterbi, 1000, unsafe_codes));
  // Not-a-residue and missing-data codes score -infinity: targets holding them go elsewhere.
  const auto& a = *c.profile.alphabet;
  CHECK(((unsafe_codes >> a.nonresidue()) & 1u) == 1u);
  CHECK(((unsafe_codes >> a.missing()) & 1u) == 1u);
  CHECK((unsafe_codes & ((1ull << a.K) - 1)) == 0u);
  // A transition of probability 0 inside the model is below any floor.
  c.viterbi.nodes[10].dd = -32768;
  CHECK_FALSE(hmmer::viterbi_filter_fits_words(c.viterbi, 1000, unsafe_codes));
}

TEST_CASE("striped Forward equals the reference Forward to float rounding", "[plan7][striped]") {
  int compared = 0;
  double worst = 0;
  for (const auto& o : test::striped_model_ladder()) {
    auto c = test::make_striped_case(o, 40, 700);
    const auto shape = hmmer::striped_shape_for(c.profile.M, 1, 1);
    const auto tables = hmmer::stripe_forward(c.profile, shape);
    tiers::StripedTargets targets{c.residues.data(), c.offsets.data(), c.ids.data(), static_cast<std::uint32_t>(c.ids.size())};
    const auto got = tiers::striped_rows_on_host<hmmer::Plan7Forward>(tables.host_model(), targets, 2);
    for (std::size_t i = 0; i < c.ids.size(); ++i) {
      auto profile = c.profile;
      profile.set_target_length(c.length(c.ids[i]));
      const double want = hmmer::forward_score<double>(profile, c.data(c.ids[i]), c.length(c.ids[i]));
      INFO("M=" << c.profile.M << (o.sticky_deletes ? " sticky" : "") << " target " << c.ids[i] << " L="
                << c.length(c.ids[i]) << ": " << got[i].nats << " vs " << want);
      // float sums in another order than the reference: agreement to about 1e-5 of the score's terms
      CHECK(got[i].nats == Approx(want).margin(1e-3).epsilon(1e-5));
      worst = std::max(worst, std::fabs(got[i].nats - want));
      ++compared;
    }
  }
  CHECK(compared > 500);
  WARN("striped Forward: " << compared << " targets, largest difference " << worst << " nats");
}

// The codes a database holds, read in chunks on every core: a code that occurs once, in any chunk (the last one,
// its last residue, included), is found; codes that never occur are not.
TEST_CASE("codes_present finds every code a database holds, and no other", "[plan7][striped]") {
  std::vector<std::uint8_t> residues((std::size_t{1} << 23) + 12345, 3);
  std::vector<std::uint64_t> offsets{0, 100, 5000000, residues.size()};
  const engine::SequencesView db{residues.data(), offsets.data(), offsets.size() - 1};
  REQUIRE(hmmer::codes_present(db) == std::uint64_t{1} << 3);
  residues[99] = 7;
  residues[(std::size_t{1} << 22) + 1] = 20;
  residues.back() = 28;
  REQUIRE(hmmer::codes_present(db) == ((std::uint64_t{1} << 3) | (std::uint64_t{1} << 7) | (std::uint64_t{1} << 20) |
                                       (std::uint64_t{1} << 28)));
  // A view that starts past the first sequence (a part of a database) reads only its own residues.
  std::vector<std::uint64_t> tail{100, 5000000};
  const engine::SequencesView part{residues.data(), tail.data(), 1};
  REQUIRE(hmmer::codes_present(part) == ((std::uint64_t{1} << 3) | (std::uint64_t{1} << 20)));
  const engine::SequencesView empty{residues.data(), offsets.data(), 0};
  REQUIRE(hmmer::codes_present(empty) == 0);
}
