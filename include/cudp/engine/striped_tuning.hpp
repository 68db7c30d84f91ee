#pragma once
// Menus of striped shapes (G lanes x Q segments) compiled as kernels, and which one of a menu a model of M nodes
// runs on. Tuning, kept apart from the algorithms: a menu trades compile time for padding. The menus themselves
// belong to the policies that run on them (HMMER's filters: hmmer/filter_tuning.hpp).
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "../recurrences/striped.hpp"

namespace cudp::engine {

// At most this many blocks per SM in a striped kernel's grid; their warps go round the target list (a grid-stride
// loop). Past the blocks that fit on an SM at once (16 of 128 threads), blocks retire throughout the kernel rather
// than all at its end: another stream's kernel of higher priority (one filter's kernel beside the next model's
// first filter, in hmmsearch) then starts within a fraction of it. 32 left the other kernel waiting for half of it.
inline constexpr int kStripedBlocksPerSm = 128;

// One compiled shape: groups of G lanes (a warp's share, or 2-4 warps), Q segment words per lane.
template <int G, int Q>
struct StripedShapeOf {
  static constexpr int group = G;
  static constexpr int segments = Q;
};

// A menu of compiled shapes (StripedShapeOf...), in any order: the kernels instantiated for a policy, and the
// choices of choose_striped_shape.
template <class... Shapes>
struct StripedMenu {
  static constexpr std::size_t size = sizeof...(Shapes);
  static constexpr std::array<int, sizeof...(Shapes)> groups{Shapes::group...};
  static constexpr std::array<int, sizeof...(Shapes)> segments{Shapes::segments...};
};

// Relative cost of one target row on a shape: the group's share of a warp times a lane's work. A row costs every
// lane Q segment updates plus a fixed part (residue broadcast, the shift, votes) worth about three segments, so
// small groups with many segments run more targets per warp for the same fixed cost.
inline double striped_row_cost(int group, int segments) {
  return static_cast<double>(group) / 32.0 * (segments + 3.0);
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

// The shape of entry `index` of the menu, for words of `width` sub-words.
template <class Menu>
recurrences::StripedShape striped_shape_of(int index, int width) {
  return {Menu::groups[static_cast<std::size_t>(index)], Menu::segments[static_cast<std::size_t>(index)], width};
}

}  // namespace cudp::engine
