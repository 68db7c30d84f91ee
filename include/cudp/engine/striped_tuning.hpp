#pragma once
// Which striped shapes (G lanes x Q segments) exist as compiled kernels for the Plan7 filters, and which one a
// model of M nodes runs on. Tuning, kept apart from the algorithms: the menus trade compile time for padding.
#include <array>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "../recurrences/striped.hpp"

namespace cudp::engine {

template <int G, int Q>
struct StripedShapeOf {
  static constexpr int group = G;
  static constexpr int segments = Q;
};

template <class... Shapes>
struct StripedMenu {
  static constexpr std::size_t size = sizeof...(Shapes);
  static constexpr std::array<int, sizeof...(Shapes)> groups{Shapes::group...};
  static constexpr std::array<int, sizeof...(Shapes)> segments{Shapes::segments...};
};

// Small models share a warp between 4 (G=8) or 2 (G=16) targets; from a few hundred nodes a target owns the warp.
using MsvMenu = StripedMenu<StripedShapeOf<8, 4>, StripedShapeOf<8, 8>, StripedShapeOf<16, 6>, StripedShapeOf<16, 8>,
                            StripedShapeOf<32, 6>, StripedShapeOf<32, 8>, StripedShapeOf<32, 12>,
                            StripedShapeOf<32, 16>, StripedShapeOf<32, 24>, StripedShapeOf<32, 32>,
                            StripedShapeOf<32, 40>, StripedShapeOf<32, 64>>;
// The Viterbi filter keeps 8 transition words and 3 state words per segment in registers: fewer segments.
using ViterbiMenu = StripedMenu<StripedShapeOf<8, 4>, StripedShapeOf<8, 8>, StripedShapeOf<16, 6>,
                                StripedShapeOf<16, 8>, StripedShapeOf<32, 6>, StripedShapeOf<32, 8>,
                                StripedShapeOf<32, 12>, StripedShapeOf<32, 16>, StripedShapeOf<32, 24>,
                                StripedShapeOf<32, 40>>;

// Relative cost of one target row on a shape: the group's share of a warp times the lane's work (segments plus
// the shift and log2(G) reduction steps that every row pays).
inline double striped_row_cost(int group, int segments) {
  return static_cast<double>(group) / 32.0 * (segments + 3.0 + 1.5 * std::log2(static_cast<double>(group)));
}

// Index of the cheapest shape of the menu that holds M nodes of `width` sub-words per word; -1 if none does.
template <class Menu>
int choose_striped_shape(int M, int width) {
  int best = -1;
  double best_cost = 0;
  for (std::size_t i = 0; i < Menu::size; ++i) {
    if (Menu::groups[i] * Menu::segments[i] * width < M) continue;
    const double cost = striped_row_cost(Menu::groups[i], Menu::segments[i]);
    if (best < 0 || cost < best_cost) {
      best = static_cast<int>(i);
      best_cost = cost;
    }
  }
  return best;
}

template <class Menu>
recurrences::StripedShape striped_shape_of(int index, int width) {
  return {Menu::groups[static_cast<std::size_t>(index)], Menu::segments[static_cast<std::size_t>(index)], width};
}

}  // namespace cudp::engine
