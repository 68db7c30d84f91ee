#pragma once
// Optimal Gotoh alignments in O(m + n) memory: Myers and Miller's divide and conquer, run breadth first. Every box
// of one level is halved at its middle target row at once: one batch of row passes (row_passes.hpp: a forward pass
// over each upper half, a reverse pass over each lower half), the crossing rule of midpoint.hpp on each pair of
// rows, and the box becomes two boxes, joined either at a node or by a vertical gap through it. Boxes small enough
// are solved whole by full traceback, all in one call after the last level. Nothing here depends on where the
// passes run: the host tier by default, or any runner with run_row_passes_on_host's contract (the device backend).
//
// A vertical gap that crosses a cut belongs to both halves; each half is then a box whose corner lies inside a gap
// already open (GapCosts::left_gap_continues for the forward pass, the same flag on the reversed problem for the
// end), so that the gap pays its open cost once. Horizontal gaps never cross a cut: cuts are rows.
//
// Local and semi-global alignments first find their ends (a forward pass for the end cell, a reverse pass from it
// for the start), then align the box between them globally: the best global alignment of that box scores the best
// local (semi-global) alignment, and any global alignment of it is a local (semi-global) one.
//
// Memory: the sequences and their reversals (2 bytes per residue), one level's rows (8 bytes per column of each
// box, at most 2 (m + levels) entries), the leaves' traceback (leaf_cells bytes per thread) and the pieces of the
// answer; the passes themselves keep one row.
#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../recurrences/gotoh.hpp"
#include "../host/parallel_for.hpp"
#include "alignment.hpp"
#include "best_cells.hpp"
#include "full_traceback.hpp"
#include "midpoint.hpp"
#include "row_passes.hpp"

