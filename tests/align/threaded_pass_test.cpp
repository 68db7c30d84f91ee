// One pass split over host threads (align/threaded_pass.hpp): whatever the thread count, strip widths and block
// heights, every observer hands back what one thread hands back and what a textbook matrix says: the best cell of
// each scope (equal cells, planted at strip and block boundaries, broken the same way), the last row and the
// checkpoint rows. Then the passes and aligners built on it, on one long pair with their default split: best cells,
// row passes, scores and alignments with 1, 2 and 3 threads.
#include <catch2/catch.hpp>

#include <climits>
#include <random>
#include <type_traits>
#include <vector>

#include "cudp/align/best_cells.hpp"
#include "cudp/align/linear_space.hpp"
#include "cudp/align/row_passes.hpp"
#include "cudp/align/threaded_pass.hpp"

#include "../support/best_cell_passes.hpp"
#include "../support/reference_dp.hpp"
#include "../support/sequence_pair.hpp"

using cudp::align::CellScope;
using cudp::align::PassSplit;
using cudp::recurrences::AlignMode;
using cudp::recurrences::GapCosts;
using cudp::tiers::CellEnd;

namespace {

template <AlignMode Mode>
using Policy = cudp::recurrences::Gotoh<Mode, cudp::lanes::s32>;

struct PassResult {
  CellEnd anywhere, edges;
  std::vector<std::int32_t> last_row, checkpoints;  // (h, pending f) a column
  std::int32_t score = 0;
  bool operator==(const PassResult& o) const {
    auto same = [](const CellEnd& a, const CellEnd& b) {
      return a.score == b.score && a.target_end == b.target_end && a.query_end == b.query_end;
    };
    return same(anywhere, o.anywhere) && same(edges, o.edges) && last_row == o.last_row &&
           checkpoints == o.checkpoints && score == o.score;
  }
};

// Every observer over one pass of policy `Mode` on `threads` threads cut as `split` says.
template <AlignMode Mode, class Matrix>
PassResult run_pass(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target,
                    const Matrix& matrix, GapCosts gaps, int threads, const PassSplit& split, int every) {
  const int m = static_cast<int>(query.size()), n = static_cast<int>(target.size());
  PassResult r;
  r.score = cudp::align::run_one_pair_on_threads<Policy<Mode>>(gaps, matrix, query.data(), m, target.data(), n,
                                                               cudp::tiers::BestCell{&r.anywhere}, threads, split);
  cudp::align::run_one_pair_on_threads<Policy<Mode>>(gaps, matrix, query.data(), m, target.data(), n,
                                                     cudp::align::BestEdgeCell{&r.edges, n, m}, threads, split);
  const int saved = (n - 1) / every;
  r.last_row.assign(static_cast<std::size_t>(m) * 2, 0);
  r.checkpoints.assign(static_cast<std::size_t>(m) * 2 * saved, 0);
  cudp::align::run_one_pair_on_threads<Policy<Mode>>(
      gaps, matrix, query.data(), m, target.data(), n,
      cudp::tiers::CheckpointRowsCapture<std::int32_t>(r.last_row.data(), m, r.checkpoints.data(), every, saved),
      threads, split);
  return r;
}

// What the textbook matrix says of the same pass: both best cells, H along the last row and the checkpoint rows,
// and the mode's score.
template <class Matrix>
void check_against_reference(const PassResult& got, AlignMode mode, const std::vector<std::uint8_t>& query,
                             const std::vector<std::uint8_t>& target, const Matrix& matrix, GapCosts gaps, int every) {
  const int m = static_cast<int>(query.size()), n = static_cast<int>(target.size());
  cudp::test::Sequences s;
  s.query = query;
  s.target = target;
  s.reverse();
  cudp::align::RowPass whole;
  whole.columns = m;
  whole.rows = n;
  cudp::test::require_same_cell(got.anywhere,
                                cudp::test::reference_best_cell(whole, s, mode, CellScope::Anywhere, matrix, gaps));
  cudp::test::require_same_cell(got.edges,
                                cudp::test::reference_best_cell(whole, s, mode, CellScope::Edges, matrix, gaps));
  const auto H = cudp::test::reference_gotoh_h(cudp::test::mode_of(mode), target, query, matrix, gaps.open,
                                               gaps.extend);
  for (int j = 1; j <= m; ++j) REQUIRE(got.last_row[static_cast<std::size_t>(j - 1) * 2] == H[n][j]);
  for (int k = 1; k <= (n - 1) / every; ++k)
    for (int j = 1; j <= m; ++j)
      REQUIRE(got.checkpoints[(static_cast<std::size_t>(k - 1) * m + (j - 1)) * 2] == H[k * every][j]);
  REQUIRE(got.score == cudp::test::reference_gotoh(cudp::test::mode_of(mode), target, query, matrix, gaps.open,
                                                   gaps.extend));
}

template <class Matrix>
void check_pair(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target, const Matrix& matrix,
                GapCosts gaps, const std::vector<PassSplit>& splits) {
  const int every = 1 + static_cast<int>(target.size()) / 4;
  auto each_mode = [&](auto mode_tag) {
    constexpr AlignMode mode = decltype(mode_tag)::value;
    const PassResult one = run_pass<mode>(query, target, matrix, gaps, 1, PassSplit{}, every);
    check_against_reference(one, mode, query, target, matrix, gaps, every);
    for (const PassSplit& split : splits)
      for (int threads : {2, 3, 5}) {
        INFO("mode " << to_string(mode) << " m " << query.size() << " n " << target.size() << " threads " << threads
                     << " strips " << cudp::align::pass_strips(static_cast<int>(query.size()),
                                                               static_cast<int>(target.size()), threads, split)
                     << " block rows " << split.block_rows << " ring " << split.ring_blocks);
        REQUIRE(run_pass<mode>(query, target, matrix, gaps, threads, split, every) == one);
      }
  };
  each_mode(std::integral_constant<AlignMode, AlignMode::Local>{});
  each_mode(std::integral_constant<AlignMode, AlignMode::Global>{});
  each_mode(std::integral_constant<AlignMode, AlignMode::SemiGlobal>{});
}

// Splits of small pairs: strips of one tile up, blocks of one row up, rings of one block up.
std::vector<PassSplit> small_splits() {
  std::vector<PassSplit> splits;
  for (int block : {1, 3, 8, 0})
    for (int ring : {1, 2, 8}) {
      PassSplit s;
      s.min_strip_columns = 8;
      s.min_cells = 0;
      s.block_rows = block;
      s.ring_blocks = ring;
      splits.push_back(s);
    }
  return splits;
}

// X repeated `copies` times, X of `tiles` tiles (8 columns each): with `copies` strips, each strip is one copy.
std::vector<std::uint8_t> repeated(const std::vector<std::uint8_t>& x, int copies) {
  std::vector<std::uint8_t> out;
  for (int c = 0; c < copies; ++c) out.insert(out.end(), x.begin(), x.end());
  return out;
}

}  // namespace

