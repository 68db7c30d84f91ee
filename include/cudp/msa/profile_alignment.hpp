#pragma once
// Global alignment of two column profiles in linear space, as ClustalW 2.1's progressive stage does it
// (Myers-Miller): a forward pass to the middle row of the first profile, a reverse pass from its end, a midpoint
// column (or a gap crossing the middle, whose opening must not count twice), then the two halves recursively. The
// alignment it picks among equal scores is ClustalW's, so the passes keep its exact recurrences: the reverse pass
// moves a growing gap's opening cost to its newest (leftmost) position, so that a gap pays the opening cost of its
// first position as in the forward pass; on equal sums the midpoint moves to a later column only where the first
// half does not end in a gap of the second profile and the second half starts with one.
//
// The recursion is generic over the costs: `Costs` gives a column pair's score and the position-specific gap costs
// (a policy like ClustalProfileCosts below), so any pair of column profiles with per-position gap costs aligns here.
//   score(i, j)          columns i of the first and j of the second (1-based)
//   open1(i, j), extend1(i, j), gap1(i, j, k): a gap in the first profile after its column i, opposite the
//                        second's columns from j on (k of them for gap1, which is open + extensions)
//   open2, extend2, gap2: a gap in the second profile after its column j, opposite the first's columns from i on
#include <algorithm>
#include <array>
#include <type_traits>
#include <utility>
#include <vector>

#include "../host/parallel_for.hpp"
#include "column_profiles.hpp"

namespace cudp::msa {

// One alignment column: both profiles' columns, the second's column opposite a gap in the first (insert), or the
// first's column opposite a gap in the second (delete).
enum class PathStep : char { both = 'M', second_only = 'I', first_only = 'D' };

// ClustalW's costs between the matrix profile (first) and the frequency profile (second).
struct ClustalProfileCosts {
  const ColumnProfile& first;
  const ColumnProfile& second;
  bool end_gap_penalties = false;

  // Optional precomputed scores (clustal_score_table): score(i, j) at scores[i * score_stride + j]. The aligner
  // reads them through score_row when set; score() itself always computes.
  const int* scores = nullptr;
  std::size_t score_stride = 0;
  // Optional compact copies of the second profile's gap opening and extension costs by column (0..length + 1),
  // which gap_row reads when set.
  const int* second_open = nullptr;
  const int* second_extend = nullptr;

  const int* score_row(int i) const {
    return scores ? scores + static_cast<std::size_t>(i) * score_stride : nullptr;
  }
  int score(int i, int j) const {
    const auto& a = first.rows[static_cast<std::size_t>(i)];
    const auto& b = second.rows[static_cast<std::size_t>(j)];
    int sum = 0;
    for (std::size_t r = 0; r <= static_cast<std::size_t>(clustal_max_residue); ++r) sum += a[r] * b[r];
    sum += a[clustal_gap_new] * b[clustal_gap_new];
    sum += a[clustal_gap_old] * b[clustal_gap_old];
    return sum / 10;
  }
  bool free_in_first(int i) const { return !end_gap_penalties && (i == 0 || i == first.length); }
  bool free_in_second(int j) const { return !end_gap_penalties && (j == 0 || j == second.length); }

