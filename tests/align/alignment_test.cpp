// Alignments: the full-traceback aligner against the textbook DP in every mode, each alignment rescored from its
// edits; rescore's checks; the counts BLAST tabular and EMBOSS print.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "cudp/align/alignment.hpp"
#include "cudp/align/full_traceback.hpp"
#include "cudp/align/midpoint.hpp"
#include "cudp/align/row_passes.hpp"
#include "cudp/engine/locate.hpp"

#include "../support/reference_dp.hpp"

using cudp::align::Alignment;
using cudp::align::EditOp;
using cudp::recurrences::AlignMode;
using cudp::recurrences::GapCosts;

namespace {

// Identity scoring over 4 codes: +1 / -1.
struct PlusMinus {
  int operator()(int a, int b) const { return a == b ? 1 : -1; }
};

}  // namespace

TEST_CASE("full traceback: optimal in every mode, rescoring to the DP score", "[align]") {
  std::mt19937_64 rng(2026);
  int compared = 0;
  for (int alphabet : {2, 4, 20}) {
    const cudp::test::RandomMatrix matrix(alphabet, -5, 6, 7 + alphabet);
    for (GapCosts gaps : {GapCosts{10, 1}, GapCosts{0, 3}, GapCosts{4, 2}}) {
      for (AlignMode mode : {AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal}) {
        for (int trial = 0; trial < 60; ++trial) {
          const int m = static_cast<int>(rng() % 70);
          auto query = cudp::test::random_codes(rng, m, alphabet);
          // Every fifth a self-hit (long diagonals), else an unrelated target.
          auto target = trial % 5 == 0 ? query : cudp::test::random_codes(rng, rng() % 70, alphabet);
          const int n = static_cast<int>(target.size());
          const Alignment a = cudp::align::align_full(mode, query.data(), m, target.data(), n, matrix, gaps);
          INFO("alphabet " << alphabet << " gaps " << gaps.open << "/" << gaps.extend << " mode "
                           << static_cast<int>(mode) << " m " << m << " n " << n << " cigar " << cudp::align::cigar(a));
          if (m == 0 || n == 0) {
            if (mode != AlignMode::Global) REQUIRE(a.score == 0);
          } else {
            REQUIRE(a.score == cudp::test::reference_gotoh(cudp::test::mode_of(mode), target, query, matrix, gaps.open, gaps.extend));
          }
          REQUIRE(cudp::align::rescore(a, mode, query.data(), m, target.data(), n, matrix, gaps) == a.score);
          if (mode == AlignMode::Local && m > 0 && n > 0) {
            // The end is the first best cell in row-major order, where the coordinate passes put it.
            const auto ends = cudp::engine::locate_local(query.data(), m, target.data(), n, matrix, gaps.open, gaps.extend);
            REQUIRE(ends.score == a.score);
            if (a.score > 0) {
              REQUIRE(ends.query_end == a.query_end);
              REQUIRE(ends.target_end == a.target_end);
            }
          }
          ++compared;
        }
      }
    }
  }
  CHECK(compared == 3 * 3 * 3 * 60);
}

TEST_CASE("full traceback: global alignments of empty sequences are one gap run", "[align]") {
  const PlusMinus s;
  const std::vector<std::uint8_t> four{0, 1, 2, 3};
  const GapCosts gaps{3, 1};
  Alignment a = cudp::align::align_full(AlignMode::Global, four.data(), 4, nullptr, 0, s, gaps);
  CHECK(a.score == -7);
  CHECK(cudp::align::cigar(a) == "4I");
  a = cudp::align::align_full(AlignMode::Global, nullptr, 0, four.data(), 4, s, gaps);
  CHECK(cudp::align::cigar(a) == "4D");
  a = cudp::align::align_full(AlignMode::Global, nullptr, 0, nullptr, 0, s, gaps);
  CHECK(a.score == 0);
  CHECK(a.edits.empty());
}

TEST_CASE("full traceback: a gap in the middle, and a local alignment inside flanks", "[align]") {
  const PlusMinus s;
  const std::vector<std::uint8_t> query{0, 1, 2, 3, 0, 1, 2, 3};
  const std::vector<std::uint8_t> target{0, 1, 2, 3, 2, 2, 0, 1, 2, 3};  // two residues inserted after the fourth
  const GapCosts gaps{1, 1};
  Alignment a = cudp::align::align_full(AlignMode::Global, query.data(), 8, target.data(), 10, s, gaps);
  CHECK(a.score == 8 - 3);
  CHECK(cudp::align::cigar(a) == "4=2D4=");
  const std::vector<std::uint8_t> flanked{3, 3, 3, 0, 1, 2, 3, 0, 1, 2, 3, 3, 3};
  a = cudp::align::align_full(AlignMode::Local, query.data(), 8, flanked.data(), 13, s, gaps);
  CHECK(a.score == 8);
  CHECK(a.target_begin == 3);
  CHECK(a.target_end == 11);
  CHECK(cudp::align::cigar(a) == "8=");
}

