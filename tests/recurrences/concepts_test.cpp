// The policy contracts: every policy the library ships signs its contract in every lane it runs in, and the
// traits reject what the tiers could not run (a missing member, a carry without `h`, a carry that is not made of
// 32-bit words, a policy that is not trivially copyable).
#include <catch2/catch.hpp>

#include "cudp/lanes.hpp"
#include "cudp/recurrences/concepts.hpp"
#include "cudp/recurrences/gotoh.hpp"
#include "cudp/recurrences/levenshtein.hpp"

namespace r = cudp::recurrences;
namespace lanes = cudp::lanes;

namespace {

template <class L>
using Local = r::Gotoh<r::AlignMode::Local, L>;
template <class L>
using Global = r::Gotoh<r::AlignMode::Global, L>;
template <class L>
using SemiGlobal = r::Gotoh<r::AlignMode::SemiGlobal, L>;

template <template <class> class P>
constexpr bool in_every_lane() {
  return r::is_wavefront_policy_v<P<lanes::s8x4>> && r::is_wavefront_policy_v<P<lanes::s16x2>> &&
         r::is_wavefront_policy_v<P<lanes::h16x2>> && r::is_wavefront_policy_v<P<lanes::s32>>;
}

// Levenshtein with one thing broken at a time.
template <class L>
struct NoMerge : r::Levenshtein<L> {
  using r::Levenshtein<L>::Levenshtein;
  void merge() const = delete;
};
template <class L>
struct HlessCarry : r::Levenshtein<L> {
  using Base = r::Levenshtein<L>;
  using Base::Base;
  struct Down {
    typename L::word value;
  };
  CUDP_HD Down top(int j) const { return {Base::top(j).h}; }
};
template <class L>
struct ByteCarry : r::Levenshtein<L> {
  using Base = r::Levenshtein<L>;
  using Base::Base;
  struct Acc {
    typename L::word distance;
    char flag;  // 4 + 1 bytes: no longer a whole number of words
  };
};
struct NotCopyable : r::Levenshtein<lanes::s32> {
  using r::Levenshtein<lanes::s32>::Levenshtein;
  NotCopyable(const NotCopyable& o) : r::Levenshtein<lanes::s32>(o) {}
};
template <class L>
struct LaneParams : r::Levenshtein<L> {
  using Base = r::Levenshtein<L>;
  struct Params {};  // one Params type per lane: the cascade could not hand the narrow one to the wide one
  CUDP_HD LaneParams(const Params&, const r::ProblemShape& shape) : Base(r::LevenshteinParams{}, shape) {}
  template <class Matrix>
  static int substitution(const Params&, const Matrix& m, int a, int b) {
    return Base::substitution(r::LevenshteinParams{}, m, a, b);
  }
  static bool fits(const Params&, const r::ProblemShape& shape, long n) { return Base::fits({}, shape, n); }
};

}  // namespace

TEST_CASE("the shipped pairwise policies are wavefront policies in every lane", "[concepts]") {
  STATIC_REQUIRE(in_every_lane<Local>());
  STATIC_REQUIRE(in_every_lane<Global>());
  STATIC_REQUIRE(in_every_lane<SemiGlobal>());
  STATIC_REQUIRE(in_every_lane<r::Levenshtein>());
  STATIC_REQUIRE(r::check_cascade_pair<Local, lanes::s16x2, lanes::s32>());
  STATIC_REQUIRE(r::check_cascade_pair<r::Levenshtein, lanes::s8x4, lanes::s32>());
  // The two contracts do not overlap.
  STATIC_REQUIRE_FALSE(r::is_striped_row_policy_v<Local<lanes::s16x2>>);
}

TEST_CASE("the wavefront contract rejects what the tiers could not run", "[concepts]") {
  STATIC_REQUIRE_FALSE(r::is_wavefront_policy_v<int>);
  STATIC_REQUIRE_FALSE(r::is_wavefront_policy_v<lanes::s16x2>);
  STATIC_REQUIRE_FALSE(r::is_wavefront_policy_v<NoMerge<lanes::s32>>);
  STATIC_REQUIRE_FALSE(r::is_wavefront_policy_v<HlessCarry<lanes::s32>>);
  STATIC_REQUIRE_FALSE(r::is_wavefront_policy_v<ByteCarry<lanes::s32>>);
  STATIC_REQUIRE_FALSE(r::is_wavefront_policy_v<NotCopyable>);
  // Each broken variant differs from a valid policy in that one respect.
  STATIC_REQUIRE(r::is_wavefront_policy_v<r::Levenshtein<lanes::s32>>);
  STATIC_REQUIRE(r::is_wavefront_policy_v<LaneParams<lanes::s32>>);
  STATIC_REQUIRE_FALSE(std::is_same_v<LaneParams<lanes::s16x2>::Params, LaneParams<lanes::s32>::Params>);
}
