#pragma once
// ClustalW 2.1's "slow" pairwise distance (its default): every pair aligned with its own dynamic program, and the
// distance 1 - identities / min(length1, length2).
//
// Despite its name the alignment is not global. A local Gotoh pass (cells floored at 0) finds the best cell, first in
// row-major order on ties; a backward pass from there finds where that local alignment starts (the first cell that
// reaches the best score, scanning rows and columns backwards, ends it); only the box between the two is aligned end
// to end, by Myers and Miller's linear-space divide and conquer with ClustalW's midpoint rule, and the identities are
// counted on that path. Gaps cost open + k * extend for k residues. Which of several optimal paths is taken changes
// the identities, so the recurrences, the order of their comparisons and the tie rules below are ClustalW's.
//
// The integer costs come from PWGAPOPEN and PWGAPEXT (pairwise_gap_costs), on protein the opening grows with the log
// of the shorter length; identities are residue codes that are equal, so X against X and N against N count. The
// distance keeps ClustalW's float arithmetic (100 - 100 * identities / min length) / 100, then widened to double.
//
// The dynamic program itself (ClustalFullPairwiseCore) is host and device code over plain pointers, so that the GPU's
// one-thread-per-pair version (device_clustal_distances.cuh) runs the very same comparisons: its scratch rows are
// strided (Stride 32 there: one warp's rows interleaved column by column) and Myers-Miller's recursion is a stack.
// The three steps are public (end_cell, box_from_end, box_identities) so that the GPU runs each as its own kernel.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "../config.hpp"
#include "clustal_alphabet.hpp"
#include "clustal_pairwise_matrices.hpp"

namespace cudp::msa {

// -PWGAPOPEN, -PWGAPEXT and the pairwise tables; defaults are ClustalW's for the sequence type.
struct FullPairwiseSettings {
  bool dna = false;
  PairwiseProteinMatrix protein_matrix = PairwiseProteinMatrix::gonnet;
  ClustalTriangle user_matrix;  // -PWMATRIX=file: protein_matrix is user
  PairwiseDnaMatrix dna_matrix = PairwiseDnaMatrix::iub;
  float gap_open = 10.0f;
  float gap_extend = 0.1f;
  float transition_weight = 0.5f;