namespace cudp::align {

struct LinearSpaceOptions {
  long leaf_cells = 1L << 16;  // boxes of at most this many cells ((rows + 1) x (columns + 1)) are solved whole
  int threads = 0;             // host threads for the leaves and the host passes (0: all cores)
  // Checkpoint rows, for runners that keep them where they compute (the device; the default leaves them off on the
  // host, whose windows would be many small passes of one thread each): a box of at least checkpoint_cells cells is cut at every h-th row at
  // once (cut_at_checkpoints), at most checkpoint_count rows, at least checkpoint_rows apart; the boxes of a level
  // are cut together, as many at once as checkpoint_bytes of kept rows hold (8 bytes per column of each row; one box
  // at least). About 1.2 times the cells of a score-only pass instead of Myers-Miller's 2.
  double checkpoint_cells = 0;  // 0: never
  int checkpoint_count = 32;
  std::size_t checkpoint_bytes = std::size_t{1} << 28;
  int checkpoint_rows = 1024;
  // Called after each level with the fraction of the expected cells done (the passes compute about twice the
  // matrix); empty: nothing reported.
  std::function<void(double)> progress;
};

// A box of the global problem, in forward coordinates of the whole pair: query[query_begin, query_end) x
// target[target_begin, target_end).
struct Box {
  int query_begin = 0, query_end = 0;
  int target_begin = 0, target_end = 0;
  bool gap_continues_at_start = false;  // a vertical gap from the top-left corner goes on from an earlier piece
  bool gap_continues_at_end = false;    // one into the bottom-right corner goes on into a later piece
  int rows() const { return target_end - target_begin; }
  int columns() const { return query_end - query_begin; }
};

// Whether every value of an m x n global problem with these scores stays inside 32-bit lanes, the passes' lanes.
inline bool fits_in_32_bits(int m, int n, int max_score, int min_score, recurrences::GapCosts gaps) {
  recurrences::ProblemShape shape;
  shape.query_length = m;
  shape.max_score = max_score;
  shape.min_score = min_score;
  return GlobalS32::fits(gaps, shape, n);
}

namespace detail {

struct Piece {
  Box box;
  bool solved = false;
  bool whole = false;     // the box as given, not yet split: its midpoint or leaf score is the box's score
  std::size_t owner = 0;  // the box it is part of
  std::vector<EditRun> edits;
  bool leaf = false;  // to be solved whole, with every other leaf, once no box is left to split
};

inline bool is_leaf(const Box& b, long leaf_cells) {
  return b.columns() == 0 || b.rows() <= 1 ||
         (static_cast<long>(b.rows()) + 1) * (static_cast<long>(b.columns()) + 1) <= leaf_cells;
}

template <class Matrix>
Alignment solve_leaf(const SequencePair& pair, const Box& b, const Matrix& matrix, recurrences::GapCosts gaps) {
  gaps.left_gap_continues = b.gap_continues_at_start;
  return align_full(recurrences::AlignMode::Global, pair.query + b.query_begin, b.columns(),
                    pair.target + b.target_begin, b.rows(), matrix, gaps, b.gap_continues_at_end);
}

// The score of `a`, the edits of box b of `pair`, as the box's own (what solve_leaf returns): rescore's global score
// over the box's residues, less the open cost of a deletion run at a corner where the box says its gap continues.
template <class Matrix>
long rescore_box(const SequencePair& pair, const Box& b, const Alignment& a, const Matrix& matrix,
                 recurrences::GapCosts gaps) {
  Alignment in_box;
  in_box.query_end = b.columns();
  in_box.target_end = b.rows();
  in_box.edits = a.edits;
  long score = rescore(in_box, recurrences::AlignMode::Global, pair.query + b.query_begin, b.columns(),
                       pair.target + b.target_begin, b.rows(), matrix, gaps);
  if (a.edits.empty()) return score;
  const bool starts = b.gap_continues_at_start && a.edits.front().op == EditOp::Deletion;
  const bool ends = b.gap_continues_at_end && a.edits.back().op == EditOp::Deletion;
  // One run from corner to corner (a box with no query residue) opens nowhere, and pays its open once.
  return score + (starts || ends ? gaps.open : 0) + (starts && ends && a.edits.size() > 1 ? gaps.open : 0);
}

// Box b cut where `mid` (its column counted from b's left edge) crosses target row `cut_row`: the part above and
// the part below, joined at a node or, through_gap, by a vertical gap that deletes the target residues on both
// sides of the cut (rows cut_row - 1 and cut_row, 0-based), which then belongs to neither part.
struct Split {
  Box upper, lower;
  bool through_gap = false;
};

inline Split split_box(const Box& b, int cut_row, const Midpoint& mid) {
  const int column = b.query_begin + mid.column;
  if (!mid.in_vertical_gap)
    return {{b.query_begin, column, b.target_begin, cut_row, b.gap_continues_at_start, false},
            {column, b.query_end, cut_row, b.target_end, false, b.gap_continues_at_end},
            false};
  return {{b.query_begin, column, b.target_begin, cut_row - 1, b.gap_continues_at_start, true},
          {column, b.query_end, cut_row + 1, b.target_end, true, b.gap_continues_at_end},
          true};
}

// The pieces of a split between its two parts: the gap's two deletions, solved already.
inline Box gap_box(const Split& s) {
  return Box{s.lower.query_begin, s.lower.query_begin, s.upper.target_end, s.lower.target_begin, false, false};
}
inline Piece gap_piece(const Box& gap, std::size_t owner) {
  return Piece{gap, true, false, owner, {EditRun{EditOp::Deletion, 2}}};
}
inline Piece gap_piece(const Split& s, std::size_t owner) { return gap_piece(gap_box(s), owner); }

// The two passes of one Myers-Miller step over box b of a pair of m x n residues: forward over its rows above `cut`
// (rows counted from the box's top), reverse over the rest; their rows at out and out + columns + 1.
inline std::array<RowPass, 2> halves(const Box& b, int cut, std::int64_t m, std::int64_t n, std::size_t out) {
  RowPass forward;
  forward.query_begin = b.query_begin;
  forward.target_begin = b.target_begin;
  forward.columns = b.columns();
  forward.rows = cut;
  forward.left_gap_continues = b.gap_continues_at_start;
  forward.out = out;
  RowPass reverse;
  reverse.query_begin = m - b.query_end;
  reverse.target_begin = n - b.target_end;
  reverse.columns = b.columns();
  reverse.rows = b.rows() - cut;
  reverse.reversed = true;
  reverse.left_gap_continues = b.gap_continues_at_end;
  reverse.out = out + static_cast<std::size_t>(b.columns()) + 1;
  return {forward, reverse};
}

// Rows between the checkpoints of box b (LinearSpaceOptions), 0 when it is not cut at checkpoints. Each half of the
// box keeps its own (cut_at_checkpoints), so a box needs rows for two strips a half.
inline int checkpoint_spacing(const Box& b, const LinearSpaceOptions& options) {
  if (options.checkpoint_cells <= 0 || b.columns() == 0) return 0;
  if ((b.rows() + 1.0) * (b.columns() + 1.0) < options.checkpoint_cells) return 0;
  const std::size_t row_bytes = (static_cast<std::size_t>(b.columns()) + 1) * 2 * sizeof(std::int32_t);
  const std::size_t fit = std::min<std::size_t>(options.checkpoint_bytes / row_bytes,
                                                std::max(0, options.checkpoint_count));
  if (fit < 2) return 0;
  const long spacing = std::max({2L, static_cast<long>(options.checkpoint_rows),
                                 static_cast<long>((b.rows() + fit + 1) / (fit + 2))});
  return 2 * spacing < b.rows() / 2 ? static_cast<int>(spacing) : 0;
}

// The score of the part of a box above a cut that `mid` crosses, from the forward pass's row at the cut, whose h and
// pending f at the crossing's column are `h` and `f`: H at the crossing; or, through a gap, the gap's F one row up
// (pending f + 2 extend) with the open cost that the part leaves to the gap's later pieces added back (the left
// border's own open when the gap runs down it).
inline long upper_score(const Box& b, const Midpoint& mid, std::int32_t h, std::int32_t f, recurrences::GapCosts gaps) {
  if (!mid.in_vertical_gap) return h;
  const long refund = mid.column == 0 && b.gap_continues_at_start ? 0 : gaps.open;
  return f + 2L * gaps.extend + refund;
}

// Box b as the reversed pair sees it (query [m - end, m - begin), ...): its end corner becomes its start.
inline Box flipped(const Box& b, std::int64_t m, std::int64_t n) {
  return Box{static_cast<int>(m - b.query_end), static_cast<int>(m - b.query_begin), static_cast<int>(n - b.target_end),
             static_cast<int>(n - b.target_begin), b.gap_continues_at_end, b.gap_continues_at_start};
}

// One half of a box cut at checkpoint rows, seen from its own end of the box: the upper half as it is, the lower
// half in the reversed pair's coordinates, where it is an upper half too. Its checkpoints are rows k x spacing from
// `origin`'s top (k = 1..count), kept by the half's pass from entry `kept` of the kept rows, `row` entries each;
// `rest` runs from origin's top-left corner to where the path crosses the last checkpoint found, and scores `target`.
// The parts found below `rest` (the farthest first) go to found[first, first + found) of the walk's list of parts,
// which has room for two a checkpoint (a part and a vertical gap's two deletions).
struct CheckpointChain {
  bool reversed = false;
  Box origin, rest;
  int spacing = 0, next = 0;  // checkpoint `next` is the next to find (0: done)
  std::size_t kept = 0, row = 0;
  long target = 0;
  int width = 0;              // of the current window (0: none yet for checkpoint `next`)
  std::size_t first = 0;
  int found = 0;
  bool active() {
    while (next >= 1 && origin.target_begin + next * spacing >= rest.target_end) --next;  // no row left under it
    return next >= 1 && rest.columns() > 0;
  }
};

// A part found by a checkpoint walk: a box to solve, or the two deletions of a vertical gap through a checkpoint.
struct FoundPart {
  Box box;
  bool gap = false;
};

// A box to cut at checkpoints: the piece and its checkpoint spacing (checkpoint_spacing).
struct CheckpointBox {
  const Piece* piece = nullptr;
  int spacing = 0;
};

// The two halves of box b (a pair of m x n residues, their rows at `out`) keeping every `spacing`-th row, as
// cut_at_checkpoints runs them.
inline std::array<RowPass, 2> keeping_halves(const Box& b, int spacing, std::int64_t m, std::int64_t n,
                                             std::size_t out) {
  std::array<RowPass, 2> both = halves(b, b.rows() / 2, m, n, out);
  for (RowPass& half : both) half.save_every = spacing;
  return both;
}

// The checkpoint rows those halves keep, in entries (8 bytes each: h and pending f).
inline std::size_t kept_entries_of(const Box& b, int spacing) {
  std::size_t rows = 0;
  for (const RowPass& half : keeping_halves(b, spacing, b.query_end, b.target_end, 0))
    rows += static_cast<std::size_t>(checkpoints_of(half));
  return rows * (static_cast<std::size_t>(b.columns()) + 1);
}

// Cuts boxes at every `spacing`-th row (CUDAlign's special rows), all of them together and each from both ends at
// once. A forward pass over each upper half and a reverse pass over each lower half (one level of Myers-Miller, run
// together) keep their checkpoint rows where the runner computes them (RowPassOutput::kept) and meet at the middle
// row, where the crossing rule splits the box. Then each half walks from the middle outwards, one strip between
// checkpoints per step, the strips of every half of every box in one call: a pass over the strip from where the
// path crossed the checkpoint nearer the middle finds where it crosses the next, where the kept row and the pass's
// row sum to the score of the part before the nearer crossing (upper_score); the runner crosses them where the rows
// are. A window of the strip's columns next to that crossing that finds the sum is enough; one that does not is run
// again twice as wide. The strips thus cover about the columns the path spans, and what is left are the pieces
// between crossings: about (m x n) / checkpoints cells. They go to `parts` in path order, box k's from parts_begin[k]
// to parts_begin[k + 1]; scores[k] = box k's score. Returns the cells of the passes and windows. The bookkeeping of
// the hundreds of thousands of parts of a batch runs on `threads` threads.
template <class PassRunner>
double cut_at_checkpoints(const SequencePair& pair, const std::vector<CheckpointBox>& boxes,
                          recurrences::GapCosts gaps, PassRunner& run_passes, int threads, std::vector<Piece>& parts,
                          std::vector<std::size_t>& parts_begin, std::vector<long>& scores) {
  const std::int64_t m = pair.query_length, n = pair.target_length;
  const std::size_t count = boxes.size();
  std::vector<RowPass> passes;
  passes.reserve(2 * count);
  std::size_t entries = 0, kept_entries = 0;
  double cells = 0;
  for (const CheckpointBox& c : boxes) {
    const Box& b = c.piece->box;
    for (RowPass half : keeping_halves(b, c.spacing, m, n, entries)) {
      half.saved = kept_entries;
      kept_entries += static_cast<std::size_t>(checkpoints_of(half)) * (static_cast<std::size_t>(b.columns()) + 1);
      passes.push_back(half);
    }
    entries += 2 * (static_cast<std::size_t>(b.columns()) + 1);
    cells += static_cast<double>(b.rows()) * b.columns();
  }
  KeptRows kept;
  std::vector<Midpoint> crossings(std::max(count, std::size_t{1}));
  std::vector<CrossingEntries> at(crossings.size());
  RowPassOutput out;
  out.midpoints = crossings.data();
  out.entries = at.data();
  out.kept = &kept;
  run_passes(passes, pair, out);

  std::vector<CheckpointChain> chains(2 * count);
  std::vector<Split> middles(count);
  scores.assign(count, 0);
  std::size_t found_room = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const Box& b = boxes[k].piece->box;
    const int columns = b.columns();
    const Midpoint mid = crossings[k];
    scores[k] = mid.score;
    middles[k] = split_box(b, b.target_begin + b.rows() / 2, mid);
    CheckpointChain& upper = chains[2 * k];
    upper.origin = b;
    upper.rest = middles[k].upper;
    upper.next = checkpoints_of(passes[2 * k]);
    upper.kept = passes[2 * k].saved;
    upper.target = upper_score(b, mid, at[k].forward_h, at[k].forward_f, gaps);
    CheckpointChain& lower = chains[2 * k + 1];
    lower.reversed = true;
    lower.origin = flipped(b, m, n);
    lower.rest = flipped(middles[k].lower, m, n);
    lower.next = checkpoints_of(passes[2 * k + 1]);
    lower.kept = passes[2 * k + 1].saved;
    const Midpoint mirrored{mid.score, columns - mid.column, mid.in_vertical_gap};
    lower.target = upper_score(lower.origin, mirrored, at[k].reverse_h, at[k].reverse_f, gaps);
    for (CheckpointChain* chain : {&upper, &lower}) {
      chain->spacing = boxes[k].spacing;
      chain->row = static_cast<std::size_t>(columns) + 1;
      chain->first = found_room;
      found_room += 2 * static_cast<std::size_t>(chain->next);
    }
  }
  std::vector<FoundPart> found(found_room);

