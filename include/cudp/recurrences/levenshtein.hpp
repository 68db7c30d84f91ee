#pragma once
/// \file
/// Levenshtein edit distance: the number of substitutions, insertions and deletions that turn the target into the
/// query. The tutorial in docs/tutorial-recurrence.md writes this file step by step; it is the template to copy.
#include "../config.hpp"
#include "shape.hpp"

namespace cudp::recurrences {

/// Parameters are shared by every lane width of a policy, so they live outside the lane template.
struct LevenshteinParams {};

/// Levenshtein distance on lane `L`: a wavefront policy (is_wavefront_policy); the tutorial explains every
/// member.
template <class L>
struct Levenshtein {
  /// \name Types and constants
  //@{
  /// The lane, its word, the parameters (none), and the contract's two constants: the answer is observed on
  /// the last row (`observes_edges`), and padding scores 1 (`pad_score`), never observed.
  using Lane = L;
  using Word = typename L::word;
  using Params = LevenshteinParams;
  static constexpr bool observes_edges = true;  // the answer sits in the last row
  static constexpr int pad_score = 1;           // padded rows are never observed
  //@}

  /// Every tier names the cell's value `h`: it becomes the diagonal input of the next row's next column.
  /// Down carries it down a column, Right along a row.
  struct Down {
    /// D(i, j), the cell's distance.
    Word h;
  };
  /// The carry along a row (see Down).
  struct Right {
    /// D(i, j), the cell's distance.
    Word h;
  };
  /// A thread's accumulator: the distance, once the thread has seen cell (n, m).
  struct Acc {
    /// D(n, m), or the lane maximum until then.
    Word distance;
  };

  /// \name Precomputed constants
  //@{
  /// Constants from the constructor: 1 in every lane, and m.
  Word one_;
  int query_length_;
  //@}

  /// Precomputes the constants; the object is then copied into every kernel launch.
  CUDP_HD Levenshtein(const Params&, const ProblemShape& shape) : one_(L::splat(1)), query_length_(shape.query_length) {}

  /// The per-column "substitution score" the tiers look up: 0 for a match, 1 for a mismatch.
  template <class Matrix>
  static int substitution(const Params&, const Matrix&, int target_code, int query_code) {
    return target_code == query_code ? 0 : 1;
  }

  /// \name Borders
  //@{
  /// The borders, D(0, j) = j and D(i, 0) = i, and the empty accumulator (the lane maximum, which merge's
  /// minimum discards).
  CUDP_HD Down top(int j) const { return {L::splat(j)}; }
  CUDP_HD Right left(int i) const { return {L::splat(i)}; }
  CUDP_HD Acc init() const { return {L::splat(L::max_value)}; }
  //@}

  /// The diagonal move, H(i-1, j-1) + mismatch: tiers compute it for a row before its cells.
  CUDP_HD Word diagonal(Word h_diag, Word mismatch) const { return L::add(h_diag, mismatch); }

  /// One cell: the minimum of the diagonal move and one more than the cell above or to the left.
  CUDP_HD void cell(Down& up, Right& left, Word from_diag, Acc&) const {
    Word h = L::add_min(L::min(up.h, left.h), one_, from_diag);
    up.h = h;
    left.h = h;
  }

  /// \name Edges
  //@{
  /// The edge hooks: nothing on the last column; on a target's last row, cell (n, m) is the answer.
  CUDP_HD void last_column(const Right&, int, Word, Acc&) const {}
  CUDP_HD void last_row(const Down& d, int j, Word ending, Acc& acc) const {
    if (j == query_length_) acc.distance = L::select(ending, d.h, acc.distance);
  }
  //@}
  /// \name Results
  //@{
  /// merge keeps the distance of the thread that saw it (a minimum); result is the word of distances.
  CUDP_HD Acc merge(const Acc& a, const Acc& b) const { return {L::min(a.distance, b.distance)}; }
  CUDP_HD Word result(const Acc& acc) const { return acc.distance; }
  //@}

  /// \name Overflow
  //@{
  /// The overflow contract: a distance is at most max(n, m), so `fits` bounds it before the run and nothing
  /// overflows after.
  CUDP_HD bool overflowed(int) const { return false; }
  static bool fits(const Params&, const ProblemShape& shape, long target_length) {
    long longest = shape.query_length > target_length ? shape.query_length : target_length;
    return longest + 1 < L::max_value;
  }
  //@}
};

}  // namespace cudp::recurrences
