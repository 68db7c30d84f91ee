#pragma once
// The work of one level of a linear-space alignment: many independent global Gotoh problems ("passes"), each over a
// box of a pair's matrix, each handing back only its last row. A pass reads its box forwards, or backwards for the
// lower half of a Myers-Miller split; the backends below (host here, device in device_row_passes.cuh) run a whole
// level at once, so that the many small boxes of the deep levels and the few large ones of the first levels go
// through the same call.
//
// Sequences are given as one forward buffer and its reversal (reversed[k] = forward[length - 1 - k]), for one pair
// or for many concatenated; a pass names its ranges in the buffer it reads, so that no backend copies segments.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../engine/one_pair.hpp"
#include "../lanes/s32.hpp"
#include "../recurrences/gotoh.hpp"
#include "../tiers/observers.hpp"
#include "../host/parallel_for.hpp"
#include "midpoint.hpp"
#include "threaded_pass.hpp"

namespace cudp::align {

struct SequencePair {
  const std::uint8_t* query = nullptr;
  const std::uint8_t* query_reversed = nullptr;
  std::int64_t query_length = 0;
  const std::uint8_t* target = nullptr;
  const std::uint8_t* target_reversed = nullptr;
  std::int64_t target_length = 0;
};

// One box: the global problem of query[query_begin, query_begin + columns) x target[target_begin, target_begin +
// rows) of the forward buffers, or of the reversed buffers when `reversed`.
struct RowPass {
  std::int64_t query_begin = 0;
  std::int64_t target_begin = 0;
  int columns = 0;  // >= 0
  int rows = 0;     // >= 0
  bool reversed = false;
  bool left_gap_continues = false;  // see GapCosts::left_gap_continues
  std::size_t out = 0;              // the row's columns + 1 entries start here in `h` and `pending_f`
  // Checkpoint rows: > 0 hands back rows save_every, 2 save_every, ... below `rows` as well (checkpoints_of), the
  // k-th of them (k = 1, 2, ...) at saved + (k - 1) (columns + 1) in RowPassOutput::saved_h and saved_pending_f.
  int save_every = 0;
  std::size_t saved = 0;
  // A window of a checkpoint walk (RowPassOutput::kept): its row is crossed with the kept checkpoint row whose
  // entries start here, that row as the forward side and this pass's as the reverse; -1: not a window.
  std::int64_t kept_row = -1;
};

// Rows a pass saves besides its last.
CUDP_HD int checkpoints_of(const RowPass& pass) {
  return pass.save_every > 0 && pass.rows > 1 ? (pass.rows - 1) / pass.save_every : 0;
}

// What a pass hands back for column j = 0..columns of its last row: h[out + j] = H(rows, j), and pending_f[out + j]
// = max(F(rows, j), H(rows, j) - open) - extend, the best score of a path to (rows + 1, j) whose last move deletes a
// target residue (the Down carry's f of Gotoh). Checkpoint rows come the same way in saved_h and saved_pending_f.
//
// Crossings instead of rows: with `midpoints` set, the passes come in pairs over the two halves of one box (pass 2k
// forward over the rows above its cut, pass 2k + 1 reverse over the rows below, as a level of Myers-Miller sets
// them) and the runner writes midpoints[k] = find_midpoint of their two rows; h and pending_f are then not written
// (a device runner keeps the rows on the device and hands back 16 bytes a box instead of 16 a column).
//
// Checkpoint rows kept where they were computed: with `kept` (and midpoints), the level's passes may save rows
// (RowPass::save_every) and the runner keeps them, at RowPass::saved, either in kept->h / kept->pending_f (the host)
// or in its own memory (kept->on_runner: a device keeps them on the device, so that the rows of thousands of boxes
// never cross to the host), until its next call that saves rows. A later call's windows (RowPass::kept_row: every
// pass of the call is one) are crossed with them: midpoints[k] = find_midpoint(kept row at kept_row, pass k's row).
// `entries`, when given, receives both rows' (h, pending f) where each crossing is, as upper_score needs them.
struct KeptRows {
  std::vector<std::int32_t> h, pending_f;  // when the runner keeps them on the host
  bool on_runner = false;                  // the runner holds them in its own memory instead
};

struct CrossingEntries {
  std::int32_t forward_h = 0, forward_f = 0;  // the forward row's (or kept row's) at the crossing's column
  std::int32_t reverse_h = 0, reverse_f = 0;  // the reverse row's at columns - column
};

struct RowPassOutput {
  std::int32_t* h = nullptr;
  std::int32_t* pending_f = nullptr;
  std::int32_t* saved_h = nullptr;
  std::int32_t* saved_pending_f = nullptr;
  Midpoint* midpoints = nullptr;
  KeptRows* kept = nullptr;
  CrossingEntries* entries = nullptr;
};

// Entries of h / pending_f that `passes` write: the end of the farthest row.
inline std::size_t row_entries(const std::vector<RowPass>& passes) {
  std::size_t entries = 0;
  for (const RowPass& p : passes) entries = std::max(entries, p.out + static_cast<std::size_t>(p.columns) + 1);
  return entries;
}

// Entries of the checkpoint rows that `passes` save: the end of the farthest.
inline std::size_t saved_row_entries(const std::vector<RowPass>& passes) {
  std::size_t entries = 0;
  for (const RowPass& p : passes)
    entries = std::max(entries, p.saved + static_cast<std::size_t>(checkpoints_of(p)) * (static_cast<std::size_t>(p.columns) + 1));
  return entries;
}

// Whether a call of crossings is one of windows against kept rows (RowPassOutput::kept): every pass names its row.
inline bool crosses_kept_rows(const std::vector<RowPass>& passes) {
  return !passes.empty() && passes.front().kept_row >= 0;
}

// Refuses passes that cannot be read as the halves of boxes (RowPassOutput::midpoints), or as windows against kept
// rows; the halves may save rows only where the runner keeps them (`keeps`).
inline void check_midpoint_passes(const char* who, const std::vector<RowPass>& passes, bool keeps = false) {
  if (crosses_kept_rows(passes)) {
    if (!keeps) throw std::invalid_argument(std::string(who) + ": windows are crossed with kept rows (RowPassOutput::kept)");
    for (std::size_t k = 0; k < passes.size(); ++k)
      if (passes[k].kept_row < 0 || passes[k].save_every > 0)
        throw std::invalid_argument(std::string(who) + ": window " + std::to_string(k) +
                                    " names no kept row, or saves rows of its own");
    return;
  }
  if (passes.size() % 2 != 0) throw std::invalid_argument(std::string(who) + ": crossings need passes in pairs");
  for (std::size_t k = 0; k < passes.size(); k += 2)
    if (passes[k].reversed || !passes[k + 1].reversed || passes[k].columns != passes[k + 1].columns ||
        passes[k].kept_row >= 0 || passes[k + 1].kept_row >= 0 ||
        (!keeps && (passes[k].save_every > 0 || passes[k + 1].save_every > 0)))
      throw std::invalid_argument(std::string(who) + ": crossing pair " + std::to_string(k / 2) +
                                  " is not a forward and a reverse pass over the same columns" +
                                  (keeps ? "" : ", keeping no rows"));
}

// The crossing of a forward row and a reverse row of `columns` + 1 entries, with their entries at it.
inline Midpoint cross_rows(const std::int32_t* forward_h, const std::int32_t* forward_f, const std::int32_t* reverse_h,
                           const std::int32_t* reverse_f, int columns, recurrences::GapCosts gaps,
                           CrossingEntries* entries) {
  const Midpoint mid = find_midpoint(forward_h, forward_f, reverse_h, reverse_f, columns, gaps);
  if (entries)
    *entries = CrossingEntries{forward_h[mid.column], forward_f[mid.column], reverse_h[columns - mid.column],
                               reverse_f[columns - mid.column]};
  return mid;
}

using GlobalS32 = recurrences::Gotoh<recurrences::AlignMode::Global, lanes::s32>;

// Column 0 of a pass's last row: the left border, a vertical gap from the corner. Host and device (the device
// backend runs it per pass, so both backends write column 0 by this one rule).
CUDP_HD void border_column(const RowPass& pass, recurrences::GapCosts gaps, RowPassOutput out) {
  const GlobalS32 p(gaps, recurrences::ProblemShape{});
  const std::int32_t h = p.left(pass.rows).h;
  // Below the corner the border is itself a vertical gap, which goes on; at the corner one is open only when it
  // continues an earlier piece's.
  const bool in_gap = pass.rows > 0 || gaps.left_gap_continues;
  out.h[pass.out] = h;
  out.pending_f[pass.out] = in_gap ? h - gaps.extend : h - gaps.open - gaps.extend;
}

// Row 0 of a pass: the top border, a horizontal gap from the corner.
CUDP_HD void top_row(const RowPass& pass, recurrences::GapCosts gaps, RowPassOutput out) {
  const GlobalS32 p(gaps, recurrences::ProblemShape{});
  for (int j = 1; j <= pass.columns; ++j) {
    const auto d = p.top(j);
    out.h[pass.out + j] = d.h;
    out.pending_f[pass.out + j] = d.f;
  }
}

// Checkpoint row k (1-based) of `pass` as a pass of its own: the rows above it, written where the row is saved.
CUDP_HD RowPass checkpoint_pass(const RowPass& pass, int k) {
  RowPass part = pass;
  part.rows = k * pass.save_every;
  part.out = pass.saved + static_cast<std::size_t>(k - 1) * (static_cast<std::size_t>(pass.columns) + 1);
  part.save_every = 0;
  return part;
}

// Runs every pass on the host, passes spread over `threads` threads (0: all cores), each on the host tier with
// LastRowCapture (CheckpointRowsCapture when it saves rows): the same cell code as every other run of the Gotoh
// policy. With fewer passes than threads (the first levels of one pair), each pass is split over its share of them
// (share_of_threads, threaded_pass.hpp), with the same rows.
template <class Matrix>
void run_row_passes_on_host(const std::vector<RowPass>& passes, const SequencePair& pair, const Matrix& matrix,
                            recurrences::GapCosts gaps, RowPassOutput out, int threads = 0,
                            const PassSplit& split = {}) {
  if (out.midpoints) {
    check_midpoint_passes("run_row_passes_on_host", passes, out.kept != nullptr);
    const bool windows = crosses_kept_rows(passes);
    if (windows && (out.kept->on_runner || out.kept->h.empty()))
      throw std::invalid_argument("run_row_passes_on_host: no kept rows on the host to cross the windows with");
    std::vector<std::int32_t> h(row_entries(passes)), f(h.size());
    Midpoint* midpoints = out.midpoints;
    CrossingEntries* entries = out.entries;
    RowPassOutput rows{h.data(), f.data()};
    if (out.kept && !windows) {
      out.kept->on_runner = false;
      out.kept->h.resize(saved_row_entries(passes));
      out.kept->pending_f.resize(out.kept->h.size());
      rows.saved_h = out.kept->h.data();
      rows.saved_pending_f = out.kept->pending_f.data();
    }
    run_row_passes_on_host(passes, pair, matrix, gaps, rows, threads, split);
    const std::size_t crossings = windows ? passes.size() : passes.size() / 2;
    host::parallel_for(
        crossings, threads, [] { return 0; },
        [&](int, std::size_t k) {
          CrossingEntries* at = entries ? entries + k : nullptr;
          if (windows) {
            const RowPass& w = passes[k];
            const auto from = static_cast<std::size_t>(w.kept_row);
            midpoints[k] = cross_rows(out.kept->h.data() + from, out.kept->pending_f.data() + from, h.data() + w.out,
                                      f.data() + w.out, w.columns, gaps, at);
            return;
          }
          const RowPass& forward = passes[2 * k];
          const RowPass& reverse = passes[2 * k + 1];
          midpoints[k] = cross_rows(h.data() + forward.out, f.data() + forward.out, h.data() + reverse.out,
                                    f.data() + reverse.out, forward.columns, gaps, at);
        });
    return;
  }
  host::parallel_for(
      passes.size(), threads, [] { return std::vector<std::int32_t>(); },
      [&](std::vector<std::int32_t>& captured, std::size_t k) {
        const RowPass& pass = passes[k];
        recurrences::GapCosts box_gaps = gaps;
        box_gaps.left_gap_continues = pass.left_gap_continues;
        const RowPassOutput saved{out.saved_h, out.saved_pending_f};
        const int checkpoints = checkpoints_of(pass);
        border_column(pass, box_gaps, out);
        for (int c = 1; c <= checkpoints; ++c) border_column(checkpoint_pass(pass, c), box_gaps, saved);
        if (pass.rows == 0 || pass.columns == 0) return top_row(pass, box_gaps, out);
        const std::uint8_t* query = (pass.reversed ? pair.query_reversed : pair.query) + pass.query_begin;
        const std::uint8_t* target = (pass.reversed ? pair.target_reversed : pair.target) + pass.target_begin;
        const std::size_t row = static_cast<std::size_t>(pass.columns) * 2;
        captured.resize(row * (1 + static_cast<std::size_t>(checkpoints)));
        const int pass_threads = share_of_threads(k, passes.size(), threads);
        if (checkpoints == 0)
          run_one_pair_on_threads<GlobalS32>(box_gaps, matrix, query, pass.columns, target, pass.rows,
                                             tiers::LastRowCapture<std::int32_t>{captured.data(), pass.columns},
                                             pass_threads, split);
        else
          run_one_pair_on_threads<GlobalS32>(
              box_gaps, matrix, query, pass.columns, target, pass.rows,
              tiers::CheckpointRowsCapture<std::int32_t>(captured.data(), pass.columns, captured.data() + row,
                                                         pass.save_every, checkpoints),
              pass_threads, split);
        auto unpack = [&](const std::int32_t* from, const RowPass& into, const RowPassOutput& to) {
          for (int j = 1; j <= pass.columns; ++j) {
            to.h[into.out + j] = from[static_cast<std::size_t>(j - 1) * 2];
            to.pending_f[into.out + j] = from[static_cast<std::size_t>(j - 1) * 2 + 1];
          }
        };
        unpack(captured.data(), pass, out);
        for (int c = 1; c <= checkpoints; ++c)
          unpack(captured.data() + row * static_cast<std::size_t>(c), checkpoint_pass(pass, c), saved);
      });
}

}  // namespace cudp::align
