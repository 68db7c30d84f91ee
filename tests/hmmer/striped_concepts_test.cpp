// The striped-row contract: the Plan7 filter policies sign it in every lane they run in, and the traits reject
// a wavefront policy or a policy missing a member.
#include <catch2/catch.hpp>

#include "cudp/lanes.hpp"
#include "cudp/lanes/sse.hpp"
#include "cudp/recurrences/concepts.hpp"
#include "cudp/recurrences/gotoh.hpp"
#include "cudp/hmmer/striped_forward.hpp"
#include "cudp/hmmer/striped_msv.hpp"
#include "cudp/hmmer/striped_ssv.hpp"
#include "cudp/hmmer/striped_viterbi_filter.hpp"

namespace r = cudp::recurrences;
namespace lanes = cudp::lanes;
namespace hmmer = cudp::hmmer;

namespace {
// The SSV filter without its `finished` test.
template <class L>
struct SsvWithoutFinished : hmmer::Plan7Ssv<L> {
  static void finished() = delete;
};
}  // namespace

TEST_CASE("the Plan7 filter policies are striped-row policies", "[concepts]") {
  STATIC_REQUIRE(r::check_striped_row_policy<hmmer::Plan7Msv<lanes::u8x4>>());
  STATIC_REQUIRE(r::check_striped_row_policy<hmmer::Plan7Msv<lanes::s16x2>>());
  STATIC_REQUIRE(r::check_striped_row_policy<hmmer::Plan7Msv<lanes::u8x16>>());
  STATIC_REQUIRE(r::check_striped_row_policy<hmmer::Plan7Ssv<lanes::s16x2>>());
  STATIC_REQUIRE(r::check_striped_row_policy<hmmer::Plan7Ssv<lanes::u8x16>>());
  STATIC_REQUIRE(r::check_striped_row_policy<hmmer::Plan7ViterbiFilter<lanes::s16x2>>());
  STATIC_REQUIRE(r::check_striped_row_policy<hmmer::Plan7ViterbiFilter<lanes::s16x8>>());
  STATIC_REQUIRE(r::check_striped_row_policy<hmmer::Plan7Forward>());
  STATIC_REQUIRE_FALSE(r::is_striped_row_policy_v<SsvWithoutFinished<lanes::s16x2>>);
  STATIC_REQUIRE_FALSE(r::is_striped_row_policy_v<r::Gotoh<r::AlignMode::Local, lanes::s16x2>>);
  STATIC_REQUIRE_FALSE(r::is_wavefront_policy_v<hmmer::Plan7Msv<lanes::s16x2>>);
}
