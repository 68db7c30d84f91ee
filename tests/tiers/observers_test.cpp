// Observers on the host tier against full textbook matrices: the best cell (first in row-major order among
// equals, whatever order the tier visits cells in) and each target's captured last row, in packed lanes, with
// queries several strips wide so that the tier's strip order differs from row-major order.
#include <catch2/catch.hpp>

#include <climits>
#include <random>
#include <vector>

#include "cudp/engine/cascade.hpp"
#include "cudp/engine/profile.hpp"
#include "cudp/engine/task_packing.hpp"
#include "cudp/lanes.hpp"
#include "cudp/recurrences/gotoh.hpp"
#include "cudp/tiers/host.hpp"
#include "cudp/tiers/observers.hpp"
#include "../support/reference_dp.hpp"

using namespace cudp;

namespace {

// Full H and the vertical gap carry F(i+1, j) = max(F(i, j) - extend, H(i, j) - open - extend) of a Gotoh matrix.
struct FullMatrix {
  std::vector<std::vector<long>> H, F_next;
};
FullMatrix full_gotoh(bool local, const std::vector<std::uint8_t>& t, const std::vector<std::uint8_t>& q,
                      const test::RandomMatrix& s, int open, int extend) {
  const long NEG = -(1L << 29);
  const std::size_t n = t.size(), m = q.size();
  auto border = [&](std::size_t k) -> long { return !local && k > 0 ? -(open + static_cast<long>(k) * extend) : 0; };
  FullMatrix out;
  out.H.assign(n + 1, std::vector<long>(m + 1, 0));
  out.F_next = out.H;
  std::vector<std::vector<long>> E = out.H, F = out.H;
  for (std::size_t i = 0; i <= n; ++i) out.H[i][0] = border(i), E[i][0] = out.H[i][0] - open - extend;
  for (std::size_t j = 0; j <= m; ++j) out.H[0][j] = border(j), F[0][j] = NEG, out.F_next[0][j] = out.H[0][j] - open - extend;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      E[i][j] = std::max(E[i][j - 1] - extend, out.H[i][j - 1] - open - extend);
      F[i][j] = out.F_next[i - 1][j];
      long h = std::max({out.H[i - 1][j - 1] + s(t[i - 1], q[j - 1]), E[i][j], F[i][j]});
      if (local) h = std::max(h, 0L);
      out.H[i][j] = h;
      out.F_next[i][j] = std::max(F[i][j] - extend, h - open - extend);
    }
  return out;
}

tiers::CellEnd reference_best_cell(const FullMatrix& f) {
  tiers::CellEnd best{INT_MIN, 0, 0};
  for (std::size_t i = 1; i < f.H.size(); ++i)
    for (std::size_t j = 1; j < f.H[i].size(); ++j)
      if (f.H[i][j] > best.score) best = {static_cast<std::int32_t>(f.H[i][j]), static_cast<int>(i), static_cast<int>(j)};
  return best.target_end ? best : tiers::CellEnd{};
}

template <class P, class Observer>
std::vector<std::int32_t> run_host(const test::CodesSet& db, const std::vector<std::uint8_t>& q,
                                   const test::RandomMatrix& s, recurrences::GapCosts gaps, const Observer& observer) {
  using L = typename P::Lane;
  auto profile = engine::build_profile<P>(gaps, s, s.size, q.data(), static_cast<int>(q.size()), 32);
  const engine::SequencesView view = engine::view_of(db);
  std::vector<std::uint32_t> order(db.size());
  for (std::uint32_t t = 0; t < order.size(); ++t) order[t] = t;
  auto tasks = engine::pack_tasks<L::width>(view, order.data(), order.size(), static_cast<std::uint8_t>(profile.pad_code));
  P p(gaps, engine::shape_of(profile.data, s.size, profile.stride, static_cast<int>(q.size())));
  std::vector<std::int32_t> scores(db.size());
  tiers::HostTier<32>::run(p, tasks.view(), profile.view(), static_cast<int>(q.size()), scores.data(), 1, observer);
  return scores;
}

}  // namespace

TEMPLATE_TEST_CASE("BestCell: first best cell in row-major order, every lane of a packed word", "[tiers][observers]",
                   lanes::s16x2, lanes::s32) {
  std::mt19937_64 rng(71);
  // Four codes and small scores: many cells tie, so the order rule decides.
  const test::RandomMatrix s(4, -2, 2, 5);
  const recurrences::GapCosts gaps{2, 1};
  for (bool local : {true, false}) {
    test::CodesSet db;
    for (int n : {1, 3, 40, 97, 150, 33, 64, 65}) db.add(test::random_codes(rng, n, 4));
    const auto q = test::random_codes(rng, 100, 4);  // four 32-column strips
    std::vector<tiers::CellEnd> ends(db.size());
    std::vector<std::int32_t> scores;
    if (local)
      scores = run_host<recurrences::Gotoh<recurrences::AlignMode::Local, TestType>>(db, q, s, gaps, tiers::BestCell{ends.data()});
    else
      scores = run_host<recurrences::Gotoh<recurrences::AlignMode::Global, TestType>>(db, q, s, gaps, tiers::BestCell{ends.data()});
    for (std::size_t t = 0; t < db.size(); ++t) {
      const tiers::CellEnd want = reference_best_cell(full_gotoh(local, db.get(t), q, s, gaps.open, gaps.extend));
      INFO("local " << local << ", target " << t << " of length " << db.get(t).size());
      CHECK(ends[t].score == want.score);
      CHECK(ends[t].target_end == want.target_end);
      CHECK(ends[t].query_end == want.query_end);
      if (local) CHECK(scores[t] == want.score);  // the local score is the best cell's
    }
  }
}

TEMPLATE_TEST_CASE("LastRowCapture: H and the vertical gap carry of each target's last row", "[tiers][observers]",
                   lanes::s16x2, lanes::s32) {
  using P = recurrences::Gotoh<recurrences::AlignMode::Global, TestType>;
  std::mt19937_64 rng(72);
  const test::RandomMatrix s(5, -4, 5, 6);
  const recurrences::GapCosts gaps{5, 2};
  test::CodesSet db;
  for (int n : {1, 2, 50, 77, 120}) db.add(test::random_codes(rng, n, 5));
  const auto q = test::random_codes(rng, 70, 5);
  const int m = static_cast<int>(q.size());
  using Scalar = typename TestType::scalar;
  std::vector<Scalar> rows(db.size() * m * 2, Scalar(12345));
  run_host<P>(db, q, s, gaps, tiers::LastRowCapture<Scalar>{rows.data(), m});
  for (std::size_t t = 0; t < db.size(); ++t) {
    const FullMatrix f = full_gotoh(false, db.get(t), q, s, gaps.open, gaps.extend);
    const std::size_t n = db.get(t).size();
    for (int j = 1; j <= m; ++j) {
      INFO("target " << t << ", column " << j);
      CHECK(rows[(t * m + j - 1) * 2 + 0] == f.H[n][j]);
      CHECK(rows[(t * m + j - 1) * 2 + 1] == f.F_next[n][j]);
    }
  }
}
