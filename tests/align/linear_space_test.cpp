// The linear-space aligner: in every mode its alignment rescores to the textbook DP optimum, however deep the
// recursion goes (leaf sizes down to 1 cell force a split at every row pair), on random pairs, on pairs built to
// put long vertical gaps across the cuts, and on the corner cases (empty, one residue, one letter repeated, nothing
// alike). Boxes with continuing gaps are checked on their own against an explicit model of what they mean.
#include <catch2/catch.hpp>

#include <atomic>
#include <climits>
#include <memory>
#include <random>
#include <vector>

#include "cudp/align/full_traceback.hpp"
#include "cudp/align/linear_space.hpp"

#include "../support/reference_dp.hpp"

using cudp::align::Alignment;
using cudp::align::LinearSpaceOptions;
using cudp::recurrences::AlignMode;
using cudp::recurrences::GapCosts;

namespace {

// A mutated copy: substitutions, short indels and one long deletion and insertion, so that optimal paths run long
// vertical and horizontal gaps.
std::vector<std::uint8_t> mutate(std::mt19937_64& rng, std::vector<std::uint8_t> s, int alphabet) {
  for (auto& c : s)
    if (rng() % 10 == 0) c = static_cast<std::uint8_t>(rng() % alphabet);
  if (s.size() > 10) {
    const std::size_t at = rng() % (s.size() - 8), len = 1 + rng() % 8;
    s.erase(s.begin() + static_cast<long>(at), s.begin() + static_cast<long>(at + len));
  }
  const auto block = cudp::test::random_codes(rng, 1 + rng() % 15, alphabet);
  s.insert(s.begin() + static_cast<long>(rng() % (s.size() + 1)), block.begin(), block.end());
  return s;
}

struct Case {
  std::vector<std::uint8_t> query, target;
};

}  // namespace

TEST_CASE("linear space: optimal in every mode at every recursion depth, rescoring to the DP", "[align][linear]") {
  std::mt19937_64 rng(20261123);
  int compared = 0;
  for (int alphabet : {2, 4, 20}) {
    const cudp::test::RandomMatrix matrix(alphabet, -5, 6, 31 + alphabet);
    for (GapCosts gaps : {GapCosts{10, 1}, GapCosts{0, 3}, GapCosts{4, 2}, GapCosts{1, 1}}) {
      for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
        for (int trial = 0; trial < 40; ++trial) {
          Case c;
          c.query = cudp::test::random_codes(rng, rng() % 90, alphabet);
          c.target = trial % 2 ? mutate(rng, c.query, alphabet) : cudp::test::random_codes(rng, rng() % 90, alphabet);
          if (trial % 7 == 3) std::swap(c.query, c.target);
          const int m = static_cast<int>(c.query.size()), n = static_cast<int>(c.target.size());
          const long optimum = cudp::test::reference_gotoh(cudp::test::mode_of(mode), c.target, c.query, matrix, gaps.open, gaps.extend);
          for (long leaf : {1L, 16L, 1L << 16}) {
            LinearSpaceOptions options;
            options.leaf_cells = leaf;
            options.threads = 1 + trial % 3;
            const Alignment a =
                cudp::align::align_linear_space(mode, c.query.data(), m, c.target.data(), n, matrix, gaps, options);
            INFO("alphabet " << alphabet << " gaps " << gaps.open << "/" << gaps.extend << " mode " << to_string(mode)
                             << " m " << m << " n " << n << " leaf " << leaf << " cigar " << cudp::align::cigar(a));
            REQUIRE(a.score == optimum);
            REQUIRE(cudp::align::rescore(a, mode, c.query.data(), m, c.target.data(), n, matrix, gaps) == optimum);
            ++compared;
          }
        }
      }
    }
  }
  CHECK(compared == 3 * 4 * 3 * 40 * 3);
}

