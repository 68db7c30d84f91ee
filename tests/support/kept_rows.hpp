#pragma once
// Passes for the kept-rows contract of a runner (RowPassOutput::kept): the halves of random boxes that save
// checkpoint rows, and windows crossed with those rows, as a checkpoint walk asks for them.
#include <cstdint>
#include <random>
#include <vector>

#include <cudp/align/row_passes.hpp>

#include "sequence_pair.hpp"

namespace cudp::test {

// `count` boxes of up to `side` x `side` cells over s, each as a forward pass over its upper half and a reverse pass
// over its lower half, both saving a row every few rows; their rows and kept rows side by side.
inline std::vector<align::RowPass> keeping_halves(std::mt19937_64& rng, const Sequences& s, int count, int side) {
  const auto m = static_cast<std::int64_t>(s.query.size()), n = static_cast<std::int64_t>(s.target.size());
  std::vector<align::RowPass> passes;
  std::size_t out = 0, saved = 5;  // not at 0, so that an offset forgotten shows
  for (int k = 0; k < count; ++k) {
    align::RowPass forward;
    forward.columns = static_cast<int>(rng() % (side + 1));
    const int rows = 2 + static_cast<int>(rng() % (side - 1));
    forward.query_begin = static_cast<std::int64_t>(rng() % (m - forward.columns + 1));
    forward.target_begin = static_cast<std::int64_t>(rng() % (n - rows + 1));
    forward.rows = rows / 2;
    forward.out = out;
    forward.save_every = 1 + static_cast<int>(rng() % (rows / 2 + 1));
    forward.saved = saved;
    saved += static_cast<std::size_t>(align::checkpoints_of(forward)) * (forward.columns + 1);
    align::RowPass reverse = forward;
    reverse.query_begin = m - (forward.query_begin + forward.columns);
    reverse.target_begin = n - (forward.target_begin + rows);
    reverse.rows = rows - rows / 2;
    reverse.reversed = true;
    reverse.left_gap_continues = k % 3 == 1;
    reverse.out = out + static_cast<std::size_t>(forward.columns) + 1;
    reverse.save_every = k % 4 == 0 ? 0 : 1 + static_cast<int>(rng() % (rows / 2 + 1));
    reverse.saved = saved;
    saved += static_cast<std::size_t>(align::checkpoints_of(reverse)) * (reverse.columns + 1);
    out += 2 * (static_cast<std::size_t>(forward.columns) + 1);
    passes.push_back(forward);
    passes.push_back(reverse);
  }
  return passes;
}

// Windows against the kept rows of `halves`: for random kept rows, a pass as wide as some right part of the row,
// reading the other direction, crossed with that part (RowPass::kept_row).
inline std::vector<align::RowPass> windows_on(std::mt19937_64& rng, const Sequences& s,
                                             const std::vector<align::RowPass>& halves, int count, int rows) {
  const auto m = static_cast<std::int64_t>(s.query.size()), n = static_cast<std::int64_t>(s.target.size());
  std::vector<const align::RowPass*> keeping;
  for (const align::RowPass& p : halves)
    if (align::checkpoints_of(p) > 0) keeping.push_back(&p);
  std::vector<align::RowPass> windows;
  std::size_t out = 0;
  for (int k = 0; k < count && !keeping.empty(); ++k) {
    const align::RowPass& from = *keeping[rng() % keeping.size()];
    const int checkpoint = static_cast<int>(rng() % align::checkpoints_of(from));
    const int width = static_cast<int>(rng() % (from.columns + 1)), skipped = from.columns - width;
    align::RowPass w;
    w.columns = width;
    w.rows = static_cast<int>(rng() % (rows + 1));
    w.query_begin = static_cast<std::int64_t>(rng() % (m - width + 1));
    w.target_begin = static_cast<std::int64_t>(rng() % (n - w.rows + 1));
    w.reversed = !from.reversed;
    w.left_gap_continues = k % 2 == 1;
    w.out = out;
    w.kept_row = static_cast<std::int64_t>(from.saved + static_cast<std::size_t>(checkpoint) * (from.columns + 1) +
                                           static_cast<std::size_t>(skipped));
    out += static_cast<std::size_t>(width) + 1;
    windows.push_back(w);
  }
  return windows;
}

}  // namespace cudp::test
