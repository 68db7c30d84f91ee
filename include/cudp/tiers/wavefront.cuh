#pragma once
// The kernel every device tier runs: a block of Tier::block_threads threads split into groups of
// Tier::group_size, one task per group. The query is cut into strips of group_size*R columns; for each strip the
// block loads that slice of the profile into shared memory, then each group runs a wavefront down its task's rows:
// thread `rank` works on row q-rank+1 at step q, taking the carry its left neighbour produced one step earlier
// (Tier::pass_right). The last thread of a group hands the strip's right edge to the next strip through global
// memory. Nothing here knows the recurrence: it only moves the policy's Down/Right/Acc values around.
#include <cstdint>
#include <type_traits>

#include "../config.hpp"
#include "../lanes/row_chunks.hpp"
#include "../recurrences/concepts.hpp"
#include "column_tile.hpp"
#include "observers.hpp"
#include "task_list.hpp"

namespace cudp::tiers {

template <class P, class Tier, class Observer = ScoreOnly>
struct Wavefront {
  static_assert(recurrences::check_wavefront_policy<P>());
  using L = typename P::Lane;
  using Word = typename L::word;
  using Scalar = typename L::scalar;
  using Right = typename P::Right;
  using Acc = typename P::Acc;
  static constexpr int W = L::width;
  static constexpr int G = Tier::group_size;
  static constexpr int R = Tier::columns_per_thread;
  static constexpr int strip_columns = G * R;
  // A thread's R columns of a profile row, read in vector chunks; the tile interleaves the chunks of a group's
  // threads so that they read consecutive addresses of a row.
  using Chunks = lanes::RowChunks<Scalar, R, G>;
  // Groups of 8 or more threads read one row together: rows starting on 128-byte boundaries keep them free of bank
  // conflicts. Narrower groups read different rows at the same columns: a one-chunk stagger spreads them.
  static constexpr int tile_stride = strip_columns + (G >= 8 ? 0 : Chunks::scalars);
  static_assert(Tier::block_threads % G == 0, "groups tile the block");

  static constexpr int tile_bytes(int profile_rows) {
    return ((profile_rows * tile_stride * static_cast<int>(sizeof(Scalar)) + 15) / 16) * 16;
  }
  // What the tier keeps in shared memory (carries between ranks, the reduction); nothing for shuffling tiers.
  using TempStorage = typename Tier::template TempStorage<Right, Acc>;
  // The observer's per-thread state, reduced like the accumulator, in the same memory once the accumulator is done.
  using Seen = typename Observer::template State<P>;
  static constexpr bool reduces_seen = !std::is_empty_v<Seen>;
  using SeenStorage = typename Tier::template TempStorage<Right, Seen>;
  static constexpr int bytes_of(bool empty, int size) { return empty ? 0 : size; }
  static constexpr int temp_storage_bytes_acc = bytes_of(std::is_empty_v<TempStorage>, static_cast<int>(sizeof(TempStorage)));
  static constexpr int temp_storage_bytes_seen =
      reduces_seen ? bytes_of(std::is_empty_v<SeenStorage>, static_cast<int>(sizeof(SeenStorage))) : 0;
  static constexpr int temp_storage_bytes =
      temp_storage_bytes_acc > temp_storage_bytes_seen ? temp_storage_bytes_acc : temp_storage_bytes_seen;
  static constexpr int shared_bytes(int profile_rows) { return tile_bytes(profile_rows) + temp_storage_bytes; }