  std::vector<CheckpointChain*> stepping;
  std::atomic<bool> missed_the_score{false};
  while (true) {
    passes.clear();
    stepping.clear();
    entries = 0;
    for (CheckpointChain& chain : chains) {
      if (!chain.active()) continue;
      const Box& rest = chain.rest;
      const int rows = rest.target_end - (chain.origin.target_begin + chain.next * chain.spacing);
      const int span = rest.columns();
      if (chain.width == 0) {
        // The path's slope so far, a quarter more, and a margin: most strips need one window.
        const double slope = static_cast<double>(span) / (rest.target_end - chain.origin.target_begin);
        chain.width = static_cast<int>(std::min<double>(span, std::ceil(1.25 * slope * rows) + 16));
      }
      // The strip's lower part read backwards, in the chain's coordinates: a reverse pass, or a forward one when
      // the chain itself is reversed; crossed with the kept row at the window's columns.
      RowPass window;
      window.query_begin = m - rest.query_end;
      window.target_begin = n - rest.target_end;
      window.columns = chain.width;
      window.rows = rows;
      window.reversed = !chain.reversed;
      window.left_gap_continues = rest.gap_continues_at_end;
      window.out = entries;
      window.kept_row = static_cast<std::int64_t>(chain.kept + chain.row * static_cast<std::size_t>(chain.next - 1) +
                                                  static_cast<std::size_t>(span - chain.width));
      entries += static_cast<std::size_t>(chain.width) + 1;
      passes.push_back(window);
      stepping.push_back(&chain);
      cells += static_cast<double>(rows) * chain.width;
    }
    if (passes.empty()) break;
    crossings.resize(passes.size());
    at.resize(passes.size());
    out.midpoints = crossings.data();
    out.entries = at.data();
    run_passes(passes, pair, out);
    // Each window moves its own chain on.
    auto step = [&](std::size_t k) {
      CheckpointChain& chain = *stepping[k];
      const int span = chain.rest.columns(), skipped = span - chain.width;
      Midpoint crossing = crossings[k];
      if (crossing.score != chain.target) {
        if (chain.width == span) missed_the_score = true;
        chain.width = static_cast<int>(std::min<long>(span, 2L * chain.width));
        return;
      }
      crossing.column += skipped;
      const Split s = split_box(chain.rest, chain.origin.target_begin + chain.next * chain.spacing, crossing);
      found[chain.first + chain.found++] = FoundPart{s.lower, false};
      if (s.through_gap) found[chain.first + chain.found++] = FoundPart{gap_box(s), true};
      chain.target = upper_score(chain.rest, crossing, at[k].forward_h, at[k].forward_f, gaps);
      chain.rest = s.upper;
      --chain.next;
      chain.width = 0;
    };
    if (passes.size() < 4096) {
      for (std::size_t k = 0; k < passes.size(); ++k) step(k);
    } else {
      host::parallel_for_small_items(
          passes.size(), threads, [] { return 0; }, [&](int, std::size_t k) { step(k); });
    }
    if (missed_the_score)
      throw std::logic_error("align_boxes_linear_space: no crossing of a checkpoint row reaches its score");
  }

  // Path order: the upper chain from the box's start, the middle crossing, the lower chain (whose own order runs
  // from the box's end) turned round.
  parts_begin.assign(count + 1, 0);
  for (std::size_t k = 0; k < count; ++k)
    parts_begin[k + 1] = parts_begin[k] + 2 + (middles[k].through_gap ? 1 : 0) +
                         static_cast<std::size_t>(chains[2 * k].found + chains[2 * k + 1].found);
  parts.clear();
  parts.resize(parts_begin[count]);
  host::parallel_for_small_items(
      count, threads, [] { return 0; },
      [&](int, std::size_t k) {
        const std::size_t owner = boxes[k].piece->owner;
        const CheckpointChain& upper = chains[2 * k];
        const CheckpointChain& lower = chains[2 * k + 1];
        Piece* to = parts.data() + parts_begin[k];
        auto put = [&](const FoundPart& part, bool flip) {
          const Box b = flip ? flipped(part.box, m, n) : part.box;
          *to++ = part.gap ? gap_piece(b, owner) : Piece{b, false, false, owner, {}};
        };
        put({upper.rest, false}, false);
        for (int f = upper.found; f-- > 0;) put(found[upper.first + static_cast<std::size_t>(f)], false);
        if (middles[k].through_gap) *to++ = gap_piece(middles[k], owner);
        for (int f = 0; f < lower.found; ++f) put(found[lower.first + static_cast<std::size_t>(f)], true);
        put({lower.rest, false}, true);
      });
  return cells;
}

}  // namespace detail