  int open1(int i, int j) const { return free_in_first(i) ? 0 : second.open(j) + first.open(i); }
  int extend1(int i, int j) const { return free_in_first(i) ? 0 : second.extend(j); }
  int gap1(int i, int j, int k) const {
    if (k <= 0 || free_in_first(i)) return 0;
    int h = 0;
    for (int x = 0; x < k && x + j < second.length; ++x) h += second.extend(x + j);
    return second.open(j) + first.open(i) + h;
  }
  // Row i's gap costs opposite the second profile's columns j0 .. j0 + count - 1, into o1 (open1), e1 (extend1), o2
  // (open2) and e2 (extend2), each pair null when not wanted: the aligner's per-row hook.
  void gap_row(int i, int j0, int count, int* o1, int* e1, int* o2, int* e2) const {
    const int fo = first.open(i), fe = first.extend(i);
    if (o1) {
      if (free_in_first(i)) {
        std::fill(o1, o1 + count, 0);
        std::fill(e1, e1 + count, 0);
      } else if (second_open) {
        const int* so = second_open + j0;
        const int* se = second_extend + j0;
        for (int x = 0; x < count; ++x) o1[x] = so[x] + fo;
        std::copy(se, se + count, e1);
      } else {
        for (int x = 0; x < count; ++x) {
          const auto& b = second.rows[static_cast<std::size_t>(j0 + x)];
          o1[x] = b[profile_open_column] + fo;
          e1[x] = b[profile_extend_column];
        }
      }
    }
    if (o2) {
      if (second_open) {
        const int* so = second_open + j0;
        for (int x = 0; x < count; ++x) o2[x] = fo + so[x];
        std::fill(e2, e2 + count, fe);
      } else {
        for (int x = 0; x < count; ++x) {
          o2[x] = fo + second.rows[static_cast<std::size_t>(j0 + x)][profile_open_column];
          e2[x] = fe;
        }
      }
      if (!end_gap_penalties)  // the free ends: columns 0 and second.length
        for (const int j : {0, second.length})
          if (j >= j0 && j < j0 + count) o2[j - j0] = e2[j - j0] = 0;
    }
  }
  int open2(int i, int j) const { return free_in_second(j) ? 0 : first.open(i) + second.open(j); }
  int extend2(int i, int j) const { return free_in_second(j) ? 0 : first.extend(i); }
  int gap2(int i, int j, int k) const {
    if (k <= 0 || free_in_second(j)) return 0;
    int h = 0;
    for (int x = 0; x < k && x + i < first.length; ++x) h += first.extend(x + i);
    return first.open(i) + second.open(j) + h;
  }
};

// The most cells a step's score table may hold (4 bytes each); larger steps score column pairs as they go.
inline constexpr std::size_t clustal_score_table_cells = std::size_t{64} << 20;

// Every column pair's score(i, j), i in 1..first.length, j in 1..second.length, at [i * (second.length + 1) + j]
// (row 0 and column 0 unused): the same integer sums, and the same truncating division by 10, as
// ClustalProfileCosts::score, with the second profile's codes laid out by column so the inner loop vectorises (on
// two threads for large tables when `threads` > 1).
namespace detail {

// The dense loop of clustal_score_table: rows [i0, i1) of the table.
struct DenseScoreRows {
  const ColumnProfile* first;
  const int* by_code;  // the second profile's entries, code by code, `stride` apart
  const int* codes;
  std::size_t code_count;
  std::size_t stride;
  int* table;
};

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define CUDP_MSA_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define CUDP_MSA_ALWAYS_INLINE inline
#endif

CUDP_MSA_ALWAYS_INLINE void dense_score_rows_body(const DenseScoreRows& d, std::size_t i0, std::size_t i1) {
  std::vector<int> sum(d.stride);
  for (std::size_t i = i0; i < i1; ++i) {
    std::fill(sum.begin(), sum.end(), 0);
    const auto& a = d.first->rows[i];
    int* acc = sum.data();
    for (std::size_t k = 0; k < d.code_count; ++k) {
      const int factor = a[static_cast<std::size_t>(d.codes[k])];
      if (factor == 0) continue;
      const int* b = d.by_code + k * d.stride;
      for (std::size_t j = 0; j < d.stride; ++j) acc[j] += factor * b[j];
    }
    int* out = d.table + i * d.stride;
    for (std::size_t j = 0; j < d.stride; ++j) out[j] = acc[j] / 10;
  }
}

#if defined(__GNUC__) && defined(__x86_64__)
// The same loop with AVX2's 32-bit multiplies, on processors that have them (the build's baseline is SSE2).
__attribute__((target("avx2"))) inline void dense_score_rows_avx2(const DenseScoreRows& d, std::size_t i0,
                                                                  std::size_t i1) {
  dense_score_rows_body(d, i0, i1);
}
inline bool host_has_avx2_for_scores() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
}
#endif

inline void dense_score_rows(const DenseScoreRows& d, std::size_t i0, std::size_t i1) {
#if defined(__GNUC__) && defined(__x86_64__)
  if (host_has_avx2_for_scores()) {
    dense_score_rows_avx2(d, i0, i1);
    return;
  }
#endif
  dense_score_rows_body(d, i0, i1);
}

#undef CUDP_MSA_ALWAYS_INLINE

}  // namespace detail

