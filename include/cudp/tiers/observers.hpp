#pragma once
// What a wavefront run hands back, chosen apart from the recurrence: the epilogue of the sweep. Every run writes
// each target's score (the policy's result); an observer may watch the cells as well, for what the score alone
// does not say. The tiers call it the same way on the host and on the device:
//
//   template <class P> struct State            per-thread state, made of 32-bit words (tiers reduce it by shuffles);
//                                             an empty struct when the observer keeps none
//   static constexpr bool observes_cells       false: the tiers never call `row` (the score-only path is unchanged)
//   State<P> start(const P&)                   the empty state
//   row(p, state, col, i, j_first, m, lengths, targets)
//                                             after row i of a tile of R columns j_first..j_first+R-1, with the
//                                             tile's Down carries (`col[r].h` is H(i, j_first + r)), each lane's
//                                             target length and output slot
//   State<P> merge(a, b)                       combines the states of the threads that shared one task
//   finish(p, state, targets, lengths)         once per task, by one thread, with each lane's output slot
//
// Four observers exist: ScoreOnly (bulk scoring), BestCell (the end cell of the best local alignment, or of the
// best start-anchored prefix alignment: what the coordinate passes need), LastRowCapture (the Down carries of
// each target's last row: H and the vertical gap state, which is what a Myers-Miller midpoint pass needs) and
// CheckpointRowsCapture (the same for every k-th row as well).
#include <cstdint>
#include <type_traits>

#include "../config.hpp"
#include "task_list.hpp"

namespace cudp::tiers {

// Scores only: nothing watched, nothing more written.
struct ScoreOnly {
  static constexpr bool observes_cells = false;
  template <class P>
  struct State {};
  template <class P>
  CUDP_HD State<P> start(const P&) const { return {}; }
  template <class P, int R>
  CUDP_HD void row(const P&, State<P>&, const typename P::Down (&)[R], int, int, int, const int (&)[P::Lane::width],
                   const std::uint32_t*) const {}
  template <class P>
  CUDP_HD State<P> merge(const State<P>& a, const State<P>&) const { return a; }
  template <class P>
  CUDP_HD void finish(const P&, const State<P>&, const std::uint32_t*, const int (&)[P::Lane::width]) const {}
};

// A cell of a target's matrix: its H value and 1-based coordinates (row = target position, column = query
// position); row 0 when the target had no cell.
struct CellEnd {
  std::int32_t score = 0;
  std::int32_t target_end = 0;
  std::int32_t query_end = 0;
};

// The cell with the largest H of each target's matrix, the first in row-major order among equals, whatever order
// the tier visits the cells in. For a local policy that is where the best local alignment ends; for a global
// policy, where the best alignment anchored at the origin ends.
struct BestCell {
  CellEnd* ends = nullptr;  // indexed by output slot
  static constexpr bool observes_cells = true;

  template <class P>
  struct State {
    std::int32_t score[P::Lane::width];
    std::int32_t i[P::Lane::width];  // 0: no cell seen yet
    std::int32_t j[P::Lane::width];
  };

  // Whether the cell (h, i, j) goes before the one held: larger H, then earlier row, then earlier column.
  CUDP_HD static bool before(std::int32_t h, std::int32_t i, std::int32_t j, std::int32_t best, std::int32_t bi,
                             std::int32_t bj) {
    if (bi == 0) return i != 0;
    if (i == 0) return false;
    return h > best || (h == best && (i < bi || (i == bi && j < bj)));
  }

  template <class P>
  CUDP_HD State<P> start(const P&) const {
    State<P> s{};
    return s;
  }
  template <class P, int R>
  CUDP_HD void row(const P&, State<P>& s, const typename P::Down (&col)[R], int i, int j_first, int m,
                   const int (&lengths)[P::Lane::width], const std::uint32_t*) const {
    using L = typename P::Lane;
    const int columns = m - j_first + 1 < R ? m - j_first + 1 : R;
    CUDP_UNROLL
    for (int k = 0; k < L::width; ++k) {
      if (i > lengths[k]) continue;
      // Only the row's largest H can go before the held cell, and of its columns the first: one max over the row
      // (which vectorizes) and, for most rows of a matrix, nothing more.
      std::int32_t row_best = static_cast<std::int32_t>(L::extract(col[0].h, k));
      for (int r = 1; r < columns; ++r) {
        const std::int32_t h = static_cast<std::int32_t>(L::extract(col[r].h, k));
        row_best = h > row_best ? h : row_best;
      }
      if (s.i[k] != 0 && row_best < s.score[k]) continue;
      int r = 0;
      while (static_cast<std::int32_t>(L::extract(col[r].h, k)) != row_best) ++r;
      if (before(row_best, i, j_first + r, s.score[k], s.i[k], s.j[k])) {
        s.score[k] = row_best;
        s.i[k] = i;
        s.j[k] = j_first + r;
      }
    }
  }
  template <class P>
  CUDP_HD State<P> merge(const State<P>& a, const State<P>& b) const {
    State<P> out = a;
    CUDP_UNROLL
    for (int k = 0; k < P::Lane::width; ++k)
      if (before(b.score[k], b.i[k], b.j[k], a.score[k], a.i[k], a.j[k])) {
        out.score[k] = b.score[k];
        out.i[k] = b.i[k];
        out.j[k] = b.j[k];
      }
    return out;
  }
  template <class P>
  CUDP_HD void finish(const P&, const State<P>& s, const std::uint32_t* targets, const int (&lengths)[P::Lane::width]) const {
    CUDP_UNROLL
    for (int k = 0; k < P::Lane::width; ++k)
      if (lengths[k] > 0) ends[targets[k]] = CellEnd{s.score[k], s.i[k], s.j[k]};
  }
};

// Each target's last row, as the policy's Down carries cut into lanes: for output slot t and column j (1-based),
// field f of Down (in declaration order; Gotoh: h then f) sits at
//   rows[(t * query_columns + (j - 1)) * fields + f].
// A pass over the rows 1..i of a target (the engine hands over the prefix) thus returns row i: the forward half of
// a Myers-Miller midpoint search, and, over reversed sequences, the backward half.
template <class Scalar>
struct LastRowCapture {
  Scalar* rows = nullptr;
  int query_columns = 0;  // m
  static constexpr bool observes_cells = true;