// The leaves of a level on the host, `threads` threads: out[k] = the score and edits of box leaves[k] of `pair`
// (global, its gaps continuing as the box says). The contract of every leaf solver (device_leaves.cuh).
template <class Matrix>
void solve_leaves_on_host(const SequencePair& pair, const std::vector<Box>& leaves, const Matrix& matrix,
                          recurrences::GapCosts gaps, std::vector<Alignment>& out, int threads = 0) {
  out.resize(leaves.size());
  host::parallel_for(
      leaves.size(), threads, [] { return 0; },
      [&](int, std::size_t k) { out[k] = detail::solve_leaf(pair, leaves[k], matrix, gaps); });
}

namespace detail {

// The ranges of an alignment of box b: the whole box.
inline void cover(Alignment& a, const Box& b) {
  a.query_begin = b.query_begin;
  a.query_end = b.query_end;
  a.target_begin = b.target_begin;
  a.target_end = b.target_end;
}

}  // namespace detail

// The best global alignment of each box of `pair` (a box's own score: a gap continuing at a corner pays no open),
// all boxes' levels together: a batch of pairs is one concatenated pair whose boxes lie each inside one of them.
// `run_passes(const std::vector<RowPass>&, const SequencePair&, RowPassOutput)` runs each level, as
// run_row_passes_on_host does (rows, checkpoint rows, or the crossings of a level's boxes), and
// `solve_leaves(const std::vector<Box>&, std::vector<Alignment>&)` the boxes of at most options.leaf_cells cells,
// as solve_leaves_on_host does (what a solver returns is ignored).
template <class PassRunner, class LeafSolver>
std::vector<Alignment> align_boxes_linear_space(const SequencePair& pair, const std::vector<Box>& boxes,
                                                recurrences::GapCosts gaps, const LinearSpaceOptions& options,
                                                PassRunner&& run_passes, LeafSolver&& solve_leaves) {
  using detail::Piece;
  const std::int64_t m = pair.query_length, n = pair.target_length;
  // Boxes that are all leaves already (a batch of pairs of a few hundred residues) take one call of the solver,
  // whose answers are the alignments themselves: no pieces to make, move and join.
  if (std::all_of(boxes.begin(), boxes.end(), [&](const Box& b) {
        return detail::is_leaf(b, options.leaf_cells) && detail::checkpoint_spacing(b, options) == 0;
      })) {
    std::vector<Alignment> out;
    if (!boxes.empty()) solve_leaves(boxes, out);
    if (out.size() != boxes.size()) throw std::logic_error("align_boxes_linear_space: a leaf left unsolved");
    host::parallel_for_small_items(
        boxes.size(), options.threads, [] { return 0; }, [&](int, std::size_t k) { detail::cover(out[k], boxes[k]); });
    return out;
  }
  std::vector<Piece> pieces;
  pieces.reserve(boxes.size());
  for (std::size_t k = 0; k < boxes.size(); ++k) pieces.push_back(Piece{boxes[k], false, true, k, {}});
  std::vector<long> scores(boxes.size(), LONG_MIN);
  double expected_cells = 0, cells_done = 0;
  for (const Box& b : boxes) expected_cells += 2.0 * (static_cast<double>(b.rows()) + 1) * (static_cast<double>(b.columns()) + 1);
  std::vector<RowPass> passes;
  std::vector<std::size_t> split;  // indices of the pieces this level splits
  while (true) {
    // Boxes big enough for checkpoint rows are cut at all of them, all such boxes together, as many at once as
    // options.checkpoint_bytes of kept rows allows; their parts may be cut again.
    std::vector<std::size_t> to_cut;
    std::vector<int> spacings;
    if (options.checkpoint_cells > 0)
      for (std::size_t k = 0; k < pieces.size(); ++k) {
        const int spacing = pieces[k].solved ? 0 : detail::checkpoint_spacing(pieces[k].box, options);
        if (spacing > 0) to_cut.push_back(k), spacings.push_back(spacing);
      }
    if (!to_cut.empty()) {
      // The cut boxes' parts, in the order of to_cut: box c's from cut_begin[c] to cut_begin[c + 1].
      std::vector<Piece> cut_parts;
      std::vector<std::size_t> cut_begin{0};
      std::size_t begin = 0;
      while (begin < to_cut.size()) {
        std::vector<detail::CheckpointBox> group;
        std::size_t bytes = 0;
        for (; begin < to_cut.size(); ++begin) {
          const Piece& piece = pieces[to_cut[begin]];
          const std::size_t b = detail::kept_entries_of(piece.box, spacings[begin]) * 2 * sizeof(std::int32_t);
          if (!group.empty() && bytes + b > options.checkpoint_bytes) break;
          bytes += b;
          group.push_back({&piece, spacings[begin]});
        }
        std::vector<Piece> parts;
        std::vector<std::size_t> parts_begin;
        std::vector<long> group_scores;
        const double cells = detail::cut_at_checkpoints(pair, group, gaps, run_passes, options.threads, parts,
                                                        parts_begin, group_scores);
        // The boxes were expected to cost Myers-Miller's twice their cells; they cost `cells`, and their parts will
        // cost twice theirs.
        expected_cells += cells;
        cells_done += cells;
        for (std::size_t g = 0; g < group.size(); ++g) {
          const Piece& piece = *group[g].piece;
          if (piece.whole) scores[piece.owner] = group_scores[g];
          expected_cells -= 2.0 * (piece.box.rows() + 1.0) * (piece.box.columns() + 1.0);
        }
        for (const Piece& part : parts) expected_cells += 2.0 * (part.box.rows() + 1.0) * (part.box.columns() + 1.0);
        for (std::size_t g = 1; g < parts_begin.size(); ++g) cut_begin.push_back(cut_parts.size() + parts_begin[g]);
        std::move(parts.begin(), parts.end(), std::back_inserter(cut_parts));
      }
      std::vector<Piece> next;
      next.reserve(pieces.size() - to_cut.size() + cut_parts.size());
      for (std::size_t k = 0, c = 0; k < pieces.size(); ++k) {
        if (c == to_cut.size() || to_cut[c] != k) {
          next.push_back(std::move(pieces[k]));
          continue;
        }
        std::move(cut_parts.begin() + static_cast<long>(cut_begin[c]),
                  cut_parts.begin() + static_cast<long>(cut_begin[c + 1]), std::back_inserter(next));
        ++c;
      }
      pieces = std::move(next);
      if (options.progress) options.progress(std::min(1.0, cells_done / expected_cells));
      continue;
    }
    // Leaves wait for the last level: all of them in one call, which a device solver runs as one batch.
    split.clear();
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      if (pieces[k].solved || pieces[k].leaf) continue;
      if (detail::is_leaf(pieces[k].box, options.leaf_cells))
        pieces[k].leaf = true;
      else
        split.push_back(k);
    }
    if (split.empty()) break;

    // One forward and one reverse pass per box, their rows side by side.
    passes.clear();
    std::size_t entries = 0;
    for (std::size_t k : split) {
      const Box& b = pieces[k].box;
      // 1 <= cut <= rows - 1: both halves have a row next to the cut
      for (const RowPass& half : detail::halves(b, b.rows() / 2, m, n, entries)) passes.push_back(half);
      entries += 2 * (static_cast<std::size_t>(b.columns()) + 1);
      cells_done += static_cast<double>(b.rows()) * b.columns();
    }
    // The runner applies the crossing rule where the rows are (RowPassOutput::midpoints).
    std::vector<Midpoint> midpoints(split.size());
    RowPassOutput crossings;
    crossings.midpoints = midpoints.data();
    run_passes(passes, pair, crossings);
    std::vector<Piece> next;
    next.reserve(pieces.size() + 2 * split.size());
    std::size_t s = 0;
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      if (s == split.size() || split[s] != k) {
        next.push_back(std::move(pieces[k]));
        continue;
      }
      const Box b = pieces[k].box;
      const std::size_t owner = pieces[k].owner;
      const RowPass& forward = passes[2 * s];
      const Midpoint mid = midpoints[s];
      ++s;
      if (pieces[k].whole) scores[owner] = mid.score;
      const detail::Split parts = detail::split_box(b, b.target_begin + forward.rows, mid);
      next.push_back(Piece{parts.upper, false, false, owner, {}});
      if (parts.through_gap) next.push_back(detail::gap_piece(parts, owner));
      next.push_back(Piece{parts.lower, false, false, owner, {}});
    }
    pieces = std::move(next);
    if (options.progress) options.progress(std::min(1.0, cells_done / expected_cells));
  }

  std::vector<std::size_t> leaves;
  for (std::size_t k = 0; k < pieces.size(); ++k)
    if (!pieces[k].solved) leaves.push_back(k);
  if (!leaves.empty()) {
    std::vector<Box> leaf_boxes;
    for (std::size_t k : leaves) leaf_boxes.push_back(pieces[k].box);
    std::vector<Alignment> solutions;
    solve_leaves(leaf_boxes, solutions);
    if (solutions.size() != leaves.size()) throw std::logic_error("align_boxes_linear_space: a leaf left unsolved");
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      Piece& piece = pieces[leaves[k]];
      piece.edits = std::move(solutions[k].edits);
      piece.solved = true;
      if (piece.whole) scores[piece.owner] = solutions[k].score;
    }
  }

  // The pieces of each box are contiguous and in order.
  std::vector<Alignment> out(boxes.size());
  for (std::size_t k = 0; k < boxes.size(); ++k) {
    out[k].score = scores[k];
    detail::cover(out[k], boxes[k]);
  }
  std::vector<std::size_t> first(boxes.size() + 1, pieces.size());  // box k's pieces: [first[k], first[k + 1])
  for (std::size_t p = pieces.size(); p-- > 0;) first[pieces[p].owner] = p;
  for (std::size_t k = boxes.size(); k-- > 0;) first[k] = std::min(first[k], first[k + 1]);
  host::parallel_for_small_items(
      boxes.size(), options.threads, [] { return 0; },
      [&](int, std::size_t k) {
        std::vector<EditRun>& edits = out[k].edits;
        if (first[k + 1] - first[k] == 1) {  // a box solved whole
          edits = std::move(pieces[first[k]].edits);
          return;
        }
        std::size_t runs = 0;
        for (std::size_t p = first[k]; p < first[k + 1]; ++p) runs += pieces[p].edits.size();
        edits.reserve(runs);
        for (std::size_t p = first[k]; p < first[k + 1]; ++p) {
          for (const EditRun& r : pieces[p].edits) append(edits, r.op, r.length);
          // Freed here, on the threads: hundreds of thousands of pieces freed by one thread at the end took as long
          // as the appending.
          std::vector<EditRun>().swap(pieces[p].edits);
        }
      });
  return out;
}

