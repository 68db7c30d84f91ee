#pragma once
// R consecutive columns of one thread, held in registers: the unit of work every tier schedules. A tier feeds it
// one row at a time (the carry from the left, the diagonal value, the R substitution scores) and moves the carry it
// returns to whoever owns the next R columns. It is the same code on the host and in every device tier.
#include "../config.hpp"
#include "task_list.hpp"

namespace cudp::tiers {

template <class P, int R>
struct ColumnTile {
  using L = typename P::Lane;
  using Word = typename L::word;
  using Down = typename P::Down;
  using Right = typename P::Right;
  using Acc = typename P::Acc;

  Down col[R];

  // Columns j_first .. j_first+R-1 (1-based) start from the top border.
  CUDP_HD void reset(const P& p, int j_first) {
    CUDP_UNROLL
    for (int r = 0; r < R; ++r) col[r] = p.top(j_first + r);
  }

  // Every cell's diagonal term, H(i-1, j-1) combined with its score, before any H of row i is written: with all
  // old H values consumed first, each new H can take its old register, and the row compiles without moves.
  CUDP_HD void diagonals(const P& p, Word diag, const Word (&score)[R], Word (&from_diag)[R]) const {
    from_diag[0] = p.diagonal(diag, score[0]);
    CUDP_UNROLL
    for (int r = 1; r < R; ++r) from_diag[r] = p.diagonal(col[r - 1].h, score[r]);
  }

  // Row i across the tile. `diag` is H(i-1, j_first-1). Returns the carry leaving column j_first+R-1.
  CUDP_HD Right advance(const P& p, Right carry, Word diag, const Word (&score)[R], Acc& acc) {
    Word from_diag[R];
    diagonals(p, diag, score, from_diag);
    CUDP_UNROLL
    for (int r = 0; r < R; ++r) p.cell(col[r], carry, from_diag[r], acc);
    return carry;
  }

  // The same row for a policy that reads the last row and column: it is shown the carry at column m (if this tile
  // holds it) and, for the lanes whose target ends at row i, every column of the tile up to m.
  CUDP_HD Right advance_observed(const P& p, Right carry, Word diag, const Word (&score)[R], Acc& acc, int i,
                                 int j_first, int m, const RowMasks<L>& masks) {
    Word from_diag[R];
    diagonals(p, diag, score, from_diag);
    CUDP_UNROLL
    for (int r = 0; r < R; ++r) {
      p.cell(col[r], carry, from_diag[r], acc);
      if (j_first + r == m) p.last_column(carry, i, masks.present, acc);
    }
    if (masks.ending != Word(0)) {
      CUDP_UNROLL
      for (int r = 0; r < R; ++r)
        if (j_first + r <= m) p.last_row(col[r], j_first + r, masks.ending, acc);
    }
    return carry;
  }

  CUDP_HD Right step(const P& p, Right carry, Word diag, const Word (&score)[R], Acc& acc, int i, int j_first, int m,
                     const int (&lengths)[L::width]) {
    if constexpr (P::observes_edges)
      return advance_observed(p, carry, diag, score, acc, i, j_first, m, RowMasks<L>::at(lengths, i));
    else
      return advance(p, carry, diag, score, acc);
  }
};

}  // namespace cudp::tiers
