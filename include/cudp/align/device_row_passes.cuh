#pragma once
// The device backend of one level of a linear-space alignment: every RowPass of the level (row_passes.hpp) on the
// GPU, with the same results as run_row_passes_on_host, bit for bit. The few huge passes of the top levels and the
// hundreds of thousands of small ones of the deep levels go through one kernel.
//
// Work unit: a strip. A pass's columns are cut into strips of 32 * R columns; one warp sweeps a strip from row 1 to
// the pass's last row as a wavefront (lane r works on row q - r + 1 at step q, the Right carry moving one lane right
// per step by a shuffle, the Down carries of the lane's R columns in registers: tiers::ColumnTile, as in every other
// tier). R is chosen per pass from a small menu (StripShapes): the narrowest strip that holds the whole pass, so that
// a 30-column box does not idle most of a warp; passes wider than the widest shape get several strips.
//
// Scheduling: one persistent kernel. Warps take strips in ticket order from an atomic counter; a pass's strips have
// consecutive tickets, left to right, and passes come longest first. Strip b hands its right edge (the Right carry
// of column 32R(b+1) for every row) to strip b+1 through the pass's column buffer (rows + 1 carries), and publishes
// how many rows it has written in a progress counter (every kPublishRows rows, release store); strip b+1's lane 0
// waits on that counter (acquire load) before reading a row's carry. A strip only ever waits on a strip with a
// smaller ticket, and a ticket is only taken by a running warp, so the kernel cannot deadlock whatever the grid.
// The buffer is reused in place: row i of it is written by strip b-1, read by strip b, then overwritten by strip b
// with its own edge, in that order. The diagonal input of a strip's first column, H(i-1, 32Rb), is the h of the
// carry lane 0 read for row i-1 (kept in a register), so no corner value has to survive in memory. This is the
// tile scheme with tiles of a whole strip's height: a warp never restarts its wavefront (no ramp per tile) and the
// only border memory is the column buffer, O(n) per pass, plus the output row, O(m).
//
// Scores: no query profile. Each lane keeps the query codes of its R columns; the substitution matrix (at most
// kMaxCodes x kMaxCodes, tabulated through P::substitution) sits in shared memory, and a row's scores are R shared
// loads from the row of the target residue.
//
// The kernel is generic in the wavefront policy P (it only moves Down/Right carries and calls top/left/diagonal/
// cell through ColumnTile); a pass selects one of two policy objects (GapCosts with left_gap_continues off or on).
// Column 0 of each last row is row_passes.hpp's border_column, run per pass by a second, one-thread-per-pass kernel.
//
// Device memory of a run (DeviceRowPasses::bytes_of): per pass 8 bytes per row of column buffer when it has more
// than one strip, 8 bytes per column for the output row and for each checkpoint row (RowPass::save_every: written
// by the strips as they pass the row, into host output or, for a checkpoint walk, into rows kept on the device
// until the walk's windows are crossed with them: RowPassOutput::kept), and about 64 bytes of descriptor,
// ticket and progress entries; the class itself holds 4 bytes per residue pair position (query and target, forward
// and reversed). A level whose buffers do not fit the budget (most of cudaMemGetInfo's free memory, or
// set_memory_budget) runs in waves of passes. Asked for crossings (run_crossings), it keeps the whole level's rows on
// the device, 8 bytes per column of each pass, and the crossing rule runs there, one warp per box.
//
// Best cells (find_best_cells, best_cells.hpp): the same kernel under a Gotoh mode, each lane tracking its best
// (H, key) instead of writing rows, each strip reducing its lanes by shuffles into one answer that the host reduces
// per pass; only the column buffers are needed.
#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "../engine/cuda_check.cuh"
#include "../engine/device_buffer.cuh"
#include "../recurrences/concepts.hpp"
#include "../tiers/column_tile.hpp"
#include "../tiers/exchange.cuh"
#include "best_cells.hpp"
#include "row_passes.hpp"