// The same with the leaves on the host tier.
template <class Matrix, class PassRunner>
std::vector<Alignment> align_boxes_linear_space(const SequencePair& pair, const std::vector<Box>& boxes,
                                                const Matrix& matrix, recurrences::GapCosts gaps,
                                                const LinearSpaceOptions& options, PassRunner&& run_passes) {
  return align_boxes_linear_space(pair, boxes, gaps, options, run_passes,
                                  [&](const std::vector<Box>& leaves, std::vector<Alignment>& out) {
                                    solve_leaves_on_host(pair, leaves, matrix, gaps, out, options.threads);
                                  });
}

namespace detail {

// The codes that occur in a sequence.
struct CodeSet {
  std::uint8_t seen[256] = {};
  bool operator==(const CodeSet& o) const { return std::memcmp(seen, o.seen, sizeof seen) == 0; }
};

inline CodeSet code_set(const std::uint8_t* residues, int length) {
  CodeSet set;
  for (int k = 0; k < length; ++k) set.seen[residues[k]] = 1;
  return set;
}

// The matrix entries between the codes of a query and a target: their range, which bounds the pair's DP values.
// Pairs of one batch mostly hold the same codes, so each thread keeps the last range it computed.
struct ScoreRangeCache {
  bool valid = false;
  CodeSet query, target;
  int max_score = 0, min_score = 0;
};

// Refuses a pair whose DP values could pass 32 bits (the passes' lanes), from the matrix entries between the codes
// that occur in it.
template <class Matrix>
void check_fits(const std::uint8_t* query, int m, const std::uint8_t* target, int n, const Matrix& matrix,
                recurrences::GapCosts gaps, ScoreRangeCache& cache) {
  const CodeSet query_codes = code_set(query, m), target_codes = code_set(target, n);
  if (!cache.valid || !(cache.query == query_codes) || !(cache.target == target_codes)) {
    cache = ScoreRangeCache{true, query_codes, target_codes, 0, 0};
    bool first = true;
    for (int a = 0; a < 256; ++a)
      for (int b = 0; b < 256; ++b) {
        if (!target_codes.seen[a] || !query_codes.seen[b]) continue;
        const int s = matrix(a, b);
        cache.max_score = first ? s : std::max(cache.max_score, s);
        cache.min_score = first ? s : std::min(cache.min_score, s);
        first = false;
      }
  }
  if (!fits_in_32_bits(m, n, cache.max_score, cache.min_score, gaps))
    throw std::invalid_argument("a " + std::to_string(m) + " x " + std::to_string(n) +
                                " alignment with these scores could pass the 32-bit score range");
}

// An alignment that does not score what its ends were located with, or does not rescore to its own score, is a bug.
// The rescoring is the host's own walk, whatever solved the alignment: a device solver's check of its answers runs
// in the same lanes as the answers.
template <class Matrix>
void check_alignment(const Alignment& a, recurrences::AlignMode mode, long expected, const SequencePair& p,
                     const Matrix& matrix, recurrences::GapCosts gaps) {
  if (a.score != expected)
    throw std::logic_error("align_linear_space: the box's global score " + std::to_string(a.score) +
                           " differs from the located " + std::to_string(expected));
  const long rescored = rescore(a, mode, p.query, static_cast<int>(p.query_length), p.target,
                                static_cast<int>(p.target_length), matrix, gaps);
  if (rescored != a.score)
    throw std::logic_error("align_linear_space: the alignment rescores to " + std::to_string(rescored) + ", not " +
                           std::to_string(a.score));
}

}  // namespace detail

// Many pairs aligned together (the batch regime): their boxes share every level's passes. The pairs are laid end to
// end in one forward and one reversed buffer, which a device backend copies once (DeviceRowPasses(batch.pair(),
// ...)); a pair's boxes stay inside its own ranges. Total lengths up to 2^31 - 1 residues a side.
struct SequenceView {
  const std::uint8_t* data = nullptr;
  int length = 0;
};

