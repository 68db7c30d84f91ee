// The menus of striped shapes compiled for HMMER's filters: every model size up to a menu's capacity gets a shape
// that holds it, the cheapest one by the row-cost model, and larger models get none (they run on the host).
#include <catch2/catch.hpp>

#include <cudp/hmmer/filter_tuning.hpp>

#include "../support/striped_menus.hpp"

using cudp::test::check_striped_menu;
using cudp::test::menu_capacity;
using namespace cudp::hmmer;

TEST_CASE("every model size within a filter's menu gets its cheapest holding shape", "[hmmer][striped]") {
  check_striped_menu<MsvMenu>(2);      // s16x2
  check_striped_menu<MsvMenu>(4);      // u8x4
  check_striped_menu<ViterbiMenu>(2);  // s16x2
  check_striped_menu<ForwardMenu>(1);  // f32
  CHECK(menu_capacity<MsvMenu>(2) == 8192);
  CHECK(menu_capacity<ViterbiMenu>(2) == 5120);
  CHECK(menu_capacity<ForwardMenu>(1) == 3072);
}
