#include "device_tiers_check.cuh"

#include <cudp/recurrences/gotoh.hpp>

using namespace cudp;
template <class L> using Local = recurrences::Gotoh<recurrences::AlignMode::Local, L>;

TEMPLATE_TEST_CASE("local Gotoh: thread, warp and block tiers == host", "[tiers][gpu]", lanes::s16x2, lanes::s8x4, lanes::s32,
                   lanes::h16x2) {
  test::RandomMatrix matrix(24, -4, 11, 5);
  for (auto gaps : {recurrences::GapCosts{11, 1}, recurrences::GapCosts{0, 3}}) {
    test::check_device_tiers<Local, TestType>(gaps, matrix, 24, 100 + gaps.open, [&](const auto& t, const auto& q) {
      return test::reference_gotoh(test::Mode::Local, t, q, matrix, gaps.open, gaps.extend);
    }, test::overflowing_query(matrix, 24));
  }
}