class PairBatch {
 public:
  PairBatch(const std::vector<SequenceView>& queries, const std::vector<SequenceView>& targets) {
    if (queries.size() != targets.size()) throw std::invalid_argument("PairBatch: as many queries as targets");
    // Bases first, then each buffer sized once: growing it pair by pair cost as much as the copies themselves.
    query_base_.resize(queries.size() + 1);
    target_base_.resize(targets.size() + 1);
    std::int64_t query_total = 0, target_total = 0;
    for (std::size_t k = 0; k < queries.size(); ++k) {
      query_base_[k] = static_cast<int>(query_total);
      target_base_[k] = static_cast<int>(target_total);
      query_total += queries[k].length;
      target_total += targets[k].length;
      if (query_total > INT_MAX || target_total > INT_MAX)
        throw std::invalid_argument("PairBatch: more than 2^31 - 1 residues");
    }
    query_base_.back() = static_cast<int>(query_total);
    target_base_.back() = static_cast<int>(target_total);
    // A batch of 100,000 proteins is 110 MB a side: the buffers are left uninitialized (zeroing them cost as much as
    // the copies) and the copies go over all cores, in blocks of 1 MiB.
    query_.reset(static_cast<std::size_t>(query_total));
    target_.reset(static_cast<std::size_t>(target_total));
    query_reversed_.reset(query_.size());
    target_reversed_.reset(target_.size());
    constexpr std::size_t kBlock = std::size_t{1} << 20;
    const std::size_t query_blocks = (query_.size() + kBlock - 1) / kBlock;
    const std::size_t target_blocks = (target_.size() + kBlock - 1) / kBlock;
    host::parallel_for_small_items(
        queries.size(), 0, [] { return 0; },
        [&](int, std::size_t k) {
          if (queries[k].length > 0) std::memcpy(query_.data() + query_base_[k], queries[k].data, queries[k].length);
          if (targets[k].length > 0) std::memcpy(target_.data() + target_base_[k], targets[k].data, targets[k].length);
        });
    host::parallel_for(
        query_blocks + target_blocks, 0, [] { return 0; },
        [&](int, std::size_t b) {
          const bool is_query = b < query_blocks;
          const Residues& from = is_query ? query_ : target_;
          Residues& to = is_query ? query_reversed_ : target_reversed_;
          const std::size_t begin = (is_query ? b : b - query_blocks) * kBlock;
          const std::size_t end = std::min(from.size(), begin + kBlock);
          std::reverse_copy(from.data() + begin, from.data() + end, to.data() + (from.size() - end));
        });
  }
  std::size_t size() const { return query_base_.size() - 1; }
  SequencePair pair() const {
    return {query_.data(), query_reversed_.data(), static_cast<std::int64_t>(query_.size()),
            target_.data(), target_reversed_.data(), static_cast<std::int64_t>(target_.size())};
  }
  // Pair k alone, as a SequencePair whose reversed buffers are its own reversal.
  SequencePair pair(std::size_t k) const {
    const int q0 = query_base_[k], q1 = query_base_[k + 1], t0 = target_base_[k], t1 = target_base_[k + 1];
    const int qn = static_cast<int>(query_.size()), tn = static_cast<int>(target_.size());
    return {query_.data() + q0, query_reversed_.data() + (qn - q1), q1 - q0,
            target_.data() + t0, target_reversed_.data() + (tn - t1), t1 - t0};
  }
  int query_base(std::size_t k) const { return query_base_[k]; }
  int target_base(std::size_t k) const { return target_base_[k]; }

 private:
  // A residue buffer that is not zeroed when made.
  class Residues {
   public:
    void reset(std::size_t n) {
      data_.reset(new std::uint8_t[n > 0 ? n : 1]);
      size_ = n;
    }
    std::uint8_t* data() { return data_.get(); }
    const std::uint8_t* data() const { return data_.get(); }
    std::size_t size() const { return size_; }

   private:
    std::unique_ptr<std::uint8_t[]> data_;
    std::size_t size_ = 0;
  };
  Residues query_, query_reversed_, target_, target_reversed_;
  std::vector<int> query_base_, target_base_;
};

namespace detail {

// The range of all of a matrix's entries, where it says (a SubstitutionMatrix does): a bound for every pair that
// needs no look at the residues.
template <class Matrix, class = void>
struct WholeMatrixRange {
  static bool known(const Matrix&, int&, int&) { return false; }
};
template <class Matrix>
struct WholeMatrixRange<Matrix, std::void_t<decltype(std::declval<const Matrix&>().max_score()),
                                            decltype(std::declval<const Matrix&>().min_score())>> {
  static bool known(const Matrix& matrix, int& max_score, int& min_score) {
    max_score = matrix.max_score();
    min_score = matrix.min_score();
    return true;
  }
};

}  // namespace detail

// The steps of align_batch_linear_space, public for a caller that runs them one at a time (to time each, or to align
// the boxes its own way): for_each_checked_pair(..., no-op body) refuses the batch if a pair's scores could pass 32
// bits, locate_boxes finds every pair's box and score, align_boxes_linear_space aligns the boxes, and place_and_check
// turns the alignments back into each pair's coordinates and checks them.

// body(k, pair k alone) for every pair of `batch` on `threads` threads, each pair first refused if its scores could
// pass 32 bits (check_fits). A pair that fits with the whole matrix's range is not scanned for its codes: that scan
// of every residue took 10-13 ms of a 100,000-pair protein batch.
template <class Matrix, class Body>
void for_each_checked_pair(const PairBatch& batch, const Matrix& matrix, recurrences::GapCosts gaps, int threads,
                           Body body) {
  int whole_max = 0, whole_min = 0;
  const bool whole_known = detail::WholeMatrixRange<Matrix>::known(matrix, whole_max, whole_min);
  host::parallel_for_small_items(
      batch.size(), threads, [] { return detail::ScoreRangeCache{}; },
      [&](detail::ScoreRangeCache& ranges, std::size_t k) {
        const SequencePair p = batch.pair(k);
        const int m = static_cast<int>(p.query_length), n = static_cast<int>(p.target_length);
        if (!whole_known || !fits_in_32_bits(m, n, whole_max, whole_min, gaps))
          detail::check_fits(p.query, m, p.target, n, matrix, gaps, ranges);
        body(k, p);
      });
}

