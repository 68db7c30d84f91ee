#pragma once
// Checks a menu of compiled striped shapes (engine/striped_tuning.hpp): every model size up to the menu's capacity
// gets the cheapest shape that holds it by the row-cost model, and larger models get none (they run on the host).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>

#include <cudp/engine/striped_tuning.hpp>

namespace cudp::test {

// The most nodes of `width` sub-words per word that a shape of the menu holds.
template <class Menu>
int menu_capacity(int width) {
  int most = 0;
  for (std::size_t i = 0; i < Menu::size; ++i) most = std::max(most, Menu::groups[i] * Menu::segments[i] * width);
  return most;
}

template <class Menu>
void check_striped_menu(int width) {
  const int most = menu_capacity<Menu>(width);
  for (int M = 1; M <= most; ++M) {
    const int i = engine::choose_striped_shape<Menu>(M, width);
    REQUIRE(i >= 0);
    const auto shape = engine::striped_shape_of<Menu>(i, width);
    CHECK(shape.capacity() >= M);
    for (std::size_t j = 0; j < Menu::size; ++j) {  // nothing that holds M is cheaper
      if (Menu::groups[j] * Menu::segments[j] * width < M) continue;
      CHECK(engine::striped_row_cost(Menu::groups[j], Menu::segments[j]) >=
            engine::striped_row_cost(shape.group, shape.segments));
    }
    // the device loads segments four at a time
    CHECK(shape.segments % 4 == 0);
  }
  CHECK(engine::choose_striped_shape<Menu>(most + 1, width) == -1);
}

}  // namespace cudp::test
