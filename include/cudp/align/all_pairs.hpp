#pragma once
// Every unordered pair of n items, for all-against-all work (a distance matrix from pairwise alignments): pair
// number p in [0, n(n-1)/2) stands for (i, j), i < j, row by row ((0,1), (0,2), ..., (1,2), ...), and
// for_all_pairs hands them to worker threads one at a time, since pairs of long sequences cost far more than pairs of
// short ones.
#include <cmath>
#include <cstddef>
#include <utility>

#include "../host/parallel_for.hpp"

namespace cudp::align {

inline std::size_t pair_count(std::size_t n) { return n < 2 ? 0 : n * (n - 1) / 2; }

// The (i, j) of pair number p among n items.
inline std::pair<std::size_t, std::size_t> pair_at(std::size_t p, std::size_t n) {
  // Row i holds n - 1 - i pairs; the row is found from the closed form, then corrected for rounding.
  const double m = static_cast<double>(2 * n - 1);
  auto i = static_cast<std::size_t>((m - std::sqrt(m * m - 8.0 * static_cast<double>(p))) / 2);
  const auto row_start = [n](std::size_t r) { return r * (2 * n - r - 1) / 2; };
  while (i > 0 && row_start(i) > p) --i;
  while (row_start(i + 1) <= p) ++i;
  return {i, i + 1 + (p - row_start(i))};
}

// Calls body(scratch, i, j) for every pair i < j of n items on `threads` threads (0: all usable cores); `setup()`
// makes each thread's scratch (an aligner's buffers, say).
template <class Setup, class Body>
void for_all_pairs(std::size_t n, int threads, Setup setup, Body body) {
  host::parallel_for(pair_count(n), threads, setup, [&](auto& scratch, std::size_t p) {
    const auto [i, j] = pair_at(p, n);
    body(scratch, i, j);
  });
}

}  // namespace cudp::align
