// Best-cell passes on the host (align/best_cells.hpp): in every mode and scope, each pass's answer is the cell a
// textbook matrix puts first (largest H, then the scope's order), on random boxes forward and reversed, on two-letter
// sequences and one-letter ones where most cells tie, and on empty boxes (row 0).
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "cudp/align/best_cells.hpp"

#include "../support/best_cell_passes.hpp"
#include "../support/reference_dp.hpp"
#include "../support/sequence_pair.hpp"

using cudp::align::CellScope;
using cudp::recurrences::AlignMode;
using cudp::recurrences::GapCosts;

namespace {

void check_all(const cudp::test::Sequences& s, const std::vector<cudp::align::RowPass>& passes,
               const cudp::test::RandomMatrix& matrix) {
  for (GapCosts gaps : {GapCosts{10, 1}, GapCosts{1, 3}}) {
    for (AlignMode mode : {AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal}) {
      for (CellScope scope : {CellScope::Anywhere, CellScope::Edges}) {
        std::vector<cudp::tiers::CellEnd> got(passes.size());
        cudp::align::find_best_cells_on_host(passes, mode, scope, s.view(), matrix, gaps, got.data());
        for (std::size_t k = 0; k < passes.size(); ++k) {
          const auto want = cudp::test::reference_best_cell(passes[k], s, mode, scope, matrix, gaps);
          INFO("pass " << k << " " << passes[k].columns << " x " << passes[k].rows << " reversed "
                       << passes[k].reversed << " mode " << to_string(mode) << " edges "
                       << (scope == CellScope::Edges) << " gaps " << gaps.open << "/" << gaps.extend);
          cudp::test::require_same_cell(got[k], want);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("host best cells: random boxes in every mode and scope", "[align][best_cells]") {
  std::mt19937_64 rng(7);
  const cudp::test::RandomMatrix matrix(4, -4, 5, 23);
  const auto s = cudp::test::make_sequences(rng, 300, 280, 4);
  check_all(s, cudp::test::random_boxes(rng, s, 60, 90), matrix);
}

TEST_CASE("host best cells: ties on two letters and on one", "[align][best_cells]") {
  std::mt19937_64 rng(8);
  const cudp::test::RandomMatrix matrix(2, -2, 3, 5);
  auto two = cudp::test::make_sequences(rng, 120, 110, 2);
  check_all(two, cudp::test::random_boxes(rng, two, 40, 60), matrix);
  cudp::test::Sequences one;
  one.query.assign(70, 1);
  one.target.assign(50, 1);
  one.reverse();
  check_all(one, cudp::test::random_boxes(rng, one, 20, 70), matrix);
}