  static FullPairwiseSettings protein() { return {}; }
  static FullPairwiseSettings nucleotide() {
    FullPairwiseSettings s;
    s.dna = true;
    s.gap_open = 15.0f;
    s.gap_extend = 6.66f;
    return s;
  }
  PairwiseScoring scoring() const {
    if (dna) return pairwise_scoring(dna_matrix, transition_weight);
    return protein_matrix == PairwiseProteinMatrix::user ? pairwise_scoring(user_matrix)
                                                          : pairwise_scoring(protein_matrix);
  }
};

// Integer gap costs of one pair, in table units.
struct PairGapCosts {
  int open = 0;
  int extend = 0;
};

// ClustalW's conversion, float and double steps as it has them; `length1`, `length2` count gaps too.
inline PairGapCosts pairwise_gap_costs(const FullPairwiseSettings& settings, const PairwiseScoring& scoring,
                                       int length1, int length2) {
  PairGapCosts costs;
  const auto scale = static_cast<float>(scoring.int_scale);
  if (settings.dna) {
    costs.open = static_cast<int>(2.0f * settings.gap_open * scale * scoring.gap_open_scale);
    costs.extend = static_cast<int>(settings.gap_extend * scale * scoring.gap_extend_scale);
    return costs;
  }
  const double open_log = settings.gap_open + std::log(static_cast<double>(std::min(length1, length2)));
  if (scoring.average_mismatch <= 0) {
    costs.open = 2 * static_cast<int>(open_log * scoring.int_scale);
  } else {
    costs.open = static_cast<int>(2 * scoring.average_mismatch * open_log * scoring.gap_open_scale);
  }
  costs.extend = static_cast<int>(settings.gap_extend * scale);
  return costs;
}

// Residues, not gaps, of a coded sequence.
inline int residue_count(const int* codes, int length) {
  return static_cast<int>(std::count_if(codes, codes + length, [](int c) { return clustal_is_residue(c); }));
}

// The percent identity ClustalW reports (its "Score", truncated there), in its float steps: 0 when a sequence has
// no residues.
inline float full_pairwise_percent(int identities, int residues1, int residues2) {
  if (residues1 == 0 || residues2 == 0) return 0.0f;
  const auto percent = static_cast<float>(100.0 * static_cast<float>(identities));
  return percent / static_cast<float>(std::min(residues1, residues2));
}

// The distance from the percent identity, in float as ClustalW has it, then widened.
inline double full_pairwise_distance(float percent) { return static_cast<double>((100.0f - percent) / 100.0f); }

namespace detail {

// Row j of a thread's scratch, Stride ints after row j - 1.
template <int Stride>
struct ClustalScratchRow {
  int* p;
  CUDP_HD int& operator[](int j) const { return p[static_cast<std::ptrdiff_t>(j) * Stride]; }
};

CUDP_HD int clustal_max(int x, int y) { return x > y ? x : y; }

// Myers-Miller's pending boxes; each box splits its rows in halves (the second taking at most rows - rows / 2), so
// boxes pending at once number at most the depth, log2(rows) + 1, plus one: 40 covers every int length.
constexpr int kClustalMmStack = 40;
// Levels of Myers-Miller's splits taken breadth first, and the most boxes the last of them leaves (2^levels).
constexpr int kClustalMmLevels = 4;
constexpr int kClustalMmLevelBoxes = 1 << kClustalMmLevels;

}  // namespace detail

// The local pass's best score and its cell (1-based row of a, column of b); 0, 0, 0 when no cell scores above 0.
struct ClustalEnd {
  int best = 0, end1 = 0, end2 = 0;
  CUDP_HD bool operator==(const ClustalEnd& o) const { return best == o.best && end1 == o.end1 && end2 == o.end2; }
};

// Where a pair's local alignment starts and ends, 1-based rows of a and columns of b.
struct ClustalBox {
  int start1 = 0, start2 = 0, end1 = 0, end2 = 0;
  CUDP_HD bool operator==(const ClustalBox& o) const {
    return start1 == o.start1 && start2 == o.start2 && end1 == o.end1 && end2 == o.end2;
  }
};

// One pair's dynamic programs over borrowed memory: `Code` is the residue code type (int on the host, bytes on the
// device), `Scores` gives score(x, y) for two codes, and the four scratch rows hold max(n, m) + 1 ints each, Stride
// ints apart.
//
// Every pass runs in strips of `Strip` rows: a strip's cells of one column are computed together in registers, so
// the scratch rows are read and written once a strip instead of once a row (on the GPU they are in global memory).
// The cells' values are the row-by-row recurrence's; where a pass picks a cell (the best end, the first start), the
// strip keeps one candidate, visited column by column: a cell replaces it when better or, equal, in an earlier row,
// so that the candidate is the row-by-row pass's (a row's later equal cells come later in both orders). One
// candidate instead of one a row keeps a strip of 16 rows' registers down.
template <class Code, class Scores, int Stride = 1, int Strip = 4>
class ClustalFullPairwiseCore {
  static_assert(Strip >= 1 && Strip <= 32, "ClustalFullPairwiseCore: Strip is a register strip of 1 to 32 rows");

 public:
  using Row = detail::ClustalScratchRow<Stride>;

  CUDP_HD ClustalFullPairwiseCore(const Code* a, const Code* b, Scores scores, PairGapCosts costs, int* hh, int* dd,
                                  int* rr, int* ss)
      : a_(a), b_(b), scores_(scores), open_(costs.open), extend_(costs.extend), hh_{hh}, dd_{dd}, rr_{rr}, ss_{ss} {}

  // Identities on ClustalW's path between a (length n) and b (length m).
  CUDP_HD int identities(int n, int m) { return box_identities(box_from_end(end_cell(n, m))); }