TEST_CASE("linear space: corner cases", "[align][linear]") {
  const cudp::test::RandomMatrix matrix(4, -3, 3, 5);
  LinearSpaceOptions deep;
  deep.leaf_cells = 1;
  auto check = [&](const std::vector<std::uint8_t>& q, const std::vector<std::uint8_t>& t, GapCosts gaps) {
    for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
      const int m = static_cast<int>(q.size()), n = static_cast<int>(t.size());
      const Alignment a = cudp::align::align_linear_space(mode, q.data(), m, t.data(), n, matrix, gaps, deep);
      INFO("mode " << to_string(mode) << " m " << m << " n " << n << " cigar " << cudp::align::cigar(a));
      long optimum = 0;
      if (m > 0 && n > 0)
        optimum = cudp::test::reference_gotoh(cudp::test::mode_of(mode), t, q, matrix, gaps.open, gaps.extend);
      else if (mode == AlignMode::Global && m + n > 0)
        optimum = -(gaps.open + static_cast<long>(m + n) * gaps.extend);
      REQUIRE(a.score == optimum);
      REQUIRE(cudp::align::rescore(a, mode, q.data(), m, t.data(), n, matrix, gaps) == optimum);
    }
  };
  const std::vector<std::uint8_t> none, one{2}, other{1};
  for (GapCosts gaps : {GapCosts{11, 1}, GapCosts{0, 2}}) {
    check(none, none, gaps);
    check(one, none, gaps);
    check(none, one, gaps);
    check(one, one, gaps);
    check(one, other, gaps);
    // One letter repeated: every diagonal ties, and the lengths differ by a long gap.
    check(std::vector<std::uint8_t>(37, 3), std::vector<std::uint8_t>(120, 3), gaps);
    check(std::vector<std::uint8_t>(120, 3), std::vector<std::uint8_t>(37, 3), gaps);
    // Nothing alike: a local alignment is empty, a global one all mismatches and gaps.
    check(std::vector<std::uint8_t>(50, 0), std::vector<std::uint8_t>(70, 1), gaps);
    check(std::vector<std::uint8_t>(1, 0), std::vector<std::uint8_t>(300, 1), gaps);
  }
}

// A box whose corners continue gaps scores like the same box inside a larger problem: prefix the target with a
// deleted row whose gap the box continues (start), or suffix one (end), and the larger problem's best alignment that
// deletes that row right at the corner, minus that row's extension, is the box's score.
TEST_CASE("full traceback: boxes with continuing gaps, and their rescoring", "[align][linear]") {
  std::mt19937_64 rng(7);
  const cudp::test::RandomMatrix matrix(4, -4, 4, 9);
  int compared = 0;
  for (GapCosts gaps : {GapCosts{6, 1}, GapCosts{3, 2}}) {
    for (int trial = 0; trial < 300; ++trial) {
      const int m = static_cast<int>(rng() % 12), n = static_cast<int>(rng() % 12);
      const auto q = cudp::test::random_codes(rng, m, 4), t = cudp::test::random_codes(rng, n, 4);
      const bool start = rng() % 2, end = rng() % 2;
      GapCosts box_gaps = gaps;
      box_gaps.left_gap_continues = start;
      const Alignment a = cudp::align::align_full(AlignMode::Global, q.data(), m, t.data(), n, matrix, box_gaps, end);
      // The model: every global path of the box, scored with its first vertical gap at the top-left corner free of
      // the open cost when `start`, its last one into the bottom-right corner likewise when `end`, and a single gap
      // down the whole box (m = 0) refunded once. Enumerated by a DP with the two refunds as states.
      const long NEG = LONG_MIN / 4;
      const long o = gaps.open, e = gaps.extend;
      // H, E, F as usual, plus F0: vertical gap runs that started at the top-left corner (column 0).
      std::vector<std::vector<long>> H(n + 1, std::vector<long>(m + 1, NEG)), E = H, F = H;
      H[0][0] = 0;
      for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= m; ++j) {
          if (i == 0 && j == 0) continue;
          if (j > 0) E[i][j] = std::max(E[i][j - 1] - e, H[i][j - 1] - o - e);
          if (i > 0) F[i][j] = std::max(F[i - 1][j] - e, H[i - 1][j] - ((start && j == 0 && i == 1) ? 0 : o) - e);
          long h = std::max(E[i][j], F[i][j]);
          if (i > 0 && j > 0) h = std::max(h, H[i - 1][j - 1] + matrix(t[i - 1], q[j - 1]));
          H[i][j] = h;
        }
      long expected = H[n][m];
      if (end && n > 0) {
        // Ending in a vertical gap refunds its open cost, unless that gap is the start's, which paid none.
        const bool corner_gap_is_start_gap = m == 0 && start;
        expected = std::max(expected, F[n][m] + (corner_gap_is_start_gap ? 0 : o));
      }
      INFO("m " << m << " n " << n << " start " << start << " end " << end << " cigar " << cudp::align::cigar(a));
      REQUIRE(a.score == expected);
      // Rescored as a box's own (what DeviceLeaves checks its host boxes with).
      const cudp::align::SequencePair pair{q.data(), nullptr, m, t.data(), nullptr, n};
      REQUIRE(cudp::align::detail::rescore_box(pair, cudp::align::Box{0, m, 0, n, start, end}, a, matrix, gaps) ==
              a.score);
      ++compared;
    }
  }
  CHECK(compared == 600);
}

