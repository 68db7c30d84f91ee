#pragma once
// The leaves of a linear-space alignment on the GPU: many global boxes (linear_space.hpp's Box, continuing gaps
// included), each solved whole by full traceback, with the same results as align_full on the host, bit for bit:
// the same scores, the same tie order, the same edit strings. With leaves this size on the device the batch regime
// (pairs of a few hundred residues) becomes one kernel: each pair is a single leaf, so no level, no row and no
// traceback goes through the host.
//
// Work unit: one box per warp. The warp sweeps the box in strips of 32 * R columns as a wavefront (lane r on row
// q - r + 1 at step q, the Right carry shuffled one lane on per step, as device_row_passes.cuh sweeps its strips),
// and every cell leaves 4 bits of moves: where H came from (diagonal, E or F) and whether E and F extended. A
// strip's moves are laid out step by step, one word of R cells per active lane, so that each step's stores are one
// coalesced row; the next strip reads the strip's right edge from a double-buffered column in the warp's slot.
// The warp then walks the moves back from the corner, through a window of them held across its lanes, and writes
// the edit string, 2 bits an operation, last first (edit_codes.hpp); then its lanes tell the matches from the
// mismatches side by side and rescore the walk (finish_leaf_codes), so that the host decodes runs from the words
// alone and need not rescore them.
//
// Memory: warps are persistent and each owns a slot (the largest box's moves: about half a byte per cell, plus 16
// bytes per row for the edge columns), so a batch of any size runs in a fixed working set; boxes with an empty
// side, or whose moves would pass the slot limit, are solved on the host by align_full. The sequences are held
// once (1 byte per residue of each), or not at all when a DeviceRowPasses over the same pair lends its copy
// (forward_sequences); the answers take a quarter byte per row and column of every box.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "../engine/cuda_check.cuh"
#include "../engine/device_buffer.cuh"
#include "../engine/device_stream.cuh"
#include "../lanes/s16x2.hpp"
#include "../recurrences/gotoh.hpp"
#include "../host/parallel_for.hpp"
#include "alignment.hpp"
#include "device_row_passes.cuh"
#include "edit_codes.hpp"
#include "full_traceback.hpp"
#include "linear_space.hpp"

