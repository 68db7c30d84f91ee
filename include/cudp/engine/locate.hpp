#pragma once
// Where a reported local alignment lies: a forward pass finds its end cell, a reverse pass from that cell finds its
// start. Run on the host for the hits a search reports, so the bulk scoring pass pays nothing for coordinates.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

namespace cudp::engine {

struct AlignmentEnds {
  long score = 0;
  int query_start = 0, query_end = 0;    // 1-based, inclusive
  int target_start = 0, target_end = 0;  // 0 when the score is 0 (no alignment)
};

namespace detail {

// Affine Gotoh over a[0..n) x b[0..m); local = zero floor and free start anywhere, otherwise the path must start
// at the corner. Reports the first cell (row-major) holding the best score.
template <class Score>
AlignmentEnds best_cell(int n, int m, Score score, int open, int extend, bool local) {
  const long NEG = LONG_MIN / 4;
  std::vector<long> h_prev(m + 1), h_cur(m + 1), f(m + 1, NEG);
  for (int j = 0; j <= m; ++j) h_prev[j] = local || j == 0 ? 0 : NEG;
  AlignmentEnds best;
  best.score = local ? 0 : NEG;
  for (int i = 1; i <= n; ++i) {
    long e = NEG;
    h_cur[0] = local ? 0 : NEG;
    for (int j = 1; j <= m; ++j) {
      e = std::max(e - extend, h_cur[j - 1] - open - extend);
      f[j] = std::max(f[j] - extend, h_prev[j] - open - extend);
      long h = std::max({h_prev[j - 1] + score(i - 1, j - 1), e, f[j]});
      if (local) h = std::max(h, 0L);
      h_cur[j] = h;
      if (h > best.score) best = {h, 0, j, 0, i};
    }
    std::swap(h_prev, h_cur);
  }
  return best;
}

}  // namespace detail

template <class Matrix>
AlignmentEnds locate_local(const std::uint8_t* query, int m, const std::uint8_t* target, int n, const Matrix& matrix,
                           int open, int extend) {
  AlignmentEnds fwd = detail::best_cell(n, m, [&](int i, int j) { return matrix(target[i], query[j]); }, open, extend, true);
  if (fwd.score <= 0) return {};
  // Reverse pass anchored at the end cell: the first cell reaching the score is the alignment's start.
  const int te = fwd.target_end, qe = fwd.query_end;
  AlignmentEnds rev = detail::best_cell(
      te, qe, [&](int i, int j) { return matrix(target[te - 1 - i], query[qe - 1 - j]); }, open, extend, false);
  AlignmentEnds out;
  out.score = fwd.score;
  out.target_end = te;
  out.query_end = qe;
  out.target_start = te - rev.target_end + 1;
  out.query_start = qe - rev.query_end + 1;
  return out;
}

}  // namespace cudp::engine
