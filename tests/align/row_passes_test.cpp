// The host backend of a linear-space level (align/row_passes.hpp): a pass's checkpoint rows are the last rows of the
// passes over the rows above them (checkpoint_pass), entry for entry, forward and reversed, with and without a
// continued left gap, for every spacing from 1 to past the box; a pass that saves none writes nothing there. The
// crossings of boxes (RowPassOutput::midpoints) score the boxes' optima, and passes not in halves are refused.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cudp/align/row_passes.hpp"

#include "../support/reference_dp.hpp"
#include "../support/kept_rows.hpp"
#include "../support/sequence_pair.hpp"

using cudp::align::RowPass;
using cudp::align::RowPassOutput;
using cudp::recurrences::GapCosts;

TEST_CASE("host row passes: checkpoint rows are the last rows of the passes above them", "[align][linear]") {
  std::mt19937_64 rng(4242);
  const cudp::test::RandomMatrix matrix(4, -4, 5, 3);
  const cudp::test::Sequences s = cudp::test::make_sequences(rng, 300, 260, 4);
  const auto& query = s.query;
  const auto& target = s.target;
  const cudp::align::SequencePair pair = s.view();
  constexpr std::int32_t kUntouched = 0x7eadbeef;
  int compared = 0;
  for (GapCosts gaps : {GapCosts{11, 1}, GapCosts{0, 2}}) {
    for (int trial = 0; trial < 60; ++trial) {
      RowPass pass;
      pass.columns = static_cast<int>(rng() % 120);
      pass.rows = static_cast<int>(rng() % 120);
      pass.query_begin = static_cast<std::int64_t>(rng() % (query.size() - pass.columns + 1));
      pass.target_begin = static_cast<std::int64_t>(rng() % (target.size() - pass.rows + 1));
      pass.reversed = trial % 2 == 1;
      pass.left_gap_continues = trial % 3 == 1;
      pass.save_every = trial % 10 == 0 ? 0 : 1 + static_cast<int>(rng() % (pass.rows + 2));
      pass.saved = 3;  // not at 0, so that an offset forgotten shows
      const int checkpoints = cudp::align::checkpoints_of(pass);
      const std::size_t row = static_cast<std::size_t>(pass.columns) + 1;
      std::vector<std::int32_t> h(row, kUntouched), f(row, kUntouched);
      std::vector<std::int32_t> saved_h(3 + row * checkpoints + 2, kUntouched), saved_f = saved_h;
      cudp::align::run_row_passes_on_host({pass}, pair, matrix, gaps,
                                          RowPassOutput{h.data(), f.data(), saved_h.data(), saved_f.data()});
      INFO("pass " << pass.columns << " x " << pass.rows << ", every " << pass.save_every << ", gaps " << gaps.open
                   << "/" << gaps.extend);
      CHECK(saved_h.front() == kUntouched);
      CHECK(saved_h.back() == kUntouched);
      for (int k = 1; k <= checkpoints; ++k) {
        const RowPass above = cudp::align::checkpoint_pass(pass, k);
        REQUIRE(above.rows == k * pass.save_every);
        REQUIRE(above.rows < pass.rows);
        std::vector<std::int32_t> expected_h(3 + row * checkpoints), expected_f = expected_h;
        cudp::align::run_row_passes_on_host({above}, pair, matrix, gaps,
                                            RowPassOutput{expected_h.data(), expected_f.data()});
        for (std::size_t j = 0; j < row; ++j) {
          INFO("checkpoint " << k << ", column " << j);
          REQUIRE(saved_h[above.out + j] == expected_h[above.out + j]);
          REQUIRE(saved_f[above.out + j] == expected_f[above.out + j]);
        }
        ++compared;
      }
      // The checkpoints stop short of the last row, which the pass hands back as ever.
      if (pass.save_every > 0) CHECK((checkpoints + 1) * pass.save_every >= pass.rows);
    }
  }
  CHECK(compared > 300);
}