namespace cudp::align {

// The strip widths of the leaf kernel (columns per lane, as StripShapes in device_row_passes.cuh). Each box takes
// the width that sweeps it in the fewest lane-steps, weighed by the cells a step computes (leaf_shape_cost): a box
// of 550 columns runs three strips of 6 columns per lane (192 per warp, 95% of them used) rather than three of 8
// (72%). Every width up to 8 is there because the last strip's unused lanes are the main waste of boxes of a few
// hundred columns.
using DefaultLeafShapes = StripShapes<1, 2, 3, 4, 5, 6, 7, 8>;

namespace detail {

constexpr int kLeafBlockThreads = 128;
// Six blocks of 128 threads an SM (80 registers, no spills); 7 and 8 (72 and 64 registers, with spills) ran no
// faster on an H100 (bench/RESULTS.md, 2026-11-24).
constexpr int kLeafBlocksPerSm = 6;
constexpr std::int32_t kLeafNegative = INT32_MIN / 2;  // below every value of a problem fits_in_32_bits admits

// R cells of moves, 4 bits each.
constexpr int move_word_bytes(int R) { return R <= 2 ? 1 : (R <= 4 ? 2 : (R <= 8 ? 4 : 8)); }
template <int R>
using MoveWord = std::conditional_t<move_word_bytes(R) == 1, std::uint8_t,
                                    std::conditional_t<move_word_bytes(R) == 2, std::uint16_t,
                                                       std::conditional_t<move_word_bytes(R) == 4, std::uint32_t, std::uint64_t>>>;

struct DeviceLeaf {
  std::int64_t ops = 0;  // its answer's codes start at this word
  std::int32_t query_begin = 0, target_begin = 0;
  std::int32_t columns = 0, rows = 0;  // both >= 1
  std::uint8_t gap_at_start = 0, gap_at_end = 0;
  std::uint8_t shape = 0;  // index of its R in the shapes
  std::uint8_t packed = 0;  // swept in 16-bit lanes (solve_packed_leaf_on_warp)
};

// A sweep of `columns` in strips of `lanes` * R columns, `lanes` lanes of R columns each: its strips, the active
// lanes of the last one, and its lane-steps over `rows` rows (a full strip takes rows + lanes - 1 steps, the last
// rows + last_active - 1).
struct StripSweep {
  int strips = 0, last_active = 0;
  std::int64_t steps = 0;
};
CUDP_HD StripSweep strip_sweep(int columns, int rows, int R, int lanes) {
  StripSweep s;
  const int strip_columns = lanes * R;
  s.strips = (columns + strip_columns - 1) / strip_columns;
  s.last_active = (columns - (s.strips - 1) * strip_columns + R - 1) / R;
  s.steps = static_cast<std::int64_t>(s.strips - 1) * (rows + lanes - 1) + rows + s.last_active - 1;
  return s;
}

// Moves of strips of 32 * R columns over `columns` x `rows` cells: every full strip holds (rows + 31) steps of 32
// words, the last (rows + active - 1) steps of `active` words.
CUDP_HD std::int64_t leaf_move_words(int columns, int rows, int R) {
  const StripSweep s = strip_sweep(columns, rows, R, kStripLanes);
  return static_cast<std::int64_t>(s.strips - 1) * (rows + kStripLanes - 1) * kStripLanes +
         static_cast<std::int64_t>(rows + s.last_active - 1) * s.last_active;
}

// The time of a box swept in strips of R columns per lane: its lane-steps, each worth R cells plus the step's own
// work (shuffles, stores, the row's residue), about two cells' worth.
inline double leaf_shape_cost(int columns, int rows, int R) {
  return static_cast<double>(strip_sweep(columns, rows, R, kStripLanes).steps) * (R + 2);
}

// The packed sweep (solve_packed_leaf_on_warp) stores the 2R moves of a lane-step in one 32-bit word.
constexpr int packed_move_word_bytes(int) { return 4; }
constexpr int kPackedLanes = 2 * kStripLanes;  // virtual lanes of the packed sweep
constexpr int kWidestPackedShape = 4;          // 2R moves of 4 bits in a word

// Its words over `columns` x `rows` cells: strips of 64 * R columns, every lane storing at every step.
CUDP_HD std::int64_t packed_leaf_move_words(int columns, int rows, int R) {
  return strip_sweep(columns, rows, R, kPackedLanes).steps * kStripLanes;
}

// Entries of each of the packed sweep's two edge columns: rows 0 .. rows, and the rows past the last that lane 0
// reads ahead while the wavefront leaves the box (up to 64).
CUDP_HD int packed_edge_rows(int rows) { return rows + kPackedLanes + 2; }

// As leaf_shape_cost for the packed sweep: a lane-step is worth R cell pairs and about 1.25 pairs of its own work
// (sm_90 code: about 25 instructions a pair, 31 a step).
inline double packed_leaf_shape_cost(int columns, int rows, int R) {
  return static_cast<double>(strip_sweep(columns, rows, R, kPackedLanes).steps) * (R + 1.25);
}

// Whether every value the packed sweep computes inside a box stays in 16 bits, with minus infinity (-16384) below
// all of them, so that it takes the same branches as the 32-bit sweep. Every H is at least the path down column 0
// and along its row, -(2 open + (rows + columns) extend), and at most min(rows, columns) times the best score; E,
// F and the sums of a cell go at most two gap costs and a substitution below that.
inline bool packed_leaf_fits(int columns, int rows, recurrences::GapCosts gaps, int min_score, int max_score) {
  const std::int64_t open = gaps.open, extend = gaps.extend;
  const std::int64_t lowest = -(2 * open + (static_cast<std::int64_t>(rows) + columns) * extend) -
                              2 * (open + extend) + std::min(min_score, 0);
  const std::int64_t highest = static_cast<std::int64_t>(std::min(rows, columns)) * std::max(max_score, 0) +
                               std::max(max_score, 0);
  // The sweep reads its branches off the signs of differences, so the highest value less minus infinity's
  // neighbours must stay in 16 bits too.
  return extend < 4096 && open < 4096 && lowest > lanes::s16x2::neg_inf + 8 &&
         highest + extend - lanes::s16x2::neg_inf < lanes::s16x2::max_value;
}

CUDP_HD std::int64_t leaf_op_words(int columns, int rows) { return (static_cast<std::int64_t>(columns) + rows) / 16 + 1; }

// A word of shared memory at a 32-bit shared address: the packed sweep keeps its columns' addresses in the score
// table, so that a lookup is one add and one load.
CUDP_DEVICE std::uint32_t load_shared(std::uint32_t address) {
  std::uint32_t v;
  asm("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(address));
  return v;
}

// max(a, b), and whether it is a (a >= b): one DPX instruction on sm_90.
CUDP_DEVICE std::int32_t max_noting_first(std::int32_t a, std::int32_t b, bool& first) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __vibmax_s32(a, b, &first);
#else
  first = a >= b;
  return first ? a : b;
#endif
}

// The walk back, as align_full's, by the whole warp in step, from the corner (rows, columns) whose H and F the sweep
// left in corner_h and corner_f. The lanes hold a window of the moves (kWalkRows rows by kWalkWords words of R
// columns ending at the current cell), loaded in one round trip through `moves_at(i, g)` (the R moves of row i,
// columns gR+1 .. gR+R, 4 bits each, as a sweep stored them), and the walk reads it by shuffles until it leaves it.
// An aligned pair is written as such; finish_leaf_codes tells matches from mismatches. A move's low two bits
// say where H came from: 0 the diagonal, 1 E, and F when bit 1 is set (bit 0 is then free).
template <int R, class MovesAt>
CUDP_DEVICE void walk_leaf_moves(const DeviceLeaf& leaf, recurrences::GapCosts gaps, int rank, std::int32_t corner_h,
                                 std::int32_t corner_f, std::int32_t* score_out, std::int32_t* count_out,
                                 std::uint32_t* ops_out, MovesAt moves_at) {
  static_assert(R <= 8, "R moves of 4 bits are one shuffled word");
  constexpr int G = kStripLanes, kWalkRows = 8, kWalkWords = G / kWalkRows;
  std::int32_t score = corner_h;
  bool in_f = false, in_e = false;
  if (leaf.gap_at_end && corner_f + gaps.open > score) score = corner_f + gaps.open, in_f = true;
  int i = leaf.rows, j = leaf.columns, count = 0;
  std::uint32_t pending = 0;
  auto emit = [&](std::uint32_t op) {
    pending |= op << (2 * (count % 16));
    if (++count % 16 == 0) {
      if (rank == 0) ops_out[count / 16 - 1] = pending;
      pending = 0;
    }
  };
  int window_i = -1, window_g = -1;  // the window's bottom row and its rightmost word (word g: columns gR+1 .. gR+R)
  std::uint32_t window = 0;
  while (i > 0 && j > 0) {
    const int g = (j - 1) / R;
    int a = window_i - i, b = window_g - g;
    if (a < 0 || a >= kWalkRows || b < 0 || b >= kWalkWords) {
      window_i = i, window_g = g, a = 0, b = 0;
      const int my_i = i - rank / kWalkWords, my_g = g - rank % kWalkWords;
      window = my_i >= 1 && my_g >= 0 ? moves_at(my_i, my_g) : 0u;
    }
    const std::uint32_t word = __shfl_sync(0xffffffffu, window, a * kWalkWords + b);
    const unsigned move = (word >> (4 * (j - 1 - g * R))) & 15u;
    if (in_e) {
      emit(kCodeInsertion);
      --j;
      in_e = (move & 4u) != 0;
    } else if (in_f) {
      emit(kCodeDeletion);
      --i;
      in_f = (move & 8u) != 0;
    } else if ((move & 3u) == 0) {
      emit(kCodePair);
      --i, --j;
    } else {
      in_f = (move & 2u) != 0;
      in_e = !in_f;
    }
  }
  // On the borders a gap runs to the corner (a gap along row 0 inserts, one down column 0 deletes).
  for (; j > 0; --j) emit(kCodeInsertion);
  for (; i > 0; --i) emit(kCodeDeletion);
  if (rank != 0) return;
  if (count % 16) ops_out[count / 16] = pending;
  *score_out = score;
  *count_out = count;
}

// Box `leaf` by one warp (every lane calls it). `moves` and `edges` are the warp's slot, `scores` the codes x codes
// matrix in shared memory.
template <int R>
CUDP_DEVICE void solve_leaf_on_warp(const DeviceLeaf& leaf, const std::uint8_t* query_all, const std::uint8_t* target_all,
                            const std::int32_t* scores, int codes, recurrences::GapCosts gaps, void* moves,
                            int2* edges, int rank, std::int32_t* score_out, std::int32_t* count_out,
                            std::uint32_t* ops_out) {
  using Word = MoveWord<R>;
  constexpr int G = kStripLanes, strip_columns = G * R;
  Word* words = static_cast<Word*>(moves);
  const int columns = leaf.columns, rows = leaf.rows;
  const int strips = (columns + strip_columns - 1) / strip_columns;
  const std::uint8_t* query = query_all + leaf.query_begin;
  const std::uint8_t* target = target_all + leaf.target_begin;
  const int open = gaps.open + gaps.extend, extend = gaps.extend;
  const int left_open = leaf.gap_at_start ? 0 : gaps.open;
  auto top = [&](int j) { return j == 0 ? 0 : -(gaps.open + j * extend); };
  std::int32_t corner_h = 0, corner_f = 0;
  std::int64_t base = 0;
  for (int strip = 0; strip < strips; ++strip) {
    const int first = strip * strip_columns;
    const int width = columns - first < strip_columns ? columns - first : strip_columns;
    const int active = (width + R - 1) / R;
    const bool has_next = strip + 1 < strips;
    const int2* edge_in = edges + (strip % 2) * (rows + 1);
    int2* edge_out = edges + ((strip + 1) % 2) * (rows + 1);
    const int j_first = first + rank * R + 1;
    std::int32_t h[R], f[R];
    int query_code[R];
    CUDP_UNROLL
    for (int r = 0; r < R; ++r) {
      h[r] = top(j_first + r);
      f[r] = kLeafNegative;
      query_code[r] = j_first + r <= columns ? query[j_first + r - 1] : 0;
    }
    std::int32_t diag_next = top(j_first - 1), carry_h = 0, carry_e = kLeafNegative;
    int2 edge_next = make_int2(0, kLeafNegative);
    if (rank == 0 && strip > 0) edge_next = edge_in[1];
    int code = target[0];
    const int steps = rows + active - 1;
    for (int step = 0; step < steps; ++step) {
      const int i = step - rank + 1;
      std::int32_t in_h = __shfl_up_sync(0xffffffffu, carry_h, 1);
      std::int32_t in_e = __shfl_up_sync(0xffffffffu, carry_e, 1);
      if (i >= 1 && i <= rows && rank < active) {
        if (rank == 0) {
          if (strip == 0) {
            in_h = -(left_open + i * extend), in_e = kLeafNegative;
          } else {
            in_h = edge_next.x, in_e = edge_next.y;
            if (i < rows) edge_next = edge_in[i + 1];
          }
        }
        std::int32_t diag = diag_next;
        diag_next = in_h;
        const std::int32_t* score_row = scores + code * codes;
        if (i < rows) code = target[i];
        Word word = 0;
        std::int32_t left_h = in_h, left_e = in_e;
        CUDP_UNROLL
        for (int r = 0; r < R; ++r) {
          // align_full's cell with its ties: a gap extends only when that is strictly better than opening; H comes
          // from E only when E beats the diagonal, from F only when F beats both.
          bool e_opens, f_opens, diagonal_first, not_f;
          const std::int32_t e = max_noting_first(left_h - open, left_e - extend, e_opens);
          f[r] = max_noting_first(h[r] - open, f[r] - extend, f_opens);
          const std::int32_t from_e = max_noting_first(diag + score_row[query_code[r]], e, diagonal_first);
          const std::int32_t v = max_noting_first(from_e, f[r], not_f);
          const unsigned move = (e_opens ? 0u : 4u) | (f_opens ? 0u : 8u) | (!not_f ? 2u : (diagonal_first ? 0u : 1u));
          diag = h[r];
          h[r] = v;
          left_h = v;
          left_e = e;
          word |= static_cast<Word>(static_cast<Word>(move) << (4 * r));
        }
        carry_h = left_h, carry_e = left_e;
        words[base + static_cast<std::int64_t>(step) * active + rank] = word;
        if (has_next && rank == G - 1) edge_out[i] = make_int2(left_h, left_e);
      }
    }
    if (!has_next) {
      const int last = columns - 1 - first;  // the corner column within the strip
      std::int32_t mine_h = 0, mine_f = 0;
      CUDP_UNROLL
      for (int r = 0; r < R; ++r)
        if (rank * R + r == last) mine_h = h[r], mine_f = f[r];
      corner_h = __shfl_sync(0xffffffffu, mine_h, last / R);
      corner_f = __shfl_sync(0xffffffffu, mine_f, last / R);
    }
    base += static_cast<std::int64_t>(steps) * active;
    __syncwarp();  // the strip's moves and edge column, before the next strip or the walk reads them
  }
  const int last_active = (columns - (strips - 1) * strip_columns + R - 1) / R;
  walk_leaf_moves<R>(leaf, gaps, rank, corner_h, corner_f, score_out, count_out, ops_out, [&](int my_i, int my_g) {
    const int strip = my_g / G, lane = my_g - strip * G;
    const int active = strip + 1 < strips ? G : last_active;
    return static_cast<std::uint32_t>(words[static_cast<std::int64_t>(strip) * (rows + G - 1) * G +
                                            static_cast<std::int64_t>(my_i - 1 + lane) * active + lane]);
  });
}

// The R moves of one half (0 low, 1 high) of a packed sweep's word, 4 bits a cell as solve_leaf_on_warp stores them.
template <int R>
CUDP_DEVICE std::uint32_t packed_moves_of(std::uint32_t w, int half) {
  std::uint32_t out = 0;
  CUDP_UNROLL
  for (int r = 0; r < R; ++r) {
    const int at = 8 * half + r;
    out |= ((w >> (at + 4)) & 1u) << (4 * r);           // the diagonal lost to E
    out |= ((w >> (at + 16 + 4)) & 1u) << (4 * r + 1);  // F won
    out |= ((w >> at) & 1u) << (4 * r + 2);             // E extends
    out |= ((w >> (at + 16)) & 1u) << (4 * r + 3);      // F extends
  }
  return out;
}

// The signs of a and b's 16-bit halves as bytes of all ones or all zeros: byte 0 from a's low half, 1 from its high
// half, 2 and 3 from b's (one permute, its selectors replicating each byte's top bit).
CUDP_DEVICE std::uint32_t half_signs(std::uint32_t a, std::uint32_t b) {
  std::uint32_t d;
  asm("prmt.b32 %0, %1, %2, 0xFDB9;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}

// The same box in 16-bit lanes, for boxes whose scores fit them (packed_leaf_fits): each lane holds two cells a
// column in one s16x2 word, so every cell operation does two cells. The warp is a wavefront of 64 virtual lanes
// over strips of 64 * R columns: virtual lane v < 32 lives in the low halves of lane v, v >= 32 in the high halves
// of lane v - 32, and virtual lane v is on row q - v + 1 at step q, as in a 64-lane warp. So the high halves run 32
// rows behind the low ones, and what lane 31's low half hands on at step q is what lane 0's high half needs at step
// q + 1: one rotating shuffle carries both halves' Right values. A strip's left edge comes through the warp's edge
// column (the box's left border for the first strip), one packed (H, E) word a row.
//
// Each branch of a cell is the sign of a difference (a sign bit in each half). One byte permute turns two
// differences' signs into four bytes of all ones or zeros (half_signs), and one masked merge puts a cell's bit of
// each byte in place, so that a cell pair's 8 moves cost 8 instructions: 4 differences, 2 permutes, 2 merges.
// A lane-step's word holds, in byte b, bit 4 + r from the differences D (the diagonal lost to E: byte 0 for the
// low half, 1 for the high half) and V (F won: bytes 2 and 3) of cell r, and bit r from E (E extends: bytes 0 and
// 1) and F (F extends: bytes 2 and 3) (packed_moves_of unpacks them).
//
// Steps where every virtual lane of the strip is inside the box run unguarded; the first and last 64 or so (the
// wavefront entering and leaving) keep each half's state where its row is outside the box. Cells past the box's
// last column compute what they like: they only feed cells further right, and the walk never reads them. Moves are
// stored for every lane and step, one word a lane, so that each step's stores are one coalesced row.
template <int R>
CUDP_DEVICE void solve_packed_leaf_on_warp(const DeviceLeaf& leaf, const std::uint8_t* query_all,
                                           const std::uint8_t* target_all, const std::int32_t* scores, int codes,
                                           recurrences::GapCosts gaps, void* moves, int2* edge_slot, int rank,
                                           std::int32_t* score_out, std::int32_t* count_out, std::uint32_t* ops_out) {
  using L = lanes::s16x2;
  static_assert(R <= 4, "2R moves in a 32-bit word");
  constexpr int G = kStripLanes, V = 2 * G, strip_columns = V * R;
  std::uint32_t* words = static_cast<std::uint32_t*>(moves);
  std::uint32_t* edges = reinterpret_cast<std::uint32_t*>(edge_slot);
  const int columns = leaf.columns, rows = leaf.rows;
  const int strips = (columns + strip_columns - 1) / strip_columns;
  const std::uint8_t* query = query_all + leaf.query_begin;
  const std::uint8_t* target = target_all + leaf.target_begin;
  const int extend = gaps.extend;
  const L::word open2 = L::splat(gaps.open + gaps.extend), extend2 = L::splat(extend);
  const int left_open = leaf.gap_at_start ? 0 : gaps.open;
  auto top = [&](int j) { return j == 0 ? 0 : -(gaps.open + j * extend); };
  auto pack = [](int lo, int hi) { return L::pack_low_halves(static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi)); };
  // The left border is the first strip's edge column: H down column 0, and E as minus infinity.
  const int edge_rows = packed_edge_rows(rows);
  for (int i = 1 + rank; i <= rows; i += G) edges[i] = pack(-(left_open + i * extend), L::neg_inf);
  __syncwarp();
  const unsigned from_left = static_cast<unsigned>(rank + G - 1) % G;
  // The low halves' scores zero-extended and the high halves' shifted, so that a pair's two scores pack by one add.
  const auto table = static_cast<std::uint32_t>(__cvta_generic_to_shared(scores));
  const std::uint32_t table_low = table + 4 * kMaxCodes * kMaxCodes, table_high = table + 8 * kMaxCodes * kMaxCodes;
  const std::uint32_t row_bytes = 4 * static_cast<std::uint32_t>(codes);
  std::int32_t corner_h = 0, corner_f = 0;
  std::int64_t base = 0;
  for (int strip = 0; strip < strips; ++strip) {
    const int first = strip * strip_columns;
    const int width = columns - first < strip_columns ? columns - first : strip_columns;
    const int active = (width + R - 1) / R;  // virtual lanes
    const bool has_next = strip + 1 < strips;
    const bool hands_on = has_next && rank == G - 1;  // the lane whose high halves feed the next strip's edge
    const std::uint32_t* edge_in = edges + (strip % 2) * edge_rows;
    std::uint32_t* edge_out = edges + ((strip + 1) % 2) * edge_rows;
    const int j_low = first + rank * R + 1, j_high = j_low + G * R;
    L::word h[R], f[R];
    std::uint32_t query_low[R], query_high[R];  // shared addresses of the columns' scores in row 0 of the tables
    CUDP_UNROLL
    for (int r = 0; r < R; ++r) {
      h[r] = pack(top(j_low + r), top(j_high + r));
      f[r] = L::splat(L::neg_inf);
      query_low[r] = table_low + 4 * (j_low + r <= columns ? query[j_low + r - 1] : 0);
      query_high[r] = table_high + 4 * (j_high + r <= columns ? query[j_high + r - 1] : 0);
    }
    L::word diag_next = pack(top(j_low - 1), top(j_high - 1)), carry_h = 0, carry_e = L::splat(L::neg_inf);
    // Lane 0 reads the edge column and the residues, each a row ahead; the other lanes take a row's residue from
    // the lane on their left with the Right values (the rows' offsets in the tables, a register a half).
    const std::uint32_t* edge_at = edge_in + 2;  // all lanes read the same words, past the last row into the padding
    std::uint32_t edge_next = edge_in[1];
    std::uint32_t code_next = target[0], row_low = 0, row_high = 0;  // each half's row offset in the tables
    std::uint32_t* moves_at = words + base + rank;
    const int steps = rows + active - 1;
    auto step = [&](int q, auto guarded) {
      const int i_low = q - rank + 1, i_high = i_low - G;
      const L::word rotated_h = __shfl_sync(0xffffffffu, carry_h, from_left);
      const L::word rotated_e = __shfl_sync(0xffffffffu, carry_e, from_left);
      const std::uint32_t edge = edge_next;
      edge_next = *edge_at++;
      const std::uint32_t rotated_low = __shfl_sync(0xffffffffu, row_low, from_left);
      const std::uint32_t rotated_high = __shfl_sync(0xffffffffu, row_high, from_left);
      row_low = rank == 0 ? code_next * row_bytes : rotated_low;
      row_high = rank == 0 ? rotated_low : rotated_high;
      // The residue of the next step's row (0-based q + 1), the last row's once past it; unguarded steps end a
      // row early so that theirs is always inside.
      code_next = target[decltype(guarded)::value && q + 1 >= rows ? rows - 1 : q + 1];
      // Lane 0: its low half from the edge column, its high half from lane 31's low half.
      const L::word in_h = rank == 0 ? __byte_perm(edge, rotated_h, 0x5410) : rotated_h;
      const L::word in_e = rank == 0 ? __byte_perm(edge, rotated_e, 0x5432) : rotated_e;
      L::word inside = 0xffffffffu;
      if constexpr (decltype(guarded)::value)
        inside = L::mask_from_bits((i_low >= 1 && i_low <= rows ? 1u : 0u) | (i_high >= 1 && i_high <= rows ? 2u : 0u));
      L::word diag = diag_next;
      diag_next = decltype(guarded)::value ? L::select(inside, in_h, diag_next) : in_h;
      std::uint32_t moves = 0;
      L::word left_h = in_h, left_e = in_e;
      CUDP_UNROLL
      for (int r = 0; r < R; ++r) {
        // The ties of align_full's cell, as solve_leaf_on_warp has them, in each half: a gap extends only when
        // that is strictly better than opening (the difference open - extend is negative), H comes from E only
        // when E beats the diagonal, from F only when F beats both.
        const L::word e_open = L::sub(left_h, open2), e_extend = L::sub(left_e, extend2);
        const L::word f_open = L::sub(h[r], open2), f_extend = L::sub(f[r], extend2);
        const L::word e = L::max(e_open, e_extend), f_new = L::max(f_open, f_extend);
        const L::word substitution = load_shared(query_low[r] + row_low) + load_shared(query_high[r] + row_high);
        const L::word diagonal = L::add(diag, substitution);
        const L::word from_e = L::max(diagonal, e), v = L::max(from_e, f_new);
        const std::uint32_t dv = half_signs(L::sub(diagonal, e), L::sub(from_e, f_new));
        const std::uint32_t ef = half_signs(L::sub(e_open, e_extend), L::sub(f_open, f_extend));
        moves = (dv & (0x10101010u << r)) | moves;
        moves = (ef & (0x01010101u << r)) | moves;
        diag = h[r];
        if constexpr (decltype(guarded)::value) {
          h[r] = L::select(inside, v, h[r]);
          f[r] = L::select(inside, f_new, f[r]);
        } else {
          h[r] = v;
          f[r] = f_new;
        }
        left_h = v;
        left_e = e;
      }
      carry_h = left_h, carry_e = left_e;
      *moves_at = moves;
      moves_at += G;
      // Unguarded steps of a strip with a next one have every row inside the box (the strip is full).
      if (hands_on && (!decltype(guarded)::value || (i_high >= 1 && i_high <= rows)))
        edge_out[i_high] = __byte_perm(left_h, left_e, 0x7632);
    };
    // Unguarded from the step where the last active virtual lane enters the box to the one before lane 0's last row.
    const int enter = active - 1 < steps ? active - 1 : steps;
    const int leave = rows - 1 > enter ? rows - 1 : enter;
    int q = 0;
    for (; q < enter; ++q) step(q, std::true_type{});
#pragma unroll 2
    for (; q < leave; ++q) step(q, std::false_type{});
    for (; q < steps; ++q) step(q, std::true_type{});
    if (!has_next) {
      const int last = columns - 1 - first;  // the corner column within the strip
      const int v = last / R, owner = v % G;
      L::word mine_h = 0, mine_f = 0;
      CUDP_UNROLL
      for (int r = 0; r < R; ++r)
        if (r == last % R) mine_h = h[r], mine_f = f[r];
      corner_h = L::extract(__shfl_sync(0xffffffffu, mine_h, owner), v / G);
      corner_f = L::extract(__shfl_sync(0xffffffffu, mine_f, owner), v / G);
    }
    base += static_cast<std::int64_t>(steps) * G;
    __syncwarp();  // the strip's moves and edge column, before the next strip or the walk reads them
  }
  walk_leaf_moves<R>(leaf, gaps, rank, corner_h, corner_f, score_out, count_out, ops_out, [&](int my_i, int my_g) {
    const int strip = my_g / V, v = my_g - strip * V;
    const std::uint32_t w = words[static_cast<std::int64_t>(strip) * (rows + V - 1) * G +
                                  static_cast<std::int64_t>(my_i - 1 + v) * G + v % G];
    return packed_moves_of<R>(w, v / G);
  });
}

// The walk's `count` codes of `leaf` (words, last first) written to `finished` with each pair made a match or a
// mismatch by its residues, and the box's score recomputed from them into *rescored_out (lane 0): its pairs'
// substitution scores from `scores`, and each gap run's open and extension costs, less the open of a deletion run
// at a corner where the box says its gap continues. The host holds it against the sweep's score, so that every walk
// is checked as align::rescore checks an alignment, on the device, beside the later leaves' sweeps.
// Lane r takes word r of each 32 in turn; a scan of the residues the words consume (query and target counts in
// the two halves of one word: at most 512 each) tells each lane which cell its word starts from, and its loads
// are independent of one another, so a word's sixteen codes cost about one round trip to memory. Gap runs start
// where a gap code differs from the code before it (one XOR of the word with itself shifted by a code).
CUDP_DEVICE void finish_leaf_codes(const DeviceLeaf& leaf, const std::uint8_t* query_all,
                                   const std::uint8_t* target_all, const std::int32_t* scores, int codes,
                                   recurrences::GapCosts gaps, int count, const std::uint32_t* words, int rank,
                                   std::uint32_t* finished, std::int32_t* rescored_out) {
  constexpr int G = kStripLanes;
  const std::uint8_t* query = query_all + leaf.query_begin;
  const std::uint8_t* target = target_all + leaf.target_begin;
  int j = leaf.columns, i = leaf.rows;  // the cell the walk left from: the box's corner
  const int word_count = static_cast<int>(edit_code_words(count));
  std::int32_t substitutions = 0;
  int gap_codes = 0, gap_runs = 0;
  std::uint32_t before_group = 0;  // the last word of the group before
  for (int base = 0; base < word_count; base += G) {
    const int w = base + rank;
    const int valid = w < word_count ? (count - 16 * w < 16 ? count - 16 * w : 16) : 0;
    const std::uint32_t in_word = valid == 16 ? 0xffffffffu : (1u << (2 * valid)) - 1u;
    const std::uint32_t x = w < word_count ? words[w] : 0u;
    const std::uint32_t low = x & 0x55555555u & in_word, high = (x >> 1) & 0x55555555u & in_word;
    const int pairs = valid - __popc(low | high);
    // Insertions take a query residue, deletions a target residue, pairs one of each.
    const int mine = ((pairs + __popc(low)) << 16) | (pairs + __popc(high));
    int before = mine;
    CUDP_UNROLL
    for (int d = 1; d < G; d *= 2) {
      const int up = __shfl_up_sync(0xffffffffu, before, d);
      if (rank >= d) before += up;
    }
    const int all = __shfl_sync(0xffffffffu, before, G - 1);
    before -= mine;
    // Gap runs: the code before this word's first is the last of the word before (full, as every word but the
    // last is); the walk's first code starts a run whatever it is.
    const std::uint32_t previous_word = __shfl_up_sync(0xffffffffu, x, 1);
    const std::uint32_t previous = w == 0 ? (x & 3u) ^ 1u : ((rank == 0 ? before_group : previous_word) >> 30);
    const std::uint32_t differs = x ^ ((x << 2) | previous);
    gap_runs += __popc((differs | (differs >> 1)) & (low ^ high));
    gap_codes += __popc(low ^ high);
    before_group = __shfl_sync(0xffffffffu, x, G - 1);
    int my_j = j - (before >> 16), my_i = i - (before & 0xffff);
    std::uint32_t out = x;
    CUDP_UNROLL
    for (int c = 0; c < 16; ++c) {
      const std::uint32_t code = (x >> (2 * c)) & 3u;
      if (c < valid && code == kCodePair) {
        const std::uint8_t q = query[my_j - 1], t = target[my_i - 1];
        substitutions += scores[t * codes + q];
        if (q != t) out |= kCodeMismatch << (2 * c);
      }
      my_j -= c < valid && code != kCodeDeletion;
      my_i -= c < valid && code != kCodeInsertion;
    }
    if (w < word_count) finished[w] = out;
    j -= all >> 16;
    i -= all & 0xffff;
  }
  CUDP_UNROLL
  for (int d = G / 2; d > 0; d /= 2) {
    substitutions += __shfl_xor_sync(0xffffffffu, substitutions, d);
    gap_codes += __shfl_xor_sync(0xffffffffu, gap_codes, d);
    gap_runs += __shfl_xor_sync(0xffffffffu, gap_runs, d);
  }
  if (rank != 0) return;
  std::int32_t score = substitutions - gap_codes * gaps.extend - gap_runs * gaps.open;
  if (count > 0 && leaf.gap_at_end && (words[0] & 3u) == kCodeDeletion) score += gaps.open;
  if (count > 0 && leaf.gap_at_start && ((words[(count - 1) / 16] >> (2 * ((count - 1) % 16))) & 3u) == kCodeDeletion)
    score += gaps.open;
  *rescored_out = score;
}

// Box `leaf` by one warp, packed when the host says it fits 16-bit lanes and its strips have a packed sweep.
template <int R>
CUDP_DEVICE void solve_leaf_of_width(const DeviceLeaf& leaf, const std::uint8_t* query, const std::uint8_t* target,
                                     const std::int32_t* scores, int codes, recurrences::GapCosts gaps, void* moves,
                                     int2* edges, int rank, std::int32_t* score_out, std::int32_t* count_out,
                                     std::uint32_t* ops_out) {
  if constexpr (R <= kWidestPackedShape) {
    if (leaf.packed) {
      solve_packed_leaf_on_warp<R>(leaf, query, target, scores, codes, gaps, moves, edges, rank, score_out, count_out,
                                   ops_out);
      return;
    }
  }
  solve_leaf_on_warp<R>(leaf, query, target, scores, codes, gaps, moves, edges, rank, score_out, count_out, ops_out);
}

// A spinning host thread's pause between two looks at memory the device writes.
inline void pause_a_moment() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// A leaf's answer in pinned host memory, which the kernel writes over the bus while it runs (its codes stay in
// device memory, at the leaf's `ops`: written to the host in place they made the run 12-34% longer). `run` is written
// last, once the codes and the rest are visible to the host, with the number of the run (LeafKernelArgs::run), so
// that the host needs no reset between runs to tell a new answer from an old one.
struct LeafAnswer {
  std::int32_t score = 0, count = 0, rescored = 0;
  std::int32_t run = 0;
};

// What every warp of the leaf kernel reads besides its leaves.
struct LeafKernelArgs {
  const DeviceLeaf* leaves = nullptr;  // in ticket order
  int count = 0;
  unsigned long long* next_ticket = nullptr;
  const std::uint8_t* query = nullptr;
  const std::uint8_t* target = nullptr;
  const std::int32_t* matrix = nullptr;
  int codes = 1;
  recurrences::GapCosts gaps;
  unsigned char* moves = nullptr;  // a slot of slot_bytes a warp
  std::size_t slot_bytes = 0;
  int2* edges = nullptr;  // edge_slot entries a warp
  std::size_t edge_slot = 0;
  std::uint32_t* walks = nullptr;  // walk_words a warp: the walk's codes before finish_leaf_codes
  std::size_t walk_words = 0;
  std::uint32_t* codes_out = nullptr;  // from each leaf's ops
  LeafAnswer* answers = nullptr;       // pinned host memory, by ticket
  int run = 0;
};

// One persistent grid over all the leaves: each warp takes the next ticket, solves that leaf in its slot, and
// tells the host in its pinned memory, so that the host copies and reads answers while later leaves compute and
// the grid never drains between launches.
template <int... Rs>
__global__ void __launch_bounds__(kLeafBlockThreads, kLeafBlocksPerSm)
    leaf_kernel(StripShapes<Rs...>, LeafKernelArgs args) {
  // The scores, then solve_packed_leaf_on_warp's two copies of them: zero-extended, and shifted to the high half.
  __shared__ std::int32_t scores[3 * kMaxCodes * kMaxCodes];
  const int codes = args.codes;
  for (int k = threadIdx.x; k < codes * codes; k += blockDim.x) {
    const std::int32_t v = args.matrix[k];
    scores[k] = v;
    scores[kMaxCodes * kMaxCodes + k] = v & 0xffff;
    scores[2 * kMaxCodes * kMaxCodes + k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(v) << 16);
  }
  __syncthreads();
  const int rank = threadIdx.x % kStripLanes;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kStripLanes;
  void* my_moves = args.moves + warp * args.slot_bytes;
  int2* my_edges = args.edges + warp * args.edge_slot;
  std::uint32_t* my_walk = args.walks + warp * args.walk_words;
  while (true) {
    unsigned long long ticket = 0;
    if (rank == 0) ticket = atomicAdd(args.next_ticket, 1ull);
    ticket = __shfl_sync(0xffffffffu, ticket, 0);
    if (ticket >= static_cast<unsigned long long>(args.count)) break;
    const DeviceLeaf leaf = args.leaves[ticket];
    std::int32_t score = 0, count = 0;  // lane 0's
    int k = 0;
    ((leaf.shape == k++ ? solve_leaf_of_width<Rs>(leaf, args.query, args.target, scores, codes, args.gaps, my_moves,
                                                  my_edges, rank, &score, &count, my_walk)
                        : void()),
     ...);
    __syncwarp();  // lane 0's codes, before every lane reads them
    count = __shfl_sync(0xffffffffu, count, 0);
    std::int32_t rescored = 0;
    finish_leaf_codes(leaf, args.query, args.target, scores, codes, args.gaps, count, my_walk, rank,
                      args.codes_out + leaf.ops, &rescored);
    // Every lane's codes visible to the host's copies before lane 0 says the answer is there; the slot is free
    // again once the whole warp is past this point.
    __threadfence_system();
    __syncwarp();
    if (rank == 0) {
      LeafAnswer& answer = args.answers[ticket];
      answer.score = score;
      answer.count = count;
      answer.rescored = rescored;
      __threadfence_system();
      *static_cast<volatile std::int32_t*>(&answer.run) = args.run;
    }
  }
}

}  // namespace detail

struct LeafRunStats {
  std::size_t on_device = 0, on_host = 0;  // leaves
  std::size_t packed = 0;                  // of the device leaves, those swept in 16-bit lanes
  double cells = 0;                        // sum of rows x columns of the device leaves
  std::size_t device_bytes = 0;            // slots, descriptors and codes (sequences not included)
  int warps = 0;                           // the persistent grid
  double kernel_ms = 0;                    // the launch
  double first_launch_ms = 0;              // from the call to the launch (the device idle till then)
  double answers_ms = 0;                   // from the call to the last device answer read
};

// Solves global boxes of one SequencePair on the current device. Keeps pointers to `pair` and a copy of `matrix`
// for the boxes it leaves to the host; `pair` must outlive it.
template <class Shapes = DefaultLeafShapes>
class DeviceLeaves;

template <int... Rs>
class DeviceLeaves<StripShapes<Rs...>> {
  using Shapes = StripShapes<Rs...>;

