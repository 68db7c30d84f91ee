#pragma once
/// \file
/// Two signed 16-bit lanes in one 32-bit word. On sm_90 every operation the recurrences use in their inner loop
/// (add, add-max, add-min, 3-way max) is one DPX instruction; saturating forms are video intrinsics (~6 instructions).
#include <cstdint>

#include "packed_word.hpp"
#include "row_chunks.hpp"

namespace cudp::lanes {

/// Two signed 16-bit lanes in one 32-bit word: the default narrow lane, DPX instructions on sm_90.
struct s16x2 {
  /// \name Types and constants
  //@{
  /// The lane's types and constants, the same in every lane type (docs/architecture.md, "lanes/"): `word` is
  /// what a register holds, `scalar` the value of one lane and of a profile entry, `width` lanes of `bits` bits
  /// each, `min_value` and `max_value` their range, `neg_inf` the lane's minus infinity (low enough that
  /// subtracting gap costs from it never wraps) and `name` the lane's name in reports.
  using word = std::uint32_t;
  using scalar = std::int16_t;
  static constexpr int width = 2;
  static constexpr int bits = 16;
  static constexpr int min_value = -32768;
  static constexpr int max_value = 32767;
  /// Far enough below any reachable score that subtracting gap costs from it never wraps.
  static constexpr int neg_inf = -16384;
  static constexpr const char* name = "s16x2";
  using model = detail::PackedWord<16, true>;
  //@}

  /// \name Operations
  //@{
  /// The lane operations, the same in every lane type: `splat` puts a scalar in every lane, `extract` and `insert`
  /// read and replace lane k; `add` and `sub` wrap (two's complement), `adds` and `subs` saturate at the lane's
  /// range; `max`, `min`, `max3`, `min3` and `max3_relu` (the maximum of three and 0) work lane by lane;
  /// `add_max(a, b, c)` is max(a + b, c) and `add_min(a, b, c)` min(a + b, c), with a wrapping add; `eq_mask` and
  /// `gt_mask` set every bit of the lanes where a == b or a > b; `mask_from_bits` sets the lanes whose bit is set
  /// (bit k, lane k); `select(mask, if_set, if_clear)` takes each lane from `if_set` where the mask is set.
  CUDP_HD static word splat(int v) { return (static_cast<word>(v) & 0xffffu) * 0x10001u; }
  CUDP_HD static int extract(word w, int k) { return model::get(w, k); }
  CUDP_HD static word insert(word w, int k, int v) { return model::set(w, k, v); }