  // The local pass over all n x m cells (floored at 0): the best score and its cell, the first in row-major order on
  // ties (0 and cell 0, 0 if none passes 0).
  CUDP_HD ClustalEnd end_cell(int n, int m) {
    const Row hh = hh_, dd = dd_;
    int best = 0, end1 = 0, end2 = 0;
    for (int j = 0; j <= m; ++j) {
      hh[j] = 0;
      dd[j] = -open_;
    }
    for (int first = 0; first < n; first += Strip) {
      const int live = n - first < Strip ? n - first : Strip;
      int code[Strip], h[Strip], f[Strip], diag[Strip];
      int strip_best = 0, best_row = 0, best_col = 0;  // the strip's candidate end, row-major's first on ties
      CUDP_UNROLL
      for (int r = 0; r < Strip; ++r) {
        code[r] = r < live ? static_cast<int>(a_[first + r]) : 0;
        h[r] = diag[r] = 0;
        f[r] = -open_;
      }
      for (int j = 1; j <= m; ++j) {
        const int y = b_[j - 1];
        int up = hh[j], up_gap = dd[j];
        CUDP_UNROLL
        for (int r = 0; r < Strip; ++r) {
          if (r >= live) break;
          f[r] = detail::clustal_max(f[r] - extend_, h[r] - open_ - extend_);
          const int d = detail::clustal_max(up_gap - extend_, up - open_ - extend_);
          const int v = detail::clustal_max(detail::clustal_max(diag[r] + scores_(code[r], y), f[r]),
                                            detail::clustal_max(d, 0));
          diag[r] = up;
          h[r] = up = v;
          up_gap = d;
          if (v > strip_best || (v == strip_best && r < best_row)) {
            strip_best = v;
            best_row = r;
            best_col = j;
          }
        }
        hh[j] = up;
        dd[j] = up_gap;
      }
      if (strip_best > best) {
        best = strip_best;
        end1 = first + best_row + 1;
        end2 = best_col;
      }
    }
    return ClustalEnd{best, end1, end2};
  }

  // The backward pass from the end cell, unfloored, with -1 borders, visiting rows and columns backwards: the box
  // from the local alignment's first residues to `end`. The row by row pass keeps the cell of each new maximum above
  // 0 and stops at the first cell reaching end.best: that cell is the start (or, if none reaches it, the first cell
  // of the largest value; 1, 1 if none passes 0).
  CUDP_HD ClustalBox box_from_end(const ClustalEnd& end) {
    const Row hh = hh_, dd = dd_;
    const int best = end.best, end1 = end.end1, end2 = end.end2;
    int start1 = 1, start2 = 1;
    int reached = 0;
    for (int j = 1; j <= end2; ++j) {
      hh[j] = -1;
      dd[j] = -1;
    }
    for (int first = end1; first > 0; first -= Strip) {
      const int live = first < Strip ? first : Strip;  // rows first, first - 1, ..., first - live + 1
      int code[Strip], h[Strip], f[Strip], diag[Strip];
      int hit_row = Strip, hit_col = 0;             // the strip's first cell reaching best, in the rows' order
      int strip_max = 0, max_row = 0, max_col = 0;  // and its first cell of the largest value above 0
      CUDP_UNROLL
      for (int r = 0; r < Strip; ++r) {
        code[r] = r < live ? static_cast<int>(a_[first - r - 1]) : 0;
        h[r] = f[r] = -1;
        diag[r] = first - r == end1 ? 0 : -1;
      }
      for (int j = end2; j > 0; --j) {
        const int y = b_[j - 1];
        int down = hh[j], down_gap = dd[j];
        CUDP_UNROLL
        for (int r = 0; r < Strip; ++r) {
          if (r >= live) break;
          f[r] = detail::clustal_max(f[r] - extend_, h[r] - open_ - extend_);
          const int d = detail::clustal_max(down_gap - extend_, down - open_ - extend_);
          const int v = detail::clustal_max(detail::clustal_max(diag[r] + scores_(code[r], y), f[r]), d);
          diag[r] = down;
          h[r] = down = v;
          down_gap = d;
          if (v > strip_max || (v == strip_max && r < max_row)) {
            strip_max = v;
            max_row = r;
            max_col = j;
          }
          if (v >= best && r < hit_row) {
            hit_row = r;
            hit_col = j;
          }
        }
        hh[j] = down;
        dd[j] = down_gap;
      }
      if (hit_row < Strip) return ClustalBox{first - hit_row, hit_col, end1, end2};
      if (strip_max > reached) {
        reached = strip_max;
        start1 = first - max_row;
        start2 = max_col;
      }
    }
    return ClustalBox{start1, start2, end1, end2};
  }

