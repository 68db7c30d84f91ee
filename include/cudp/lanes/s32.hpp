#pragma once
/// \file
/// One signed 32-bit lane: the exact fallback for scores that overflow the packed lanes.
#include <cstdint>

#include "../config.hpp"
#include "row_chunks.hpp"

namespace cudp::lanes {

/// One signed 32-bit lane: exact, the wide lane of every overflow cascade.
struct s32 {
  /// \name Types and constants
  //@{
  /// The lane's types and constants, the same in every lane type (docs/architecture.md, "lanes/"): `word` is
  /// what a register holds, `scalar` the value of one lane and of a profile entry, `width` lanes of `bits` bits
  /// each, `min_value` and `max_value` their range, `neg_inf` the lane's minus infinity (low enough that
  /// subtracting gap costs from it never wraps) and `name` the lane's name in reports.
  using word = std::int32_t;
  using scalar = std::int32_t;
  static constexpr int width = 1;
  static constexpr int bits = 32;
  static constexpr int min_value = INT32_MIN;
  static constexpr int max_value = INT32_MAX;
  static constexpr int neg_inf = -(1 << 29);
  static constexpr const char* name = "s32";
  //@}

  /// \name Operations
  //@{
  /// The lane operations, the same in every lane type: `splat` puts a scalar in every lane, `extract` and `insert`
  /// read and replace lane k; `add` and `sub` wrap (two's complement), `adds` and `subs` saturate at the lane's
  /// range; `max`, `min`, `max3`, `min3` and `max3_relu` (the maximum of three and 0) work lane by lane;
  /// `add_max(a, b, c)` is max(a + b, c) and `add_min(a, b, c)` min(a + b, c), with a wrapping add; `eq_mask` and
  /// `gt_mask` set every bit of the lanes where a == b or a > b; `mask_from_bits` sets the lanes whose bit is set
  /// (bit k, lane k); `select(mask, if_set, if_clear)` takes each lane from `if_set` where the mask is set.
  CUDP_HD static word splat(int v) { return v; }
  CUDP_HD static int extract(word w, int) { return w; }
  CUDP_HD static word insert(word, int, int v) { return v; }

  /// Wrapping add, as the packed lanes do: computed in unsigned arithmetic so that it is defined behaviour.
  CUDP_HD static word add(word a, word b) {
    return static_cast<word>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
  }
  CUDP_HD static word sub(word a, word b) {
    return static_cast<word>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
  }
  CUDP_HD static word adds(word a, word b) {
    std::int64_t s = static_cast<std::int64_t>(a) + b;
    return s > max_value ? max_value : (s < min_value ? min_value : static_cast<word>(s));
  }
  CUDP_HD static word subs(word a, word b) {
    std::int64_t s = static_cast<std::int64_t>(a) - b;
    return s > max_value ? max_value : (s < min_value ? min_value : static_cast<word>(s));
  }
  CUDP_HD static word max(word a, word b) { return a > b ? a : b; }
  CUDP_HD static word min(word a, word b) { return a < b ? a : b; }
#if CUDP_DEVICE_PASS
  CUDP_HD static word max3(word a, word b, word c) { return __vimax3_s32(a, b, c); }
  CUDP_HD static word min3(word a, word b, word c) { return __vimin3_s32(a, b, c); }
  CUDP_HD static word max3_relu(word a, word b, word c) { return __vimax3_s32_relu(a, b, c); }
  CUDP_HD static word add_max(word a, word b, word c) { return __viaddmax_s32(a, b, c); }
  CUDP_HD static word add_min(word a, word b, word c) { return __viaddmin_s32(a, b, c); }
#else
  CUDP_HD static word max3(word a, word b, word c) { return max(max(a, b), c); }
  CUDP_HD static word min3(word a, word b, word c) { return min(min(a, b), c); }
  CUDP_HD static word max3_relu(word a, word b, word c) { return max(max3(a, b, c), 0); }
  CUDP_HD static word add_max(word a, word b, word c) { return max(add(a, b), c); }
  CUDP_HD static word add_min(word a, word b, word c) { return min(add(a, b), c); }
#endif
  CUDP_HD static word eq_mask(word a, word b) { return a == b ? -1 : 0; }
  CUDP_HD static word gt_mask(word a, word b) { return a > b ? -1 : 0; }
  CUDP_HD static word mask_from_bits(unsigned bits) { return (bits & 1u) ? -1 : 0; }
  CUDP_HD static word select(word mask, word if_set, word if_clear) {
    return (if_set & mask) | (if_clear & ~mask);
  }
  //@}

  /// Score words of R columns of the lane's profile row (see RowChunks for Interleave).
  template <int R, int Interleave = 1>
  CUDP_HD static void gather(const scalar* const (&rows)[width], word (&out)[R]) {
    std::uint32_t w[R];
    RowChunks<scalar, R, Interleave>::load(rows[0], w);
    CUDP_UNROLL
    for (int r = 0; r < R; ++r) out[r] = static_cast<word>(w[r]);
  }
};

}  // namespace cudp::lanes