TEST_CASE("linear space: a pair whose scores could pass 32 bits is refused", "[align][linear]") {
  struct Huge {
    int operator()(int a, int b) const { return a == b ? 1 << 20 : -1; }
  };
  const std::vector<std::uint8_t> q(5000, 1);
  CHECK_THROWS_AS(cudp::align::align_linear_space(AlignMode::Global, q.data(), 5000, q.data(), 5000, Huge{}, GapCosts{}),
                  std::invalid_argument);
}

TEST_CASE("linear space: global scores from two half passes equal the optimum", "[align][linear]") {
  std::mt19937_64 rng(31);
  const cudp::test::RandomMatrix matrix(4, -4, 5, 23);
  std::vector<std::vector<std::uint8_t>> queries, targets;
  for (int k = 0; k < 150; ++k) {  // empty sides, one residue, then anything up to 200
    const std::size_t m = k < 5 ? k % 3 : 1 + rng() % 200;
    queries.push_back(cudp::test::random_codes(rng, m, 4));
    if (k < 10)
      targets.push_back(cudp::test::random_codes(rng, k % 4, 4));
    else
      targets.push_back(k % 3 ? mutate(rng, queries.back(), 4) : cudp::test::random_codes(rng, rng() % 200, 4));
  }
  std::vector<cudp::align::SequenceView> qv, tv;
  for (std::size_t k = 0; k < queries.size(); ++k) {
    qv.push_back({queries[k].data(), static_cast<int>(queries[k].size())});
    tv.push_back({targets[k].data(), static_cast<int>(targets[k].size())});
  }
  const cudp::align::PairBatch batch(qv, tv);
  for (GapCosts gaps : {GapCosts{10, 1}, GapCosts{0, 3}}) {
    int calls = 0;
    const std::vector<long> scores = cudp::align::global_scores(
        batch, matrix, gaps, LinearSpaceOptions{},
        [&](const std::vector<cudp::align::RowPass>& passes, const cudp::align::SequencePair& pair,
            cudp::align::RowPassOutput out) {
          ++calls;
          REQUIRE(out.midpoints != nullptr);  // crossings, not rows
          cudp::align::run_row_passes_on_host(passes, pair, matrix, gaps, out);
        });
    CHECK(calls == 1);
    REQUIRE(scores.size() == queries.size());
    for (std::size_t k = 0; k < queries.size(); ++k) {
      INFO("pair " << k << ": " << queries[k].size() << " x " << targets[k].size() << ", gaps " << gaps.open << "/"
                   << gaps.extend);
      const long m = static_cast<long>(queries[k].size()), n = static_cast<long>(targets[k].size());
      long expected = m + n > 0 ? -(gaps.open + (m + n) * gaps.extend) : 0;  // one side empty: one gap
      if (m > 0 && n > 0)
        expected = cudp::test::reference_gotoh(cudp::test::Mode::Global, targets[k], queries[k], matrix, gaps.open,
                                               gaps.extend);
      REQUIRE(scores[k] == expected);
    }
  }
  struct Huge {
    int operator()(int a, int b) const { return a == b ? 1 << 20 : -1; }
  };
  const std::vector<std::uint8_t> q(5000, 1);
  const cudp::align::PairBatch huge({{q.data(), 5000}}, {{q.data(), 5000}});
  const auto no_passes = [](const std::vector<cudp::align::RowPass>&, const cudp::align::SequencePair&,
                            cudp::align::RowPassOutput) {};
  CHECK_THROWS_AS(cudp::align::global_scores(huge, Huge{}, GapCosts{}, LinearSpaceOptions{}, no_passes),
                  std::invalid_argument);
}

