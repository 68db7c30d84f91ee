#pragma once
// The step of a linear-space (Myers-Miller) global alignment: where an optimal path crosses a chosen target row.
// A forward pass over the rows above the cut and a reverse pass over the rows below (both sequences reversed) each
// hand back their last row through LastRowCapture on a tier, here the host tier: H, and the Down carry's f, which
// is the vertical-gap score one row further on, max(F - extend, H - open - extend). The crossing rule then needs no
// other state: a path through node (cut, j) either splits there into two separately scored halves (H + H), or runs
// a vertical gap through it, whose open cost the two halves would both charge. With pending values P = max(F, H -
// open) - extend on both sides, P + P' + open + 2 extend = max(F + F' + open, F + H', H + F', H + H' - open), and
// since F <= H every term but the first is at most H + H': the maximum of the two sums is the best path's score.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "../engine/one_pair.hpp"
#include "../lanes/s32.hpp"
#include "../recurrences/gotoh.hpp"
#include "../tiers/observers.hpp"

namespace cudp::align {

// Row `rows` of the global Gotoh DP of target[0, rows) x query[0, m), columns 0..m.
struct CutRow {
  std::vector<long> h;
  std::vector<long> pending_f;  // the best score of a path to (rows + 1, j) whose last move deletes a target residue
};

template <class Matrix>
CutRow global_row_on_host(const std::uint8_t* query, int m, const std::uint8_t* target, int rows, const Matrix& matrix,
                          recurrences::GapCosts gaps) {
  using P = recurrences::Gotoh<recurrences::AlignMode::Global, lanes::s32>;
  const long open = gaps.open, extend = gaps.extend;
  auto border = [&](long k) { return k == 0 ? 0L : -(open + k * extend); };
  CutRow row{std::vector<long>(static_cast<std::size_t>(m) + 1), std::vector<long>(static_cast<std::size_t>(m) + 1)};
  // Column 0 is the left border: a vertical gap from the corner (none at row 0).
  row.h[0] = border(rows);
  const long f0 = rows > 0 ? row.h[0] : LONG_MIN / 4;
  row.pending_f[0] = std::max(f0, row.h[0] - open) - extend;
  if (rows == 0) {
    for (int j = 1; j <= m; ++j) {
      row.h[j] = border(j);
      row.pending_f[j] = row.h[j] - open - extend;
    }
    return row;
  }
  if (m == 0) return row;
  std::vector<std::int32_t> captured(static_cast<std::size_t>(m) * 2);
  engine::run_one_pair_on_host<P>(gaps, matrix, query, m, target, rows,
                                  tiers::LastRowCapture<std::int32_t>{captured.data(), m});
  for (int j = 1; j <= m; ++j) {
    row.h[j] = captured[static_cast<std::size_t>(j - 1) * 2];
    row.pending_f[j] = captured[static_cast<std::size_t>(j - 1) * 2 + 1];
  }
  return row;
}

struct Midpoint {
  long score = LONG_MIN;
  int column = 0;               // the path passes node (cut, column)
  bool in_vertical_gap = false;  // ... inside a vertical gap that deletes the target residues on both sides
};

// `forward`: row `cut` of target[0, cut) x query; `reverse`: the same for the reversed target[cut, n) and the
// reversed query (its column k is forward column m - k).
inline Midpoint global_midpoint(const CutRow& forward, const CutRow& reverse, recurrences::GapCosts gaps) {
  const int m = static_cast<int>(forward.h.size()) - 1;
  Midpoint best;
  for (int j = 0; j <= m; ++j) {
    const long split = forward.h[j] + reverse.h[m - j];
    const long through_gap = forward.pending_f[j] + reverse.pending_f[m - j] + gaps.open + 2L * gaps.extend;
    if (split > best.score) best = {split, j, false};
    if (through_gap > best.score) best = {through_gap, j, true};
  }
  return best;
}

}  // namespace cudp::align