TEST_CASE("threaded pass: every split gives one thread's cells, on random pairs", "[align][threaded]") {
  std::mt19937_64 rng(20261206);
  const auto splits = small_splits();
  for (int alphabet : {4, 20}) {
    const cudp::test::RandomMatrix matrix(alphabet, -5, 6, 40 + alphabet);
    for (GapCosts gaps : {GapCosts{10, 1}, GapCosts{0, 3}, GapCosts{4, 2}}) {
      for (int trial = 0; trial < 4; ++trial) {
        const auto query = cudp::test::random_codes(rng, 1 + rng() % 120, alphabet);
        const auto target = trial % 2 ? cudp::test::mutated_copy(rng, query, 1 + rng() % 120, alphabet)
                                      : cudp::test::random_codes(rng, 1 + rng() % 120, alphabet);
        check_pair(query, target, matrix, gaps, splits);
      }
    }
  }
}

TEST_CASE("threaded pass: equal cells on strip and block boundaries", "[align][threaded]") {
  std::mt19937_64 rng(6);
  // Identical residues score above 0 and others below: no alignment of X scores more than X with itself.
  const cudp::test::RandomMatrix matrix(4, -4, -1, 17);
  const auto splits = small_splits();
  const GapCosts gaps{5, 2};
  // X copied once a strip: equal best cells at every strip's last column, in the last row (semi-global) and at the
  // last row of X's block when blocks divide X.
  for (int copies : {2, 3, 5}) {
    const auto x = cudp::test::random_codes(rng, 24, 4);
    check_pair(repeated(x, copies), x, matrix, gaps, splits);
    check_pair(x, repeated(x, copies), matrix, gaps, splits);
  }
  // One letter, and two: most cells tie.
  const cudp::test::RandomMatrix two(2, -2, 3, 5);
  check_pair(std::vector<std::uint8_t>(70, 1), std::vector<std::uint8_t>(50, 1), two, gaps, splits);
  check_pair(cudp::test::random_codes(rng, 64, 2), cudp::test::random_codes(rng, 48, 2), two, gaps, splits);
}

