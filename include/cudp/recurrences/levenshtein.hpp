#pragma once
// Levenshtein edit distance: the number of substitutions, insertions and deletions that turn the target into the
// query. The tutorial in docs/tutorial-recurrence.md writes this file step by step; it is the template to copy.
#include "../config.hpp"
#include "shape.hpp"

namespace cudp::recurrences {

// Parameters are shared by every lane width of a policy, so they live outside the lane template.
struct LevenshteinParams {};

template <class L>
struct Levenshtein {
  using Lane = L;
  using Word = typename L::word;
  using Params = LevenshteinParams;
  static constexpr bool observes_edges = true;  // the answer sits in the last row
  static constexpr int pad_score = 1;           // padded rows are never observed

  // Every tier names the cell's value `h`: it becomes the diagonal input of the next row's next column.
  struct Down {
    Word h;
  };
  struct Right {
    Word h;
  };
  struct Acc {
    Word distance;
  };

  Word one_;
  int query_length_;

  CUDP_HD Levenshtein(const Params&, const ProblemShape& shape) : one_(L::splat(1)), query_length_(shape.query_length) {}

  // The per-column "substitution score" the tiers look up: 0 for a match, 1 for a mismatch.
  template <class Matrix>
  static int substitution(const Params&, const Matrix&, int target_code, int query_code) {
    return target_code == query_code ? 0 : 1;
  }

  CUDP_HD Down top(int j) const { return {L::splat(j)}; }
  CUDP_HD Right left(int i) const { return {L::splat(i)}; }
  CUDP_HD Acc init() const { return {L::splat(L::max_value)}; }

  // The diagonal move, H(i-1, j-1) + mismatch: tiers compute it for a row before its cells.
  CUDP_HD Word diagonal(Word h_diag, Word mismatch) const { return L::add(h_diag, mismatch); }

  CUDP_HD void cell(Down& up, Right& left, Word from_diag, Acc&) const {
    Word h = L::add_min(L::min(up.h, left.h), one_, from_diag);
    up.h = h;
    left.h = h;
  }

  CUDP_HD void last_column(const Right&, int, Word, Acc&) const {}
  CUDP_HD void last_row(const Down& d, int j, Word ending, Acc& acc) const {
    if (j == query_length_) acc.distance = L::select(ending, d.h, acc.distance);
  }
  CUDP_HD Acc merge(const Acc& a, const Acc& b) const { return {L::min(a.distance, b.distance)}; }
  CUDP_HD Word result(const Acc& acc) const { return acc.distance; }

  CUDP_HD bool overflowed(int) const { return false; }
  static bool fits(const Params&, const ProblemShape& shape, long target_length) {
    long longest = shape.query_length > target_length ? shape.query_length : target_length;
    return longest + 1 < L::max_value;
  }
};

}  // namespace cudp::recurrences
