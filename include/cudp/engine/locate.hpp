#pragma once
// Where a reported local alignment lies: a forward pass finds its end cell, a reverse pass from that cell finds its
// start. Both passes are the Gotoh policy on the host tier with the BestCell observer (tiers/observers.hpp), the
// same cell code the bulk scoring ran; they run on the host for the hits a search reports, so the bulk scoring
// pass pays nothing for coordinates, and each takes O(m) memory.
#include <cstdint>
#include <iterator>
#include <vector>

#include "../lanes/s32.hpp"
#include "../recurrences/gotoh.hpp"
#include "../tiers/observers.hpp"
#include "one_pair.hpp"

namespace cudp::engine {

struct AlignmentEnds {
  long score = 0;
  int query_start = 0, query_end = 0;    // 1-based, inclusive
  int target_start = 0, target_end = 0;  // 0 when the score is 0 (no alignment)
};

// The first cell (row-major) holding the largest H of one query x one target matrix under policy P, on the host.
template <class P, class Matrix>
tiers::CellEnd best_cell_on_host(const typename P::Params& params, const Matrix& matrix, const std::uint8_t* query,
                                 int m, const std::uint8_t* target, int n) {
  tiers::CellEnd end;
  run_one_pair_on_host<P>(params, matrix, query, m, target, n, tiers::BestCell{&end});
  return end;
}

template <class Matrix>
AlignmentEnds locate_local(const std::uint8_t* query, int m, const std::uint8_t* target, int n, const Matrix& matrix,
                           int open, int extend) {
  using Local = recurrences::Gotoh<recurrences::AlignMode::Local, lanes::s32>;
  using Global = recurrences::Gotoh<recurrences::AlignMode::Global, lanes::s32>;
  const recurrences::GapCosts gaps{open, extend};
  const tiers::CellEnd fwd = best_cell_on_host<Local>(gaps, matrix, query, m, target, n);
  if (fwd.score <= 0) return {};
  // Reverse pass anchored at the end cell, over the reversed prefixes: the best cell of the global matrix is the
  // alignment's start. (A path leaving the corner with a gap cannot reach the score: the forward alignment would
  // then end in a gap, and dropping it would score higher.)
  const int te = fwd.target_end, qe = fwd.query_end;
  const std::vector<std::uint8_t> rq(std::make_reverse_iterator(query + qe), std::make_reverse_iterator(query));
  const std::vector<std::uint8_t> rt(std::make_reverse_iterator(target + te), std::make_reverse_iterator(target));
  const tiers::CellEnd rev = best_cell_on_host<Global>(gaps, matrix, rq.data(), qe, rt.data(), te);
  AlignmentEnds out;
  out.score = fwd.score;
  out.target_end = te;
  out.query_end = qe;
  out.target_start = te - rev.target_end + 1;
  out.query_start = qe - rev.query_end + 1;
  return out;
}

}  // namespace cudp::engine