namespace cudp::align {

// The strip widths (columns per lane) a level may use, narrowest first; each pass takes the narrowest whose 32 * R
// columns hold it, or the widest. The widest decides the long passes: on an H100, two 1 Mbp x 1 Mbp passes ran at
// 0.89 TCUPS with strips of 8 columns per lane, 1.2-1.4 with 16 and 1.9 with 32 (bench/RESULTS.md).
template <int... Rs>
struct StripShapes {
  static constexpr int count = sizeof...(Rs);
  static constexpr std::array<int, sizeof...(Rs)> widths{Rs...};
};
using DefaultStripShapes = StripShapes<1, 2, 4, 8, 16, 32>;

namespace detail {

constexpr int kRowPassBlockThreads = 128;
constexpr int kStripLanes = 32;  // a strip is one warp wide
constexpr int kMaxCodes = 32;    // substitution matrices up to 32 x 32
constexpr int kPublishRows = 32;  // a strip publishes its progress every this many rows (and at its last row)

// One pass as the kernels see it.
struct DevicePass {
  const std::uint8_t* query = nullptr;   // residue of column 1
  const std::uint8_t* target = nullptr;  // residue of row 1
  std::int64_t column_buffer = 0;        // its rows + 1 Right carries start here (passes of several strips)
  std::int64_t out = 0;                  // its row's columns + 1 entries start here in h / pending_f
  std::int64_t saved = 0;                // its checkpoint rows start here in saved_h / saved_pending_f
  std::int32_t save_every = 0;           // RowPass::save_every
  std::int32_t columns = 0, rows = 0;
  std::int32_t first_ticket = 0;         // the ticket of its strip 0
  std::int32_t progress = 0;             // its strips' progress counters start here
  std::uint8_t variant = 0;              // 1: the left border continues a gap (GapCosts::left_gap_continues)
  std::uint8_t shape = 0;                // index of its R in the StripShapes
};

template <class T>
struct Pair {
  T v[2];
};

// Gotoh policy Q whose accumulator is the running maximum of H over the cells a lane computes (the local cell keeps
// it already; the others' cells leave it alone): what a best-cell pass over every cell compares each row with.
template <class Q>
struct RunningMax : Q {
  using Q::Q;
  CUDP_HD void cell(typename Q::Down& up, typename Q::Right& left, typename Q::Word from_diag,
                    typename Q::Acc& acc) const {
    Q::cell(up, left, from_diag, acc);
    if constexpr (!Q::local) acc.best = Q::Lane::max(acc.best, up.h);
  }
};

// What a strip hands back: its pass's rows (the Myers-Miller passes), or the best cell it saw (best_cells.hpp).
enum class Answer : std::uint8_t { Rows, BestAnywhere, BestEdges };

// A strip's best cell: CellKey's (H, key), key CellKey::kNone when the strip saw no cell.
struct DeviceBestCell {
  std::int64_t key;
  std::int32_t h;
};

CUDP_DEVICE int load_acquire(const int* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
#else
  const int v = *static_cast<const volatile int*>(p);
  __threadfence();
  return v;
#endif
}

CUDP_DEVICE void store_release(int* p, int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
  __threadfence();
  *static_cast<volatile int*>(p) = v;
#endif
}

// Waits until the counter reaches `need`; returns what it read.
CUDP_DEVICE int wait_for(const int* counter, int need) {
  int seen = load_acquire(counter);
  while (seen < need) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __nanosleep(32);
#endif
    seen = load_acquire(counter);
  }
  return seen;
}

// Two events around work on a stream: its device time.
class StreamTimer {
 public:
  StreamTimer() {
    CUDP_CUDA_CHECK(cudaEventCreate(&start_));
    if (cudaEventCreate(&stop_) != cudaSuccess) {
      cudaEventDestroy(start_);
      throw engine::CudaError("cudaEventCreate failed");
    }
  }
  StreamTimer(const StreamTimer&) = delete;
  StreamTimer& operator=(const StreamTimer&) = delete;
  ~StreamTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start(cudaStream_t stream) { CUDP_CUDA_CHECK(cudaEventRecord(start_, stream)); }
  void stop(cudaStream_t stream) { CUDP_CUDA_CHECK(cudaEventRecord(stop_, stream)); }
  // Milliseconds from start to stop, once the stream has passed stop.
  float milliseconds() const {
    float ms = 0;
    CUDP_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// An event the host waits on: the point of a stream where a piece of work's answers have arrived.
class StreamEvent {
 public:
  StreamEvent() { CUDP_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  StreamEvent(const StreamEvent&) = delete;
  StreamEvent& operator=(const StreamEvent&) = delete;
  ~StreamEvent() { cudaEventDestroy(event_); }
  void record(cudaStream_t stream) { CUDP_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { CUDP_CUDA_CHECK(cudaEventSynchronize(event_)); }
  // Whether the stream has passed the event, without waiting; throws if the work before it failed.
  bool passed() const {
    const cudaError_t status = cudaEventQuery(event_);
    if (status == cudaErrorNotReady) return false;
    CUDP_CUDA_CHECK(status);
    return true;
  }
  // Work queued on `stream` after this call starts once the event's stream has passed the event.
  void hold(cudaStream_t stream) const { CUDP_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0)); }

 private:
  cudaEvent_t event_ = nullptr;
};

// Blocks of `kernel` (of block_threads threads) that fit on the current device at once: a persistent grid.
template <class Kernel>
int resident_blocks_of(Kernel kernel, int block_threads) {
  int device = 0, sms = 0, per_sm = 0;
  CUDP_CUDA_CHECK(cudaGetDevice(&device));
  CUDP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, 0));
  return std::max(1, sms * std::max(1, per_sm));
}

// The side of the substitution table a pair needs in shared memory: its highest residue code + 1 (at least 1).
// `who` names the caller in the error for codes past kMaxCodes - 1.
inline int matrix_side(const char* who, const SequencePair& pair) {
  int top = -1;
  for (std::int64_t k = 0; k < pair.query_length; ++k) top = std::max<int>(top, pair.query[k]);
  for (std::int64_t k = 0; k < pair.target_length; ++k) top = std::max<int>(top, pair.target[k]);
  if (top + 1 > kMaxCodes)
    throw std::invalid_argument(std::string(who) + ": residue codes up to " + std::to_string(kMaxCodes - 1) +
                                ", found " + std::to_string(top));
  return std::max(top + 1, 1);
}

// The codes x codes substitution table that the kernels hold in shared memory, row t (target code), column q:
// P::substitution(gaps, matrix, t, q).
template <class P, class Matrix>
void tabulate_substitutions(const Matrix& matrix, int codes, const recurrences::GapCosts& gaps,
                            std::vector<typename P::Word>& out) {
  out.resize(static_cast<std::size_t>(codes) * codes);
  for (int t = 0; t < codes; ++t)
    for (int q = 0; q < codes; ++q) out[static_cast<std::size_t>(t) * codes + q] = P::substitution(gaps, matrix, t, q);
}

// The size class of work of `cells` cells, in powers of two: 63 - floor(log2(cells + 1)), 0 for the longest.
inline int size_class(std::uint64_t cells) { return __builtin_clzll(cells + 1); }

// Indices 0 .. count - 1 by decreasing cells_of(k), in size classes (a stable counting sort keeps the given order
// within a class): work of a persistent grid, longest first, so that the last tickets are the short ones.
template <class CellsOf>
std::vector<std::size_t> longest_first(std::size_t count, CellsOf cells_of) {
  std::array<std::size_t, 65> start{};
  for (std::size_t k = 0; k < count; ++k) ++start[size_class(cells_of(k)) + 1];
  for (int c = 1; c < 65; ++c) start[c] += start[c - 1];
  std::vector<std::size_t> order(count);
  for (std::size_t k = 0; k < count; ++k) order[start[size_class(cells_of(k))]++] = k;
  return order;
}

// Strip `strip` of `pass`, by one warp (every lane calls it). `edges` is the pass's column buffer, `progress` its
// strips' counters, `scores` the codes x codes matrix in shared memory.
template <class P, int R, bool Saves, Answer A>
CUDP_DEVICE void run_strip(const P& p, const DevicePass& pass, int strip, const typename P::Word* scores, int codes,
                           typename P::Right* edges, int* progress, RowPassOutput out, DeviceBestCell* best_out,
                           int rank) {
  using Word = typename P::Word;
  using Right = typename P::Right;
  constexpr int G = kStripLanes;
  const int first = strip * G * R;  // columns before the strip
  const int width = pass.columns - first < G * R ? pass.columns - first : G * R;
  const int active = (width + R - 1) / R;  // lanes holding columns of the pass
  const bool has_next = first + G * R < pass.columns;
  const int rows = pass.rows;
  const int j_first = first + rank * R + 1;

  tiers::ColumnTile<P, R> tile;
  tile.reset(p, j_first);
  int query_code[R];  // columns past the pass score as code 0: they are never read back
  CUDP_UNROLL
  for (int r = 0; r < R; ++r) query_code[r] = j_first + r <= pass.columns ? pass.query[j_first + r - 1] : 0;

  Word diag_next = p.top(j_first - 1).h;
  Right carry = p.left(0);
  typename P::Acc acc = p.init();
  const int* ready_in = strip > 0 ? progress + strip - 1 : nullptr;
  int seen = 0;  // rows of the left strip known to be written
  Right edge_in{};
  if (rank == 0 && strip > 0 && rows > 0) {
    seen = wait_for(ready_in, 1);
    edge_in = edges[1];
  }
  int code = rows > 0 ? pass.target[0] : 0;  // the target residue of the lane's current row
  // The lane's next checkpoint row (RowPass::save_every): past the last row when the pass saves none.
  int next_saved = Saves && pass.save_every > 0 && pass.save_every < rows ? pass.save_every : rows + 1;
  const int steps = rows > 0 ? rows + active - 1 : 0;
  std::int32_t best = INT32_MIN;  // the lane's best cell (A != Rows)
  std::int64_t best_key = CellKey::kNone;
  const bool holds_last_column = j_first <= pass.columns && pass.columns < j_first + R;
  auto h_of = [](const typename P::Down& d) { return reinterpret_cast<const Word*>(&d)[0]; };
  auto consider = [&](std::int32_t h, std::int64_t key) {
    if (CellKey::before(h, key, best, best_key)) best = h, best_key = key;
  };
  for (int step = 0; step < steps; ++step) {
    const int i = step - rank + 1;
    Right in = tiers::detail::shuffle_up<G>(carry);
    if (i >= 1 && i <= rows && rank < active) {
      if (rank == 0) in = strip == 0 ? p.left(i) : edge_in;
      const Word diag = diag_next;
      diag_next = in.h;
      const Word* score_row = scores + code * codes;
      // The next row's residue and left carry are fetched a row ahead, off the path to the next shuffle.
      if (i < rows) {
        code = pass.target[i];
        if (rank == 0 && strip > 0) {
          if (seen < i + 1) seen = wait_for(ready_in, i + 1);
          edge_in = edges[i + 1];
        }
      }
      Word score[R];
      CUDP_UNROLL
      for (int r = 0; r < R; ++r) score[r] = score_row[query_code[r]];
      carry = tile.advance(p, in, diag, score, acc);
      if constexpr (A == Answer::BestAnywhere) {
        // Rows come in order, so only a row maximum above the lane's best can replace it, at its first column. The
        // accumulator holds the lane's running maximum (RunningMax), so most rows cost one comparison; a lane whose
        // columns pass the box's end (they compute unread values) takes the row's maximum over its own columns.
        Word row_best;
        if (j_first + R - 1 <= pass.columns) {
          row_best = acc.best;
        } else {
          row_best = h_of(tile.col[0]);
          CUDP_UNROLL
          for (int r = 1; r + 1 < R; r += 2) {
            const Word a = j_first + r <= pass.columns ? h_of(tile.col[r]) : row_best;
            const Word b = j_first + r + 1 <= pass.columns ? h_of(tile.col[r + 1]) : row_best;
            row_best = P::Lane::max3(row_best, a, b);
          }
        }
        if (best_key == CellKey::kNone || row_best > best) {
          int at = R;
          CUDP_UNROLL
          for (int r = R - 1; r >= 0; --r)
            if (j_first + r <= pass.columns && h_of(tile.col[r]) == row_best) at = r;
          best = row_best;
          best_key = CellKey::anywhere(i, j_first + at);
        }
      } else if constexpr (A == Answer::BestEdges) {
        if (i == rows) {
          CUDP_UNROLL
          for (int r = 0; r < R; ++r)
            if (j_first + r <= pass.columns) consider(h_of(tile.col[r]), CellKey::last_row(j_first + r));
        } else if (holds_last_column) {
          CUDP_UNROLL
          for (int r = 0; r < R; ++r)
            if (j_first + r == pass.columns) consider(h_of(tile.col[r]), CellKey::last_column(i));
        }
      }
      if (Saves && i == next_saved) {
        const std::int64_t at = pass.saved + (i / pass.save_every - 1) * (static_cast<std::int64_t>(pass.columns) + 1);
        CUDP_UNROLL
        for (int r = 0; r < R; ++r) {
          if (j_first + r > pass.columns) break;
          const Word* words = reinterpret_cast<const Word*>(&tile.col[r]);
          out.saved_h[at + j_first + r] = words[0];
          out.saved_pending_f[at + j_first + r] = words[1];
        }
        next_saved = i + pass.save_every < rows ? i + pass.save_every : rows + 1;
      }
      if (has_next && rank == G - 1) {
        edges[i] = carry;
        if (i % kPublishRows == 0 || i == rows) store_release(progress + strip, i);
      }
    }
  }

  if constexpr (A != Answer::Rows) {
    // The strip's best: the least (H, key) in CellKey's order among its lanes.
    CUDP_UNROLL
    for (int offset = G / 2; offset > 0; offset /= 2) {
      const std::int32_t other = __shfl_xor_sync(0xffffffffu, best, offset);
      const std::int64_t other_key = __shfl_xor_sync(0xffffffffu, best_key, offset);
      consider(other, other_key);
    }
    if (rank == 0) best_out[pass.first_ticket + strip] = DeviceBestCell{best_key, best};
    return;
  }
  // The tile holds the last row now (row 0, p.top, when the pass has no rows).
  if (rank < active) {
    CUDP_UNROLL
    for (int r = 0; r < R; ++r) {
      const int j = j_first + r;
      if (j > pass.columns) break;
      const Word* words = reinterpret_cast<const Word*>(&tile.col[r]);
      out.h[pass.out + j] = words[0];
      out.pending_f[pass.out + j] = words[1];
    }
  }
}

// Saves: the variant that also writes checkpoint rows, launched only for waves with some. Its stores would cost the
// kernel registers (154 against 128 for strips of 32 columns) and with them a block per SM: then the 1954 strips of
// two 1 Mbp half passes no longer all fit at once, and the last ones start only when the first end (twice the time).
// Both variants are held to four blocks per SM.
template <class P, bool Saves, Answer A, int... Rs>
__global__ void __launch_bounds__(kRowPassBlockThreads, 4)
    row_pass_strips_kernel(Pair<P> policies, StripShapes<Rs...>, const DevicePass* passes, const int* ticket_pass,
                           int tickets, int* next_ticket, typename P::Right* edges, int* progress,
                           const typename P::Word* matrix, int codes, RowPassOutput out, DeviceBestCell* best) {
  using Word = typename P::Word;
  __shared__ Word scores[kMaxCodes * kMaxCodes];
  for (int k = threadIdx.x; k < codes * codes; k += blockDim.x) scores[k] = matrix[k];
  __syncthreads();
  const int rank = threadIdx.x % kStripLanes;
  // Each warp on its own from here: no block barrier below.
  while (true) {
    int ticket = 0;
    if (rank == 0) ticket = atomicAdd(next_ticket, 1);
    ticket = __shfl_sync(0xffffffffu, ticket, 0);
    if (ticket >= tickets) break;
    const DevicePass pass = passes[ticket_pass[ticket]];
    const int strip = ticket - pass.first_ticket;
    const P p = pass.variant ? policies.v[1] : policies.v[0];
    int k = 0;
    ((pass.shape == k++ ? run_strip<P, Rs, Saves, A>(p, pass, strip, scores, codes, edges + pass.column_buffer,
                                              progress + pass.progress, out, best, rank)
                        : void()),
     ...);
  }
}

// Column 0 of every pass's last row and checkpoint rows, one thread per pass (a template only so that the header
// defines no kernel of its own in every translation unit).
template <class Gaps>
__global__ void row_pass_border_kernel(Pair<Gaps> gaps, const DevicePass* passes, int count,
                                       RowPassOutput out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  RowPass pass;
  pass.rows = passes[k].rows;
  pass.columns = passes[k].columns;
  pass.out = static_cast<std::size_t>(passes[k].out);
  pass.save_every = passes[k].save_every;
  pass.saved = static_cast<std::size_t>(passes[k].saved);
  const Gaps& g = passes[k].variant ? gaps.v[1] : gaps.v[0];
  border_column(pass, g, out);
  const RowPassOutput saved{out.saved_h, out.saved_pending_f};
  for (int c = 1, checkpoints = checkpoints_of(pass); c <= checkpoints; ++c)
    border_column(checkpoint_pass(pass, c), g, saved);
}

// to[k] = from[n - 1 - k] (a template only so that the header defines no kernel in every translation unit).
template <class T>
__global__ void reverse_kernel(const T* from, T* to, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    to[k] = from[n - 1 - k];
}

// One crossing asked for (RowPassOutput::midpoints): where its forward row starts (a level's row, or a kept
// checkpoint row) and where its reverse row starts in the level's rows.
struct DeviceCrossing {
  std::int64_t forward = 0, reverse = 0;
  std::int32_t columns = 0;
};

struct DeviceMidpoint {
  long long score = 0;
  std::int32_t column = 0, in_vertical_gap = 0;
  CrossingEntries entries;
};

// find_midpoint over every crossing, one warp per crossing: lane r takes columns r, r + 32, ..., and the warp keeps
// find_midpoint's choice among equals (the smaller column, at one column a split before a gap) by ordering equal
// scores by 2 column + in_gap. The forward rows are read from forward_h / forward_f, the reverse rows from h /
// pending_f. A template only so that the header defines no kernel in every translation unit.
template <class Gaps>
__global__ void crossing_kernel(const DeviceCrossing* boxes, long long count, const std::int32_t* forward_h,
                                const std::int32_t* forward_f, const std::int32_t* h, const std::int32_t* pending_f,
                                Gaps gaps, DeviceMidpoint* out) {
  const long long box = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kStripLanes;
  const int lane = threadIdx.x % kStripLanes;
  if (box >= count) return;  // whole warps: blocks hold whole warps
  const DeviceCrossing b = boxes[box];
  const long long gap_costs = gaps.open + 2LL * gaps.extend;
  long long best = LLONG_MIN;
  int key = INT_MAX;
  for (int j = lane; j <= b.columns; j += kStripLanes) {
    const std::int64_t down = b.forward + j, up = b.reverse + (b.columns - j);
    const long long split = static_cast<long long>(forward_h[down]) + h[up];
    const long long through_gap = static_cast<long long>(forward_f[down]) + pending_f[up] + gap_costs;
    if (split > best) best = split, key = 2 * j;
    if (through_gap > best) best = through_gap, key = 2 * j + 1;
  }
  for (int d = kStripLanes / 2; d > 0; d /= 2) {
    const long long other = __shfl_xor_sync(0xffffffffu, best, d);
    const int other_key = __shfl_xor_sync(0xffffffffu, key, d);
    if (other > best || (other == best && other_key < key)) best = other, key = other_key;
  }
  if (lane == 0) {
    const int j = key / 2;
    const std::int64_t down = b.forward + j, up = b.reverse + (b.columns - j);
    out[box] = DeviceMidpoint{best, j, key % 2, CrossingEntries{forward_h[down], forward_f[down], h[up], pending_f[up]}};
  }
}

}  // namespace detail

