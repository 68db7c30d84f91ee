#pragma once
// One pass over one long pair on several host threads: a wavefront over tiles. A level with fewer passes than
// threads (the one pass that finds a local or semi-global end, the first levels of Myers-Miller) would otherwise
// leave threads idle for most of a long pair's time. The query's columns are cut into strips, one per thread, and
// each thread walks its strip down in blocks of rows: block r of strip t starts once strip t - 1 has finished block
// r, reading the Right carries that left t - 1's last column. Those carries pass through a ring of a few blocks
// (the writer waits for its reader to fall at most that far behind), so that memory stays linear in the pair.
//
// Every cell is the host tier's (ColumnTile over the same profile, engine::run_one_pair_on_host's strips of 8
// columns), computed once, to the same value whatever the thread count. The observer (tiers/observers.hpp) watches
// the cells as the host tier shows them, each strip with a state of its own, merged in strip order: an observer
// whose merge does not depend on who saw what (BestCell's total order, the captures' disjoint columns,
// BestEdgeCell's keys) hands back what one thread would.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

#include "../engine/cascade.hpp"
#include "../engine/one_pair.hpp"
#include "../engine/profile.hpp"
#include "../host/host_cores.hpp"
#include "../host/parallel_for.hpp"
#include "../tiers/column_tile.hpp"