  template <class P>
  struct State {};
  template <class P>
  static constexpr int fields = static_cast<int>(sizeof(typename P::Down) / sizeof(typename P::Word));

  template <class P>
  CUDP_HD State<P> start(const P&) const { return {}; }
  template <class P, int R>
  CUDP_HD void row(const P&, State<P>&, const typename P::Down (&col)[R], int i, int j_first, int m,
                   const int (&lengths)[P::Lane::width], const std::uint32_t* targets) const {
    using L = typename P::Lane;
    static_assert(std::is_same_v<typename L::scalar, Scalar>, "rows hold the lane's scalars");
    static_assert(sizeof(typename P::Down) % sizeof(typename P::Word) == 0, "Down is made of lane words");
    CUDP_UNROLL
    for (int k = 0; k < L::width; ++k) {
      if (i != lengths[k]) continue;
      Scalar* out = rows + static_cast<std::size_t>(targets[k]) * query_columns * fields<P>;
      for (int r = 0; r < R && j_first + r <= m; ++r) {
        const typename P::Word* words = reinterpret_cast<const typename P::Word*>(&col[r]);
        for (int f = 0; f < fields<P>; ++f)
          out[static_cast<std::size_t>(j_first + r - 1) * fields<P> + f] = L::extract(words[f], k);
      }
    }
  }
  template <class P>
  CUDP_HD State<P> merge(const State<P>& a, const State<P>&) const { return a; }
  template <class P>
  CUDP_HD void finish(const P&, const State<P>&, const std::uint32_t*, const int (&)[P::Lane::width]) const {}
};

// LastRowCapture, and also the rows every, 2 every, ... before each target's last row, at most per_target of them:
// the checkpoint rows of a linear-space alignment (CUDAlign's special rows), from which the path is found strip by
// strip. Row k * every of output slot t sits where LastRowCapture would put slot t * per_target + k - 1 in
// `checkpoints`.
template <class Scalar>
struct CheckpointRowsCapture : LastRowCapture<Scalar> {
  Scalar* checkpoints = nullptr;
  int every = 1;
  int per_target = 0;

  CheckpointRowsCapture(Scalar* last_rows, int query_columns, Scalar* checkpoint_rows, int every_rows, int per)
      : LastRowCapture<Scalar>{last_rows, query_columns}, checkpoints(checkpoint_rows), every(every_rows),
        per_target(per) {}

  template <class P, int R>
  CUDP_HD void row(const P& p, typename LastRowCapture<Scalar>::template State<P>& s, const typename P::Down (&col)[R],
                   int i, int j_first, int m, const int (&lengths)[P::Lane::width],
                   const std::uint32_t* targets) const {
    LastRowCapture<Scalar>::row(p, s, col, i, j_first, m, lengths, targets);
    if (i % every != 0 || i / every > per_target) return;
    using L = typename P::Lane;
    constexpr int fields = LastRowCapture<Scalar>::template fields<P>;
    CUDP_UNROLL
    for (int k = 0; k < L::width; ++k) {
      if (i >= lengths[k]) continue;
      const std::size_t slot = static_cast<std::size_t>(targets[k]) * per_target + i / every - 1;
      Scalar* out = checkpoints + slot * this->query_columns * fields;
      for (int r = 0; r < R && j_first + r <= m; ++r) {
        const typename P::Word* words = reinterpret_cast<const typename P::Word*>(&col[r]);
        for (int f = 0; f < fields; ++f)
          out[static_cast<std::size_t>(j_first + r - 1) * fields + f] = L::extract(words[f], k);
      }
    }
  }
};

}  // namespace cudp::tiers