inline std::vector<int> clustal_score_table(const ColumnProfile& first, const ColumnProfile& second,
                                            int threads = 1) {
  const std::size_t m = static_cast<std::size_t>(first.length), n = static_cast<std::size_t>(second.length);
  const std::size_t stride = n + 1;
  std::array<int, clustal_max_residue + 3> codes{};
  for (int a = 0; a <= clustal_max_residue; ++a) codes[static_cast<std::size_t>(a)] = a;
  codes[clustal_max_residue + 1] = clustal_gap_new;
  codes[clustal_max_residue + 2] = clustal_gap_old;
  std::vector<int> by_code(codes.size() * stride, 0);
  for (std::size_t k = 0; k < codes.size(); ++k)
    for (std::size_t j = 1; j <= n; ++j)
      by_code[k * stride + j] = second.rows[j][static_cast<std::size_t>(codes[k])];
  std::vector<int> table((m + 1) * stride, 0);
  // A sparse second profile (a few sequences: a few codes per column) sums only its non-zero terms.
  std::vector<int> nonzero_start(stride + 1, 0);
  std::vector<unsigned char> nonzero_code;
  for (std::size_t j = 1; j <= n; ++j) {
    nonzero_start[j] = static_cast<int>(nonzero_code.size());
    for (std::size_t k = 0; k < codes.size(); ++k)
      if (by_code[k * stride + j] != 0) nonzero_code.push_back(static_cast<unsigned char>(codes[k]));
  }
  nonzero_start[stride] = static_cast<int>(nonzero_code.size());
  // A single sequence's profile (a delayed sequence joining): one code a column at frequency 10, so each score is
  // the first profile's entry for that code, 10 times over divided by 10.
  bool one_code = nonzero_code.size() == n;
  for (std::size_t j = 1; one_code && j <= n; ++j)
    one_code = nonzero_start[j + 1] - nonzero_start[j] == 1 &&
               second.rows[j][nonzero_code[static_cast<std::size_t>(nonzero_start[j])]] == 10;
  if (one_code) {
    const unsigned char* code = nonzero_code.data();  // column j's code at code[j - 1]
    auto gather_rows = [&](std::size_t i0, std::size_t i1) {
      for (std::size_t i = i0; i < i1; ++i) {
        const int* a = first.rows[i].data();
        int* out = table.data() + i * stride;
        for (std::size_t j = 1; j <= n; ++j) out[j] = a[code[j - 1]] * 10 / 10;
      }
    };
    const std::size_t parts = threads > 1 && m * n >= (std::size_t{1} << 18) ? static_cast<std::size_t>(threads) : 1;
    if (parts == 1) {
      gather_rows(1, m + 1);
    } else {
      host::parallel_for(parts, threads, [] { return 0; }, [&](int&, std::size_t part) {
        gather_rows(1 + m * part / parts, 1 + m * (part + 1) / parts);
      });
    }
    return table;
  }
  if (nonzero_code.size() <= 4 * n) {
    auto sparse_rows = [&](std::size_t i0, std::size_t i1) {
      for (std::size_t i = i0; i < i1; ++i) {
        const auto& a = first.rows[i];
        int* out = table.data() + i * stride;
        for (std::size_t j = 1; j <= n; ++j) {
          const auto& b = second.rows[j];
          int sum = 0;
          for (int k = nonzero_start[j]; k < nonzero_start[j + 1]; ++k) {
            const std::size_t r = nonzero_code[static_cast<std::size_t>(k)];
            sum += a[r] * b[r];
          }
          out[j] = sum / 10;
        }
      }
    };
    const std::size_t parts = threads > 1 && m * n >= (std::size_t{1} << 18) ? static_cast<std::size_t>(threads) : 1;
    if (parts == 1) {
      sparse_rows(1, m + 1);
    } else {
      host::parallel_for(parts, threads, [] { return 0; }, [&](int&, std::size_t part) {
        sparse_rows(1 + m * part / parts, 1 + m * (part + 1) / parts);
      });
    }
    return table;
  }
  detail::DenseScoreRows rows{&first, by_code.data(), codes.data(), codes.size(), stride, table.data()};
  const std::size_t half = threads > 1 && m * n >= (std::size_t{1} << 18) ? (m + 1) / 2 : m;
  if (half < m) {
    host::parallel_for(2, 2, [] { return 0; }, [&](int&, std::size_t part) {
      if (part == 0) {
        detail::dense_score_rows(rows, 1, half + 1);
      } else {
        detail::dense_score_rows(rows, half + 1, m + 1);
      }
    });
  } else {
    detail::dense_score_rows(rows, 1, m + 1);
  }
  return table;
}