TEST_CASE("rescore refuses edits that do not fit the sequences or the mode", "[align]") {
  const PlusMinus s;
  const std::vector<std::uint8_t> q{0, 1, 2}, t{0, 3, 2};
  const GapCosts gaps{2, 1};
  Alignment a;
  a.query_end = 3;
  a.target_end = 3;
  a.edits = {{EditOp::Match, 1}, {EditOp::Mismatch, 1}, {EditOp::Match, 1}};
  CHECK(cudp::align::rescore(a, AlignMode::Global, q.data(), 3, t.data(), 3, s, gaps) == 1);
  a.edits = {{EditOp::Match, 3}};  // the middle pair differs
  CHECK_THROWS_WITH(cudp::align::rescore(a, AlignMode::Global, q.data(), 3, t.data(), 3, s, gaps),
                    Catch::Contains("query 2, target 2"));
  a.edits = {{EditOp::Match, 1}, {EditOp::Mismatch, 1}};  // stops short
  CHECK_THROWS_WITH(cudp::align::rescore(a, AlignMode::Local, q.data(), 3, t.data(), 3, s, gaps),
                    Catch::Contains("end before"));
  a.edits = {{EditOp::Match, 1}, {EditOp::Insertion, 1}, {EditOp::Deletion, 1}, {EditOp::Match, 1}};
  CHECK(cudp::align::rescore(a, AlignMode::Global, q.data(), 3, t.data(), 3, s, gaps) == 2 - 3 - 3);
  a.query_begin = 1;  // a global alignment must start at the corner
  a.edits = {{EditOp::Insertion, 1}, {EditOp::Deletion, 2}, {EditOp::Match, 1}};
  CHECK_THROWS_WITH(cudp::align::rescore(a, AlignMode::Global, q.data(), 3, t.data(), 3, s, gaps),
                    Catch::Contains("cover both"));
}

TEST_CASE("counts: identities, positives, mismatches, gap opens and gap columns", "[align]") {
  const PlusMinus s;
  const std::vector<std::uint8_t> q{0, 1, 2, 3, 0}, t{0, 1, 1, 3, 3, 0};
  Alignment a;
  a.query_end = 5;
  a.target_end = 6;
  a.edits = {{EditOp::Match, 2}, {EditOp::Mismatch, 1}, {EditOp::Match, 1}, {EditOp::Deletion, 1}, {EditOp::Match, 1}};
  const auto c = cudp::align::counts_of(a, q.data(), 5, t.data(), 6, s);
  CHECK(c.length == 6);
  CHECK(c.identities == 4);
  CHECK(c.positives == 4);
  CHECK(c.mismatches == 1);
  CHECK(c.gap_opens == 1);
  CHECK(c.gaps == 1);
  CHECK(cudp::align::cigar(a) == "2=1X1=1D1=");
}

TEST_CASE("midpoint: the best crossing of any cut row scores the global optimum", "[align][midpoint]") {
  std::mt19937_64 rng(11);
  const cudp::test::RandomMatrix matrix(6, -4, 5, 3);
  int compared = 0, through_gaps = 0;
  for (GapCosts gaps : {GapCosts{10, 1}, GapCosts{0, 2}, GapCosts{6, 3}}) {
    for (int trial = 0; trial < 40; ++trial) {
      const int m = static_cast<int>(rng() % 50);
      auto query = cudp::test::random_codes(rng, m, 6);
      std::vector<std::uint8_t> target = cudp::test::random_codes(rng, rng() % 50, 6);
      if (trial % 3 == 0) {  // the query with a block inserted: vertical gaps across the cut rows
        target = query;
        const auto block = cudp::test::random_codes(rng, 1 + rng() % 12, 6);
        target.insert(target.begin() + static_cast<long>(rng() % (target.size() + 1)), block.begin(), block.end());
      }
      const int n = static_cast<int>(target.size());
      const long optimum =
          cudp::align::align_full(AlignMode::Global, query.data(), m, target.data(), n, matrix, gaps).score;
      std::vector<std::uint8_t> rq(query.rbegin(), query.rend()), rt(target.rbegin(), target.rend());
      const cudp::align::SequencePair pair{query.data(), rq.data(), m, target.data(), rt.data(), n};
      for (int cut = 0; cut <= n; ++cut) {
        std::vector<cudp::align::RowPass> passes(2);
        passes[0].columns = passes[1].columns = m;
        passes[0].rows = cut;
        passes[1].rows = n - cut;
        passes[1].reversed = true;
        passes[1].out = static_cast<std::size_t>(m) + 1;
        std::vector<std::int32_t> h(2 * (static_cast<std::size_t>(m) + 1)), f(h.size());
        cudp::align::run_row_passes_on_host(passes, pair, matrix, gaps, {h.data(), f.data()}, 1);
        const auto mid = cudp::align::find_midpoint(h.data(), f.data(), h.data() + m + 1, f.data() + m + 1, m, gaps);
        INFO("gaps " << gaps.open << "/" << gaps.extend << " m " << m << " n " << n << " cut " << cut);
        REQUIRE(mid.score == optimum);
        through_gaps += mid.in_vertical_gap;
        ++compared;
      }
    }
  }
  CHECK(compared > 1000);
  CHECK(through_gaps > 0);  // the gap-crossing term decided some cuts
}
