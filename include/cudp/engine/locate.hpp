#pragma once
// Where a reported local alignment lies: a forward pass finds its end cell, a reverse pass from that cell finds its
// start. Both passes are the Gotoh policy on the host tier with the BestCell observer (tiers/observers.hpp), the
// same cell code the bulk scoring ran; they run on the host for the hits a search reports, so the bulk scoring
// pass pays nothing for coordinates, and each takes O(m) memory.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../lanes/s32.hpp"
#include "../recurrences/gotoh.hpp"
#include "../tiers/host.hpp"
#include "cascade.hpp"
#include "profile.hpp"
#include "task_packing.hpp"

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
  // Strips of 8 columns: the BestCell pass ran 25% faster than with 32 (s32 lanes, a 1500 x 1500 pair; the wider
  // tile's carries no longer stay in registers) and on par with the scalar loop it replaced.
  using Tier = tiers::HostTier<8>;
  // The profile needs rows only for the codes that occur; the pad code comes after them.
  int codes = 0;
  for (int j = 0; j < m; ++j) codes = std::max(codes, query[j] + 1);
  for (int i = 0; i < n; ++i) codes = std::max(codes, target[i] + 1);
  const Profile<P> profile = build_profile<P>(params, matrix, codes, query, m, Tier::columns_per_thread);
  const std::uint64_t offsets[2] = {0, static_cast<std::uint64_t>(n)};
  const SequencesView one{target, offsets, 1};
  const std::uint32_t order = 0;
  const auto tasks = pack_tasks<1>(one, &order, 1, static_cast<std::uint8_t>(profile.pad_code));
  std::int32_t score = 0;
  tiers::CellEnd end;
  std::vector<typename P::Right> boundary;
  Tier::align_task(P(params, shape_of(profile.data, codes, profile.stride, m)), tasks.view(), 0, profile.view(), m,
                   &score, boundary, tiers::BestCell{&end});
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
  std::vector<std::uint8_t> rq(query, query + qe), rt(target, target + te);
  std::reverse(rq.begin(), rq.end());
  std::reverse(rt.begin(), rt.end());
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