// A pair's forward buffers already on the device, for a second backend over the same pair (DeviceLeaves) to use
// instead of a copy of its own. Owned by whoever made them, which must outlive the user.
struct DeviceSequences {
  const std::uint8_t* query = nullptr;
  const std::uint8_t* target = nullptr;
  int codes = 0;  // the pair's matrix side (detail::matrix_side), found when the copy was made
};

// What the last run did.
struct RowPassRunStats {
  std::size_t passes = 0;
  std::size_t strips = 0;
  double cells = 0;           // sum of rows x columns
  int waves = 0;              // launches the level needed to fit the memory budget
  std::size_t device_bytes = 0;  // the largest wave's working memory (sequences not included)
  double kernel_ms = 0;       // the kernels, summed over waves
};

// Runs levels of row passes over one SequencePair on the current device. P is the wavefront policy (Global Gotoh
// in s32, what align uses; its Params must be GapCosts, its lane one int32 word: the rows come back as int32).
template <class P = GlobalS32, class Shapes = DefaultStripShapes>
class DeviceRowPasses;

template <class P, int... Rs>
class DeviceRowPasses<P, StripShapes<Rs...>> {
  static_assert(recurrences::check_wavefront_policy<P>());
  static_assert(std::is_same_v<typename P::Params, recurrences::GapCosts>, "passes are Gotoh boxes");
  static_assert(std::is_same_v<typename P::Word, std::int32_t> && P::Lane::width == 1, "one int32 score per word");
  static_assert(sizeof(typename P::Down) == 2 * sizeof(typename P::Word), "Down is (h, pending f)");
  using Shapes = StripShapes<Rs...>;
  using Right = typename P::Right;