// Where the best alignment of every pair of `batch` lies in `mode` (boxes in the batch's coordinates) and what it
// scores (located; global: the whole pair, scored later). Local: a forward pass of the local policy finds each end
// cell, then a global pass over the reversed prefixes, anchored there, finds the start (a path leaving that corner
// with a gap cannot reach the score: the forward alignment would then end in a gap, and dropping it would score
// higher). Semi-global: the end is the best edge cell of a semi-global pass (the borders (n, 0) and (0, m) excluded:
// an alignment has a column when both sequences have residues), the start the best edge cell of the anchored
// reverse pass, its borders included (a start may leave one sequence's residues all before it). Every pass of a
// step goes through one call of `find_best_cells` (best_cells.hpp).
template <class BestCellRunner>
void locate_boxes(recurrences::AlignMode mode, const PairBatch& batch, recurrences::GapCosts gaps, int threads,
                  BestCellRunner&& find_best_cells, std::vector<Box>& boxes, std::vector<long>& located) {
  using recurrences::AlignMode;
  located.assign(batch.size(), 0);
  if (mode == AlignMode::Global) {  // the whole pairs
    boxes.resize(batch.size());
    host::parallel_for_small_items(
        batch.size(), threads, [] { return 0; },
        [&](int, std::size_t k) {
          boxes[k] = Box{batch.query_base(k), batch.query_base(k + 1), batch.target_base(k), batch.target_base(k + 1),
                         false, false};
        });
    return;
  }
  boxes.assign(batch.size(), Box{});
  std::vector<std::size_t> searched;  // pairs whose ends the passes find
  for (std::size_t k = 0; k < batch.size(); ++k) {
    const int m = batch.query_base(k + 1) - batch.query_base(k), n = batch.target_base(k + 1) - batch.target_base(k);
    if (m > 0 && n > 0) searched.push_back(k);  // else the empty alignment, scoring 0
  }
  const SequencePair all = batch.pair();
  const CellScope scope = mode == AlignMode::Local ? CellScope::Anywhere : CellScope::Edges;
  std::vector<RowPass> passes(searched.size());
  std::vector<tiers::CellEnd> ends(searched.size()), starts(searched.size());
  for (std::size_t s = 0; s < searched.size(); ++s) {
    const std::size_t k = searched[s];
    passes[s] = RowPass{batch.query_base(k), batch.target_base(k), batch.query_base(k + 1) - batch.query_base(k),
                        batch.target_base(k + 1) - batch.target_base(k)};
  }
  if (!passes.empty()) find_best_cells(passes, mode, scope, all, ends.data());
  // From each end over the reversed prefixes: reversed[x] = forward[length - 1 - x].
  std::vector<RowPass> back;
  std::vector<std::size_t> anchored;  // indices into `searched` of the pairs with an alignment to anchor
  for (std::size_t s = 0; s < searched.size(); ++s) {
    const std::size_t k = searched[s];
    const tiers::CellEnd& e = ends[s];
    if (mode == AlignMode::Local && e.score <= 0) continue;  // no alignment: the empty one, scoring 0
    back.push_back(RowPass{all.query_length - (batch.query_base(k) + e.query_end),
                           all.target_length - (batch.target_base(k) + e.target_end), e.query_end, e.target_end, true});
    anchored.push_back(s);
  }
  if (!back.empty()) find_best_cells(back, AlignMode::Global, scope, all, starts.data());
  for (std::size_t a = 0; a < anchored.size(); ++a) {
    const std::size_t s = anchored[a], k = searched[s];
    const tiers::CellEnd& e = ends[s];
    tiers::CellEnd b = starts[a];
    if (mode == AlignMode::SemiGlobal) {
      // The reverse pass's borders: (rows, 0) goes before its edges, (0, columns) after them.
      const GlobalS32 policy(gaps, {});
      const std::int32_t left = policy.left(e.target_end).h, top = policy.top(e.query_end).h;
      if (left >= b.score) b = tiers::CellEnd{left, e.target_end, 0};
      if (top > b.score) b = tiers::CellEnd{top, 0, e.query_end};
    }
    if (b.score != e.score)
      throw std::logic_error("locating: the reverse pass reaches " + std::to_string(b.score) + ", not the forward " +
                             std::to_string(e.score));
    located[k] = e.score;
    boxes[k] = Box{e.query_end - b.query_end, e.query_end, e.target_end - b.target_end, e.target_end, false, false};
  }
  host::parallel_for_small_items(
      batch.size(), threads, [] { return 0; },
      [&](int, std::size_t k) {
        Box& box = boxes[k];
        box.query_begin += batch.query_base(k);
        box.query_end += batch.query_base(k);
        box.target_begin += batch.target_base(k);
        box.target_end += batch.target_base(k);
      });
}

// The last step of align_batch_linear_space: each pair's alignment `out[k]` (from align_boxes_linear_space, in the
// batch's coordinates) moved to the pair's own, or made the empty one where a local or semi-global pair had nothing
// to align, checked (check_alignment) against what its ends were located with and rescored on the host threads.
template <class Matrix>
void place_and_check(recurrences::AlignMode mode, const PairBatch& batch, const std::vector<long>& located,
                     const Matrix& matrix, recurrences::GapCosts gaps, int threads, std::vector<Alignment>& out) {
  using recurrences::AlignMode;
  host::parallel_for_small_items(
      out.size(), threads, [] { return 0; },
      [&](int, std::size_t k) {
        Alignment& a = out[k];
        if (mode != AlignMode::Global && a.edits.empty()) {  // nothing to align: the empty alignment
          a = Alignment{};
          a.score = located[k];
        } else {
          a.query_begin -= batch.query_base(k);
          a.query_end -= batch.query_base(k);
          a.target_begin -= batch.target_base(k);
          a.target_end -= batch.target_base(k);
        }
        detail::check_alignment(a, mode, mode == AlignMode::Global ? a.score : located[k], batch.pair(k), matrix,
                                gaps);
      });
}


// The best alignment of every pair of `batch` in `mode`, each checked as align_linear_space checks one: ends
// located by `find_best_cells` (locate_boxes), the levels run by `run_passes` and the leaves by
// `solve_leaves` over batch.pair() (see align_boxes_linear_space).
template <class Matrix, class PassRunner, class LeafSolver, class BestCellRunner>
std::vector<Alignment> align_batch_linear_space(recurrences::AlignMode mode, const PairBatch& batch,
                                                const Matrix& matrix, recurrences::GapCosts gaps,
                                                const LinearSpaceOptions& options, PassRunner&& run_passes,
                                                LeafSolver&& solve_leaves, BestCellRunner&& find_best_cells) {
  using recurrences::AlignMode;
  if (gaps.left_gap_continues) throw std::invalid_argument("align_batch_linear_space: left_gap_continues is for boxes");
  for_each_checked_pair(batch, matrix, gaps, options.threads, [](std::size_t, const SequencePair&) {});
  std::vector<Box> boxes;
  std::vector<long> located;
  locate_boxes(mode, batch, gaps, options.threads, find_best_cells, boxes, located);
  std::vector<Alignment> out = align_boxes_linear_space(batch.pair(), boxes, gaps, options, run_passes, solve_leaves);
  place_and_check(mode, batch, located, matrix, gaps, options.threads, out);
  return out;
}