namespace detail {
// Whether a Costs policy offers precomputed score rows: `const int* score_row(int i) const`, row i's scores
// indexed by the second profile's column (nullptr: none for this row; score(i, j) then).
template <class C, class = void>
struct has_gap_row : std::false_type {};
template <class C>
struct has_gap_row<C, std::void_t<decltype(std::declval<const C&>().gap_row(0, 0, 0, nullptr, nullptr, nullptr,
                                                                             nullptr))>> : std::true_type {};
// Whether a Costs policy fills a row's gap costs itself: `void gap_row(int i, int j0, int count, int* open1,
// int* extend1, int* open2, int* extend2) const` (ClustalProfileCosts::gap_row); else the aligner calls open1 ...
template <class C, class = void>
struct has_score_row : std::false_type {};
template <class C>
struct has_score_row<C, std::void_t<decltype(std::declval<const C&>().score_row(0))>> : std::true_type {};
}  // namespace detail

template <class Costs>
class LinearSpaceProfileAligner {
 public:
  // Levels of the recursion with at least this many cells run their two passes side by side (threads > 1).
  static constexpr long long parallel_cells = 1 << 16;

  // Rows a pass computes together, column by column, when the policy gives score rows and gap rows: the cells of
  // one row depend on their left neighbour, so a lone row waits on every cell's latency; four rows interleave.
  static constexpr int strip_rows = 4;

  // `threads` > 1: the largest levels run the forward and reverse passes on two threads (the same path).
  LinearSpaceProfileAligner(const Costs& costs, int first_length, int second_length, int threads = 1)
      : c_(costs), m_(first_length), n_(second_length), threads_(threads) {
    const std::size_t cells = static_cast<std::size_t>(second_length) + 2;
    hh_.assign(cells, 0);
    dd_.assign(cells, 0);
    rr_.assign(cells, 0);
    ss_.assign(cells, 0);
    gs_.assign(cells, 0);
    reverse_below_.assign(cells, 0);
    for (auto* buffer : {&so1_, &se1_, &so2_, &se2_, &ro1s_, &re1s_, &ro2s_, &re2s_})
      buffer->assign(cells * (strips ? strip_rows : 1), 0);
  }

  // `first_open_start` / `first_open_end`: whether a gap in the second profile costs its opening at the first
  // profile's start and end (ClustalW passes the first profile's edge opening costs, zero without end gap costs).
  int align(int first_open_start, int first_open_end) {
    runs_.clear();
    last_ = 0;
    return diff(0, 0, m_, n_, first_open_start, first_open_end);
  }

  std::vector<PathStep> path() const {
    std::vector<PathStep> steps;
    for (const int run : runs_) {
      if (run == 0) {
        steps.push_back(PathStep::both);
      } else if (run > 0) {
        steps.insert(steps.end(), static_cast<std::size_t>(run), PathStep::second_only);
      } else {
        steps.insert(steps.end(), static_cast<std::size_t>(-run), PathStep::first_only);
      }
    }
    return steps;
  }

