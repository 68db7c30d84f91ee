#pragma once
/// \file
/// Four unsigned 8-bit lanes in one word: the byte arithmetic of HMMER's MSV/SSV filters (biased, saturating at 0
/// and 255). On Hopper the video intrinsics behind it are emulated; see s16x2 for the DPX alternative.
#include <cstdint>

#include "packed_word.hpp"

namespace cudp::lanes {

/// Four unsigned 8-bit lanes in one 32-bit word: HMMER's biased byte arithmetic, saturating at 0 and 255.
struct u8x4 {
  /// \name Types and constants
  //@{
  /// The lane's types and constants, the same in every lane type (docs/architecture.md, "lanes/"): `word` is
  /// what a register holds, `scalar` the value of one lane and of a profile entry, `width` lanes of `bits` bits
  /// each, `min_value` and `max_value` their range, `neg_inf` the lane's minus infinity (low enough that
  /// subtracting gap costs from it never wraps) and `name` the lane's name in reports.
  using word = std::uint32_t;
  using scalar = std::uint8_t;
  static constexpr int width = 4;
  static constexpr int bits = 8;
  static constexpr int min_value = 0;
  static constexpr int max_value = 255;
  static constexpr int neg_inf = 0;
  static constexpr const char* name = "u8x4";
  using model = detail::PackedWord<8, false>;
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
  CUDP_HD static word adds(word a, word b) { return __vaddus4(a, b); }
  CUDP_HD static word subs(word a, word b) { return __vsubus4(a, b); }
  CUDP_HD static word max(word a, word b) { return __vmaxu4(a, b); }
  CUDP_HD static word min(word a, word b) { return __vminu4(a, b); }
  CUDP_HD static word eq_mask(word a, word b) { return __vcmpeq4(a, b); }
  CUDP_HD static word gt_mask(word a, word b) { return __vcmpgtu4(a, b); }
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
  CUDP_HD static word max3_relu(word a, word b, word c) { return max3(a, b, c); }  // unsigned lanes are never below 0
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
};

}  // namespace cudp::lanes