 public:
  template <class Matrix>
  DeviceLeaves(const SequencePair& pair, const Matrix& matrix, cudaStream_t stream = 0)
      : DeviceLeaves(pair, matrix, DeviceSequences{}, stream) {}
  // The same reading the pair's forward buffers from `shared` (DeviceRowPasses::forward_sequences) instead of a copy
  // of its own; they must outlive this object.
  template <class Matrix>
  DeviceLeaves(const SequencePair& pair, const Matrix& matrix, DeviceSequences shared, cudaStream_t stream = 0)
      : stream_(stream), pair_(pair) {
    // The lender has scanned the pair for its codes already.
    codes_ = shared.codes > 0 ? shared.codes : detail::matrix_side("DeviceLeaves", pair);
    std::vector<std::int32_t> table;
    detail::tabulate_substitutions<GlobalS32>(matrix, codes_, recurrences::GapCosts{}, table);
    matrix_.upload(table, stream_);
    for (int a = 0; a < codes_; ++a)  // the range of the scores the pair's residues can meet
      for (int b = 0; b < codes_; ++b) {
        min_score_ = std::min(min_score_, table[static_cast<std::size_t>(a) * codes_ + b]);
        max_score_ = std::max(max_score_, table[static_cast<std::size_t>(a) * codes_ + b]);
      }
    host_leaf_ = [matrix, pair](const Box& b, recurrences::GapCosts gaps) {
      return detail::solve_leaf(pair, b, matrix, gaps);
    };
    host_check_ = [matrix, pair](const Box& b, const Alignment& a, recurrences::GapCosts gaps) {
      const long rescored = detail::rescore_box(pair, b, a, matrix, gaps);
      if (rescored != a.score)
        throw std::logic_error("DeviceLeaves: a host box rescores to " + std::to_string(rescored) + ", not " +
                               std::to_string(a.score));
    };
    const auto m = static_cast<std::size_t>(pair.query_length), n = static_cast<std::size_t>(pair.target_length);
    if (shared.query != nullptr || shared.target != nullptr) {
      on_device_ = shared;
    } else {
      sequences_.reserve(m + n);
      if (m) CUDP_CUDA_CHECK(cudaMemcpyAsync(sequences_.get(), pair.query, m, cudaMemcpyHostToDevice, stream_));
      if (n) CUDP_CUDA_CHECK(cudaMemcpyAsync(sequences_.get() + m, pair.target, n, cudaMemcpyHostToDevice, stream_));
      on_device_ = DeviceSequences{sequences_.get(), sequences_.get() + m, codes_};
    }
    next_ticket_.reserve(1);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  // The most bytes of moves one box may take on the device (default 4 MiB: a 2000 x 2000 box); larger ones go to
  // the host. The memory budget (default: most of the free memory) bounds slots x warps.
  void set_slot_limit(std::size_t bytes) { slot_limit_ = bytes; }
  void set_memory_budget(std::size_t bytes) { budget_ = bytes; }
  // Whether boxes whose scores fit 16 bits are swept two cells a word (the default), or every box in 32-bit lanes.
  void set_packed(bool packed) { packed_ = packed; }
  const LeafRunStats& last_run() const { return stats_; }

  // out[k] = the global alignment of box leaves[k] (score and edits; the ranges are left as they are), as
  // detail::solve_leaf computes it on the host. `threads`: host threads for the answers and the host's boxes.
  // Every answer is rescored against its box (on the device by finish_leaf_codes, on the host by
  // detail::rescore_box for the boxes left to it), and one that does not rescore to its score throws
  // std::logic_error. That check shares the answers' lanes: align_batch_linear_space rescores again on the host.
  void solve(const std::vector<Box>& leaves, recurrences::GapCosts gaps, std::vector<Alignment>& out, int threads = 0) {
    solve_started_ = std::chrono::steady_clock::now();
    stats_ = LeafRunStats{};
    const std::size_t n = leaves.size();
    // Each box's shape and size class on the host threads, each thread adding up what it saw in a tally of its own;
    // the object keeps its lists between calls, so that a warm call touches no new pages (100,000 boxes' worth of
    // fresh memory cost milliseconds of page faults before the launch).
    shapes_.resize(n);
    classes_.resize(n);
    const int workers = threads > 0 ? threads : host::usable_cores();
    std::vector<Tally> tallies(static_cast<std::size_t>(std::max(workers, 1)));
    std::atomic<int> next_tally{0};
    host::parallel_for_small_items(
        n, threads, [&] { return &tallies[static_cast<std::size_t>(next_tally++)]; },
        [&](Tally* tally, std::size_t k) {
          const Box& b = leaves[k];
          if (b.query_begin < 0 || b.target_begin < 0 || b.query_end > pair_.query_length ||
              b.target_end > pair_.target_length || b.columns() < 0 || b.rows() < 0)
            throw std::out_of_range("DeviceLeaves: a box reaches past its sequences");
          classes_[k] = classify(b, k, gaps, *tally);
          ++tally->per_class[classes_[k]];
        });
    Tally all;
    for (const Tally& t : tallies) all.add(t);
    // The device's boxes longest first (a stable counting sort on the size classes), then the host's.
    std::array<std::size_t, kHostClass + 2> start{};
    for (int c = 0; c <= kHostClass; ++c) start[c + 1] = start[c] + all.per_class[c];
    std::vector<std::size_t>& order = order_;
    order.resize(n);
    for (std::size_t k = 0; k < n; ++k) order[start[classes_[k]]++] = k;
    const std::size_t on_device = n - all.per_class[kHostClass];
    stats_.on_device = on_device;
    stats_.on_host = n - on_device;
    stats_.packed = all.packed;
    stats_.cells = all.cells;
    if (on_device > 0) {
      run_device(leaves, on_device, gaps, all, out, threads);
    } else {
      out.resize(n);
    }
    host::parallel_for(
        n - on_device, threads, [] { return 0; },
        [&](int, std::size_t h) {
          const std::size_t k = order[on_device + h];
          const Alignment a = host_leaf_(leaves[k], gaps);
          out[k].score = a.score;
          out[k].edits = a.edits;
          host_check_(leaves[k], a, gaps);
        });
  }

 private:
  static constexpr int kStripLanes = detail::kStripLanes;
  static constexpr std::uint8_t kPackedFlag = 0x80;  // in shapes_, beside the shape's index
  static constexpr int kHostClass = 64;              // in classes_: past every size class
  // Tickets a host reader waits for, copies and decodes at a time: small enough that the last block's reading
  // after the kernel is short, large enough that a copy's round trip costs little per answer.
  static constexpr std::size_t kAnswerBlock = 256;
  // What one host thread saw of the boxes it classified.
  struct Tally {
    std::array<std::size_t, kHostClass + 1> per_class{};
    std::size_t packed = 0, slot_bytes = 0, edge_slot = 0;
    std::int64_t code_words = 0, walk_words = 0;  // the answers' words, summed and the most of one box
    double cells = 0;
    void add(const Tally& t) {
      for (int c = 0; c <= kHostClass; ++c) per_class[c] += t.per_class[c];
      packed += t.packed;
      slot_bytes = std::max(slot_bytes, t.slot_bytes);
      edge_slot = std::max(edge_slot, t.edge_slot);
      code_words += t.code_words;
      walk_words = std::max(walk_words, t.walk_words);
      cells += t.cells;
    }
  };
  // Box k's size class, or kHostClass for a box the host solves; its shape into shapes_[k], and what the device
  // needs for it into the thread's tally.
  std::uint8_t classify(const Box& b, std::size_t k, recurrences::GapCosts gaps, Tally& tally) {
    if (b.columns() == 0 || b.rows() == 0) return kHostClass;
    const bool packed = packed_ && kHasPackedShape &&
                        detail::packed_leaf_fits(b.columns(), b.rows(), gaps, min_score_, max_score_);
    const int shape = shape_of(b.columns(), b.rows(), packed);
    const std::size_t need = move_bytes(b.columns(), b.rows(), Shapes::widths[shape], packed);
    if (need > slot_limit_) return kHostClass;
    const auto cells = static_cast<std::uint64_t>(b.rows()) * static_cast<std::uint64_t>(b.columns());
    shapes_[k] = static_cast<std::uint8_t>(shape | (packed ? kPackedFlag : 0));
    tally.slot_bytes = std::max(tally.slot_bytes, need);
    tally.packed += packed;
    tally.cells += static_cast<double>(cells);
    // The packed sweep's left border and strip edges are two columns of packed words; the 32-bit sweep of
    // several strips keeps two columns of (H, E).
    std::size_t edge_entries = 0;
    if (packed)
      edge_entries = static_cast<std::size_t>(detail::packed_edge_rows(b.rows()));
    else if (b.columns() > kStripLanes * Shapes::widths[shape])
      edge_entries = 2 * (static_cast<std::size_t>(b.rows()) + 1);
    tally.edge_slot = std::max(tally.edge_slot, edge_entries);
    const std::int64_t words = detail::leaf_op_words(b.columns(), b.rows());
    tally.code_words += words;
    tally.walk_words = std::max(tally.walk_words, words);
    return static_cast<std::uint8_t>(detail::size_class(cells));
  }
  static double shape_cost(int columns, int rows, int R, bool packed) {
    return packed ? detail::packed_leaf_shape_cost(columns, rows, R) : detail::leaf_shape_cost(columns, rows, R);
  }
  // The cheapest shape for the box; a packed box takes one of the widths the packed sweep has.
  static int shape_of(int columns, int rows, bool packed) {
    int best = -1;
    double best_cost = 0;
    for (int k = 0; k < Shapes::count; ++k) {
      if (packed && Shapes::widths[k] > detail::kWidestPackedShape) continue;
      const double cost = shape_cost(columns, rows, Shapes::widths[k], packed);
      if (best < 0 || cost < best_cost) best = k, best_cost = cost;
    }
    return best;
  }
  static constexpr bool kHasPackedShape = ((Rs <= detail::kWidestPackedShape) || ...);
  static std::size_t move_bytes(int columns, int rows, int R, bool packed) {
    const std::size_t bytes =
        packed ? static_cast<std::size_t>(detail::packed_leaf_move_words(columns, rows, R)) * detail::packed_move_word_bytes(R)
               : static_cast<std::size_t>(detail::leaf_move_words(columns, rows, R)) * detail::move_word_bytes(R);
    return (bytes + 15) / 16 * 16;  // slots are 16-byte aligned
  }

  // The first `count` boxes of order_ on the device, in one launch of a persistent grid whose warps tell the host of
  // each answer as they finish it (leaf_kernel). The host threads take the tickets in blocks, in order: once a
  // block's answers are all there, its codes come over on the thread's own stream and the thread decodes them, while
  // later leaves compute, so that little is read after the kernel and the grid never drains between launches (six
  // launches read one after another cost 0.7 ms of kernel time, and 2 ms of reading after the last).
  void run_device(const std::vector<Box>& leaves, std::size_t count, recurrences::GapCosts gaps, const Tally& all,
                  std::vector<Alignment>& out, int threads) {
    const std::size_t slot_bytes = all.slot_bytes, edge_slot = all.edge_slot;
    const auto walk_words = static_cast<std::size_t>(all.walk_words);
    const auto code_words = static_cast<std::size_t>(all.code_words);
    const std::size_t fixed =
        count * sizeof(detail::DeviceLeaf) + code_words * sizeof(std::uint32_t) + sizeof(unsigned long long);
    const std::size_t per_warp = slot_bytes + edge_slot * sizeof(int2) + walk_words * sizeof(std::uint32_t);
    const std::size_t limit = budget();
    constexpr int warps_per_block = detail::kLeafBlockThreads / kStripLanes;
    if (fixed + warps_per_block * per_warp > limit)
      throw engine::CudaError("DeviceLeaves: " + std::to_string(fixed + warps_per_block * per_warp) +
                              " device bytes needed, over the budget of " + std::to_string(limit));
    auto kernel = detail::leaf_kernel<Rs...>;
    long blocks = std::min<long>(static_cast<long>((count + warps_per_block - 1) / warps_per_block),
                                 resident_blocks(kernel));
    blocks = std::min<long>(blocks, static_cast<long>((limit - fixed) / (per_warp * warps_per_block)));
    const std::size_t warps = static_cast<std::size_t>(blocks) * warps_per_block;
    stats_.warps = static_cast<int>(warps);
    stats_.device_bytes = fixed + warps * per_warp;

    leaves_.reserve(count);
    moves_.reserve(warps * slot_bytes);
    edges_.reserve(std::max<std::size_t>(warps * edge_slot, 1));
    walks_.reserve(warps * walk_words);
    codes_out_.reserve(code_words);
    host_leaves_.reserve(count);
    host_codes_.reserve(code_words);
    if (answers_.capacity() < count) {  // fresh pinned memory holds anything: no run's number
      answers_.reserve(count);
      std::fill_n(answers_.data(), answers_.capacity(), detail::LeafAnswer{});
    }
    run_ = run_ == INT32_MAX ? 1 : run_ + 1;
    const std::vector<std::size_t>& order = order_;
    detail::DeviceLeaf* descriptors = host_leaves_.data();
    host::parallel_for_small_items(
        count, threads, [] { return 0; },
        [&](int, std::size_t t) {
          const Box& b = leaves[order[t]];
          detail::DeviceLeaf& d = descriptors[t];
          d.query_begin = b.query_begin;
          d.target_begin = b.target_begin;
          d.columns = b.columns();
          d.rows = b.rows();
          d.gap_at_start = b.gap_continues_at_start;
          d.gap_at_end = b.gap_continues_at_end;
          d.shape = shapes_[order[t]] & ~kPackedFlag;
          d.packed = (shapes_[order[t]] & kPackedFlag) != 0;
        });
    std::int64_t at = 0;  // each answer's codes, in ticket order
    for (std::size_t t = 0; t < count; ++t) {
      descriptors[t].ops = at;
      at += detail::leaf_op_words(descriptors[t].columns, descriptors[t].rows);
    }
    CUDP_CUDA_CHECK(cudaMemcpyAsync(leaves_.get(), descriptors, count * sizeof(detail::DeviceLeaf),
                                    cudaMemcpyHostToDevice, stream_));
    CUDP_CUDA_CHECK(cudaMemsetAsync(next_ticket_.get(), 0, sizeof(unsigned long long), stream_));
    detail::LeafKernelArgs args;
    args.leaves = leaves_.get();
    args.count = static_cast<int>(count);
    args.next_ticket = next_ticket_.get();
    args.query = on_device_.query;
    args.target = on_device_.target;
    args.matrix = matrix_.get();
    args.codes = codes_;
    args.gaps = gaps;
    args.moves = moves_.get();
    args.slot_bytes = slot_bytes;
    args.edges = edges_.get();
    args.edge_slot = edge_slot;
    args.walks = walks_.get();
    args.walk_words = walk_words;
    args.codes_out = codes_out_.get();
    args.answers = answers_.data();
    args.run = run_;
    detail::StreamTimer timer;
    detail::StreamEvent finished;
    timer.start(stream_);
    kernel<<<static_cast<unsigned>(blocks), detail::kLeafBlockThreads, 0, stream_>>>(Shapes{}, args);
    CUDP_CUDA_CHECK(cudaGetLastError());
    timer.stop(stream_);
    finished.record(stream_);
    stats_.first_launch_ms = milliseconds_since(solve_started_);
    out.resize(leaves.size());  // while the device computes
    const int readers = threads > 0 ? threads : host::usable_cores();
    while (static_cast<int>(reader_streams_.size()) < readers)
      reader_streams_.push_back(std::make_unique<engine::DeviceStream>());
    std::atomic<int> next_reader{0};
    const std::size_t answer_blocks = (count + kAnswerBlock - 1) / kAnswerBlock;
    try {
      host::parallel_for(
          answer_blocks, threads,
          [&] {
            return std::make_pair(reader_streams_[static_cast<std::size_t>(next_reader++)]->get(),
                                  std::vector<EditRun>());
          },
          [&](std::pair<cudaStream_t, std::vector<EditRun>>& reader, std::size_t block) {
            const std::size_t first = block * kAnswerBlock, end = std::min(count, first + kAnswerBlock);
            for (std::size_t t = first; t < end; ++t) wait_for_answer(t, finished);
            const std::int64_t from = descriptors[first].ops,
                               to = descriptors[end - 1].ops +
                                    detail::leaf_op_words(descriptors[end - 1].columns, descriptors[end - 1].rows);
            CUDP_CUDA_CHECK(cudaMemcpyAsync(host_codes_.data() + from, codes_out_.get() + from,
                                            static_cast<std::size_t>(to - from) * sizeof(std::uint32_t),
                                            cudaMemcpyDeviceToHost, reader.first));
            CUDP_CUDA_CHECK(cudaStreamSynchronize(reader.first));
            for (std::size_t t = first; t < end; ++t) read_answer(t, out[order[t]], reader.second);
          });
    } catch (...) {
      cudaStreamSynchronize(stream_);  // the kernel still writes into this object's buffers
      throw;
    }
    stats_.answers_ms = milliseconds_since(solve_started_);
    finished.synchronize();
    stats_.kernel_ms = timer.milliseconds();
  }

  static double milliseconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  }