// `count` random pairs of up to `longest` residues a side, an empty query every `empty_every`-th, an unrelated target
// every `unrelated_every`-th and a mutated copy of the query otherwise; laid out as one batch.
struct RandomBatch {
  std::vector<std::vector<std::uint8_t>> queries, targets;
  std::unique_ptr<cudp::align::PairBatch> batch;
  RandomBatch(std::mt19937_64& rng, int count, int longest, int empty_every, int unrelated_every) {
    for (int k = 0; k < count; ++k) {
      queries.push_back(cudp::test::random_codes(rng, k % empty_every == 0 ? 0 : 1 + rng() % longest, 4));
      targets.push_back(k % unrelated_every ? mutate(rng, queries.back(), 4)
                                            : cudp::test::random_codes(rng, rng() % longest, 4));
    }
    std::vector<cudp::align::SequenceView> qv, tv;
    for (std::size_t k = 0; k < queries.size(); ++k) {
      qv.push_back({queries[k].data(), static_cast<int>(queries[k].size())});
      tv.push_back({targets[k].data(), static_cast<int>(targets[k].size())});
    }
    batch = std::make_unique<cudp::align::PairBatch>(qv, tv);
  }
  // The textbook optimum of pair k (an empty side: 0, or in global mode the gap over the other side).
  template <class Matrix>
  long optimum(std::size_t k, AlignMode mode, const Matrix& matrix, GapCosts gaps) const {
    const auto& q = queries[k];
    const auto& t = targets[k];
    if (!q.empty() && !t.empty())
      return cudp::test::reference_gotoh(cudp::test::mode_of(mode), t, q, matrix, gaps.open, gaps.extend);
    if (mode == AlignMode::Global && q.size() + t.size() > 0)
      return -(gaps.open + static_cast<long>(q.size() + t.size()) * gaps.extend);
    return 0;
  }
};

TEST_CASE("linear space: a batch of pairs shares its levels and gives each pair its optimum", "[align][linear]") {
  // (and located_scores, in local and semi-global modes, each pair's optimum without its alignment)
  std::mt19937_64 rng(99);
  const cudp::test::RandomMatrix matrix(4, -4, 5, 17);
  const RandomBatch pairs(rng, 120, 150, 11, 3);
  const auto& queries = pairs.queries;
  const auto& targets = pairs.targets;
  const cudp::align::PairBatch& batch = *pairs.batch;
  for (GapCosts gaps : {GapCosts{10, 1}, GapCosts{2, 2}}) {
    for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
      LinearSpaceOptions options;
      options.leaf_cells = 64;
      int levels = 0;
      const auto all = cudp::align::align_batch_linear_space(
          mode, batch, matrix, gaps, options,
          [&](const std::vector<cudp::align::RowPass>& passes, const cudp::align::SequencePair& pair,
              cudp::align::RowPassOutput out) {
            ++levels;
            cudp::align::run_row_passes_on_host(passes, pair, matrix, gaps, out);
          });
      REQUIRE(all.size() == queries.size());
      std::vector<long> scores_alone;  // local and semi-global: the end-locating pass alone (located_scores)
      if (mode != AlignMode::Global)
        scores_alone = cudp::align::located_scores(
            mode, batch, matrix, gaps, options,
            [&](const std::vector<cudp::align::RowPass>& ends, AlignMode pass_mode, cudp::align::CellScope scope,
                const cudp::align::SequencePair& pair, cudp::tiers::CellEnd* out) {
              cudp::align::find_best_cells_on_host(ends, pass_mode, scope, pair, matrix, gaps, out);
            });
      for (std::size_t k = 0; k < queries.size(); ++k) {
        const auto& q = queries[k];
        const auto& t = targets[k];
        const int m = static_cast<int>(q.size()), n = static_cast<int>(t.size());
        const long optimum = pairs.optimum(k, mode, matrix, gaps);
        INFO("pair " << k << " mode " << to_string(mode) << " m " << m << " n " << n);
        REQUIRE(all[k].score == optimum);
        REQUIRE(cudp::align::rescore(all[k], mode, q.data(), m, t.data(), n, matrix, gaps) == optimum);
        if (mode != AlignMode::Global) REQUIRE(scores_alone[k] == optimum);
      }
      // One list of passes per level for the whole batch: about log2 of the longest target, not one per pair.
      CHECK(levels <= 12);
    }
  }
}

