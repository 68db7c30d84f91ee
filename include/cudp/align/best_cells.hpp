#pragma once
// Passes whose answer is one cell: where a local or semi-global alignment ends, and, from there, where it starts.
// A best-cell pass is a RowPass box (row_passes.hpp; its out, save_every and left_gap_continues are not read) run
// under a Gotoh mode, and it hands back the cell of largest H within its scope, the first of equals in the scope's
// order. One call runs many such passes of one mode and scope, on the host here or on the GPU
// (DeviceRowPasses::find_best_cells), with the same answers: the order below is a total one, so the answer does not
// depend on which thread saw which cell first.
//
// A runner with this contract is what linear_space.hpp's locating step takes:
//
//   void(const std::vector<RowPass>& passes, recurrences::AlignMode mode, CellScope scope, const SequencePair& pair,
//        tiers::CellEnd* out)   // out[k]: the best cell of passes[k]; row 0 when it has no cell
#include <climits>
#include <cstdint>
#include <vector>

#include "../config.hpp"
#include "../engine/one_pair.hpp"
#include "../lanes/s32.hpp"
#include "../recurrences/gotoh.hpp"
#include "../tiers/observers.hpp"
#include "../host/parallel_for.hpp"
#include "row_passes.hpp"
#include "threaded_pass.hpp"

namespace cudp::align {

enum class CellScope : std::uint8_t {
  // Every cell (i, j) with i, j >= 1, earliest row first, then earliest column (tiers::BestCell's order): the end of
  // the best local alignment, or of the best alignment anchored at the pass's origin.
  Anywhere,
  // The last row from left to right, then the last column from the top, the corner counted in the row: where a
  // semi-global alignment ends. The border cells (rows, 0) and (0, columns) are left to the caller.
  Edges,
};

// Cells compete by (H, key): larger H first, then smaller key. A key is the cell's place in its scope's order.
struct CellKey {
  static constexpr std::int64_t kColumnBase = std::int64_t{1} << 32;  // Edges: last-column cells follow every row cell
  static constexpr std::int64_t kNone = INT64_MAX;

  CUDP_HD static std::int64_t anywhere(int i, int j) { return (static_cast<std::int64_t>(i) << 32) | j; }
  CUDP_HD static std::int64_t last_row(int j) { return j; }
  CUDP_HD static std::int64_t last_column(int i) { return kColumnBase + i; }
  CUDP_HD static bool before(std::int32_t h, std::int64_t key, std::int32_t best, std::int64_t best_key) {
    return h > best || (h == best && key < best_key);
  }
  // The cell a key names in a pass of `rows` x `columns`.
  CUDP_HD static tiers::CellEnd cell(CellScope scope, std::int32_t h, std::int64_t key, int rows, int columns) {
    if (key == kNone) return tiers::CellEnd{};
    if (scope == CellScope::Anywhere)
      return tiers::CellEnd{h, static_cast<std::int32_t>(key >> 32), static_cast<std::int32_t>(key & 0xffffffff)};
    if (key < kColumnBase) return tiers::CellEnd{h, rows, static_cast<std::int32_t>(key)};
    return tiers::CellEnd{h, static_cast<std::int32_t>(key - kColumnBase), columns};
  }
};

// The best cell of CellScope::Edges watched as a pass computes its cells (an observer of tiers/observers.hpp, one
// lane, the host's): the last row as it is computed, and the last column from the tile that holds column m, which
// shows H(i, m) at every row; one pass finds both, where a second over the transposed matrix would find the column.
struct BestEdgeCell {
  tiers::CellEnd* end = nullptr;
  int rows = 0, columns = 0;
  static constexpr bool observes_cells = true;

