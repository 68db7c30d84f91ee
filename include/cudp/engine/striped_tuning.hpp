#pragma once
// Which striped shapes (G lanes x Q segments) exist as compiled kernels for the Plan7 filters, and which one a
// model of M nodes runs on. Tuning, kept apart from the algorithms: the menus trade compile time for padding.
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "../recurrences/striped.hpp"

namespace cudp::engine {

// At most this many blocks per SM in a striped kernel's grid; their warps go round the target list (a grid-stride
// loop). Past the blocks that fit on an SM at once (16 of 128 threads), blocks retire throughout the kernel rather
// than all at its end: another stream's kernel of higher priority (hmmsearch's Viterbi filter beside the next
// model's MSV filter) then starts within a fraction of it. 32 left the other kernel waiting for half of it.
inline constexpr int kStripedBlocksPerSm = 128;

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

// A row costs every lane Q segment updates plus a fixed part (residue broadcast, the shift, votes) worth about
// three segments, so small groups with many segments run more targets per warp for the same fixed cost. MSV keeps
// one word per segment in registers; the Viterbi filter eleven (three states, eight transitions), which caps Q.
// Groups of two and four warps (G 64, 128: tiers/striped_rows.cuh's BlockStripedGroup, exchanging through shared
// memory behind a barrier) take the models past what one warp holds well; measured on an H100 they lose to one warp
// wherever one warp holds the model in registers (MSV at 3900 nodes: 6650 GCUPS on G32 Q64, 5473 on G64 Q32).
// G16 Q36 and Q40 close the gap between 1024 and 1536 nodes: SMC_N's 1142 nodes padded to 1536 on G16 Q48.
using MsvMenu = StripedMenu<StripedShapeOf<4, 4>, StripedShapeOf<4, 8>, StripedShapeOf<4, 16>, StripedShapeOf<4, 32>,
                            StripedShapeOf<8, 24>, StripedShapeOf<8, 32>, StripedShapeOf<8, 48>,
                            StripedShapeOf<16, 32>, StripedShapeOf<16, 36>, StripedShapeOf<16, 40>,
                            StripedShapeOf<16, 48>, StripedShapeOf<32, 32>,
                            StripedShapeOf<32, 40>, StripedShapeOf<32, 48>, StripedShapeOf<32, 64>,
                            StripedShapeOf<128, 32>>;
// Padding costs the Viterbi filter in full (a shape sweep on an H100: 86 nodes ran at 1084 GCUPS on G4 Q12 and 902
// on G4 Q16; 1100 nodes at 1211 on G32 Q20 and 970 on G32 Q24), hence the closely spaced entries. Past 2048 nodes
// one warp would need more than 32 segments, which read their transitions from the table and spill: two warps of 20
// segments run 2400 nodes at 873 GCUPS against 698 on G32 Q40, which is left out.
using ViterbiMenu = StripedMenu<StripedShapeOf<4, 8>, StripedShapeOf<4, 12>, StripedShapeOf<4, 16>,
                                StripedShapeOf<8, 12>, StripedShapeOf<8, 16>, StripedShapeOf<16, 12>,
                                StripedShapeOf<16, 16>, StripedShapeOf<32, 12>, StripedShapeOf<32, 16>,
                                StripedShapeOf<32, 20>, StripedShapeOf<32, 24>, StripedShapeOf<32, 32>,
                                StripedShapeOf<64, 20>, StripedShapeOf<128, 20>>;

// Forward in f32: one node per word, three state words per segment; transitions from the table past 24. Past 1536
// nodes one warp spills heavily: four-warp groups take 1537 to 3072 (2000 nodes: 532 GCUPS).
using ForwardMenu = StripedMenu<StripedShapeOf<4, 8>, StripedShapeOf<4, 16>, StripedShapeOf<8, 16>,
                                StripedShapeOf<16, 16>, StripedShapeOf<32, 12>, StripedShapeOf<32, 16>,
                                StripedShapeOf<32, 24>, StripedShapeOf<32, 40>, StripedShapeOf<32, 48>,
                                StripedShapeOf<128, 16>, StripedShapeOf<128, 24>>;

// Relative cost of one target row on a shape: the group's share of a warp times a lane's work.
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

template <class Menu>
recurrences::StripedShape striped_shape_of(int index, int width) {
  return {Menu::groups[static_cast<std::size_t>(index)], Menu::segments[static_cast<std::size_t>(index)], width};
}

}  // namespace cudp::engine