  CUDP_HD static word add(word a, word b) {
#if CUDP_HAS_DPX
    return __viaddmax_s16x2(a, b, 0x80008000u);  // max(a+b, INT16_MIN) is the wrapped sum, one instruction
#elif CUDP_DEVICE_PASS
    return __vadd2(a, b);
#else
    return model::map(a, b, 0, [](int x, int y, int) { return x + y; });
#endif
  }
  CUDP_HD static word sub(word a, word b) {
#if CUDP_DEVICE_PASS
    return __vsub2(a, b);
#else
    return model::map(a, b, 0, [](int x, int y, int) { return x - y; });
#endif
  }
  CUDP_HD static word adds(word a, word b) {
#if CUDP_DEVICE_PASS
    return __vaddss2(a, b);
#else
    return model::map(a, b, 0, [](int x, int y, int) { return model::clamp(x + y); });
#endif
  }
  CUDP_HD static word subs(word a, word b) {
#if CUDP_DEVICE_PASS
    return __vsubss2(a, b);
#else
    return model::map(a, b, 0, [](int x, int y, int) { return model::clamp(x - y); });
#endif
  }
  CUDP_HD static word max(word a, word b) {
#if CUDP_DEVICE_PASS
    return __vmaxs2(a, b);
#else
    return model::map(a, b, 0, [](int x, int y, int) { return x > y ? x : y; });
#endif
  }
  CUDP_HD static word min(word a, word b) {
#if CUDP_DEVICE_PASS
    return __vmins2(a, b);
#else
    return model::map(a, b, 0, [](int x, int y, int) { return x < y ? x : y; });
#endif
  }
  CUDP_HD static word max3(word a, word b, word c) {
#if CUDP_DEVICE_PASS
    return __vimax3_s16x2(a, b, c);
#else
    return max(max(a, b), c);
#endif
  }
  CUDP_HD static word min3(word a, word b, word c) {
#if CUDP_DEVICE_PASS
    return __vimin3_s16x2(a, b, c);
#else
    return min(min(a, b), c);
#endif
  }
  /// max(a, b, c, 0)
  CUDP_HD static word max3_relu(word a, word b, word c) {
#if CUDP_DEVICE_PASS
    return __vimax3_s16x2_relu(a, b, c);
#else
    return max(max3(a, b, c), 0u);
#endif
  }
  /// max(a + b, c) with a wrapping add
  CUDP_HD static word add_max(word a, word b, word c) {
#if CUDP_DEVICE_PASS
    return __viaddmax_s16x2(a, b, c);
#else
    return max(add(a, b), c);
#endif
  }
  /// min(a + b, c) with a wrapping add
  CUDP_HD static word add_min(word a, word b, word c) {
#if CUDP_DEVICE_PASS
    return __viaddmin_s16x2(a, b, c);
#else
    return min(add(a, b), c);
#endif
  }
  /// All-ones in each lane where a == b, zero elsewhere.
  CUDP_HD static word eq_mask(word a, word b) {
#if CUDP_DEVICE_PASS
    return __vcmpeq2(a, b);
#else
    return model::map(a, b, 0, [](int x, int y, int) { return x == y ? -1 : 0; });
#endif
  }
  /// All-ones in each lane where a > b (signed), zero elsewhere.
  CUDP_HD static word gt_mask(word a, word b) {
#if CUDP_DEVICE_PASS
    return __vcmpgts2(a, b);
#else
    return model::map(a, b, 0, [](int x, int y, int) { return x > y ? -1 : 0; });
#endif
  }
  /// max(a, b) in each lane, and whether a won (a >= b) in lane 0 and lane 1: one DPX instruction on sm_90, where
  /// the two predicates come with the maximum rather than from a second comparison.
  CUDP_HD static word max_noting_first(word a, word b, bool& first0, bool& first1) {
#if CUDP_DEVICE_PASS
    return __vibmax_s16x2(a, b, &first1, &first0);
#else
    first0 = extract(a, 0) >= extract(b, 0);
    first1 = extract(a, 1) >= extract(b, 1);
    return max(a, b);
#endif
  }
  /// Lane 0 from the low 16 bits of x, lane 1 from the low 16 bits of y (one byte permute).
  CUDP_HD static word pack_low_halves(std::uint32_t x, std::uint32_t y) {
#if CUDP_DEVICE_PASS
    return __byte_perm(x, y, 0x5410);
#else
    return (x & 0xffffu) | (y << 16);
#endif
  }
  CUDP_HD static bool any_greater(word a, word b) { return gt_mask(a, b) != 0u; }
  /// All-ones in the lanes whose bit is set in `bits` (bit k selects lane k).
  CUDP_HD static word mask_from_bits(unsigned bits) { return ((bits & 1u) ? 0xffffu : 0u) | ((bits & 2u) ? 0xffff0000u : 0u); }
  CUDP_HD static word select(word mask, word if_set, word if_clear) {
    return (if_set & mask) | (if_clear & ~mask);
  }
  //@}

  /// Packs R consecutive substitution scores from each lane's profile row (16-bit scalars, 4-byte aligned, R even)
  /// into R words: word r holds row k's column r in lane k (see RowChunks for Interleave).
  template <int R, int Interleave = 1>
  CUDP_HD static void gather(const scalar* const (&rows)[width], word (&out)[R]) {
    detail::gather_16bit_pairs<scalar, R, Interleave>(rows, out);
  }
};

}  // namespace cudp::lanes
