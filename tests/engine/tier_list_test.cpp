// The tier list of a tuning policy (engine/tier_list.hpp): the run-time plan built from the type list, each query's
// shape choice (least padded time, or a forced shape), and the profile width that covers every shape's strips.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include <cudp/engine/tier_list.hpp>

using namespace cudp::engine;

namespace {

template <int G, int R>
struct FakeTier {
  static constexpr const char* name = G == 1 ? "thread" : (G > 32 ? "block" : "warp");
  static constexpr int group_size = G;
  static constexpr int columns_per_thread = R;
};

struct FakeTuning {
  static constexpr TierThresholds thresholds{0, 16384};
  using Tiers = TierList<TierRange<&TierThresholds::thread_max_length, FakeTier<1, 16>>,
                         TierRange<&TierThresholds::warp_max_length, FakeTier<4, 24>, FakeTier<8, 32>, FakeTier<8, 64>>,
                         TierRange<kNoLengthBound, FakeTier<256, 8>>>;
  static double padded_gcups(const WarpShape& s) { return s == WarpShape{8, 64} ? 1100 : 1000; }
};

}  // namespace

TEST_CASE("a tier list's plan: names, bounds and shapes in list order", "[engine][tiers]") {
  auto plans = plan_tiers<FakeTuning>(FakeTuning::thresholds);
  REQUIRE(plans.size() == 3);
  CHECK(std::string(plans[0].name) == "thread");
  CHECK(std::string(plans[1].name) == "warp");
  CHECK(std::string(plans[2].name) == "block");
  CHECK(plans[0].max_length == 0);
  CHECK(plans[1].max_length == 16384);
  CHECK(plans[2].max_length == -1);
  CHECK(plans[1].shapes == std::vector<WarpShape>{{4, 24}, {8, 32}, {8, 64}});
  CHECK(plans[1].padded_gcups == std::vector<double>{1000, 1000, 1100});
  // Overridden thresholds.
  auto other = plan_tiers<FakeTuning>(TierThresholds{100, 700});
  CHECK(other[0].max_length == 100);
  CHECK(other[1].max_length == 700);
}

TEST_CASE("each query takes the shape with the least padded time, unless one is forced", "[engine][tiers]") {
  auto plans = plan_tiers<FakeTuning>(FakeTuning::thresholds);
  const TierPlan& warp = plans[1];
  CHECK(choose_shape(warp, 96) == 0);   // one 96-column strip
  CHECK(choose_shape(warp, 250) == 1);  // 256 columns on 8x32 against 288 on 4x24, 512 on 8x64
  CHECK(choose_shape(warp, 500) == 2);  // 512 columns on 8x64 and 8x32, 8x64 faster per padded cell
  for (int m : {1, 96, 250, 500, 3000}) {
    int best = choose_shape(warp, m);
    for (int k = 0; k < 3; ++k) CHECK(shape_cost(warp, best, m) <= shape_cost(warp, k, m));
    CHECK(choose_shape(warp, m, WarpShape{8, 32}) == 1);
    CHECK(choose_shape(plans[0], m, WarpShape{8, 32}) == 0);  // a tier without the forced shape keeps its own
  }
  CHECK_NOTHROW(check_forced_shape(plans, WarpShape{8, 64}, "fake"));
  CHECK_THROWS_AS(check_forced_shape(plans, WarpShape{8, 40}, "fake"), std::invalid_argument);
}

TEST_CASE("the profile covers every strip of every shape", "[engine][tiers]") {
  auto plans = plan_tiers<FakeTuning>(FakeTuning::thresholds);
  CHECK(profile_columns(plans, 1) == 2048);
  CHECK(profile_columns(plans, 2048) == 2112);  // 22 strips of 4x24 reach past one block strip
  CHECK(profile_columns(plans, 2049) == 4096);
}

TEST_CASE("a tier list calls back with the entry and shape types an index names", "[engine][tiers]") {
  std::vector<int> groups;
  FakeTuning::Tiers::for_each([&](auto entry) { groups.push_back(decltype(entry)::shape_count); });
  CHECK(groups == std::vector<int>{1, 3, 1});
  WarpShape seen{};
  FakeTuning::Tiers::with_entry(1, [&](auto entry) {
    decltype(entry)::with_shape(2, [&](auto tier) { seen = shape_of<decltype(tier)>(); });
  });
  CHECK(seen == WarpShape{8, 64});
}