 private:
  // Runs of the path: 0 a column pair, k > 0 k columns of the second alone, k < 0 -k of the first alone. An insert
  // right after a delete goes before it, so a gap pair always reads insert then delete.
  void del(int k) {
    if (last_ < 0) {
      runs_.back() -= k;
      last_ = runs_.back();
    } else {
      runs_.push_back(-k);
      last_ = -k;
    }
  }
  void add(int k) {
    if (last_ < 0) {
      runs_.back() = k;
      runs_.push_back(last_);
    } else {
      runs_.push_back(k);
      last_ = k;
    }
  }
  void pair() {
    runs_.push_back(0);
    last_ = 0;
  }

  int diff(int a, int b, int m, int n, int go1, int go2) {
    if (n <= 0) {
      if (m > 0) del(m);
      return -c_.gap1(a, b, m);
    }
    if (m <= 1) return single_row(a, b, m, n, go1);
    const int mid = m / 2;
    if (threads_ > 1 && static_cast<long long>(m) * n >= parallel_cells) {
      // The passes fill separate arrays from the same costs: side by side.
      host::parallel_for(2, 2, [] { return 0; }, [&](int&, std::size_t pass) {
        if (pass == 0) {
          forward(a, b, mid, n, go1);
        } else {
          reverse(a, b, m, mid, n, go2);
        }
      });
    } else {
      forward(a, b, mid, n, go1);
      reverse(a, b, m, mid, n, go2);
    }
    int best = hh_[0] + rr_[0], best_j = 0;
    bool crossing = false;
    for (int j = 0; j <= n; ++j) {
      const std::size_t uj = static_cast<std::size_t>(j);
      const int h = hh_[uj] + rr_[uj];
      if (h >= best && (h > best || (hh_[uj] != dd_[uj] && rr_[uj] == ss_[uj]))) {
        best = h;
        best_j = j;
      }
    }
    for (int j = n; j >= 0; --j) {
      const std::size_t uj = static_cast<std::size_t>(j);
      const int h = dd_[uj] + ss_[uj] + gs_[uj];
      if (h > best) {
        best = h;
        best_j = j;
        crossing = true;
      }
    }
    if (!crossing) {
      diff(a, b, mid, best_j, go1, 1);
      diff(a + mid, b + best_j, m - mid, n - best_j, 1, go2);
    } else {
      diff(a, b, mid - 1, best_j, go1, 0);
      del(2);
      diff(a + mid + 1, b + best_j, m - mid - 1, n - best_j, 0, go2);
    }
    return best;
  }

  // The first profile has at most one column left.
  int single_row(int a, int b, int m, int n, int go1) {
    if (m <= 0) {
      add(n);
      return -c_.gap2(a, b, n);
    }
    int best = go1 == 0 ? -c_.gap1(a + 1, b + 1, n) : -c_.gap2(a + 1, b, 1) - c_.gap1(a + 1, b + 1, n);
    int best_j = 0;
    for (int j = 1; j <= n; ++j) {
      const int h = -c_.gap1(a, b + 1, j - 1) + c_.score(a + 1, b + j) - c_.gap1(a + 1, b + j + 1, n - j);
      if (h > best) {
        best = h;
        best_j = j;
      }
    }
    if (best_j == 0) {
      add(n);
      del(1);
    } else {
      if (best_j > 1) add(best_j - 1);
      pair();
      if (best_j < n) add(n - best_j);
    }
    return best;
  }

  // Row i's gap costs opposite columns j0 .. j0 + count - 1 (see ClustalProfileCosts::gap_row).
  void gap_row(int i, int j0, int count, int* o1, int* e1, int* o2, int* e2) const {
    if constexpr (detail::has_gap_row<Costs>::value) {
      c_.gap_row(i, j0, count, o1, e1, o2, e2);
    } else {
      for (int x = 0; x < count; ++x) {
        if (o1) {
          o1[x] = c_.open1(i, j0 + x);
          e1[x] = c_.extend1(i, j0 + x);
        }
        if (o2) {
          o2[x] = c_.open2(i, j0 + x);
          e2[x] = c_.extend2(i, j0 + x);
        }
      }
    }
  }