TEST_CASE("host row passes: the crossings of boxes score the boxes' optima", "[align][linear]") {
  std::mt19937_64 rng(99);
  const cudp::test::RandomMatrix matrix(4, -4, 5, 5);
  const cudp::test::Sequences s = cudp::test::make_sequences(rng, 200, 180, 4);
  const auto& query = s.query;
  const auto& target = s.target;
  const auto m = static_cast<std::int64_t>(query.size()), n = static_cast<std::int64_t>(target.size());
  const cudp::align::SequencePair pair = s.view();
  for (GapCosts gaps : {GapCosts{11, 1}, GapCosts{0, 2}, GapCosts{4, 3}}) {
    std::vector<RowPass> passes;
    std::vector<long> optima;
    std::size_t out = 0;
    for (int k = 0; k < 40; ++k) {
      RowPass forward;
      forward.columns = 1 + static_cast<int>(rng() % 80);
      const int rows = 2 + static_cast<int>(rng() % 80);
      forward.query_begin = static_cast<std::int64_t>(rng() % (query.size() - forward.columns + 1));
      forward.target_begin = static_cast<std::int64_t>(rng() % (target.size() - rows + 1));
      forward.rows = rows / 2;
      forward.out = out;
      RowPass reverse = forward;
      reverse.query_begin = m - (forward.query_begin + forward.columns);
      reverse.target_begin = n - (forward.target_begin + rows);
      reverse.rows = rows - rows / 2;
      reverse.reversed = true;
      reverse.out = out + static_cast<std::size_t>(forward.columns) + 1;
      out += 2 * (static_cast<std::size_t>(forward.columns) + 1);
      passes.push_back(forward);
      passes.push_back(reverse);
      const std::vector<std::uint8_t> q(query.begin() + forward.query_begin,
                                        query.begin() + forward.query_begin + forward.columns);
      const auto t0 = target.begin() + forward.target_begin;
      const std::vector<std::uint8_t> t(t0, t0 + rows);
      optima.push_back(cudp::test::reference_gotoh(cudp::test::Mode::Global, t, q, matrix, gaps.open, gaps.extend));
    }
    std::vector<cudp::align::Midpoint> midpoints(optima.size());
    RowPassOutput crossings;
    crossings.midpoints = midpoints.data();
    cudp::align::run_row_passes_on_host(passes, pair, matrix, gaps, crossings);
    for (std::size_t k = 0; k < optima.size(); ++k) {
      INFO("box " << k << ", gaps " << gaps.open << "/" << gaps.extend);
      REQUIRE(midpoints[k].score == optima[k]);
      REQUIRE(midpoints[k].column >= 0);
      REQUIRE(midpoints[k].column <= passes[2 * k].columns);
    }
    // Passes that are not the halves of boxes are refused.
    std::vector<RowPass> odd(passes.begin(), passes.begin() + 3);
    REQUIRE_THROWS_AS(cudp::align::run_row_passes_on_host(odd, pair, matrix, gaps, crossings), std::invalid_argument);
    std::swap(passes[0], passes[1]);
    REQUIRE_THROWS_AS(cudp::align::run_row_passes_on_host(passes, pair, matrix, gaps, crossings),
                      std::invalid_argument);
  }
}

// Kept rows (RowPassOutput::kept): the halves of boxes keep exactly the checkpoint rows they would write, their
// crossings and the rows' entries there are those of the rows themselves, and windows are crossed with the kept row
// they name; windows without kept rows are refused.
namespace {
bool same(const cudp::align::Midpoint& a, const cudp::align::Midpoint& b) {
  return a.score == b.score && a.column == b.column && a.in_vertical_gap == b.in_vertical_gap;
}
}  // namespace

