#include "device_tiers_check.cuh"

#include <cudp/recurrences/gotoh.hpp>

using namespace cudp;
template <class L> using Global = recurrences::Gotoh<recurrences::AlignMode::Global, L>;
template <class L> using Semi = recurrences::Gotoh<recurrences::AlignMode::SemiGlobal, L>;

TEMPLATE_TEST_CASE("global and semi-global Gotoh: every tier == host", "[tiers][gpu]", lanes::s16x2, lanes::s32) {
  test::RandomMatrix matrix(24, -4, 11, 6);
  recurrences::GapCosts gaps{10, 1};
  // Global scores past 16 bits upwards (the homopolymer's self-hit) and below a 16-bit lane's minus infinity.
  test::check_device_tiers<Global, TestType>(gaps, matrix, 24, 200, [&](const auto& t, const auto& q) {
    return test::reference_gotoh(test::Mode::Global, t, q, matrix, gaps.open, gaps.extend);
  }, test::overflowing_query(matrix, 24), test::underflowing_pair(matrix, 24));
  test::check_device_tiers<Semi, TestType>(gaps, matrix, 24, 300, [&](const auto& t, const auto& q) {
    return test::reference_gotoh(test::Mode::SemiGlobal, t, q, matrix, gaps.open, gaps.extend);
  }, test::overflowing_query(matrix, 24));
}