  // Row i's precomputed scores, when the policy has them.
  const int* score_row(int i) const {
    if constexpr (detail::has_score_row<Costs>::value) {
      return c_.score_row(i);
    } else {
      (void)i;
      return nullptr;
    }
  }

  // hh_[j]: best score of the first `mid` rows against columns 1..j; dd_[j]: the same ending in a gap of the second.
  void forward(int a, int b, int mid, int n, int go1) {
    hh_[0] = 0;
    int t = -c_.open1(a, b + 1);
    int tl = -c_.extend1(a, b + 1);
    for (int j = 1; j <= n; ++j) {
      hh_[static_cast<std::size_t>(j)] = t = t + tl;
      dd_[static_cast<std::size_t>(j)] = t - c_.open2(a + 1, b + j);
    }
    t = go1 == 0 ? 0 : -c_.open2(a + 1, b);
    tl = -c_.extend2(a + 1, b);
    for (int i = 1; i <= mid;) {
      if constexpr (strips) {
        const int* rows[strip_rows];
        if (i + strip_rows - 1 <= mid && scored_rows(a + i, 1, rows)) {
          int starts[strip_rows];
          for (int k = 0; k < strip_rows; ++k) starts[k] = t += tl;
          forward_rows<strip_rows>(a + i, b, n, starts, [&rows, b](int k, int j) { return rows[k][b + j]; });
          i += strip_rows;
          continue;
        }
      }
      t += tl;
      if (const int* row = score_row(a + i)) {
        forward_rows<1>(a + i, b, n, &t, [row, b](int, int j) { return row[b + j]; });
      } else {
        forward_rows<1>(a + i, b, n, &t, [this, a, b, i](int, int j) { return c_.score(a + i, b + j); });
      }
      ++i;
    }
    dd_[0] = hh_[0];
  }

  // Rows r, r + step, ..., `strip_rows` of them, have score rows: true, with them in `rows`.
  bool scored_rows(int r, int step, const int** rows) const {
    for (int k = 0; k < strip_rows; ++k) {
      rows[k] = score_row(r + k * step);
      if (rows[k] == nullptr) return false;
    }
    return true;
  }

  // Rows r .. r + Rows - 1 of the forward pass (first-profile rows; `starts`: their leading gaps' scores;
  // score(k, j): row r + k's score against column j): each column's cells go down the rows in registers, the same
  // values as row after row.
  template <int Rows, class Score>
  void forward_rows(int r, int b, int n, const int* starts, Score score) {
    const std::size_t stride = static_cast<std::size_t>(n) + 2;
    int* o1[Rows];
    int* e1[Rows];
    int* o2[Rows];
    int* e2[Rows];
    int s[Rows], hh[Rows], f[Rows];
    for (int k = 0; k < Rows; ++k) {
      o1[k] = so1_.data() + stride * static_cast<std::size_t>(k);
      e1[k] = se1_.data() + stride * static_cast<std::size_t>(k);
      o2[k] = so2_.data() + stride * static_cast<std::size_t>(k);
      e2[k] = se2_.data() + stride * static_cast<std::size_t>(k);
      gap_row(r + k, b + 1, n, o1[k] + 1, e1[k] + 1, o2[k] + 1, e2[k] + 1);
      s[k] = k == 0 ? hh_[0] : starts[k - 1];
      hh[k] = starts[k];
      f[k] = starts[k] - o1[k][1];
    }
    hh_[0] = starts[Rows - 1];
    int* hrow = hh_.data();
    int* drow = dd_.data();
    for (int j = 1; j <= n; ++j) {
      int up = hrow[j], up_gap = drow[j];
      for (int k = 0; k < Rows; ++k) {
        const int opened = hh[k] - o1[k][j] - e1[k][j];
        f[k] -= e1[k][j];
        if (opened > f[k]) f[k] = opened;
        const int from_up = up - o2[k][j] - e2[k][j];
        int e = up_gap - e2[k][j];
        if (from_up > e) e = from_up;
        int v = s[k] + score(k, j);
        if (f[k] > v) v = f[k];
        if (e > v) v = e;
        s[k] = up;
        hh[k] = up = v;
        up_gap = e;
      }
      hrow[j] = up;
      drow[j] = up_gap;
    }
  }