namespace cudp::align {

// When a pass is split, and how. A strip's share of the columns must keep its thread busy between two hand-offs,
// and a block must be long enough that the hand-off (one release store, one acquire load) is lost in its cells and
// short enough that the threads start soon after one another (the last strip waits strips - 1 blocks to start).
struct PassSplit {
  int min_strip_columns = 256;  // a pass is cut into at most columns / min_strip_columns strips
  double min_cells = 1 << 20;   // smaller passes run on one thread
  int block_rows = 0;           // rows a hand-off; 0: rows / (16 strips), within [32, 512]
  int ring_blocks = 8;          // blocks of carries in flight between two strips (>= 1)
};

// How many strips `threads` threads cut a pass of `columns` x `rows` into: 1 when splitting would not pay.
inline int pass_strips(int columns, int rows, int threads, const PassSplit& split = {}) {
  if (threads <= 0) threads = host::usable_cores();
  if (threads <= 1 || static_cast<double>(columns) * rows < split.min_cells) return 1;
  constexpr int R = 8;
  const int tiles = (columns + R - 1) / R;
  const int by_width = columns / std::max(1, split.min_strip_columns);
  return std::max(1, std::min({threads, by_width, tiles}));
}

// Threads for item k of `items` run side by side on `threads` threads (0: all cores): one each when there are at
// least as many items as threads, else the threads shared out, the first items taking the remainder.
inline int share_of_threads(std::size_t k, std::size_t items, int threads) {
  if (threads <= 0) threads = host::usable_cores();
  if (items == 0 || items >= static_cast<std::size_t>(threads)) return 1;
  const int each = threads / static_cast<int>(items), extra = threads % static_cast<int>(items);
  return each + (k < static_cast<std::size_t>(extra) ? 1 : 0);
}

namespace detail {

// A progress counter on a cache line of its own, so that two strips' counters do not share one.
struct alignas(64) StripProgress {
  std::atomic<int> blocks{0};
};

}  // namespace detail

// Runs policy P (one 32-bit lane) over query[0, m) x target[0, n) (m, n >= 1) with `observer`, as
// engine::run_one_pair_on_host does, its columns cut into pass_strips(m, n, threads, split) strips run side by side;
// returns the policy's score.
template <class P, class Matrix, class Observer>
std::int32_t run_one_pair_on_threads(const typename P::Params& params, const Matrix& matrix, const std::uint8_t* query,
                                     int m, const std::uint8_t* target, int n, const Observer& observer, int threads,
                                     const PassSplit& split = {}) {
  using L = typename P::Lane;
  static_assert(L::width == 1, "one pair: one lane");
  using Word = typename L::word;
  using Right = typename P::Right;
  constexpr int R = 8;  // engine::run_one_pair_on_host's strips
  using Tile = tiers::ColumnTile<P, R>;
  const int strips = pass_strips(m, n, threads, split);
  if (strips <= 1) return engine::run_one_pair_on_host<P>(params, matrix, query, m, target, n, observer);

  int codes = 0;
  for (int j = 0; j < m; ++j) codes = std::max(codes, query[j] + 1);
  for (int i = 0; i < n; ++i) codes = std::max(codes, target[i] + 1);
  const engine::Profile<P> profile = engine::build_profile<P>(params, matrix, codes, query, m, R);
  const P p(params, engine::shape_of(profile.data, codes, profile.stride, m));

  const int tiles = (m + R - 1) / R;
  const int block = split.block_rows > 0 ? split.block_rows : std::clamp(n / (16 * strips), 32, 512);
  const int blocks = (n + block - 1) / block;
  const int ring = std::max(1, split.ring_blocks);
  // ring_of[t]: the carries leaving strip t's last column, block r at slot r % ring.
  std::vector<std::vector<Right>> ring_of(static_cast<std::size_t>(strips - 1),
                                          std::vector<Right>(static_cast<std::size_t>(ring) * block));
  std::vector<detail::StripProgress> done(static_cast<std::size_t>(strips));
  std::vector<typename Observer::template State<P>> seen(static_cast<std::size_t>(strips), observer.start(p));
  std::vector<typename P::Acc> accs(static_cast<std::size_t>(strips), p.init());
  std::atomic<bool> failed{false};
  const auto wait_until = [&](const std::atomic<int>& blocks_done, int at_least) {
    for (int spin = 0; blocks_done.load(std::memory_order_acquire) < at_least; ++spin) {
      if (failed.load(std::memory_order_relaxed)) return false;
      if (spin >= 64) std::this_thread::yield();
    }
    return true;
  };
  const int lengths[1] = {n};
  const std::uint32_t targets[1] = {0};

  // Items are handed out in order to `strips` threads, so every strip waited on is running or done.
  host::parallel_for(static_cast<std::size_t>(strips), strips, [] { return 0; }, [&](int, std::size_t s) {
    const int t = static_cast<int>(s);
    try {
      const int first_tile = static_cast<int>(static_cast<long>(tiles) * t / strips);
      const int count = static_cast<int>(static_cast<long>(tiles) * (t + 1) / strips) - first_tile;
      std::vector<Tile> tile(static_cast<std::size_t>(count));
      std::vector<Word> diag(static_cast<std::size_t>(count));  // H(i - 1, j_first - 1) for the block's first row i
      for (int k = 0; k < count; ++k) {
        const int j_first = (first_tile + k) * R + 1;
        tile[static_cast<std::size_t>(k)].reset(p, j_first);
        diag[static_cast<std::size_t>(k)] = p.top(j_first - 1).h;
      }
      std::vector<Right> carries(static_cast<std::size_t>(block));
      auto state = observer.start(p);
      typename P::Acc acc = p.init();
      for (int r = 0; r < blocks; ++r) {
        const int i0 = r * block + 1, i1 = std::min(n, i0 + block - 1);
        if (t > 0 && !wait_until(done[static_cast<std::size_t>(t - 1)].blocks, r + 1)) return;
        if (t + 1 < strips && !wait_until(done[static_cast<std::size_t>(t + 1)].blocks, r + 1 - ring)) return;
        const Right* in = t > 0 ? ring_of[static_cast<std::size_t>(t - 1)].data() + (r % ring) * block : nullptr;
        Right* out = t + 1 < strips ? ring_of[static_cast<std::size_t>(t)].data() + (r % ring) * block : carries.data();
        for (int k = 0; k < count; ++k) {
          const int j_first = (first_tile + k) * R + 1;
          Tile cells = tile[static_cast<std::size_t>(k)];
          Word diag_next = diag[static_cast<std::size_t>(k)];
          const Right* from = k > 0 ? carries.data() : in;
          Right* to = k + 1 < count ? carries.data() : out;
          for (int i = i0; i <= i1; ++i) {
            const Right carry = from ? from[i - i0] : p.left(i);
            const Word up_left = diag_next;
            diag_next = carry.h;
            const typename L::scalar* score_rows[1] = {profile.data.data() +
                                                       static_cast<std::size_t>(target[i - 1]) * profile.stride +
                                                       (j_first - 1)};
            Word score[R];
            L::template gather<R>(score_rows, score);
            to[i - i0] = cells.step(p, carry, up_left, score, acc, i, j_first, m, lengths);
            if constexpr (Observer::observes_cells) observer.row(p, state, cells.col, i, j_first, m, lengths, targets);
          }
          tile[static_cast<std::size_t>(k)] = cells;
          diag[static_cast<std::size_t>(k)] = diag_next;
        }
        done[static_cast<std::size_t>(t)].blocks.store(r + 1, std::memory_order_release);
      }
      seen[s] = state;
      accs[s] = acc;
    } catch (...) {
      failed.store(true, std::memory_order_relaxed);
      throw;
    }
  });

  auto state = seen.front();
  typename P::Acc acc = accs.front();
  for (std::size_t t = 1; t < seen.size(); ++t) {
    state = observer.merge(state, seen[t]);
    acc = p.merge(acc, accs[t]);
  }
  observer.finish(p, state, targets, lengths);
  return static_cast<std::int32_t>(L::extract(p.result(acc), 0));
}

}  // namespace cudp::align