  // Myers-Miller on the box, end to end: the identities on its path; box() and box_score() then tell of this box.
  CUDP_HD int box_identities(const ClustalBox& box) {
    box_ = box;
    identities_ = 0;
    box_score_ = align_box(box.start1 - 1, box.start2 - 1, box.end1 - box.start1 + 1, box.end2 - box.start2 + 1);
    return identities_;
  }

  // The score of the alignment inside the box, which is the best local alignment score.
  CUDP_HD int box_score() const { return box_score_; }
  // The box of the last pair: the local alignment's first and last residues of a and b (1-based).
  CUDP_HD ClustalBox box() const { return box_; }

 private:
  struct Box {
    int top, left, rows, cols, tb, te;
  };

  // Score of residue i of a against residue j of b, both 1-based as in the recurrences.
  CUDP_HD int score(int i, int j) const { return scores_(a_[i - 1], b_[j - 1]); }
  CUDP_HD int begin_gap(int k, int tb) const { return k <= 0 ? 0 : tb + extend_ * k; }

  // Aligns the box end to end and returns its score. The boxes Myers-Miller splits it into may be aligned in any
  // order (each only adds its identities): the first kClustalMmLevels levels go breadth first, the boxes below each
  // depth first on a stack. Level d's boxes take about 2^-d of the work; on the GPU, where a warp's lanes run their
  // boxes in step, breadth first has them align boxes of one level together instead of one lane's big box waiting
  // on another's small ones.
  CUDP_HD int align_box(int top, int left, int rows, int cols) {
    Box stack[detail::kClustalMmStack];
    Box level[detail::kClustalMmLevelBoxes];
    level[0] = Box{top, left, rows, cols, 0, 0};
    int boxes = 1, score = 0;
    for (int depth = 0; depth < detail::kClustalMmLevels; ++depth) {
      int pending = 0;  // the next level's boxes, two a split box: at most kClustalMmLevelBoxes
      for (int k = 0; k < boxes; ++k) {
        const int box_score = align_step(level[k], stack, pending);
        if (depth == 0) score = box_score;
      }
      for (int k = 0; k < pending; ++k) level[k] = stack[k];
      boxes = pending;
    }
    for (int k = 0; k < boxes; ++k) {
      int pending = 0;
      stack[pending++] = level[k];
      while (pending > 0) {
        const Box box = stack[--pending];
        align_step(box, stack, pending);
      }
    }
    return score;
  }