TEST_CASE("host row passes: kept checkpoint rows, and windows crossed with them", "[align][linear]") {
  std::mt19937_64 rng(2026);
  const cudp::test::RandomMatrix matrix(4, -4, 5, 9);
  const cudp::test::Sequences s = cudp::test::make_sequences(rng, 400, 380, 4);
  const cudp::align::SequencePair pair = s.view();
  for (GapCosts gaps : {GapCosts{11, 1}, GapCosts{0, 2}, GapCosts{4, 3}}) {
    INFO("gaps " << gaps.open << "/" << gaps.extend);
    const std::vector<RowPass> halves = cudp::test::keeping_halves(rng, s, 30, 120);
    const std::size_t boxes = halves.size() / 2;
    // The rows themselves, and the checkpoint rows, written out.
    std::vector<std::int32_t> h(cudp::align::row_entries(halves)), f(h.size());
    std::vector<std::int32_t> saved_h(cudp::align::saved_row_entries(halves)), saved_f(saved_h.size());
    cudp::align::run_row_passes_on_host(halves, pair, matrix, gaps,
                                        RowPassOutput{h.data(), f.data(), saved_h.data(), saved_f.data()});
    cudp::align::KeptRows kept;
    std::vector<cudp::align::Midpoint> midpoints(boxes);
    std::vector<cudp::align::CrossingEntries> entries(boxes);
    RowPassOutput out;
    out.midpoints = midpoints.data();
    out.entries = entries.data();
    out.kept = &kept;
    cudp::align::run_row_passes_on_host(halves, pair, matrix, gaps, out);
    REQUIRE_FALSE(kept.on_runner);
    REQUIRE(kept.h.size() == saved_h.size());
    for (const RowPass& p : halves)
      for (std::size_t e = p.saved; e < p.saved + cudp::align::checkpoints_of(p) * (p.columns + 1u); ++e) {
        REQUIRE(kept.h[e] == saved_h[e]);
        REQUIRE(kept.pending_f[e] == saved_f[e]);
      }
    for (std::size_t k = 0; k < boxes; ++k) {
      const RowPass& forward = halves[2 * k];
      const RowPass& reverse = halves[2 * k + 1];
      const auto mid = cudp::align::find_midpoint(h.data() + forward.out, f.data() + forward.out,
                                                  h.data() + reverse.out, f.data() + reverse.out, forward.columns, gaps);
      REQUIRE(same(midpoints[k], mid));
      const std::size_t j = static_cast<std::size_t>(mid.column), back = forward.columns - j;
      REQUIRE(entries[k].forward_h == h[forward.out + j]);
      REQUIRE(entries[k].forward_f == f[forward.out + j]);
      REQUIRE(entries[k].reverse_h == h[reverse.out + back]);
      REQUIRE(entries[k].reverse_f == f[reverse.out + back]);
    }
    // Windows: crossed with the part of a kept row that they name.
    const std::vector<RowPass> windows = cudp::test::windows_on(rng, s, halves, 60, 90);
    REQUIRE(windows.size() == 60);
    std::vector<std::int32_t> wh(cudp::align::row_entries(windows)), wf(wh.size());
    cudp::align::run_row_passes_on_host(windows, pair, matrix, gaps, RowPassOutput{wh.data(), wf.data()});
    midpoints.assign(windows.size(), {});
    entries.assign(windows.size(), {});
    out.midpoints = midpoints.data();
    out.entries = entries.data();
    cudp::align::run_row_passes_on_host(windows, pair, matrix, gaps, out);
    for (std::size_t k = 0; k < windows.size(); ++k) {
      const RowPass& w = windows[k];
      const auto from = static_cast<std::size_t>(w.kept_row);
      const auto mid = cudp::align::find_midpoint(saved_h.data() + from, saved_f.data() + from, wh.data() + w.out,
                                                  wf.data() + w.out, w.columns, gaps);
      INFO("window " << k << ": " << w.columns << " x " << w.rows);
      REQUIRE(same(midpoints[k], mid));
      REQUIRE(entries[k].forward_h == saved_h[from + mid.column]);
      REQUIRE(entries[k].forward_f == saved_f[from + mid.column]);
      REQUIRE(entries[k].reverse_h == wh[w.out + w.columns - mid.column]);
    }
    RowPassOutput no_kept;
    no_kept.midpoints = midpoints.data();
    REQUIRE_THROWS_AS(cudp::align::run_row_passes_on_host(windows, pair, matrix, gaps, no_kept), std::invalid_argument);
    // Halves that save rows need somewhere to keep them.
    REQUIRE_THROWS_AS(cudp::align::run_row_passes_on_host(halves, pair, matrix, gaps, no_kept), std::invalid_argument);
  }
}