TEST_CASE("threaded pass: strips and shares of threads", "[align][threaded]") {
  PassSplit split;
  CHECK(cudp::align::pass_strips(60000, 60000, 2, split) == 2);
  CHECK(cudp::align::pass_strips(60000, 60000, 1, split) == 1);
  CHECK(cudp::align::pass_strips(600, 600, 2, split) == 1);     // too few cells
  CHECK(cudp::align::pass_strips(300, 100000, 4, split) == 1);  // too narrow for two strips
  CHECK(cudp::align::pass_strips(1000, 100000, 8, split) == 3);
  CHECK(cudp::align::share_of_threads(0, 1, 3) == 3);
  CHECK(cudp::align::share_of_threads(0, 2, 3) == 2);
  CHECK(cudp::align::share_of_threads(1, 2, 3) == 1);
  CHECK(cudp::align::share_of_threads(4, 5, 3) == 1);
}

namespace {

// One long pair: X twice against X, so that a local or semi-global end ties across the strips of two threads (X is
// half the columns); and a random pair with its mutated copy.
struct LongPair {
  std::vector<std::uint8_t> query, target;
};

std::vector<LongPair> long_pairs() {
  std::mt19937_64 rng(53);
  LongPair tie;
  tie.target = cudp::test::random_codes(rng, 1024, 4);
  tie.query = repeated(tie.target, 2);
  LongPair mutated;
  mutated.query = cudp::test::random_codes(rng, 1500, 4);
  mutated.target = cudp::test::mutated_copy(rng, mutated.query, 1400, 4);
  return {tie, mutated};
}

}  // namespace

TEST_CASE("threaded pass: one long pair's best cells and rows with 1, 2 and 3 threads", "[align][threaded]") {
  const cudp::test::RandomMatrix matrix(4, -4, -1, 9);
  const GapCosts gaps{5, 2};
  for (const LongPair& pair : long_pairs()) {
    cudp::test::Sequences s;
    s.query = pair.query;
    s.target = pair.target;
    s.reverse();
    const int m = static_cast<int>(s.query.size()), n = static_cast<int>(s.target.size());
    REQUIRE(cudp::align::pass_strips(m, n, 3) == 3);  // the default split does cut it
    // The whole pair forward, and its reversed prefix up to an inner cell (a locating step's two passes).
    std::vector<cudp::align::RowPass> passes(1);
    passes[0].columns = m;
    passes[0].rows = n;
    cudp::align::RowPass back;
    back.columns = m - 100;
    back.rows = n - 50;
    back.query_begin = 100;
    back.target_begin = 50;
    back.reversed = true;
    for (const auto& pass : {passes[0], back}) {
      for (AlignMode mode : {AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal})
        for (CellScope scope : {CellScope::Anywhere, CellScope::Edges}) {
          const CellEnd want = cudp::test::reference_best_cell(pass, s, mode, scope, matrix, gaps);
          for (int threads : {1, 2, 3}) {
            CellEnd got;
            cudp::align::find_best_cells_on_host({pass}, mode, scope, s.view(), matrix, gaps, &got, threads);
            INFO("mode " << to_string(mode) << " edges " << (scope == CellScope::Edges) << " reversed "
                         << pass.reversed << " threads " << threads);
            cudp::test::require_same_cell(got, want);
          }
        }
      // Rows and checkpoint rows of the global pass.
      std::vector<std::int32_t> h1, f1, hs1, fs1;
      for (int threads : {1, 2, 3}) {
        cudp::align::RowPass rows = pass;
        rows.save_every = 300;
        std::vector<std::int32_t> h(cudp::align::row_entries({rows})), f(h.size());
        std::vector<std::int32_t> hs(cudp::align::saved_row_entries({rows})), fs(hs.size());
        cudp::align::run_row_passes_on_host({rows}, s.view(), matrix, gaps, {h.data(), f.data(), hs.data(), fs.data()},
                                            threads);
        if (threads == 1) {
          h1 = h, f1 = f, hs1 = hs, fs1 = fs;
          const auto& q = pass.reversed ? s.query_reversed : s.query;
          const auto& t = pass.reversed ? s.target_reversed : s.target;
          const std::vector<std::uint8_t> query(q.begin() + pass.query_begin, q.begin() + pass.query_begin + pass.columns);
          const std::vector<std::uint8_t> target(t.begin() + pass.target_begin,
                                                 t.begin() + pass.target_begin + pass.rows);
          const auto H = cudp::test::reference_gotoh_h(cudp::test::Mode::Global, target, query, matrix, gaps.open,
                                                       gaps.extend);
          for (int j = 0; j <= pass.columns; ++j) REQUIRE(h[static_cast<std::size_t>(j)] == H[pass.rows][j]);
        } else {
          INFO("row passes, threads " << threads << " reversed " << pass.reversed);
          REQUIRE(h == h1);
          REQUIRE(f == f1);
          REQUIRE(hs == hs1);
          REQUIRE(fs == fs1);
        }
      }
    }
  }
}