  // One box a[top+1 .. top+rows] against b[left+1 .. left+cols], end to end: its score; a box of two rows or more
  // pushes its halves. `tb`, `te`: the opening cost of a gap touching the top-left or the bottom-right corner (0
  // where the enclosing alignment already opened it).
  CUDP_HD int align_step(const Box& box, Box* stack, int& pending) {
    const int top = box.top, left = box.left, rows = box.rows, cols = box.cols, tb = box.tb, te = box.te;
    if (cols <= 0) return -begin_gap(rows, tb);  // all gaps: nothing to count
    if (rows <= 0) return -begin_gap(cols, tb);
    if (rows == 1) return align_one_row(top, left, cols, tb, te);
    const int mid = rows / 2;
    const Row hh = hh_, dd = dd_, rr = rr_, ss = ss_;
    // Forward to the middle row: hh = best ending at (mid, j), dd = best ending there in a vertical gap. Row i starts
    // with a gap of i residues of a, -tb - i * extend.
    hh[0] = 0;
    int t = -tb;
    for (int j = 1; j <= cols; ++j) {
      hh[j] = t = t - extend_;
      dd[j] = t - open_;
    }
    for (int first = 1; first <= mid; first += Strip) {
      const int live = mid - first + 1 < Strip ? mid - first + 1 : Strip;
      int code[Strip], h[Strip], f[Strip], diag[Strip];
      CUDP_UNROLL
      for (int r = 0; r < Strip; ++r) {
        const int i = first + r;
        code[r] = r < live ? static_cast<int>(a_[top + i - 1]) : 0;
        h[r] = -tb - i * extend_;
        f[r] = h[r] - open_;
        diag[r] = i == 1 ? 0 : h[r] + extend_;
      }
      for (int j = 1; j <= cols; ++j) {
        const int y = b_[left + j - 1];
        int up = hh[j], up_gap = dd[j];
        CUDP_UNROLL
        for (int r = 0; r < Strip; ++r) {
          if (r >= live) break;
          f[r] = detail::clustal_max(f[r] - extend_, h[r] - open_ - extend_);
          const int e = detail::clustal_max(up_gap - extend_, up - open_ - extend_);
          int v = diag[r] + scores_(code[r], y);
          if (f[r] > v) v = f[r];
          if (e > v) v = e;
          diag[r] = up;
          h[r] = up = v;
          up_gap = e;
        }
        hh[j] = up;
        dd[j] = up_gap;
      }
    }
    hh[0] = -tb - mid * extend_;
    dd[0] = hh[0];
    // Backward to the middle row: rr = best starting after (mid, j), ss = the same starting in a vertical gap. Row i
    // (counted from the bottom, k = rows - i) starts with a gap of k residues, -te - k * extend.
    rr[cols] = 0;
    t = -te;
    for (int j = cols - 1; j >= 0; --j) {
      rr[j] = t = t - extend_;
      ss[j] = t - open_;
    }
    for (int first = rows - 1; first >= mid; first -= Strip) {
      const int live = first - mid + 1 < Strip ? first - mid + 1 : Strip;  // rows first, first - 1, ...
      int code[Strip], h[Strip], f[Strip], diag[Strip];
      CUDP_UNROLL
      for (int r = 0; r < Strip; ++r) {
        const int i = first - r, k = rows - i;
        code[r] = r < live ? static_cast<int>(a_[top + i]) : 0;
        h[r] = -te - k * extend_;
        f[r] = h[r] - open_;
        diag[r] = k == 1 ? 0 : h[r] + extend_;
      }
      for (int j = cols - 1; j >= 0; --j) {
        const int y = b_[left + j];
        int down = rr[j], down_gap = ss[j];
        CUDP_UNROLL
        for (int r = 0; r < Strip; ++r) {
          if (r >= live) break;
          f[r] = detail::clustal_max(f[r] - extend_, h[r] - open_ - extend_);
          const int e = detail::clustal_max(down_gap - extend_, down - open_ - extend_);
          int v = diag[r] + scores_(code[r], y);
          if (f[r] > v) v = f[r];
          if (e > v) v = e;
          diag[r] = down;
          h[r] = down = v;
          down_gap = e;
        }
        rr[j] = down;
        ss[j] = down_gap;
      }
    }
    rr[cols] = -te - (rows - mid) * extend_;
    ss[cols] = rr[cols];
    // The midpoint: among equal sums ClustalW moves right past a column that ends a vertical gap only on one side,
    // then a vertical gap through the middle (which opens once, hence + open) wins only when strictly better.
    int best = hh[0] + rr[0];
    int mid_col = 0;
    bool through_gap = false;
    for (int j = 0; j <= cols; ++j) {
      const int sum = hh[j] + rr[j];
      if (sum > best || (sum == best && hh[j] != dd[j] && rr[j] == ss[j])) {
        best = sum;
        mid_col = j;
      }
    }
    for (int j = cols; j >= 0; --j) {
      const int sum = dd[j] + ss[j] + open_;
      if (sum > best) {
        best = sum;
        mid_col = j;
        through_gap = true;
      }
    }
    if (!through_gap) {
      stack[pending++] = Box{top + mid, left + mid_col, rows - mid, cols - mid_col, open_, te};
      stack[pending++] = Box{top, left, mid, mid_col, tb, open_};
    } else {
      stack[pending++] = Box{top + mid + 1, left + mid_col, rows - mid - 1, cols - mid_col, 0, te};
      stack[pending++] = Box{top, left, mid - 1, mid_col, tb, 0};
    }
    return best;
  }

