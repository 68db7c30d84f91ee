// The striped Plan7 filters in HMMER's saturating words of 16 and 32 bytes and as wide as the CPU's vectors (u8xn,
// s16xn_saturating, run by StripedVectorRun), in every instruction set this CPU has, against the scalar HMMER reference: the checks of
// plan7_striped_test.cpp, per target.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cudp/hmmer/striped_tables.hpp"
#include "cudp/tiers/striped_rows_host.hpp"
#include "striped_filter_check.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tests/hmmer/striped_vector_test.cpp"  // through the project root, an include directory
#include <hwy/foreach_target.h>
#include <hwy/highway.h>

#include <cudp/lanes/host_vector-inl.hpp>
#include <cudp/tiers/striped_rows_vector-inl.hpp>

#ifndef CUDP_STRIPED_VECTOR_TEST_TALLY
#define CUDP_STRIPED_VECTOR_TEST_TALLY
namespace cudp::test {
// What one instruction set's run found: comparisons, the outcomes that must occur, and the first disagreement.
struct VectorTally {
  int compared = 0, msv_overflows = 0, ssv_no_results = 0, viterbi_overflows = 0, width = 0;
  std::string failure;
};
}  // namespace cudp::test
#endif

HWY_BEFORE_NAMESPACE();
namespace cudp::test::HWY_NAMESPACE {

#if HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
template <class U8, class S16>
__attribute__((flatten)) void check_case(StripedFilterCase& c, VectorTally& tally) {
  tiers::StripedTargets targets{c.residues.data(), c.offsets.data(), c.ids.data(), static_cast<std::uint32_t>(c.ids.size())};
  const auto msv_tables = hmmer::stripe_msv<U8>(c.msv, hmmer::striped_shape_for(c.msv.M, 1, U8::width), 100000);
  const auto msv = tiers::striped_rows_on_host<hmmer::Plan7Msv<U8>>(
      msv_tables.host_model(), targets, 2, tiers::HWY_NAMESPACE::StripedVectorRun<hmmer::Plan7Msv<U8>>{});
  const auto ssv = tiers::striped_rows_on_host<hmmer::Plan7Ssv<U8>>(
      msv_tables.host_ssv_model(), targets, 2, tiers::HWY_NAMESPACE::StripedVectorRun<hmmer::Plan7Ssv<U8>>{});
  const auto vit_tables =
      hmmer::stripe_viterbi<S16>(c.viterbi, hmmer::striped_shape_for(c.viterbi.M, 1, S16::width), 100000);
  const auto vit = tiers::striped_rows_on_host<hmmer::Plan7ViterbiFilter<S16>>(
      vit_tables.host_model(), targets, 2, tiers::HWY_NAMESPACE::StripedVectorRun<hmmer::Plan7ViterbiFilter<S16>>{});
  tally.width = std::max(tally.width, U8::width);
  for (std::size_t i = 0; i < c.ids.size() && tally.failure.empty(); ++i) {
    const std::uint32_t id = c.ids[i];
    const std::string where =
        std::to_string(U8::width) + " bytes, M=" + std::to_string(c.msv.M) + " target " + std::to_string(id) + ": ";
    const auto got_msv = hmmer::msv_filter_result(c.msv, msv_tables, c.length(id), msv[i]);
    const auto want_msv = reference_msv(c, id);
    if (!same_filter_result(got_msv, want_msv)) tally.failure = where + "MSV " + describe(got_msv) + " vs " + describe(want_msv);
    tally.msv_overflows += want_msv.status == hmmer::FilterStatus::Overflow;

    const auto got_ssv = hmmer::ssv_filter_result(c.msv, msv_tables, c.length(id), ssv[i]);
    c.msv.set_target_length(c.length(id));
    const auto want_ssv = hmmer::ssv_filter(c.msv, c.data(id), c.length(id));
    if (got_ssv.status != want_ssv.status || (want_ssv.status == hmmer::FilterStatus::Ok && got_ssv.nats != want_ssv.nats))
      tally.failure = where + "SSV " + describe(got_ssv) + " vs " + describe(want_ssv);
    tally.ssv_no_results += want_ssv.status == hmmer::FilterStatus::NoResult;

    const auto got_vit = hmmer::viterbi_filter_result(c.viterbi, vit_tables, c.length(id), vit[i]);
    const auto want_vit = reference_viterbi(c, id);
    if (!same_filter_result(got_vit, want_vit)) tally.failure = where + "Viterbi " + describe(got_vit) + " vs " + describe(want_vit);
    tally.viterbi_overflows += want_vit.status == hmmer::FilterStatus::Overflow;
    ++tally.compared;
  }
}
#endif

VectorTally CheckFilters() {
  VectorTally tally;
#if HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  for (const auto& o : striped_model_ladder()) {
    auto c = make_striped_case(o, 60, 700);
    std::uint64_t unsafe_codes = 0;
    if (!hmmer::viterbi_filter_fits_words(c.viterbi, 100000, unsafe_codes)) {
      tally.failure = "a ladder model the 16-bit words cannot score";
      break;
    }
    // The capped widths the host filters pick for short models, then the widest.
    namespace lanes_here = cudp::lanes::HWY_NAMESPACE;
    check_case<lanes_here::u8xn_capped<16>, lanes_here::s16xn_saturating_capped<16>>(c, tally);
    check_case<lanes_here::u8xn_capped<32>, lanes_here::s16xn_saturating_capped<32>>(c, tally);
    check_case<lanes_here::u8xn, lanes_here::s16xn_saturating>(c, tally);
    if (!tally.failure.empty()) break;
  }
#endif
  return tally;
}

}  // namespace cudp::test::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace cudp::test {
HWY_EXPORT(CheckFilters);
}  // namespace cudp::test

TEST_CASE("striped MSV, SSV and Viterbi filters in vector words equal HMMER's in every instruction set",
          "[plan7][striped][host_vector]") {
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (target == HWY_SCALAR || target == HWY_EMU128) continue;  // the SSE2 words run there (plan7_striped_test)
    hwy::SetSupportedTargetsForTest(target);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    INFO("instruction set " << hwy::TargetName(target));
    const cudp::test::VectorTally tally = HWY_DYNAMIC_DISPATCH(cudp::test::CheckFilters)();
    CHECK(tally.failure == "");
    CHECK(tally.compared > 1000);
    CHECK(tally.msv_overflows > 0);      // consensus runs reach the top of the bytes
    CHECK(tally.ssv_no_results > 0);     // strong hits where the J state might have mattered
    CHECK(tally.viterbi_overflows > 0);
    if (target == HWY_AVX3) CHECK(tally.width == 64);
    if (target == HWY_AVX2) CHECK(tally.width == 32);
  }
  hwy::SetSupportedTargetsForTest(0);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}
#endif
