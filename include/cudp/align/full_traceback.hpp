#pragma once
// An optimal Gotoh alignment by a full matrix of traceback moves: (m + 1) x (n + 1) bytes. It is the leaf of the
// linear-space recursion (boxes small enough to hold whole) and the reference the recursion is tested against;
// on its own it suits pairs whose product fits in memory.
//
// Among equally good moves it prefers the diagonal, then a gap in the target (I), then one in the query (D); a
// local alignment ends on the first best cell in row-major order (target rows), as BestCell reports it.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../recurrences/gotoh.hpp"
#include "alignment.hpp"

namespace cudp::align {

// Global mode, for a box of a larger alignment: whether a vertical gap at the box's top-left corner continues an
// earlier piece's (gaps.left_gap_continues), and whether one into its bottom-right corner goes on into a later
// piece's (`end_gap_continues`); such a gap pays no open cost of its own.
template <class Matrix>
Alignment align_full(recurrences::AlignMode mode, const std::uint8_t* query, int m, const std::uint8_t* target, int n,
                     const Matrix& matrix, recurrences::GapCosts gaps, bool end_gap_continues = false) {
  using recurrences::AlignMode;
  if (m < 0 || n < 0) throw std::invalid_argument("align_full: negative length");
  if (mode != AlignMode::Global && (gaps.left_gap_continues || end_gap_continues))
    throw std::invalid_argument("align_full: continuing gaps are for global boxes");
  const long neg = LONG_MIN / 4;
  const long open = gaps.open + gaps.extend, extend = gaps.extend;
  const bool local = mode == AlignMode::Local, free_ends = mode != AlignMode::Global;
  const std::size_t width = static_cast<std::size_t>(m) + 1;

  // Per cell: where H came from (0 diagonal, 1 E, 2 F, 3 nothing: a local start or a free border), whether E and F
  // extended (bit 2, bit 3) rather than opened.
  enum : std::uint8_t { kDiagonal = 0, kFromE = 1, kFromF = 2, kStart = 3, kEExtends = 4, kFExtends = 8 };
  std::vector<std::uint8_t> moves((static_cast<std::size_t>(n) + 1) * width, kStart);
  std::vector<long> h(width), f(width, neg);
  auto border = [&](int k, long gap_open) { return free_ends || k == 0 ? 0L : -(gap_open + static_cast<long>(k) * extend); };
  const long left_open = gaps.left_gap_continues ? 0 : gaps.open;
  for (int j = 0; j <= m; ++j) h[j] = border(j, gaps.open);
  for (int j = 1; j <= m; ++j)
    if (!free_ends) moves[j] = static_cast<std::uint8_t>(kFromE | kEExtends);  // the top border is one gap run along the query
  long best = local ? 0 : neg;
  int best_i = 0, best_j = 0;
  auto consider = [&](long v, int i, int j) {
    if (v > best) best = v, best_i = i, best_j = j;
  };
  for (int i = 1; i <= n; ++i) {
    long diagonal = h[0], e = neg;
    h[0] = border(i, left_open);
    std::uint8_t* row = moves.data() + static_cast<std::size_t>(i) * width;
    row[0] = static_cast<std::uint8_t>(free_ends ? kStart : kFromF | kFExtends);
    for (int j = 1; j <= m; ++j) {
      std::uint8_t move = 0;
      const long e_open = h[j - 1] - open, e_extend = e - extend;
      e = std::max(e_open, e_extend);
      if (e_extend > e_open) move |= kEExtends;
      const long f_open = h[j] - open, f_extend = f[j] - extend;
      f[j] = std::max(f_open, f_extend);
      if (f_extend > f_open) move |= kFExtends;
      long v = diagonal + matrix(target[i - 1], query[j - 1]);
      std::uint8_t from = kDiagonal;
      if (e > v) v = e, from = kFromE;
      if (f[j] > v) v = f[j], from = kFromF;
      // A local path restarts rather than go below 0, or reach 0 through a gap.
      if (local && (v < 0 || (v == 0 && from != kDiagonal))) v = 0, from = kStart;
      diagonal = h[j];
      h[j] = v;
      row[j] = move | from;
      if (local) consider(v, i, j);
      if (mode == AlignMode::SemiGlobal && (i == n || j == m)) consider(v, i, j);
    }
  }
  // F(n, m) and the open cost it paid: when m = 0 it is the left border's gap (none at the corner), which paid one
  // only if it did not continue an earlier piece's; a gap is never refunded twice.
  const long f_corner = m == 0 ? (n > 0 ? h[0] : neg) : f[m];
  const long f_corner_open = m == 0 ? left_open : gaps.open;
  bool end_in_gap = false;
  if (mode == AlignMode::Global) {
    best = h[m], best_i = n, best_j = m;
    if (end_gap_continues && f_corner + f_corner_open > best) best = f_corner + f_corner_open, end_in_gap = true;
  }
  if (mode == AlignMode::SemiGlobal && (n == 0 || m == 0)) best = 0, best_i = n, best_j = m;

  Alignment a;
  a.score = best;
  a.query_end = best_j;
  a.target_end = best_i;
  if (local && best == 0) {  // no alignment scores above 0: an empty one
    a.query_begin = a.query_end = a.target_begin = a.target_end = 0;
    return a;
  }
  std::vector<EditRun> reversed;
  int i = best_i, j = best_j;
  enum { InH, InE, InF } state = end_in_gap ? InF : InH;
  while (i > 0 || j > 0) {
    const std::uint8_t move = moves[static_cast<std::size_t>(i) * width + j];
    if (state == InH) {
      const int from = move & 3;
      if (from == kStart) break;
      if (from == kDiagonal) {
        append(reversed, query[j - 1] == target[i - 1] ? EditOp::Match : EditOp::Mismatch);
        --i, --j;
      } else {
        state = from == kFromE ? InE : InF;
      }
    } else if (state == InE) {
      append(reversed, EditOp::Insertion);
      const bool extends = move & kEExtends;
      --j;
      if (!extends) state = InH;
    } else {
      append(reversed, EditOp::Deletion);
      const bool extends = move & kFExtends;
      --i;
      if (!extends) state = InH;
    }
  }
  a.query_begin = j;
  a.target_begin = i;
  a.edits.assign(reversed.rbegin(), reversed.rend());
  return a;
}

}  // namespace cudp::align
