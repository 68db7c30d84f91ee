#pragma once
/// \file
/// Pairwise alignment with affine gaps (Gotoh): local (Smith-Waterman), global (Needleman-Wunsch) and semi-global
/// (end gaps free in both sequences). A gap of length k costs open + k*extend; open = 0 gives linear gaps.
///
/// Rows i are target residues, columns j query residues. A cell passes two carries on:
///   Right (along the row):    h = H(i,j), e = E(i,j+1) = max(E(i,j) - extend, H(i,j) - open - extend)
///   Down  (down the column):  h = H(i,j), f = F(i+1,j) = max(F(i,j) - extend, H(i,j) - open - extend)
/// Carrying the next cell's E and F already advanced means one subtraction (H - open - extend) serves both, so a
/// cell costs five lane operations (the diagonal add included), each one DPX instruction on sm_90 for s16x2.
#include "../config.hpp"
#include "shape.hpp"

namespace cudp::recurrences {

/// The three alignment modes: local (Smith-Waterman), global (Needleman-Wunsch), semi-global (end gaps free).
enum class AlignMode { Local, Global, SemiGlobal };

/// The mode's name as the tools spell it: local, global, semiglobal.
constexpr const char* to_string(AlignMode m) {
  return m == AlignMode::Local ? "local" : (m == AlignMode::Global ? "global" : "semiglobal");
}

/// Affine gap costs, Gotoh's Params (one type for every lane): a gap of length k costs open + k * extend.
struct GapCosts {
  int open = 11;  ///< cost of opening a gap (0: linear gaps)
  int extend = 1;  ///< cost of each gap position
  /// Global mode, for a box cut out of a larger alignment (align/linear_space.hpp): the box's top-left corner lies
  /// inside a vertical gap that an earlier piece already opened, so a target gap down the left border pays its
  /// extensions only.
  bool left_gap_continues = false;
};

/// Gotoh's affine-gap recurrence in mode `Mode` on lane `L`: a wavefront policy (is_wavefront_policy), whose
/// members are the contract's (docs/architecture.md, "recurrences/").
template <AlignMode Mode, class L>
struct Gotoh {
  /// \name Types and constants
  //@{
  /// The lane, its word, the parameters (GapCosts, the same type for every lane) and the mode.
  using Lane = L;
  using Word = typename L::word;
  using Params = GapCosts;
  static constexpr AlignMode mode = Mode;
  static constexpr bool local = Mode == AlignMode::Local;
  //@}
  /// Global and semi-global read their result off the last row and column; local takes the maximum of every cell.
  static constexpr bool observes_edges = !local;
  /// Scores of the rows that pad short targets in a packed word: low enough that a padded row never raises a
  /// local maximum; unobserved for the other modes.
  static constexpr int pad_score = L::neg_inf;

  /// The carry down a column: H(i, j) and F(i+1, j), the vertical gap state one row on.
  struct Down {
    /// \name Values
    //@{
    /// H(i, j), and F(i+1, j): the vertical gap state one row on.
    Word h, f;
    //@}
  };
  /// The carry along a row: H(i, j) and E(i, j+1), the horizontal gap state one column on.
  struct Right {
    /// \name Values
    //@{
    /// H(i, j), and E(i, j+1): the horizontal gap state one column on.
    Word h, e;
    //@}
  };
  /// A thread's accumulator: the best score seen where the mode looks for it.
  struct Acc {
    Word best;  ///< the running maximum
  };

  /// \name Precomputed constants
  //@{
  /// Constants the constructor derives from the parameters and the problem's shape.
  Word gap_open_extend_;  ///< -(open + extend), lane-broadcast
  Word gap_extend_;       ///< -extend
  int open_, extend_, left_open_, query_length_, overflow_limit_;
  //@}

  /// Precomputes the lane-broadcast gap costs and the overflow limit; the object is then copied into every
  /// kernel launch.
  CUDP_HD Gotoh(const Params& gaps, const ProblemShape& shape)
      : gap_open_extend_(L::splat(-(gaps.open + gaps.extend))),
        gap_extend_(L::splat(-gaps.extend)),
        open_(gaps.open),
        extend_(gaps.extend),
        left_open_(gaps.left_gap_continues ? 0 : gaps.open),
        query_length_(shape.query_length),
        overflow_limit_(L::max_value - shape.max_score) {}

  /// The profile entry of a (target residue, query residue) pair: the matrix's score.
  template <class Matrix>
  static int substitution(const Params&, const Matrix& matrix, int target_code, int query_code) {
    return matrix(target_code, query_code);
  }