TEST_CASE("linear space: the batch's steps one at a time give align_batch_linear_space's alignments", "[align][linear]") {
  std::mt19937_64 rng(7);
  const cudp::test::RandomMatrix matrix(4, -4, 5, 17);
  const RandomBatch pairs(rng, 50, 120, 11, 3);
  const cudp::align::PairBatch& batch = *pairs.batch;
  const GapCosts gaps{10, 1};
  LinearSpaceOptions options;
  options.leaf_cells = 64;
  auto run_passes = [&](const std::vector<cudp::align::RowPass>& passes, const cudp::align::SequencePair& pair,
                        cudp::align::RowPassOutput out) {
    cudp::align::run_row_passes_on_host(passes, pair, matrix, gaps, out);
  };
  auto find_ends = [&](const std::vector<cudp::align::RowPass>& ends, AlignMode pass_mode, cudp::align::CellScope scope,
                       const cudp::align::SequencePair& pair, cudp::tiers::CellEnd* out) {
    cudp::align::find_best_cells_on_host(ends, pass_mode, scope, pair, matrix, gaps, out);
  };
  for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
    INFO("mode " << to_string(mode));
    const auto whole = cudp::align::align_batch_linear_space(mode, batch, matrix, gaps, options, run_passes);
    std::atomic<std::size_t> visited{0};
    cudp::align::for_each_checked_pair(batch, matrix, gaps, 2,
                                       [&](std::size_t, const cudp::align::SequencePair&) { ++visited; });
    CHECK(visited == batch.size());
    std::vector<cudp::align::Box> boxes;
    std::vector<long> located;
    cudp::align::locate_boxes(mode, batch, gaps, 2, find_ends, boxes, located);
    REQUIRE(boxes.size() == batch.size());
    REQUIRE(located.size() == batch.size());
    auto out = cudp::align::align_boxes_linear_space(batch.pair(), boxes, matrix, gaps, options, run_passes);
    cudp::align::place_and_check(mode, batch, located, matrix, gaps, 2, out);
    REQUIRE(out.size() == whole.size());
    for (std::size_t k = 0; k < out.size(); ++k) {
      INFO("pair " << k);
      CHECK(out[k].score == pairs.optimum(k, mode, matrix, gaps));
      CHECK(out[k].score == whole[k].score);
      CHECK(cudp::align::cigar(out[k]) == cudp::align::cigar(whole[k]));
      if (mode != AlignMode::Global) CHECK(located[k] == out[k].score);
    }
  }
}