  // Ticket t's answer, once the kernel has published it: spins on its run number, and asks the kernel's event now
  // and then (a millisecond or so apart, so that sixteen spinning threads do not keep the driver busy) whether the
  // kernel failed, or ended without the answer, so as to throw instead of hanging.
  void wait_for_answer(std::size_t t, const detail::StreamEvent& finished) const {
    const detail::LeafAnswer& answer = answers_.data()[t];
    for (unsigned spins = 1;; ++spins) {
      if (__atomic_load_n(&answer.run, __ATOMIC_ACQUIRE) == run_) return;
      detail::pause_a_moment();
      if (spins % 256 == 0) std::this_thread::yield();  // in case the readers outnumber the cores
      if (spins % 16384 == 0 && finished.passed() && __atomic_load_n(&answer.run, __ATOMIC_ACQUIRE) != run_)
        throw std::logic_error("DeviceLeaves: the kernel ended without the answer of leaf " + std::to_string(t));
    }
  }

  // Ticket t's answer into a: its score, and its edits from the classified codes.
  void read_answer(std::size_t t, Alignment& a, std::vector<EditRun>& scratch) const {
    const detail::LeafAnswer& answer = answers_.data()[t];
    a.score = answer.score;
    if (answer.rescored != a.score)
      throw std::logic_error("DeviceLeaves: a box's walk rescores to " + std::to_string(answer.rescored) +
                             ", not its score " + std::to_string(a.score));
    a.edits.clear();
    append_coded_edits(host_codes_.data() + host_leaves_.data()[t].ops, answer.count, a.edits, scratch);
  }