// The best local or semi-global score of every pair of `batch`, without its alignment: the first step of locating
// (locate_boxes) alone, one best-cell pass a pair through `find_best_cells` (best_cells.hpp). A pair with an
// empty side scores 0 (the empty alignment). Refuses pairs whose scores could pass 32 bits, as
// align_batch_linear_space does. Global scores come from global_scores.
template <class Matrix, class BestCellRunner>
std::vector<long> located_scores(recurrences::AlignMode mode, const PairBatch& batch, const Matrix& matrix,
                                 recurrences::GapCosts gaps, const LinearSpaceOptions& options,
                                 BestCellRunner&& find_best_cells) {
  using recurrences::AlignMode;
  if (mode == AlignMode::Global) throw std::invalid_argument("located_scores: global scores come from global_scores");
  if (gaps.left_gap_continues) throw std::invalid_argument("located_scores: left_gap_continues is for boxes");
  for_each_checked_pair(batch, matrix, gaps, options.threads, [](std::size_t, const SequencePair&) {});
  std::vector<long> scores(batch.size(), 0);
  std::vector<RowPass> passes;
  std::vector<std::size_t> searched;
  for (std::size_t k = 0; k < batch.size(); ++k) {
    const int m = batch.query_base(k + 1) - batch.query_base(k), n = batch.target_base(k + 1) - batch.target_base(k);
    if (m == 0 || n == 0) continue;
    passes.push_back(RowPass{batch.query_base(k), batch.target_base(k), m, n});
    searched.push_back(k);
  }
  std::vector<tiers::CellEnd> ends(passes.size());
  if (!passes.empty())
    find_best_cells(passes, mode, mode == AlignMode::Local ? CellScope::Anywhere : CellScope::Edges, batch.pair(),
                    ends.data());
  for (std::size_t s = 0; s < searched.size(); ++s)
    scores[searched[s]] = mode == AlignMode::Local && ends[s].score < 0 ? 0 : ends[s].score;
  return scores;
}

// The same with the ends located on the host tier.
template <class Matrix, class PassRunner, class LeafSolver>
std::vector<Alignment> align_batch_linear_space(recurrences::AlignMode mode, const PairBatch& batch,
                                                const Matrix& matrix, recurrences::GapCosts gaps,
                                                const LinearSpaceOptions& options, PassRunner&& run_passes,
                                                LeafSolver&& solve_leaves) {
  return align_batch_linear_space(
      mode, batch, matrix, gaps, options, run_passes, solve_leaves,
      [&](const std::vector<RowPass>& passes, recurrences::AlignMode pass_mode, CellScope scope,
          const SequencePair& pair, tiers::CellEnd* out) {
        find_best_cells_on_host(passes, pass_mode, scope, pair, matrix, gaps, out, options.threads);
      });
}

// The best global score of every pair of `batch`, without its alignment: each pair's upper half by a forward pass and
// its lower half by a reverse pass, joined at the middle row by the crossing rule (RowPassOutput::midpoints), so that
// every cell is computed once and the two halves run side by side (one pass over a long pair runs its strips in a
// single wavefront; two halves fill the GPU twice as fast). Pairs of at most one target residue or no query residue
// are scored on the host. Refuses pairs whose scores could pass 32 bits, as align_batch_linear_space does.
template <class Matrix, class PassRunner>
std::vector<long> global_scores(const PairBatch& batch, const Matrix& matrix, recurrences::GapCosts gaps,
                                const LinearSpaceOptions& options, PassRunner&& run_passes) {
  if (gaps.left_gap_continues) throw std::invalid_argument("global_scores: left_gap_continues is for boxes");
  std::vector<long> scores(batch.size());
  std::vector<std::size_t> halved;  // pairs scored by two half passes
  std::vector<char> small(batch.size());
  for_each_checked_pair(batch, matrix, gaps, options.threads, [&](std::size_t k, const SequencePair& p) {
    const int m = static_cast<int>(p.query_length), n = static_cast<int>(p.target_length);
    small[k] = n <= 1 || m == 0;
    if (small[k]) scores[k] = detail::solve_leaf(p, Box{0, m, 0, n, false, false}, matrix, gaps).score;
  });
  const SequencePair all = batch.pair();
  std::vector<RowPass> passes;
  std::size_t entries = 0;
  for (std::size_t k = 0; k < batch.size(); ++k) {
    if (small[k]) continue;
    const Box b{batch.query_base(k), batch.query_base(k + 1), batch.target_base(k), batch.target_base(k + 1), false,
                false};
    for (const RowPass& half : detail::halves(b, b.rows() / 2, all.query_length, all.target_length, entries))
      passes.push_back(half);
    entries += 2 * (static_cast<std::size_t>(b.columns()) + 1);
    halved.push_back(k);
  }
  std::vector<Midpoint> midpoints(halved.size());
  RowPassOutput crossings;
  crossings.midpoints = midpoints.data();
  if (!halved.empty()) run_passes(passes, all, crossings);
  for (std::size_t k = 0; k < halved.size(); ++k) scores[halved[k]] = midpoints[k].score;
  return scores;
}

// The same with the leaves on the host tier.
template <class Matrix, class PassRunner>
std::vector<Alignment> align_batch_linear_space(recurrences::AlignMode mode, const PairBatch& batch,
                                                const Matrix& matrix, recurrences::GapCosts gaps,
                                                const LinearSpaceOptions& options, PassRunner&& run_passes) {
  const SequencePair pair = batch.pair();
  return align_batch_linear_space(mode, batch, matrix, gaps, options, run_passes,
                                  [&](const std::vector<Box>& leaves, std::vector<Alignment>& out) {
                                    solve_leaves_on_host(pair, leaves, matrix, gaps, out, options.threads);
                                  });
}

// The best alignment of query[0, m) and target[0, n) in `mode`, in O(m + n) memory; `run_passes` runs each level's
// passes (see align_boxes_linear_space). Throws std::invalid_argument when the scores could pass 32 bits.
template <class Matrix, class PassRunner>
Alignment align_linear_space(recurrences::AlignMode mode, const std::uint8_t* query, int m, const std::uint8_t* target,
                             int n, const Matrix& matrix, recurrences::GapCosts gaps, const LinearSpaceOptions& options,
                             PassRunner&& run_passes) {
  const SequencePair forward{query, nullptr, m, target, nullptr, n};  // leaves read the forward buffers only
  return align_linear_space(mode, query, m, target, n, matrix, gaps, options, run_passes,
                            [&](const std::vector<Box>& leaves, std::vector<Alignment>& out) {
                              solve_leaves_on_host(forward, leaves, matrix, gaps, out, options.threads);
                            });
}

// The same with the leaves solved by `solve_leaves` (over the pair as given: a batch of one is laid out as the pair
// itself, so a leaf solver built on it serves).
template <class Matrix, class PassRunner, class LeafSolver>
Alignment align_linear_space(recurrences::AlignMode mode, const std::uint8_t* query, int m, const std::uint8_t* target,
                             int n, const Matrix& matrix, recurrences::GapCosts gaps, const LinearSpaceOptions& options,
                             PassRunner&& run_passes, LeafSolver&& solve_leaves) {
  if (m < 0 || n < 0) throw std::invalid_argument("align_linear_space: negative length");
  const PairBatch one({SequenceView{query, m}}, {SequenceView{target, n}});
  return std::move(align_batch_linear_space(mode, one, matrix, gaps, options, run_passes, solve_leaves).front());
}

// The same with the passes on the host tier.
template <class Matrix>
Alignment align_linear_space(recurrences::AlignMode mode, const std::uint8_t* query, int m, const std::uint8_t* target,
                             int n, const Matrix& matrix, recurrences::GapCosts gaps,
                             const LinearSpaceOptions& options = {}) {
  return align_linear_space(mode, query, m, target, n, matrix, gaps, options,
                            [&](const std::vector<RowPass>& passes, const SequencePair& pair, RowPassOutput out) {
                              run_row_passes_on_host(passes, pair, matrix, gaps, out, options.threads);
                            });
}

}  // namespace cudp::align