TEST_CASE("linear space: a batch of leaves is rescored on the host whatever its solver says", "[align][linear]") {
  std::mt19937_64 rng(31);
  const cudp::test::RandomMatrix matrix(4, -4, 5, 17);
  const RandomBatch pairs(rng, 60, 40, 11, 3);
  const cudp::align::PairBatch& batch = *pairs.batch;
  const GapCosts gaps{10, 1};
  LinearSpaceOptions options;
  options.leaf_cells = 1L << 20;  // every pair one leaf
  auto no_levels = [](const std::vector<cudp::align::RowPass>& passes, const cudp::align::SequencePair&,
                      cudp::align::RowPassOutput) { REQUIRE(passes.empty()); };
  // A solver whose answers are all right but one, that it claims to have rescored (DeviceLeaves checks its answers
  // in the lanes that made them, so a lane bug could pass its own check): the batch must not take its word.
  auto solve = [&](const std::vector<cudp::align::Box>& boxes, std::vector<Alignment>& out) {
    cudp::align::solve_leaves_on_host(batch.pair(), boxes, matrix, gaps, out);
    out[1].score -= 1;  // pair 1 has residues on both sides
    return true;
  };
  for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
    INFO("mode " << to_string(mode));
    CHECK_THROWS_AS(cudp::align::align_batch_linear_space(mode, batch, matrix, gaps, options, no_levels, solve),
                    std::logic_error);
  }
}

// Checkpoint rows (LinearSpaceOptions::checkpoint_cells): boxes cut at every few rows at once, from a forward pass
// that keeps those rows and reverse passes that reach left only as far as the path goes. Spacings from 2 rows (paths
// cross most checkpoints inside long vertical gaps, and strips are narrower than the gaps) up, budgets that fit few
// checkpoints or many, parts cut again, in every mode, with the leaves small and large: the alignment rescores to
// the DP optimum, and the passes show that checkpoints were kept and that the reverse passes were narrower than the
// box.
TEST_CASE("linear space: checkpoint rows give optimal alignments", "[align][linear]") {
  std::mt19937_64 rng(20261124);
  int compared = 0, retried = 0, cut = 0;
  for (int alphabet : {2, 4, 20}) {
    const cudp::test::RandomMatrix matrix(alphabet, -5, 6, 7 + alphabet);
    for (GapCosts gaps : {GapCosts{10, 1}, GapCosts{0, 3}, GapCosts{4, 2}}) {
      for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
        for (int trial = 0; trial < 16; ++trial) {
          Case c;
          c.query = cudp::test::random_codes(rng, 20 + rng() % 200, alphabet);
          c.target = mutate(rng, c.query, alphabet);
          if (trial % 4 == 1) c.target = mutate(rng, c.target, alphabet);  // more and longer gaps
          if (trial % 5 == 2) c.target = cudp::test::random_codes(rng, 20 + rng() % 200, alphabet);
          if (trial % 3 == 0) std::swap(c.query, c.target);
          if (trial % 4 == 3) {  // a long horizontal gap: a strip whose path runs further left than its first window
            const auto block = cudp::test::random_codes(rng, 60, alphabet);
            c.query.insert(c.query.begin() + static_cast<long>(rng() % (c.query.size() + 1)), block.begin(), block.end());
          }
          const int m = static_cast<int>(c.query.size()), n = static_cast<int>(c.target.size());
          const long optimum =
              cudp::test::reference_gotoh(cudp::test::mode_of(mode), c.target, c.query, matrix, gaps.open, gaps.extend);
          LinearSpaceOptions options;
          options.checkpoint_cells = 1;
          options.checkpoint_rows = 2 + static_cast<int>(rng() % 8);
          options.checkpoint_bytes = (trial % 2 ? 3 : 40) * (static_cast<std::size_t>(m) + 1) * 8;
          options.leaf_cells = trial % 3 == 2 ? 1 : 64;
          options.threads = 1 + trial % 2;
          int saving = 0, narrow = 0;
          std::vector<cudp::align::RowPass> last_windows;
          const Alignment a = cudp::align::align_linear_space(
              mode, c.query.data(), m, c.target.data(), n, matrix, gaps, options,
              [&](const std::vector<cudp::align::RowPass>& passes, const cudp::align::SequencePair& pair,
                  cudp::align::RowPassOutput out) {
                for (const auto& p : passes) saving += p.save_every > 0;
                // A call of windows: one strip of each half that is still walking, crossed with a kept row.
                const bool windows = cudp::align::crosses_kept_rows(passes);
                if (windows) {
                  REQUIRE(saving > 0);
                  for (const auto& p : passes) {
                    narrow += p.columns < m / 2;
                    // The same strip again, wider: its first window missed the path.
                    for (const auto& before : last_windows)
                      retried += p.query_begin == before.query_begin && p.target_begin == before.target_begin &&
                                 p.reversed == before.reversed && p.rows == before.rows && p.columns > before.columns;
                  }
                  last_windows = passes;
                }
                cudp::align::run_row_passes_on_host(passes, pair, matrix, gaps, out, options.threads);
              });
          INFO("alphabet " << alphabet << " gaps " << gaps.open << "/" << gaps.extend << " mode " << to_string(mode)
                           << " m " << m << " n " << n << " spacing " << options.checkpoint_rows << " cigar "
                           << cudp::align::cigar(a));
          REQUIRE(a.score == optimum);
          REQUIRE(cudp::align::rescore(a, mode, c.query.data(), m, c.target.data(), n, matrix, gaps) == optimum);
          // A global box tall enough for two strips a half is cut at checkpoints; most are.
          const bool tall = cudp::align::detail::checkpoint_spacing({0, m, 0, n}, options) > 0;
          if (mode == AlignMode::Global && tall) {
            CHECK(saving > 0);
            ++cut;
          }
          if (mode == AlignMode::Global && tall && m >= 100) CHECK(narrow > 0);
          ++compared;
        }
      }
    }
  }
  CHECK(compared == 3 * 3 * 3 * 16);
  CHECK(cut > 100);
  CHECK(retried > 5);
}

