#pragma once
// Best-cell passes (align/best_cells.hpp) for the host and device tests: random boxes of one pair, forward and
// reversed, and the answer a textbook matrix gives for each, found by scanning the cells in the scope's order.
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>
#include <cudp/align/best_cells.hpp>

#include "reference_dp.hpp"
#include "sequence_pair.hpp"

namespace cudp::test {

// The best cell of `pass` over `s` by the textbook matrix: largest H, the first of equals in the scope's order.
template <class Matrix>
tiers::CellEnd reference_best_cell(const align::RowPass& pass, const Sequences& s, recurrences::AlignMode mode,
                                   align::CellScope scope, const Matrix& matrix, recurrences::GapCosts gaps) {
  const auto& q = pass.reversed ? s.query_reversed : s.query;
  const auto& t = pass.reversed ? s.target_reversed : s.target;
  const std::vector<std::uint8_t> query(q.begin() + pass.query_begin, q.begin() + pass.query_begin + pass.columns);
  const std::vector<std::uint8_t> target(t.begin() + pass.target_begin, t.begin() + pass.target_begin + pass.rows);
  if (pass.rows == 0 || pass.columns == 0) return tiers::CellEnd{};
  const auto H = reference_gotoh_h(mode_of(mode), target, query, matrix, gaps.open, gaps.extend);
  tiers::CellEnd best;
  bool seen = false;
  auto consider = [&](int i, int j) {
    if (!seen || H[i][j] > best.score) best = tiers::CellEnd{static_cast<std::int32_t>(H[i][j]), i, j};
    seen = true;
  };
  if (scope == align::CellScope::Anywhere) {
    for (int i = 1; i <= pass.rows; ++i)
      for (int j = 1; j <= pass.columns; ++j) consider(i, j);
  } else {
    for (int j = 1; j <= pass.columns; ++j) consider(pass.rows, j);
    for (int i = 1; i < pass.rows; ++i) consider(i, pass.columns);
  }
  return best;
}

// The same cell: score, row and column.
inline void require_same_cell(const tiers::CellEnd& got, const tiers::CellEnd& want) {
  REQUIRE(got.score == want.score);
  REQUIRE(got.target_end == want.target_end);
  REQUIRE(got.query_end == want.query_end);
}

// `count` boxes of `s` up to max_side a side, half of them reversed, with some empty sides.
inline std::vector<align::RowPass> random_boxes(std::mt19937_64& rng, const Sequences& s, int count, int max_side) {
  std::vector<align::RowPass> passes;
  const int m = static_cast<int>(s.query.size()), n = static_cast<int>(s.target.size());
  for (int k = 0; k < count; ++k) {
    align::RowPass p;
    p.columns = k % 17 == 3 ? 0 : static_cast<int>(rng() % (std::min(m, max_side) + 1));
    p.rows = k % 13 == 5 ? 0 : static_cast<int>(rng() % (std::min(n, max_side) + 1));
    p.query_begin = static_cast<std::int64_t>(rng() % (m - p.columns + 1));
    p.target_begin = static_cast<std::int64_t>(rng() % (n - p.rows + 1));
    p.reversed = k % 2 == 1;
    passes.push_back(p);
  }
  return passes;
}

}  // namespace cudp::test