 public:
  // Uploads the pair's forward buffers and reverses them on the device (host-to-device copies from pageable memory
  // ran at about 1.5 GB/s: half the bytes, half the time); `matrix(target_code, query_code)` is tabulated through
  // P::substitution for every code of the two sequences (at most 32 codes).
  template <class Matrix>
  DeviceRowPasses(const SequencePair& pair, const Matrix& matrix, cudaStream_t stream = 0)
      : stream_(stream), query_length_(pair.query_length), target_length_(pair.target_length) {
    codes_ = detail::matrix_side("DeviceRowPasses", pair);
    tabulate_ = [matrix, codes = codes_](const recurrences::GapCosts& gaps, std::vector<std::int32_t>& out) {
      detail::tabulate_substitutions<P>(matrix, codes, gaps, out);
    };
    const auto n = static_cast<std::size_t>(pair.query_length), t = static_cast<std::size_t>(pair.target_length);
    sequences_.reserve(2 * (n + t));
    upload_at(pair.query, 0, n);
    upload_at(pair.target, 2 * n, t);
    reverse_at(0, n, n);
    reverse_at(2 * n, 2 * n + t, t);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  // Runs every pass and writes its row into host memory, as run_row_passes_on_host does; with
  // host_out.midpoints, the crossings of the level's boxes or windows instead (run_crossings).
  void run(const std::vector<RowPass>& passes, recurrences::GapCosts gaps, RowPassOutput host_out) {
    if (host_out.midpoints) return run_crossings(passes, gaps, host_out);
    run_level(passes, gaps, host_out, false);
  }
  // The passes in pairs over the halves of boxes, or windows against kept rows (RowPassOutput::midpoints): their
  // rows stay in device memory (8 bytes per column of the level) and the crossing rule runs there, so that a level
  // hands back 16 bytes a box (48 with out.entries). With out.kept, the halves' checkpoint rows are kept on the
  // device (out.kept->on_runner), until a later call that keeps rows: the windows of a walk are crossed with them.
  void run_crossings(const std::vector<RowPass>& passes, recurrences::GapCosts gaps, RowPassOutput out) {
    check_midpoint_passes("DeviceRowPasses", passes, out.kept != nullptr);
    const bool windows = crosses_kept_rows(passes);
    if (windows && !out.kept->on_runner)
      throw std::invalid_argument("DeviceRowPasses: windows crossed with rows that the device did not keep");
    const std::size_t entries = row_entries(passes), count = windows ? passes.size() : passes.size() / 2;
    if (count == 0) return;
    level_h_.reserve(entries);
    level_f_.reserve(entries);
    RowPassOutput device_out{level_h_.get(), level_f_.get()};
    if (out.kept && !windows) {
      const std::size_t saved = saved_row_entries(passes);
      kept_h_.reserve(saved);
      kept_f_.reserve(saved);
      device_out.saved_h = kept_h_.get();
      device_out.saved_pending_f = kept_f_.get();
      out.kept->on_runner = true;
      out.kept->h.clear();
      out.kept->pending_f.clear();
    }
    run_level(passes, gaps, device_out, true);
    host_crossings_.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
      const RowPass& forward = passes[windows ? k : 2 * k];
      const RowPass& reverse = passes[windows ? k : 2 * k + 1];
      host_crossings_[k] = detail::DeviceCrossing{windows ? forward.kept_row : static_cast<std::int64_t>(forward.out),
                                                  static_cast<std::int64_t>(reverse.out), forward.columns};
    }
    crossings_.upload(host_crossings_, stream_);
    midpoints_.reserve(count);
    constexpr int boxes_per_block = detail::kRowPassBlockThreads / detail::kStripLanes;
    const auto blocks = static_cast<unsigned>((count + boxes_per_block - 1) / boxes_per_block);
    detail::crossing_kernel<recurrences::GapCosts><<<blocks, detail::kRowPassBlockThreads, 0, stream_>>>(
        crossings_.get(), static_cast<long long>(count), windows ? kept_h_.get() : level_h_.get(),
        windows ? kept_f_.get() : level_f_.get(), level_h_.get(), level_f_.get(), gaps, midpoints_.get());
    CUDP_CUDA_CHECK(cudaGetLastError());
    midpoints_host_.reserve(count);
    midpoints_.download(midpoints_host_.data(), count, stream_);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (std::size_t k = 0; k < count; ++k) {
      const detail::DeviceMidpoint& d = midpoints_host_.data()[k];
      out.midpoints[k] = Midpoint{static_cast<long>(d.score), d.column, d.in_vertical_gap != 0};
      if (out.entries) out.entries[k] = d.entries;
    }
  }
  // The same with `device_out` in device memory (h and pending_f indexed by RowPass::out, as on the host); returns
  // once the rows are written.
  void run_on_device(const std::vector<RowPass>& passes, recurrences::GapCosts gaps, RowPassOutput device_out) {
    run_level(passes, gaps, device_out, true);
  }
  // The best cell of every pass under Gotoh in `mode` (s32), as find_best_cells_on_host finds it (best_cells.hpp):
  // each strip reduces its lanes' best cells, and the host the strips of a pass. The substitution scores are P's.
  void find_best_cells(const std::vector<RowPass>& passes, recurrences::AlignMode mode, CellScope scope,
                       recurrences::GapCosts gaps, tiers::CellEnd* out) {
    using recurrences::AlignMode;
    using recurrences::Gotoh;
    gaps.left_gap_continues = false;
    auto run = [&](auto policy) {
      using Q = decltype(policy);
      if (scope == CellScope::Anywhere)
        run_level<detail::RunningMax<Q>, detail::Answer::BestAnywhere>(passes, gaps, {}, true, out);
      else
        run_level<Q, detail::Answer::BestEdges>(passes, gaps, {}, true, out);
    };
    const recurrences::ProblemShape shape{};
    switch (mode) {
      case AlignMode::Local: return run(Gotoh<AlignMode::Local, lanes::s32>(gaps, shape));
      case AlignMode::Global: return run(Gotoh<AlignMode::Global, lanes::s32>(gaps, shape));
      case AlignMode::SemiGlobal: return run(Gotoh<AlignMode::SemiGlobal, lanes::s32>(gaps, shape));
    }
  }

