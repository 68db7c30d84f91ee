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
#include <vector>

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
  int open2(int i, int j) const { return free_in_second(j) ? 0 : first.open(i) + second.open(j); }
  int extend2(int i, int j) const { return free_in_second(j) ? 0 : first.extend(i); }
  int gap2(int i, int j, int k) const {
    if (k <= 0 || free_in_second(j)) return 0;
    int h = 0;
    for (int x = 0; x < k && x + i < first.length; ++x) h += first.extend(x + i);
    return first.open(i) + second.open(j) + h;
  }
};

template <class Costs>
class LinearSpaceProfileAligner {
 public:
  LinearSpaceProfileAligner(const Costs& costs, int first_length, int second_length)
      : c_(costs), m_(first_length), n_(second_length) {
    const std::size_t cells = static_cast<std::size_t>(second_length) + 2;
    hh_.assign(cells, 0);
    dd_.assign(cells, 0);
    rr_.assign(cells, 0);
    ss_.assign(cells, 0);
    gs_.assign(cells, 0);
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
    forward(a, b, mid, n, go1);
    reverse(a, b, m, mid, n, go2);
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
    for (int i = 1; i <= mid; ++i) {
      int s = hh_[0];
      int hh = t = t + tl;
      hh_[0] = hh;
      int f = t - c_.open1(a + i, b + 1);
      for (int j = 1; j <= n; ++j) {
        const std::size_t uj = static_cast<std::size_t>(j);
        int g = c_.open1(a + i, b + j);
        int h = c_.extend1(a + i, b + j);
        hh = hh - g - h;
        f = f - h;
        if (hh > f) f = hh;
        g = c_.open2(a + i, b + j);
        h = c_.extend2(a + i, b + j);
        hh = hh_[uj] - g - h;
        int e = dd_[uj] - h;
        if (hh > e) e = hh;
        hh = s + c_.score(a + i, b + j);
        if (f > hh) hh = f;
        if (e > hh) hh = e;
        s = hh_[uj];
        hh_[uj] = hh;
        dd_[uj] = e;
      }
    }
    dd_[0] = hh_[0];
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
    for (int i = m - 1; i >= mid; --i) {
      int s = rr_[un];
      int g = go2 == 0 ? 0 : -c_.open2(a + i + 1, b + n);
      tl -= c_.extend2(a + i + 1, b + n);
      int hh = g + tl;
      rr_[un] = hh;
      int t = c_.open1(a + i, b + n);
      int f = rr_[un] - t;
      for (int j = n - 1; j >= 0; --j) {
        const std::size_t uj = static_cast<std::size_t>(j);
        g = c_.open1(a + i, b + j + 1);
        int h = c_.extend1(a + i, b + j + 1);
        hh = hh - g - h;
        f = f - h - g + t;
        if (hh > f) f = hh;
        t = g;
        g = c_.open2(a + i + 1, b + j);
        h = c_.extend2(a + i + 1, b + j);
        hh = rr_[uj] - g - h;
        int e;
        if (i == m - 1) {
          e = ss_[uj] - h;
        } else {
          e = ss_[uj] - h - g + c_.open2(a + i + 2, b + j);
          gs_[uj] = g;
        }
        if (hh > e) e = hh;
        hh = s + c_.score(a + i + 1, b + j + 1);
        if (f > hh) hh = f;
        if (e > hh) hh = e;
        s = rr_[uj];
        rr_[uj] = hh;
        ss_[uj] = e;
      }
    }
    ss_[un] = rr_[un];
    gs_[un] = c_.open2(a + mid + 1, b + n);
  }

  const Costs& c_;
  int m_, n_;
  std::vector<int> hh_, dd_, rr_, ss_, gs_;
  std::vector<int> runs_;
  int last_ = 0;
};

// Aligns two ClustalW profiles; returns the path and (through `score`) ClustalW's score, in its units (x100).
inline std::vector<PathStep> align_clustal_profiles(const ColumnProfile& first, const ColumnProfile& second,
                                                    bool end_gap_penalties, int* score = nullptr) {
  const ClustalProfileCosts costs{first, second, end_gap_penalties};
  LinearSpaceProfileAligner<ClustalProfileCosts> aligner(costs, first.length, second.length);
  const int s = aligner.align(first.open(0), first.open(first.length));
  if (score) *score = s;
  return aligner.path();
}

}  // namespace cudp::msa