  // One residue of a against cols of b: either it pairs with one of them or it is deleted.
  CUDP_HD int align_one_row(int top, int left, int cols, int tb, int te) {
    int best = -(tb + extend_) - begin_gap(cols, te);
    const int deleted_last = -(te + extend_) - begin_gap(cols, tb);
    if (deleted_last > best) best = deleted_last;
    int pair_col = 0;
    for (int j = 1; j <= cols; ++j) {
      const int with = score(top + 1, left + j) - begin_gap(cols - j, te) - begin_gap(j - 1, tb);
      if (with > best) {
        best = with;
        pair_col = j;
      }
    }
    if (pair_col == 0) return best;
    const int x = a_[top];
    const int y = b_[left + pair_col - 1];
    if (clustal_is_residue(x) && clustal_is_residue(y) && x == y) ++identities_;
    return best;
  }

  const Code* a_;
  const Code* b_;
  Scores scores_;
  int open_;
  int extend_;
  Row hh_, dd_, rr_, ss_;
  int identities_ = 0;
  int box_score_ = 0;
  ClustalBox box_;
};

// A score table read by codes (host code; host and device so that the core's device pass compiles too).
struct ClustalTableScores {
  const ClustalTable* table;
  CUDP_HD int operator()(int x, int y) const {
    return (*table)[static_cast<std::size_t>(x)][static_cast<std::size_t>(y)];
  }
};

// One thread's scratch for aligning pairs; reuse it across pairs.
class FullPairwiseAligner {
 public:
  // Identities on ClustalW's path between a (length n) and b (length m), codes laid out 0-based.
  int identities(const int* a, int n, const int* b, int m, const ClustalTable& table, PairGapCosts costs) {
    const std::size_t row = static_cast<std::size_t>(std::max(n, m)) + 1;
    if (scratch_.size() < 4 * row) scratch_.resize(4 * row);
    int* rows = scratch_.data();
    ClustalFullPairwiseCore<int, ClustalTableScores> core(a, b, ClustalTableScores{&table}, costs, rows, rows + row,
                                                          rows + 2 * row, rows + 3 * row);
    const int count = core.identities(n, m);
    box_score_ = core.box_score();
    return count;
  }

  // The score of the last pair's alignment inside its box, which is the best local alignment score.
  int last_score() const { return box_score_; }

  // The percent identity of one pair under `settings` (`scoring` is settings.scoring(), made once by the caller).
  float percent(const int* a, int n, const int* b, int m, const FullPairwiseSettings& settings,
                const PairwiseScoring& scoring) {
    const int count = identities(a, n, b, m, scoring.table, pairwise_gap_costs(settings, scoring, n, m));
    return full_pairwise_percent(count, residue_count(a, n), residue_count(b, m));
  }

  double distance(const int* a, int n, const int* b, int m, const FullPairwiseSettings& settings,
                  const PairwiseScoring& scoring) {
    if (n == 0 || m == 0) return 1.0;
    return full_pairwise_distance(percent(a, n, b, m, settings, scoring));
  }

 private:
  int box_score_ = 0;
  std::vector<int> scratch_;
};

}  // namespace cudp::msa