  // rr_[j]: best score of rows mid+1..m against columns j+1..n; ss_[j] the same starting with a gap of the second,
  // gs_[j] that gap's opening cost (added back when a gap crosses the middle).
  void reverse(int a, int b, int m, int mid, int n, int go2) {
    const std::size_t un = static_cast<std::size_t>(n);
    rr_[un] = 0;
    int tl = 0;
    for (int j = n - 1; j >= 0; --j) {
      const std::size_t uj = static_cast<std::size_t>(j);
      const int g = -c_.open1(a + m, b + j + 1);
      tl -= c_.extend1(a + m, b + j + 1);
      rr_[uj] = g + tl;
      ss_[uj] = rr_[uj] - c_.open2(a + m, b + j);
      gs_[uj] = c_.open2(a + m, b + j);
    }
    tl = 0;
    // The trailing gap's score of row i (rows go up from the bottom).
    const auto start = [&](int i) {
      const int g = go2 == 0 ? 0 : -c_.open2(a + i + 1, b + n);
      tl -= c_.extend2(a + i + 1, b + n);
      return g + tl;
    };
    for (int i = m - 1; i >= mid;) {
      if constexpr (strips) {
        const int* rows[strip_rows];
        // Rows i, i - 1, ..., above the pass's first row (which reads no row below).
        if (i < m - 1 && i - strip_rows + 1 >= mid && scored_rows(a + i + 1, -1, rows)) {
          int starts[strip_rows];
          for (int k = 0; k < strip_rows; ++k) starts[k] = start(i - k);
          reverse_rows<strip_rows, false>(a + i, b, n, starts,
                                          [&rows, b](int k, int j) { return rows[k][b + 1 + j]; });
          i -= strip_rows;
          continue;
        }
      }
      const int first = start(i);
      const auto one_row = [&](auto score) {
        if (i == m - 1) {
          reverse_rows<1, true>(a + i, b, n, &first, score);
        } else {
          reverse_rows<1, false>(a + i, b, n, &first, score);
        }
      };
      if (const int* row = score_row(a + i + 1)) {
        one_row([row, b](int, int j) { return row[b + 1 + j]; });
      } else {
        one_row([this, a, b, i](int, int j) { return c_.score(a + i + 1, b + j + 1); });
      }
      --i;
    }
    ss_[un] = rr_[un];
    gs_[un] = c_.open2(a + mid + 1, b + n);
  }