  /// H on the border: 0 for local and for the free end gaps of semi-global, a gap's cost for global.
  CUDP_HD int border_h(int k, int open) const { return (Mode == AlignMode::Global && k > 0) ? -(open + k * extend_) : 0; }

  /// \name Borders
  //@{
  /// The border's E and F come out of the same lane addition as a cell's. Folding them to the scalar
  /// h - open - extend instead made ptxas 13.0 (-O1 and up) flip the sign of that value in the semi-global s32
  /// thread-tier kernel; the GPU tier tests catch it.
  /// The border carries: top(j) enters column j from row 0, left(i) enters row i from column 0.
  CUDP_HD Down top(int j) const {
    Word h = L::splat(border_h(j, open_));
    return {h, L::add(h, gap_open_extend_)};
  }
  CUDP_HD Right left(int i) const {
    Word h = L::splat(border_h(i, left_open_));
    return {h, L::add(h, gap_open_extend_)};
  }
  //@}

  /// The empty accumulator: 0 in local mode (the empty alignment), minus infinity otherwise.
  CUDP_HD Acc init() const { return {L::splat(local ? 0 : L::neg_inf)}; }

  /// H(i-1, j-1) + s(i, j): computed for a whole row of a tile before its cells, from the previous row's values.
  CUDP_HD Word diagonal(Word h_diag, Word score) const { return L::add(h_diag, score); }

  /// One cell: H from the diagonal term and the carries' E and F, then the carries moved on to the next
  /// cells' E and F (one subtraction serves both); local mode keeps the running maximum.
  CUDP_HD void cell(Down& up, Right& left, Word from_diag, Acc& acc) const {
    Word h = local ? L::max3_relu(from_diag, left.e, up.f) : L::max3(from_diag, left.e, up.f);
    Word h_gap = L::add(h, gap_open_extend_);
    left.e = L::add_max(left.e, gap_extend_, h_gap);
    up.f = L::add_max(up.f, gap_extend_, h_gap);
    left.h = h;
    up.h = h;
    if (local) acc.best = L::max(acc.best, h);
  }

  /// At (i, m) for the lanes in `rows` (those whose target has a row i).
  CUDP_HD void last_column(const Right& r, int, Word rows, Acc& acc) const {
    if (Mode == AlignMode::SemiGlobal) acc.best = L::select(rows, L::max(acc.best, r.h), acc.best);
  }
  /// At (n, j) for the lanes in `ending` (those whose target ends at this row).
  CUDP_HD void last_row(const Down& d, int j, Word ending, Acc& acc) const {
    if (Mode == AlignMode::SemiGlobal || j == query_length_) acc.best = L::select(ending, L::max(acc.best, d.h), acc.best);
  }

  /// \name Results
  //@{
  /// merge combines the accumulators of the threads that shared a task (their maximum); result is the
  /// final word of scores.
  CUDP_HD Acc merge(const Acc& a, const Acc& b) const { return {L::max(a.best, b.best)}; }
  CUDP_HD Word result(const Acc& acc) const { return acc.best; }
  //@}

  /// A local score above this limit may have wrapped (one more substitution could pass the lane's maximum), so the
  /// target is rescored in a wider lane. The other modes are only run in lanes that `fits` admits.
  CUDP_HD bool overflowed(int score) const { return local && score > overflow_limit_; }

  /// Whether every H, E and F of an m x n problem stays inside the lane. Local scores are checked after the run;
  /// global and semi-global ones are bounded before it: gap paths below, matches above.
  static bool fits(const Params& gaps, const ProblemShape& shape, long target_length) {
    if (local) return true;
    long m = shape.query_length, n = target_length;
    // H >= -(2 open + extend (m + n)) (all gaps); E, F and the diagonal sum reach one gap or one score below it.
    long low = -(3L * (gaps.open + gaps.extend) + gaps.extend * (m + n)) + (shape.min_score < 0 ? shape.min_score : 0);
    long high = static_cast<long>(shape.max_score > 0 ? shape.max_score : 0) * (m < n ? m : n) + shape.max_score;
    // Below the lane's own floor as well: half lanes are exact down to min_value only, far above their neg_inf.
    constexpr long lowest = L::neg_inf > L::min_value ? L::neg_inf : L::min_value;
    return low > lowest && high < L::max_value;
  }
};

}  // namespace cudp::recurrences
