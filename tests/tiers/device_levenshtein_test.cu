// The tutorial's recurrence on every device tier: no tier code knows it exists.
#include "device_tiers_check.cuh"

#include <cudp/recurrences/levenshtein.hpp>

using namespace cudp;
template <class L> using Edit = recurrences::Levenshtein<L>;

TEMPLATE_TEST_CASE("Levenshtein: every tier == host == textbook", "[tiers][gpu]", lanes::s16x2, lanes::s32) {
  test::check_device_tiers<Edit, TestType>({}, 0, 4, 400, [](const auto& t, const auto& q) {
    return test::reference_levenshtein(t, q);
  });
}
