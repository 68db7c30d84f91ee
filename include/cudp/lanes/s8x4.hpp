#pragma once
/// \file
/// Four signed 8-bit lanes in one 32-bit word. On Hopper every int8x4 video intrinsic is emulated (7.6-15.8 words
/// per clock per SM, against 62 for DPX), so this lane pays only where its 4-way packing outweighs that.
#include <cstdint>

#include "packed_word.hpp"
#include "row_chunks.hpp"

namespace cudp::lanes {

/// Four signed 8-bit lanes in one 32-bit word (see the file's description for their cost on Hopper).
struct s8x4 {
  /// \name Types and constants
  //@{
  /// The lane's types and constants, the same in every lane type (docs/architecture.md, "lanes/"): `word` is
  /// what a register holds, `scalar` the value of one lane and of a profile entry, `width` lanes of `bits` bits
  /// each, `min_value` and `max_value` their range, `neg_inf` the lane's minus infinity (low enough that
  /// subtracting gap costs from it never wraps) and `name` the lane's name in reports.
  using word = std::uint32_t;
  using scalar = std::int8_t;
  static constexpr int width = 4;
  static constexpr int bits = 8;
  static constexpr int min_value = -128;
  static constexpr int max_value = 127;
  static constexpr int neg_inf = -64;
  static constexpr const char* name = "s8x4";
  using model = detail::PackedWord<8, true>;
  //@}

  /// \name Operations
  //@{
  /// The lane operations, the same in every lane type: `splat` puts a scalar in every lane, `extract` and `insert`
  /// read and replace lane k; `add` and `sub` wrap (two's complement), `adds` and `subs` saturate at the lane's
  /// range; `max`, `min`, `max3`, `min3` and `max3_relu` (the maximum of three and 0) work lane by lane;
  /// `add_max(a, b, c)` is max(a + b, c) and `add_min(a, b, c)` min(a + b, c), with a wrapping add; `eq_mask` and
  /// `gt_mask` set every bit of the lanes where a == b or a > b; `mask_from_bits` sets the lanes whose bit is set
  /// (bit k, lane k); `select(mask, if_set, if_clear)` takes each lane from `if_set` where the mask is set.
  CUDP_HD static word splat(int v) { return (static_cast<word>(v) & 0xffu) * 0x01010101u; }
  CUDP_HD static int extract(word w, int k) { return model::get(w, k); }
  CUDP_HD static word insert(word w, int k, int v) { return model::set(w, k, v); }

#if CUDP_DEVICE_PASS
  CUDP_HD static word add(word a, word b) { return __vadd4(a, b); }
  CUDP_HD static word sub(word a, word b) { return __vsub4(a, b); }
  CUDP_HD static word adds(word a, word b) { return __vaddss4(a, b); }
  CUDP_HD static word subs(word a, word b) { return __vsubss4(a, b); }
  CUDP_HD static word max(word a, word b) { return __vmaxs4(a, b); }
  CUDP_HD static word min(word a, word b) { return __vmins4(a, b); }
  CUDP_HD static word eq_mask(word a, word b) { return __vcmpeq4(a, b); }
  CUDP_HD static word gt_mask(word a, word b) { return __vcmpgts4(a, b); }
#else
  CUDP_HD static word add(word a, word b) { return model::map(a, b, 0, [](int x, int y, int) { return x + y; }); }
  CUDP_HD static word sub(word a, word b) { return model::map(a, b, 0, [](int x, int y, int) { return x - y; }); }
  CUDP_HD static word adds(word a, word b) {
    return model::map(a, b, 0, [](int x, int y, int) { return model::clamp(x + y); });
  }
  CUDP_HD static word subs(word a, word b) {
    return model::map(a, b, 0, [](int x, int y, int) { return model::clamp(x - y); });
  }
  CUDP_HD static word max(word a, word b) { return model::map(a, b, 0, [](int x, int y, int) { return x > y ? x : y; }); }
  CUDP_HD static word min(word a, word b) { return model::map(a, b, 0, [](int x, int y, int) { return x < y ? x : y; }); }
  CUDP_HD static word eq_mask(word a, word b) {
    return model::map(a, b, 0, [](int x, int y, int) { return x == y ? -1 : 0; });
  }
  CUDP_HD static word gt_mask(word a, word b) {
    return model::map(a, b, 0, [](int x, int y, int) { return x > y ? -1 : 0; });
  }
#endif
  CUDP_HD static word max3(word a, word b, word c) { return max(max(a, b), c); }
  CUDP_HD static word min3(word a, word b, word c) { return min(min(a, b), c); }
  CUDP_HD static word max3_relu(word a, word b, word c) { return max(max3(a, b, c), 0u); }
  CUDP_HD static word add_max(word a, word b, word c) { return max(add(a, b), c); }
  CUDP_HD static word add_min(word a, word b, word c) { return min(add(a, b), c); }
  CUDP_HD static word mask_from_bits(unsigned bits) {
    word m = 0;
    for (int k = 0; k < width; ++k) m |= ((bits >> k) & 1u) ? (0xffu << (8 * k)) : 0u;
    return m;
  }
  CUDP_HD static word select(word mask, word if_set, word if_clear) {
    return (if_set & mask) | (if_clear & ~mask);
  }
  //@}

  /// Packs R consecutive 8-bit profile scores (4-byte aligned, R a multiple of 4) from four rows: a 4x4 byte transpose.
  /// Score words of R columns for the four lanes' profile rows (see RowChunks for Interleave).
  template <int R, int Interleave = 1>
  CUDP_HD static void gather(const scalar* const (&rows)[width], word (&out)[R]) {
    static_assert(R % 4 == 0, "s8x4 gathers column quads");
    using Chunks = RowChunks<scalar, R, Interleave>;
    std::uint32_t w[4][R / 4];
    CUDP_UNROLL
    for (int k = 0; k < 4; ++k) Chunks::load(rows[k], w[k]);
    CUDP_UNROLL
    for (int p = 0; p < R / 4; ++p) {
      std::uint32_t lo01 = detail::byte_perm(w[0][p], w[1][p], 0x5140), lo23 = detail::byte_perm(w[2][p], w[3][p], 0x5140);
      std::uint32_t hi01 = detail::byte_perm(w[0][p], w[1][p], 0x7362), hi23 = detail::byte_perm(w[2][p], w[3][p], 0x7362);
      out[4 * p + 0] = detail::byte_perm(lo01, lo23, 0x5410);
      out[4 * p + 1] = detail::byte_perm(lo01, lo23, 0x7632);
      out[4 * p + 2] = detail::byte_perm(hi01, hi23, 0x5410);
      out[4 * p + 3] = detail::byte_perm(hi01, hi23, 0x7632);
    }
  }
};

}  // namespace cudp::lanes