  // Device bytes a wave needs for `pass` besides the sequences (with its output row when `host_output`).
  static std::size_t bytes_of(const RowPass& pass, bool host_output) {
    const std::size_t strips = strips_of(pass.columns);
    std::size_t b = sizeof(detail::DevicePass) + strips * 2 * sizeof(int);
    if (strips > 1) b += (static_cast<std::size_t>(pass.rows) + 1) * sizeof(Right);
    if (host_output)
      b += (static_cast<std::size_t>(pass.columns) + 1) * 2 * sizeof(std::int32_t) * (1 + checkpoints_of(pass));
    return b;
  }
  // Its copies of the pair's forward buffers, for DeviceLeaves over the same pair.
  DeviceSequences forward_sequences() const {
    return {sequences_.get(), sequences_.get() + 2 * query_length_, codes_};
  }
  // Device bytes held for the sequences: one byte per residue of each of the four buffers.
  std::size_t sequence_bytes() const { return 2 * static_cast<std::size_t>(query_length_ + target_length_); }
  // 0 (the default): most of the device's free memory at each run.
  void set_memory_budget(std::size_t bytes) { budget_ = bytes; }
  const RowPassRunStats& last_run() const { return stats_; }

 private:
  // The narrowest shape up to `widest` (an index) that holds the pass, or `widest`.
  static int shape_of(int columns, int widest = Shapes::count - 1) {
    for (int k = 0; k < widest; ++k)
      if (columns <= detail::kStripLanes * Shapes::widths[k]) return k;
    return widest;
  }
  static std::size_t strips_of(int columns, int widest = Shapes::count - 1) {
    const int width = detail::kStripLanes * Shapes::widths[shape_of(columns, widest)];
    return static_cast<std::size_t>((columns + width - 1) / width);
  }
  // The widest shape a wave's passes take. A wave of fewer strips than the device has multiprocessors (a window of
  // the checkpoint search, or the last levels of one pair) is latency-bound, each strip walking its rows alone: there
  // strips of 16 columns per lane beat 32 by a fifth, and narrower ones lose again (bench/RESULTS.md, 2026-11-24:
  // one 38000 x 30000 pass in 19.3 ms with 32, 15.0 with 16, 15.4 with 8, 17.2 with 4, 24.6 with 2). Best-cell
  // waves take 16 at most as well: their tracking makes strips of 32 spill registers (bench/RESULTS.md, 2026-11-29:
  // a 1 Mbp global pass's best cell anywhere in 1.51 s with 32, 1.02 s with 16; semi-global edges 0.99 and 0.79 s).
  int widest_shape_of(const std::vector<RowPass>& passes, const std::vector<std::size_t>& order, std::size_t begin,
                      std::size_t end, bool best_cells) {
    std::size_t strips = 0;
    for (std::size_t k = begin; k < end; ++k) strips += strips_of(passes[order[k]].columns);
    if (multiprocessors_ == 0) {
      int device = 0;
      CUDP_CUDA_CHECK(cudaGetDevice(&device));
      CUDP_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device));
    }
    int widest = Shapes::count - 1;
    if (best_cells || strips < static_cast<std::size_t>(multiprocessors_))
      while (widest > 0 && Shapes::widths[widest] > 16) --widest;
    return widest;
  }

  // sequences_[to, to + n) = sequences_[from, from + n) reversed.
  void reverse_at(std::size_t from, std::size_t to, std::size_t n) {
    if (n == 0) return;
    constexpr unsigned threads = 256;
    const auto blocks = static_cast<unsigned>(std::min<std::size_t>((n + threads - 1) / threads, 65535u * 16));
    detail::reverse_kernel<std::uint8_t><<<blocks, threads, 0, stream_>>>(sequences_.get() + from,
                                                                          sequences_.get() + to, n);
    CUDP_CUDA_CHECK(cudaGetLastError());
  }
  void upload_at(const std::uint8_t* host, std::size_t at, std::size_t n) {
    if (n) CUDP_CUDA_CHECK(cudaMemcpyAsync(sequences_.get() + at, host, n, cudaMemcpyHostToDevice, stream_));
  }

  std::size_t budget() const {
    if (budget_) return budget_;
    std::size_t free = 0, total = 0;
    CUDP_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    // Buffers this object already holds are reused; keep a margin for the runtime.
    const std::size_t held = passes_.capacity() * sizeof(detail::DevicePass) + tickets_.capacity() * sizeof(int) +
                             progress_.capacity() * sizeof(int) + edges_.capacity() * sizeof(Right) +
                             (out_h_.capacity() + out_f_.capacity()) * sizeof(std::int32_t);
    return (free + held) / 10 * 8;
  }

  // Q: the wavefront policy of this level (P, or a Gotoh mode for best cells); A: what its strips hand back, rows
  // into `out`, or best cells into `best` (one a pass).
  template <class Q = P, detail::Answer A = detail::Answer::Rows>
  void run_level(const std::vector<RowPass>& passes, recurrences::GapCosts gaps, RowPassOutput out, bool on_device,
                 tiers::CellEnd* best = nullptr) {
    static_assert(sizeof(typename Q::Right) == sizeof(Right), "the column buffer holds Q's carries");
    stats_ = RowPassRunStats{};
    stats_.passes = passes.size();
    if (passes.empty()) return;
    const bool host_output = !on_device;
    for (const RowPass& pass : passes) {
      const std::int64_t q_len = pass.query_begin + pass.columns, t_len = pass.target_begin + pass.rows;
      if (pass.columns < 0 || pass.rows < 0 || pass.query_begin < 0 || pass.target_begin < 0 || q_len > query_length_ ||
          t_len > target_length_)
        throw std::out_of_range("DeviceRowPasses: a pass reaches past its sequences");
    }

    const std::vector<std::size_t> order = detail::longest_first(
        passes.size(), [&](std::size_t k) { return static_cast<std::uint64_t>(passes[k].rows) * passes[k].columns; });

    tabulate_(gaps, matrix_host_);
    matrix_.upload(matrix_host_, stream_);
    recurrences::GapCosts plain = gaps, continued = gaps;
    plain.left_gap_continues = false;
    continued.left_gap_continues = true;
    const detail::Pair<Q> policies{{Q(plain, recurrences::ProblemShape{}), Q(continued, recurrences::ProblemShape{})}};
    const detail::Pair<recurrences::GapCosts> gap_pair{{plain, continued}};

    const std::size_t limit = budget();
    detail::StreamTimer timer;

    std::size_t begin = 0;
    while (begin < passes.size()) {
      std::size_t end = begin, bytes = 0;
      while (end < passes.size()) {
        const std::size_t b = bytes_of(passes[order[end]], host_output);
        if (end > begin && bytes + b > limit) break;
        if (b > limit)
          throw engine::CudaError("DeviceRowPasses: one pass needs " + std::to_string(b) + " device bytes, over the budget of " +
                                  std::to_string(limit));
        bytes += b;
        ++end;
      }
      run_wave<Q, A>(passes, order, begin, end, policies, gap_pair, out, on_device, best, timer);
      stats_.device_bytes = std::max(stats_.device_bytes, bytes);
      ++stats_.waves;
      begin = end;
    }
  }

  template <class Q, detail::Answer A>
  void run_wave(const std::vector<RowPass>& passes, const std::vector<std::size_t>& order, std::size_t begin,
                std::size_t end, const detail::Pair<Q>& policies, const detail::Pair<recurrences::GapCosts>& gap_pair,
                RowPassOutput out, bool on_device, tiers::CellEnd* best, detail::StreamTimer& timer) {
    constexpr bool rows = A == detail::Answer::Rows;
    const std::size_t count = end - begin;
    host_passes_.resize(count);
    host_tickets_.clear();
    std::int64_t edge_entries = 0, out_entries = 0, saved_entries = 0;
    int progress_entries = 0;
    const std::uint8_t* query = sequences_.get();
    const std::uint8_t* query_reversed = query + query_length_;
    const std::uint8_t* target = query + 2 * query_length_;
    const std::uint8_t* target_reversed = target + target_length_;
    const int widest = widest_shape_of(passes, order, begin, end, !rows);
    for (std::size_t k = 0; k < count; ++k) {
      const RowPass& pass = passes[order[begin + k]];
      detail::DevicePass& d = host_passes_[k];
      d.query = (pass.reversed ? query_reversed : query) + pass.query_begin;
      d.target = (pass.reversed ? target_reversed : target) + pass.target_begin;
      d.columns = pass.columns;
      d.rows = pass.rows;
      d.variant = pass.left_gap_continues ? 1 : 0;
      d.shape = static_cast<std::uint8_t>(shape_of(pass.columns, widest));
      const std::size_t strips = strips_of(pass.columns, widest);
      if (host_tickets_.size() + strips > static_cast<std::size_t>(INT32_MAX))
        throw std::length_error("DeviceRowPasses: more than 2^31 strips in one wave");
      d.first_ticket = static_cast<std::int32_t>(host_tickets_.size());
      host_tickets_.insert(host_tickets_.end(), strips, static_cast<int>(k));
      d.progress = progress_entries;
      progress_entries += static_cast<int>(strips);
      d.column_buffer = edge_entries;
      if (strips > 1) edge_entries += static_cast<std::int64_t>(pass.rows) + 1;
      d.out = on_device ? static_cast<std::int64_t>(pass.out) : out_entries;
      out_entries += static_cast<std::int64_t>(pass.columns) + 1;
      d.save_every = pass.save_every;
      d.saved = on_device ? static_cast<std::int64_t>(pass.saved) : saved_entries;
      saved_entries += static_cast<std::int64_t>(checkpoints_of(pass)) * (pass.columns + 1);
      stats_.cells += static_cast<double>(pass.rows) * pass.columns;
    }
    const int tickets = static_cast<int>(host_tickets_.size());
    stats_.strips += static_cast<std::size_t>(tickets);

    passes_.upload(host_passes_, stream_);
    tickets_.upload(host_tickets_, stream_);
    progress_.reserve(static_cast<std::size_t>(progress_entries) + 1);  // the last entry is the ticket counter
    CUDP_CUDA_CHECK(cudaMemsetAsync(progress_.get(), 0, (static_cast<std::size_t>(progress_entries) + 1) * sizeof(int), stream_));
    edges_.reserve(static_cast<std::size_t>(edge_entries));
    RowPassOutput device_out = out;
    if (!on_device) {
      out_h_.reserve(static_cast<std::size_t>(out_entries + saved_entries));
      out_f_.reserve(static_cast<std::size_t>(out_entries + saved_entries));
      device_out = RowPassOutput{out_h_.get(), out_f_.get(), out_h_.get() + out_entries, out_f_.get() + out_entries};
    }

    if (!rows) strip_best_.reserve(static_cast<std::size_t>(tickets));

    timer.start(stream_);
    const int border_blocks = static_cast<int>((count + 127) / 128);
    if (rows) {
      detail::row_pass_border_kernel<recurrences::GapCosts><<<border_blocks, 128, 0, stream_>>>(
          gap_pair, passes_.get(), static_cast<int>(count), device_out);
      CUDP_CUDA_CHECK(cudaGetLastError());
    }
    if (tickets > 0) {
      using detail::Answer;
      auto launch = [&](auto kernel, int& resident) {
        if (resident == 0) resident = detail::resident_blocks_of(kernel, detail::kRowPassBlockThreads);
        constexpr int warps_per_block = detail::kRowPassBlockThreads / detail::kStripLanes;
        const int blocks = std::min((tickets + warps_per_block - 1) / warps_per_block, resident);
        kernel<<<blocks, detail::kRowPassBlockThreads, 0, stream_>>>(
            policies, Shapes{}, passes_.get(), tickets_.get(), tickets, progress_.get() + progress_entries,
            reinterpret_cast<typename Q::Right*>(edges_.get()), progress_.get(), matrix_.get(), codes_, device_out,
            strip_best_.get());
      };
      if constexpr (!rows)
        launch(detail::row_pass_strips_kernel<Q, false, A, Rs...>,
               resident_best_blocks_[static_cast<int>(Q::mode)][A == Answer::BestEdges]);
      else if (saved_entries > 0)
        launch(detail::row_pass_strips_kernel<Q, true, Answer::Rows, Rs...>, resident_saving_blocks_);
      else
        launch(detail::row_pass_strips_kernel<Q, false, Answer::Rows, Rs...>, resident_blocks_);
      CUDP_CUDA_CHECK(cudaGetLastError());
    }
    timer.stop(stream_);
    if (!rows && tickets > 0) {
      host_strip_best_.resize(static_cast<std::size_t>(tickets));
      strip_best_.download(host_strip_best_.data(), host_strip_best_.size(), stream_);
    }

    if (!on_device) {
      host_h_.resize(static_cast<std::size_t>(out_entries));
      host_f_.resize(static_cast<std::size_t>(out_entries));
      out_h_.download(host_h_.data(), host_h_.size(), stream_);
      out_f_.download(host_f_.data(), host_f_.size(), stream_);
      // Checkpoint rows (few passes, many rows) go straight to where they are asked for, page-locked for the copy:
      // into pageable memory they crossed at about 1.5 GB/s.
      for (std::size_t k = 0; k < count; ++k) {
        const RowPass& pass = passes[order[begin + k]];
        const std::size_t saved_n = (static_cast<std::size_t>(pass.columns) + 1) * checkpoints_of(pass);
        if (saved_n == 0) continue;
        const std::size_t from = static_cast<std::size_t>(out_entries + host_passes_[k].saved);
        for (auto [to, on_device] : {std::pair{out.saved_h + pass.saved, out_h_.get() + from},
                                     std::pair{out.saved_pending_f + pass.saved, out_f_.get() + from}}) {
          const std::size_t bytes = saved_n * sizeof(std::int32_t);
          if (bytes >= (std::size_t{1} << 24) && cudaHostRegister(to, bytes, cudaHostRegisterDefault) == cudaSuccess)
            locked_.push_back(to);
          else
            cudaGetLastError();  // not page-locked: copied all the same, more slowly
          CUDP_CUDA_CHECK(cudaMemcpyAsync(to, on_device, bytes, cudaMemcpyDeviceToHost, stream_));
        }
      }
    }
    const cudaError_t synced = cudaStreamSynchronize(stream_);
    for (void* p : locked_) cudaHostUnregister(p);
    locked_.clear();
    CUDP_CUDA_CHECK(synced);
    stats_.kernel_ms += timer.milliseconds();
    if constexpr (!rows) {
      const CellScope scope = A == detail::Answer::BestAnywhere ? CellScope::Anywhere : CellScope::Edges;
      for (std::size_t k = 0; k < count; ++k) {
        const detail::DevicePass& d = host_passes_[k];
        const std::size_t strips = strips_of(d.columns, widest);
        std::int32_t h = INT32_MIN;
        std::int64_t key = CellKey::kNone;
        for (std::size_t b = 0; b < strips; ++b) {
          const detail::DeviceBestCell& c = host_strip_best_[static_cast<std::size_t>(d.first_ticket) + b];
          if (CellKey::before(c.h, c.key, h, key)) h = c.h, key = c.key;
        }
        best[order[begin + k]] = CellKey::cell(scope, h, key, d.rows, d.columns);
      }
    }
    if (!on_device) {
      for (std::size_t k = 0; k < count; ++k) {
        const RowPass& pass = passes[order[begin + k]];
        const auto from = static_cast<std::size_t>(host_passes_[k].out), n = static_cast<std::size_t>(pass.columns) + 1;
        std::memcpy(out.h + pass.out, host_h_.data() + from, n * sizeof(std::int32_t));
        std::memcpy(out.pending_f + pass.out, host_f_.data() + from, n * sizeof(std::int32_t));
      }
    }
  }

  cudaStream_t stream_;
  std::int64_t query_length_, target_length_;
  int codes_ = 1;
  std::function<void(const recurrences::GapCosts&, std::vector<std::int32_t>&)> tabulate_;
  engine::DeviceBuffer<std::uint8_t> sequences_;  // query, query reversed, target, target reversed
  engine::DeviceBuffer<std::int32_t> matrix_;
  engine::DeviceBuffer<detail::DevicePass> passes_;
  engine::DeviceBuffer<int> tickets_, progress_;
  engine::DeviceBuffer<Right> edges_;
  engine::DeviceBuffer<std::int32_t> out_h_, out_f_;
  engine::DeviceBuffer<std::int32_t> level_h_, level_f_;  // a level's rows when its crossings are asked for
  engine::DeviceBuffer<std::int32_t> kept_h_, kept_f_;    // checkpoint rows kept for a walk's windows
  engine::DeviceBuffer<detail::DeviceCrossing> crossings_;
  engine::DeviceBuffer<detail::DeviceMidpoint> midpoints_;
  engine::DeviceBuffer<detail::DeviceBestCell> strip_best_;  // a best-cell wave's answer per strip
  std::vector<detail::DeviceBestCell> host_strip_best_;
  std::vector<detail::DeviceCrossing> host_crossings_;
  engine::PinnedBuffer<detail::DeviceMidpoint> midpoints_host_;
  std::vector<detail::DevicePass> host_passes_;
  std::vector<int> host_tickets_;
  std::vector<std::int32_t> matrix_host_, host_h_, host_f_;
  std::vector<void*> locked_;  // host memory page-locked for the copy of a wave's checkpoint rows
  std::size_t budget_ = 0;
  int resident_blocks_ = 0;         // of the strip kernel that fit on the device at once: the persistent grid
  int resident_saving_blocks_ = 0;  // the same for its variant that saves checkpoint rows
  int resident_best_blocks_[3][2] = {};  // the same for the best-cell kernels, by mode and scope
  int multiprocessors_ = 0;
  RowPassRunStats stats_;
};

}  // namespace cudp::align