  // Rows r, r - 1, ..., r - Rows + 1 of the reverse pass (`starts`: their trailing gaps' scores; score(k, j): row
  // r - k's score against column j + 1, which is first-profile row r - k + 1's), the rows' cells of each column in
  // registers. `bottom`: the pass's first row, whose vertical gap has no row below to open it.
  template <int Rows, bool bottom, class Score>
  void reverse_rows(int r, int b, int n, const int* starts, Score score) {
    const std::size_t un = static_cast<std::size_t>(n);
    const std::size_t stride = un + 2;
    int* o1[Rows];
    int* e1[Rows];
    int* o2[Rows];
    int* e2[Rows];
    const int* below[Rows];  // the open2 of the row below
    int s[Rows], hh[Rows], f[Rows], t[Rows];
    for (int k = 0; k < Rows; ++k) {
      o1[k] = ro1s_.data() + stride * static_cast<std::size_t>(k);
      e1[k] = re1s_.data() + stride * static_cast<std::size_t>(k);
      o2[k] = ro2s_.data() + stride * static_cast<std::size_t>(k);
      e2[k] = re2s_.data() + stride * static_cast<std::size_t>(k);
      gap_row(r - k, b + 1, n, o1[k], e1[k], nullptr, nullptr);
      gap_row(r - k + 1, b, n, nullptr, nullptr, o2[k], e2[k]);
      below[k] = k == 0 ? reverse_below_.data() : o2[k - 1];
      s[k] = k == 0 ? rr_[un] : starts[k - 1];
      hh[k] = starts[k];
      t[k] = c_.open1(r - k, b + n);
      f[k] = starts[k] - t[k];
    }
    rr_[un] = starts[Rows - 1];
    int* rrow = rr_.data();
    int* srow = ss_.data();
    int* grow = gs_.data();
    const int* top_open = o2[Rows - 1];
    for (int j = n - 1; j >= 0; --j) {
      int down = rrow[j], down_gap = srow[j];
      for (int k = 0; k < Rows; ++k) {
        const int g = o1[k][j], h = e1[k][j];
        const int opened = hh[k] - g - h;
        f[k] = f[k] - h - g + t[k];
        if (opened > f[k]) f[k] = opened;
        t[k] = g;
        const int g2 = o2[k][j], h2 = e2[k][j];
        const int from_down = down - g2 - h2;
        int e = bottom ? down_gap - h2 : down_gap - h2 - g2 + below[k][j];
        if (from_down > e) e = from_down;
        int v = s[k] + score(k, j);
        if (f[k] > v) v = f[k];
        if (e > v) v = e;
        s[k] = down;
        hh[k] = down = v;
        down_gap = e;
      }
      rrow[j] = down;
      srow[j] = down_gap;
      if constexpr (!bottom) grow[j] = top_open[j];
    }
    std::copy(top_open, top_open + n, reverse_below_.begin());  // the next row's row below
  }

  static constexpr bool strips = detail::has_score_row<Costs>::value && detail::has_gap_row<Costs>::value;

  const Costs& c_;
  int m_, n_;
  int threads_ = 1;
  std::vector<int> hh_, dd_, rr_, ss_, gs_;
  // The rows' gap costs (open1, extend1, open2, extend2), row after row: the forward pass's and the reverse pass's
  // (which may run side by side); the reverse pass's open2 of the row below its next row.
  std::vector<int> so1_, se1_, so2_, se2_, ro1s_, re1s_, ro2s_, re2s_;
  std::vector<int> reverse_below_;
  std::vector<int> runs_;
  int last_ = 0;
};

// Aligns two ClustalW profiles; returns the path and (through `score`) ClustalW's score, in its units (x100). Column
// pair scores come from a table computed once (clustal_score_table) when it holds at most `table_cells` cells, else
// as the passes go; the path is the same either way. `threads` > 1 splits the largest passes (the same path too).
inline std::vector<PathStep> align_clustal_profiles(const ColumnProfile& first, const ColumnProfile& second,
                                                    bool end_gap_penalties, int* score = nullptr, int threads = 1,
                                                    std::size_t table_cells = clustal_score_table_cells) {
  ClustalProfileCosts costs{first, second, end_gap_penalties};
  std::vector<int> table;
  const std::size_t cells =
      (static_cast<std::size_t>(first.length) + 1) * (static_cast<std::size_t>(second.length) + 1);
  if (cells <= table_cells) {
    table = clustal_score_table(first, second, threads);
    costs.scores = table.data();
    costs.score_stride = static_cast<std::size_t>(second.length) + 1;
  }
  std::vector<int> open(static_cast<std::size_t>(second.length) + 2), extend(open.size());
  for (std::size_t j = 0; j < open.size(); ++j) {
    open[j] = second.rows[j][profile_open_column];
    extend[j] = second.rows[j][profile_extend_column];
  }
  costs.second_open = open.data();
  costs.second_extend = extend.data();
  LinearSpaceProfileAligner<ClustalProfileCosts> aligner(costs, first.length, second.length, threads);
  const int s = aligner.align(first.open(0), first.open(first.length));
  if (score) *score = s;
  return aligner.path();
}

}  // namespace cudp::msa
