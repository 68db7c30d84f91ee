// The striped shape menus: every model size up to a menu's capacity gets a shape that holds it, the cheapest one by
// the row-cost model, and larger models get none (they run on the host).
#include <catch2/catch.hpp>

#include <algorithm>

#include <cudp/engine/striped_tuning.hpp>

using namespace cudp::engine;

namespace {

template <class Menu>
int capacity(int width) {
  int most = 0;
  for (std::size_t i = 0; i < Menu::size; ++i) most = std::max(most, Menu::groups[i] * Menu::segments[i] * width);
  return most;
}

template <class Menu>
void check_menu(int width) {
  const int most = capacity<Menu>(width);
  for (int M = 1; M <= most; ++M) {
    const int i = choose_striped_shape<Menu>(M, width);
    REQUIRE(i >= 0);
    const auto shape = striped_shape_of<Menu>(i, width);
    CHECK(shape.capacity() >= M);
    for (std::size_t j = 0; j < Menu::size; ++j) {  // nothing that holds M is cheaper
      if (Menu::groups[j] * Menu::segments[j] * width < M) continue;
      CHECK(striped_row_cost(Menu::groups[j], Menu::segments[j]) >= striped_row_cost(shape.group, shape.segments));
    }
    // the device loads segments four at a time
    CHECK(shape.segments % 4 == 0);
  }
  CHECK(choose_striped_shape<Menu>(most + 1, width) == -1);
}

}  // namespace

TEST_CASE("every model size within a menu gets its cheapest holding shape", "[engine][striped]") {
  check_menu<MsvMenu>(2);      // s16x2
  check_menu<MsvMenu>(4);      // u8x4
  check_menu<ViterbiMenu>(2);  // s16x2
  check_menu<ForwardMenu>(1);  // f32
  CHECK(capacity<MsvMenu>(2) == 8192);
  CHECK(capacity<ViterbiMenu>(2) == 5120);
  CHECK(capacity<ForwardMenu>(1) == 3072);
}

TEST_CASE("a lane's run of segment words starts on a 16-byte boundary, staggered across bank groups", "[engine][striped]") {
  for (int Q : {4, 8, 12, 16, 24, 32, 36, 40, 48, 64}) {
    const cudp::recurrences::StripedShape shape{32, Q, 2};
    CHECK(shape.lane_stride() % 4 == 0);
    CHECK((shape.lane_stride() / 4) % 2 == 1);  // an odd number of 16-byte chunks between neighbouring lanes
    CHECK(shape.node(Q - 1, 31, 1) == shape.capacity());
  }
}