  // The block's dynamic shared memory: the profile tile, whose size depends on the profile's rows, then the tier's
  // TempStorage.
  struct SharedStorage {
    Scalar* tile;
    TempStorage& temp;
    CUDP_DEVICE SharedStorage(unsigned char* base, int profile_rows)
        : tile(reinterpret_cast<Scalar*>(base)), temp(*reinterpret_cast<TempStorage*>(base + tile_bytes(profile_rows))) {}
    CUDP_DEVICE SeenStorage& seen() const { return *reinterpret_cast<SeenStorage*>(&temp); }
  };
};

template <class P, class Tier, class Observer = ScoreOnly>
__global__ void __launch_bounds__(Tier::block_threads)
    align_tasks_kernel(P p, TaskList<P::Lane::width> tasks, ProfileView<typename P::Lane::scalar> profile, int m,
                       typename P::Right* boundary, std::int32_t* scores, Observer observer = {}) {
  using WF = Wavefront<P, Tier, Observer>;
  using L = typename WF::L;
  using Word = typename WF::Word;
  using Scalar = typename WF::Scalar;
  using Right = typename WF::Right;
  constexpr int W = WF::W, G = WF::G, R = WF::R;

  extern __shared__ __align__(16) unsigned char shared[];
  const typename WF::SharedStorage storage(shared, profile.rows);
  Scalar* tile = storage.tile;

  const int rank = threadIdx.x % G;
  // Tasks come sorted by length, shortest first, and blocks start roughly in index order: the first blocks take the
  // last (longest) tasks, so that no long target starts when the rest of the GPU is already idle.
  const int block = gridDim.x - 1 - blockIdx.x;
  const int task = block * (Tier::block_threads / G) + threadIdx.x / G;
  const bool live = task < tasks.count;

  int lengths[W];
  CUDP_UNROLL
  for (int k = 0; k < W; ++k) lengths[k] = live ? tasks.lengths[task * W + k] : 0;
  const int rows = live ? tasks.rows[task] : 0;
  // Groups smaller than a warp step together: their shuffles need every thread of the warp.
  int warp_rows = rows;
  if constexpr (G > 1 && G < 32) warp_rows = __reduce_max_sync(0xffffffffu, rows);
  const std::uint8_t* stream = live ? tasks.residues + tasks.offsets[task] : nullptr;
  Right* edge = live && boundary ? boundary + tasks.boundary_offsets[task] : nullptr;

  const int strips = (m + WF::strip_columns - 1) / WF::strip_columns;
  typename P::Acc acc = p.init();
  typename WF::Seen seen = observer.start(p);
  ColumnTile<P, R> columns;

  for (int strip = 0; strip < strips; ++strip) {
    const int first_column = strip * WF::strip_columns;  // 0-based
    __syncthreads();
    constexpr int chunks_per_row = WF::strip_columns / WF::Chunks::scalars;
    for (int idx = threadIdx.x; idx < profile.rows * chunks_per_row; idx += Tier::block_threads) {
      const int row = idx / chunks_per_row, chunk = idx % chunks_per_row;
      const int owner = chunk / WF::Chunks::count, nth = chunk % WF::Chunks::count;
      const Scalar* src = profile.data + static_cast<std::size_t>(row) * profile.stride + first_column +
                          chunk * WF::Chunks::scalars;
      WF::Chunks::copy(src, tile + row * WF::tile_stride + (nth * G + owner) * WF::Chunks::scalars);
    }
    __syncthreads();

    const int j_first = first_column + rank * R + 1;
    columns.reset(p, j_first);
    Word diag_next = p.top(j_first - 1).h;
    Right carry = p.left(1);
    const bool last_strip = strip + 1 == strips;
    const int steps = warp_rows > 0 ? warp_rows + G - 1 : 0;
    // Each row's residue codes (and, for the first thread, its carry from the previous strip) are fetched one row
    // ahead: every thread of a group waits for the slowest at the next exchange, so no load may sit on that path.
    const bool reads_edge = rank == 0 && strip > 0;
    unsigned codes = rows > 0 ? load_row_codes<W>(stream) : 0u;
    Right edge_in{};
    if (reads_edge && rows > 0) edge_in = edge[1];
    for (int step = 0; step < steps; ++step) {
      const int i = step - rank + 1;
      Right in = Tier::pass_right(carry, rank, step, storage.temp);
      if (i >= 1 && i <= rows) {
        if (rank == 0) in = strip == 0 ? p.left(i) : edge_in;
        Word diag = diag_next;
        diag_next = in.h;
        const Scalar* score_rows[W];
        CUDP_UNROLL
        for (int k = 0; k < W; ++k) score_rows[k] = tile + ((codes >> (8 * k)) & 0xffu) * WF::tile_stride + rank * WF::Chunks::scalars;
        if (i < rows) {
          codes = load_row_codes<W>(stream + static_cast<std::size_t>(i) * W);
          if (reads_edge) edge_in = edge[i + 1];
        }
        Word score[R];
        L::template gather<R, G>(score_rows, score);
        carry = columns.step(p, in, diag, score, acc, i, j_first, m, lengths);
        if constexpr (Observer::observes_cells) observer.row(p, seen, columns.col, i, j_first, m, lengths, tasks.targets + task * W);
        if (rank == G - 1 && !last_strip) edge[i] = carry;
      }
    }
  }

  acc = Tier::reduce(acc, rank, storage.temp, [&p](const typename P::Acc& a, const typename P::Acc& b) { return p.merge(a, b); });
  if constexpr (WF::reduces_seen)
    seen = Tier::reduce(seen, rank, storage.seen(), [&observer](const typename WF::Seen& a, const typename WF::Seen& b) {
      return observer.template merge<P>(a, b);
    });
  if (live && rank == 0) {
    // Looked up here rather than kept across the rows: one more live pointer there cost the 48-column warp shapes
    // 15 registers, and with them a block per SM.
    const std::uint32_t* targets = tasks.targets + task * W;
    Word result = p.result(acc);
    CUDP_UNROLL
    for (int k = 0; k < W; ++k)
      if (lengths[k] > 0) scores[targets[k]] = L::extract(result, k);
    observer.finish(p, seen, targets, lengths);
  }
}

}  // namespace cudp::tiers