  template <class P>
  struct State {
    std::int32_t h = INT32_MIN;
    std::int64_t key = CellKey::kNone;
  };
  template <class P>
  State<P> start(const P&) const { return {}; }
  template <class P, int R>
  void row(const P&, State<P>& s, const typename P::Down (&col)[R], int i, int j_first, int m,
           const int (&)[P::Lane::width], const std::uint32_t*) const {
    using L = typename P::Lane;
    static_assert(L::width == 1, "one pass, one lane");
    const auto consider = [&](std::int32_t h, std::int64_t key) {
      if (CellKey::before(h, key, s.h, s.key)) s.h = h, s.key = key;
    };
    if (i == rows) {  // the corner (rows, columns) is the row's
      for (int r = 0; r < R && j_first + r <= m; ++r)
        consider(static_cast<std::int32_t>(L::extract(col[r].h, 0)), CellKey::last_row(j_first + r));
    } else if (j_first <= m && m < j_first + R) {
      consider(static_cast<std::int32_t>(L::extract(col[m - j_first].h, 0)), CellKey::last_column(i));
    }
  }
  template <class P>
  State<P> merge(const State<P>& a, const State<P>& b) const {
    return CellKey::before(b.h, b.key, a.h, a.key) ? b : a;
  }
  template <class P>
  void finish(const P&, const State<P>& s, const std::uint32_t*, const int (&)[P::Lane::width]) const {
    *end = CellKey::cell(CellScope::Edges, s.h, s.key, rows, columns);
  }
};

namespace detail {

// The best cell of one pass on the host tier, policy P, its columns on up to `threads` threads (threaded_pass.hpp).
template <class P, class Matrix>
tiers::CellEnd best_cell_of_pass(CellScope scope, const std::uint8_t* query, int columns, const std::uint8_t* target,
                                 int rows, const Matrix& matrix, recurrences::GapCosts gaps, int threads,
                                 const PassSplit& split = {}) {
  tiers::CellEnd end;
  if (rows == 0 || columns == 0) return end;
  if (scope == CellScope::Anywhere)
    run_one_pair_on_threads<P>(gaps, matrix, query, columns, target, rows, tiers::BestCell{&end}, threads, split);
  else
    run_one_pair_on_threads<P>(gaps, matrix, query, columns, target, rows, BestEdgeCell{&end, rows, columns}, threads,
                               split);
  return end;
}

}  // namespace detail

// The best cell of every pass on the host tier, passes spread over `threads` threads (0: all cores); with fewer
// passes than threads, each pass is split over its share of them (share_of_threads, threaded_pass.hpp), with the
// same answers.
template <class Matrix>
void find_best_cells_on_host(const std::vector<RowPass>& passes, recurrences::AlignMode mode, CellScope scope,
                             const SequencePair& pair, const Matrix& matrix, recurrences::GapCosts gaps,
                             tiers::CellEnd* out, int threads = 0, const PassSplit& split = {}) {
  using recurrences::AlignMode;
  gaps.left_gap_continues = false;
  host::parallel_for(
      passes.size(), threads, [] { return 0; },
      [&](int, std::size_t k) {
        const RowPass& pass = passes[k];
        const std::uint8_t* query = (pass.reversed ? pair.query_reversed : pair.query) + pass.query_begin;
        const std::uint8_t* target = (pass.reversed ? pair.target_reversed : pair.target) + pass.target_begin;
        const int pass_threads = share_of_threads(k, passes.size(), threads);
        auto run = [&](auto policy) {
          return detail::best_cell_of_pass<decltype(policy)>(scope, query, pass.columns, target, pass.rows, matrix,
                                                             gaps, pass_threads, split);
        };
        switch (mode) {
          case AlignMode::Local: out[k] = run(recurrences::Gotoh<AlignMode::Local, lanes::s32>(gaps, {})); break;
          case AlignMode::Global: out[k] = run(recurrences::Gotoh<AlignMode::Global, lanes::s32>(gaps, {})); break;
          case AlignMode::SemiGlobal: out[k] = run(recurrences::Gotoh<AlignMode::SemiGlobal, lanes::s32>(gaps, {})); break;
        }
      });
}

}  // namespace cudp::align