  std::size_t budget() const {
    if (budget_) return budget_;
    std::size_t free = 0, total = 0;
    CUDP_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    const std::size_t held = moves_.capacity() + edges_.capacity() * sizeof(int2) +
                             leaves_.capacity() * sizeof(detail::DeviceLeaf) +
                             (walks_.capacity() + codes_out_.capacity()) * sizeof(std::uint32_t);
    return (free + held) / 10 * 8;
  }

  template <class Kernel>
  int resident_blocks(Kernel kernel) {
    if (resident_blocks_ == 0) resident_blocks_ = detail::resident_blocks_of(kernel, detail::kLeafBlockThreads);
    return resident_blocks_;
  }

  cudaStream_t stream_;
  SequencePair pair_;
  int codes_ = 1;
  std::function<Alignment(const Box&, recurrences::GapCosts)> host_leaf_;
  std::function<void(const Box&, const Alignment&, recurrences::GapCosts)> host_check_;
  engine::DeviceBuffer<std::uint8_t> sequences_;  // query, then target, unless shared
  DeviceSequences on_device_;
  engine::DeviceBuffer<std::int32_t> matrix_;
  engine::DeviceBuffer<detail::DeviceLeaf> leaves_;
  engine::DeviceBuffer<unsigned char> moves_;
  engine::DeviceBuffer<int2> edges_;
  engine::DeviceBuffer<std::uint32_t> walks_, codes_out_;
  engine::DeviceBuffer<unsigned long long> next_ticket_;
  engine::PinnedBuffer<detail::DeviceLeaf> host_leaves_;  // the run's descriptors, copied to leaves_
  engine::PinnedBuffer<std::uint32_t> host_codes_;        // codes_out_, block by block
  engine::PinnedBuffer<detail::LeafAnswer> answers_;      // by ticket, written by the kernel
  std::vector<std::unique_ptr<engine::DeviceStream>> reader_streams_;  // a host reader's copies
  int run_ = 0;                                           // the number of the last run
  std::chrono::steady_clock::time_point solve_started_;
  std::vector<std::size_t> order_;    // the boxes by ticket, then the host's
  std::vector<std::uint8_t> shapes_;  // per box of the run
  std::vector<std::uint8_t> classes_;  // per box of the run: size class, or kHostClass
  std::int32_t min_score_ = 0, max_score_ = 0;
  bool packed_ = true;
  std::size_t slot_limit_ = std::size_t{4} << 20;
  std::size_t budget_ = 0;
  int resident_blocks_ = 0;
  LeafRunStats stats_;
};

}  // namespace cudp::align