// A batch whose boxes are cut at checkpoints together (the batch regime on a device): every box's halves in one call,
// then one call of windows per step for all of them, in groups as checkpoint_bytes allows; every pair gets its
// optimum, in every mode, whether a group holds one box or all.
TEST_CASE("linear space: a batch cut at checkpoint rows together gives each pair its optimum", "[align][linear]") {
  std::mt19937_64 rng(1201);
  const cudp::test::RandomMatrix matrix(4, -4, 5, 23);
  const RandomBatch pairs(rng, 60, 220, 13, 4);
  const cudp::align::PairBatch& batch = *pairs.batch;
  for (GapCosts gaps : {GapCosts{10, 1}, GapCosts{0, 3}}) {
    for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
      for (std::size_t budget : {std::size_t{16384}, std::size_t{200000}, std::size_t{1} << 30}) {
        LinearSpaceOptions options;
        options.leaf_cells = 100;
        options.checkpoint_cells = 2000;
        options.checkpoint_rows = 4;
        options.checkpoint_count = 12;
        options.checkpoint_bytes = budget;
        std::size_t most_halves = 0, window_calls = 0;
        const auto all = cudp::align::align_batch_linear_space(
            mode, batch, matrix, gaps, options,
            [&](const std::vector<cudp::align::RowPass>& passes, const cudp::align::SequencePair& pair,
                cudp::align::RowPassOutput out) {
              std::size_t keeping = 0;
              for (const auto& p : passes) keeping += p.save_every > 0;
              most_halves = std::max(most_halves, keeping);
              // The rows kept at once fit the budget, or are one box's.
              if (keeping > 2) REQUIRE(cudp::align::saved_row_entries(passes) * 8 <= budget);
              window_calls += cudp::align::crosses_kept_rows(passes);
              cudp::align::run_row_passes_on_host(passes, pair, matrix, gaps, out);
            });
        for (std::size_t k = 0; k < pairs.queries.size(); ++k) {
          const auto& q = pairs.queries[k];
          const auto& t = pairs.targets[k];
          const int m = static_cast<int>(q.size()), n = static_cast<int>(t.size());
          const long optimum = pairs.optimum(k, mode, matrix, gaps);
          INFO("pair " << k << " mode " << to_string(mode) << " m " << m << " n " << n << " budget " << budget);
          REQUIRE(all[k].score == optimum);
          REQUIRE(cudp::align::rescore(all[k], mode, q.data(), m, t.data(), n, matrix, gaps) == optimum);
        }
        CHECK(window_calls > 0);
        // A gigabyte holds all of a level's boxes.
        if (budget > 1000000) CHECK(most_halves > 20);
      }
    }
  }
}

