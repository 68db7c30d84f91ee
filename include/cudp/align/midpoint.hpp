#pragma once
// The step of a linear-space (Myers-Miller) global alignment: where an optimal path crosses a chosen target row.
// A forward pass over the rows above the cut and a reverse pass over the rows below (both sequences reversed) each
// hand back their last row (row_passes.hpp): H, and the Down carry's f, which is the vertical-gap score one row
// further on, max(F - extend, H - open - extend). The crossing rule then needs no other state: a path through node
// (cut, j) either splits there into two separately scored halves (H + H'), or runs a vertical gap through it, whose
// open cost the two halves would both charge. With pending values P = max(F, H - open) - extend on both sides,
// P + P' + open + 2 extend = max(F + F' + open, F + H', H + F', H + H' - open), and since F <= H every term but the
// first is at most H + H': the maximum of the two sums is the best path's score.
//
// A box whose left border continues an earlier piece's vertical gap reports that gap's pending value without an open
// cost (row_passes.hpp); the rule adds back one open for the two halves, which is then the one the earlier piece
// already paid: the sum stays the score of the whole alignment's path.
#include <climits>
#include <cstdint>

#include "../recurrences/gotoh.hpp"

namespace cudp::align {

struct Midpoint {
  long score = LONG_MIN;
  int column = 0;                // the path passes node (cut, column)
  bool in_vertical_gap = false;  // ... inside a vertical gap that deletes the target residues on both sides
};

// `forward_*`: row `cut` of the box's upper part, columns 0..columns; `reverse_*`: the last row of the lower part
// read backwards (its column k is forward column columns - k). Among equal crossings the leftmost split wins.
inline Midpoint find_midpoint(const std::int32_t* forward_h, const std::int32_t* forward_f, const std::int32_t* reverse_h,
                              const std::int32_t* reverse_f, int columns, recurrences::GapCosts gaps) {
  Midpoint best;
  for (int j = 0; j <= columns; ++j) {
    const long split = static_cast<long>(forward_h[j]) + reverse_h[columns - j];
    const long through_gap = static_cast<long>(forward_f[j]) + reverse_f[columns - j] + gaps.open + 2L * gaps.extend;
    if (split > best.score) best = {split, j, false};
    if (through_gap > best.score) best = {through_gap, j, true};
  }
  return best;
}

}  // namespace cudp::align
