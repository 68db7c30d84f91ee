// locate_local (the Gotoh policy on the host tier with the BestCell observer) against a scalar textbook pass in
// 64-bit arithmetic: the same end cell (first in row-major order among equals) and the same start, on data with
// many ties, empty alignments, and queries several host strips wide.
#include <catch2/catch.hpp>

#include <climits>
#include <random>
#include <vector>

#include "cudp/engine/locate.hpp"
#include "../support/reference_dp.hpp"

namespace {

struct Ends {
  long score;
  int i, j;
};
// Over a[0..n) x b[0..m): local = zero floor and free start; otherwise the path starts at the corner with no border
// gaps. The first cell in row-major order holding the best H.
template <class Score>
Ends scalar_best_cell(int n, int m, Score score, int open, int extend, bool local) {
  const long NEG = LONG_MIN / 4;
  std::vector<long> prev(m + 1), cur(m + 1), f(m + 1, NEG);
  for (int j = 0; j <= m; ++j) prev[j] = local || j == 0 ? 0 : NEG;
  Ends best{local ? 0 : NEG, 0, 0};
  for (int i = 1; i <= n; ++i) {
    long e = NEG;
    cur[0] = local ? 0 : NEG;
    for (int j = 1; j <= m; ++j) {
      e = std::max(e - extend, cur[j - 1] - open - extend);
      f[j] = std::max(f[j] - extend, prev[j] - open - extend);
      long h = std::max({prev[j - 1] + score(i - 1, j - 1), e, f[j]});
      if (local) h = std::max(h, 0L);
      cur[j] = h;
      if (h > best.score) best = {h, i, j};
    }
    std::swap(prev, cur);
  }
  return best;
}

}  // namespace

TEST_CASE("locate_local: ends equal a scalar 64-bit pass", "[engine][locate]") {
  std::mt19937_64 rng(73);
  for (int alphabet : {2, 4, 20}) {
    const cudp::test::RandomMatrix s(alphabet, -3, 3, 8 + alphabet);
    for (int trial = 0; trial < 60; ++trial) {
      const int m = 1 + static_cast<int>(rng() % 150), n = 1 + static_cast<int>(rng() % 150);
      const auto q = cudp::test::random_codes(rng, m, alphabet), t = cudp::test::random_codes(rng, n, alphabet);
      const int open = static_cast<int>(rng() % 6), extend = 1 + static_cast<int>(rng() % 2);
      const auto got = cudp::engine::locate_local(q.data(), m, t.data(), n, s, open, extend);
      const Ends fwd = scalar_best_cell(n, m, [&](int i, int j) { return s(t[i], q[j]); }, open, extend, true);
      INFO("alphabet " << alphabet << ", trial " << trial << ", m " << m << ", n " << n);
      REQUIRE(got.score == fwd.score);
      if (fwd.score <= 0) {
        CHECK(got.target_end == 0);
        continue;
      }
      CHECK(got.score == cudp::test::reference_gotoh(cudp::test::Mode::Local, t, q, s, open, extend));
      CHECK(got.target_end == fwd.i);
      CHECK(got.query_end == fwd.j);
      const Ends rev = scalar_best_cell(
          fwd.i, fwd.j, [&](int i, int j) { return s(t[fwd.i - 1 - i], q[fwd.j - 1 - j]); }, open, extend, false);
      CHECK(rev.score == fwd.score);
      CHECK(got.target_start == fwd.i - rev.i + 1);
      CHECK(got.query_start == fwd.j - rev.j + 1);
    }
  }
}