// Boxes that continue gaps at their corners, cut at checkpoints, score as align_full scores them.
TEST_CASE("linear space: checkpoint rows in boxes with continuing gaps", "[align][linear]") {
  std::mt19937_64 rng(77);
  const cudp::test::RandomMatrix matrix(4, -4, 4, 21);
  int compared = 0;
  for (GapCosts gaps : {GapCosts{6, 1}, GapCosts{3, 2}, GapCosts{0, 1}}) {
    for (int trial = 0; trial < 80; ++trial) {
      const auto q = cudp::test::random_codes(rng, rng() % 80, 4);
      auto t = trial % 2 ? mutate(rng, q, 4) : cudp::test::random_codes(rng, rng() % 80, 4);
      if (trial % 5 == 0) t.insert(t.begin() + static_cast<long>(rng() % (t.size() + 1)), 20, 1);
      const int m = static_cast<int>(q.size()), n = static_cast<int>(t.size());
      const std::vector<std::uint8_t> qr(q.rbegin(), q.rend()), tr(t.rbegin(), t.rend());
      const cudp::align::SequencePair pair{q.data(), qr.data(), m, t.data(), tr.data(), n};
      cudp::align::Box box{0, m, 0, n, rng() % 2 == 1, rng() % 2 == 1};
      GapCosts box_gaps = gaps;
      box_gaps.left_gap_continues = box.gap_continues_at_start;
      const Alignment whole =
          cudp::align::align_full(AlignMode::Global, q.data(), m, t.data(), n, matrix, box_gaps, box.gap_continues_at_end);
      LinearSpaceOptions options;
      options.checkpoint_cells = 1;
      options.checkpoint_rows = 2 + trial % 4;
      options.leaf_cells = 1 + trial % 20;
      const auto cut = cudp::align::align_boxes_linear_space(
          pair, {box}, matrix, gaps, options,
          [&](const std::vector<cudp::align::RowPass>& passes, const cudp::align::SequencePair& p,
              cudp::align::RowPassOutput out) { cudp::align::run_row_passes_on_host(passes, p, matrix, gaps, out, 1); });
      INFO("m " << m << " n " << n << " start " << box.gap_continues_at_start << " end " << box.gap_continues_at_end
                << " cigar " << cudp::align::cigar(cut.front()) << " (whole: " << cudp::align::cigar(whole) << ")");
      REQUIRE(cut.front().score == whole.score);
      // The edits walk the box corner to corner and score what they claim: each gap run pays its open cost, except a
      // vertical one that continues a corner's gap (once, if it spans the box).
      const auto& edits = cut.front().edits;
      long score = 0;
      int i = 0, j = 0;
      for (std::size_t r = 0; r < edits.size(); ++r) {
        const auto& run = edits[r];
        if (run.op == cudp::align::EditOp::Match || run.op == cudp::align::EditOp::Mismatch) {
          for (int k = 0; k < run.length; ++k, ++i, ++j) {
            REQUIRE((q[j] == t[i]) == (run.op == cudp::align::EditOp::Match));
            score += matrix(t[i], q[j]);
          }
          continue;
        }
        const bool vertical = run.op == cudp::align::EditOp::Deletion;
        const bool refunded = vertical && ((r == 0 && box.gap_continues_at_start) ||
                                           (r + 1 == edits.size() && box.gap_continues_at_end));
        score -= (refunded ? 0 : gaps.open) + static_cast<long>(run.length) * gaps.extend;
        (vertical ? i : j) += run.length;
      }
      REQUIRE(i == n);
      REQUIRE(j == m);
      REQUIRE(score == whole.score);
      ++compared;
    }
  }
  CHECK(compared == 240);
}
