// The striped shape menus' machinery: a menu's shapes, the cheapest one that holds a model, and the striped layout's
// alignment. (The HMMER filters' own menus: tests/hmmer/filter_tuning_test.cpp.)
#include <catch2/catch.hpp>

#include <cudp/engine/striped_tuning.hpp>

#include "../support/striped_menus.hpp"

using namespace cudp::engine;

TEST_CASE("every model size within a menu gets its cheapest holding shape", "[engine][striped]") {
  using Menu = StripedMenu<StripedShapeOf<32, 16>, StripedShapeOf<4, 8>, StripedShapeOf<8, 12>, StripedShapeOf<128, 8>>;
  cudp::test::check_striped_menu<Menu>(1);
  cudp::test::check_striped_menu<Menu>(2);
  cudp::test::check_striped_menu<Menu>(4);
  CHECK(cudp::test::menu_capacity<Menu>(2) == 2048);
  CHECK(choose_striped_shape<Menu>(1, 2) == 1);     // G4 Q8: the cheapest row
  CHECK(choose_striped_shape<Menu>(65, 2) == 2);    // past G4 Q8's 64 nodes
  CHECK(choose_striped_shape<Menu>(600, 2) == 0);   // past G8 Q12's 192, G32 Q16 holds 1024
  CHECK(choose_striped_shape<Menu>(1025, 2) == 3);  // only G128 Q8 holds more
  const auto shape = striped_shape_of<Menu>(3, 2);
  CHECK(shape.group == 128);
  CHECK(shape.segments == 8);
}

TEST_CASE("a lane's run of segment words starts on a 16-byte boundary, staggered across bank groups", "[engine][striped]") {
  for (int Q : {4, 8, 12, 16, 24, 32, 36, 40, 48, 64}) {
    const cudp::recurrences::StripedShape shape{32, Q, 2};
    CHECK(shape.lane_stride() % 4 == 0);
    CHECK((shape.lane_stride() / 4) % 2 == 1);  // an odd number of 16-byte chunks between neighbouring lanes
    CHECK(shape.node(Q - 1, 31, 1) == shape.capacity());
  }
}