TEST_CASE("threaded pass: one long pair's scores and alignments with 1, 2 and 3 threads", "[align][threaded]") {
  const cudp::test::RandomMatrix matrix(4, -4, -1, 9);
  const GapCosts gaps{5, 2};
  for (const LongPair& pair : long_pairs()) {
    const int m = static_cast<int>(pair.query.size()), n = static_cast<int>(pair.target.size());
    const cudp::align::PairBatch batch({cudp::align::SequenceView{pair.query.data(), m}},
                                       {cudp::align::SequenceView{pair.target.data(), n}});
    for (AlignMode mode : {AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal}) {
      const long optimum =
          cudp::test::reference_gotoh(cudp::test::mode_of(mode), pair.target, pair.query, matrix, gaps.open, gaps.extend);
      cudp::align::Alignment first;
      for (int threads : {1, 2, 3}) {
        INFO("mode " << to_string(mode) << " m " << m << " n " << n << " threads " << threads);
        cudp::align::LinearSpaceOptions options;
        options.threads = threads;
        const auto host_passes = [&](const std::vector<cudp::align::RowPass>& passes,
                                     const cudp::align::SequencePair& p, cudp::align::RowPassOutput out) {
          cudp::align::run_row_passes_on_host(passes, p, matrix, gaps, out, threads);
        };
        const long score =
            mode == AlignMode::Global
                ? cudp::align::global_scores(batch, matrix, gaps, options, host_passes).front()
                : cudp::align::located_scores(mode, batch, matrix, gaps, options,
                                              [&](const std::vector<cudp::align::RowPass>& ends, AlignMode pass_mode,
                                                  CellScope scope, const cudp::align::SequencePair& p, CellEnd* out) {
                                                cudp::align::find_best_cells_on_host(ends, pass_mode, scope, p, matrix,
                                                                                     gaps, out, threads);
                                              })
                      .front();
        REQUIRE(score == optimum);
        const cudp::align::Alignment a =
            cudp::align::align_linear_space(mode, pair.query.data(), m, pair.target.data(), n, matrix, gaps, options);
        REQUIRE(a.score == optimum);
        REQUIRE(cudp::align::rescore(a, mode, pair.query.data(), m, pair.target.data(), n, matrix, gaps) == optimum);
        if (threads == 1) {
          first = a;
          continue;
        }
        REQUIRE(a.query_begin == first.query_begin);
        REQUIRE(a.query_end == first.query_end);
        REQUIRE(a.target_begin == first.target_begin);
        REQUIRE(a.target_end == first.target_end);
        REQUIRE(cudp::align::cigar(a) == cudp::align::cigar(first));
      }
      // The tie: X against the first copy of X, whose end is the last column of the first of two strips.
      if (mode == AlignMode::Local && pair.query.size() == 2 * pair.target.size()) {
        REQUIRE(first.query_end == n);
        REQUIRE(first.target_end == n);
      }
    }
  }
}
