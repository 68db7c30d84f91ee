#pragma once
/// \file
/// One float lane, for probabilistic recurrences (Forward, Felsenstein) and half-precision experiments.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "../config.hpp"
#include "row_chunks.hpp"

namespace cudp::lanes {

/// One float lane, for probabilistic recurrences.
struct f32 {
  /// \name Types and constants
  //@{
  /// The lane's types and constants, the same in every lane type (docs/architecture.md, "lanes/"): `word` is
  /// what a register holds, `scalar` the value of one lane and of a profile entry, `width` lanes of `bits` bits
  /// each, `min_value` and `max_value` their range, `neg_inf` the lane's minus infinity (low enough that
  /// subtracting gap costs from it never wraps) and `name` the lane's name in reports.
  using word = float;
  using scalar = float;
  static constexpr int width = 1;
  static constexpr int bits = 32;
  static constexpr float neg_inf = -1e30f;
  static constexpr const char* name = "f32";
  //@}

  /// \name Operations
  //@{
  /// The lane operations, the same in every lane type: `splat` puts a scalar in every lane, `extract` and `insert`
  /// read and replace lane k; `add` and `sub` wrap (two's complement), `adds` and `subs` saturate at the lane's
  /// range; `max`, `min`, `max3`, `min3` and `max3_relu` (the maximum of three and 0) work lane by lane;
  /// `add_max(a, b, c)` is max(a + b, c) and `add_min(a, b, c)` min(a + b, c), with a wrapping add; `eq_mask` and
  /// `gt_mask` set every bit of the lanes where a == b or a > b; `mask_from_bits` sets the lanes whose bit is set
  /// (bit k, lane k); `select(mask, if_set, if_clear)` takes each lane from `if_set` where the mask is set.
  CUDP_HD static word splat(float v) { return v; }
  CUDP_HD static float extract(word w, int) { return w; }
  CUDP_HD static word insert(word, int, float v) { return v; }
  CUDP_HD static word add(word a, word b) { return a + b; }
  CUDP_HD static word sub(word a, word b) { return a - b; }
  CUDP_HD static word adds(word a, word b) { return a + b; }
  CUDP_HD static word subs(word a, word b) { return a - b; }
  CUDP_HD static word max(word a, word b) { return a > b ? a : b; }
  CUDP_HD static word min(word a, word b) { return a < b ? a : b; }
  CUDP_HD static word max3(word a, word b, word c) { return max(max(a, b), c); }
  CUDP_HD static word min3(word a, word b, word c) { return min(min(a, b), c); }
  CUDP_HD static word max3_relu(word a, word b, word c) { return max(max3(a, b, c), 0.0f); }
  CUDP_HD static word add_max(word a, word b, word c) { return max(a + b, c); }
  CUDP_HD static word add_min(word a, word b, word c) { return min(a + b, c); }
  /// Masks are carried as the float with all bits set (a NaN pattern), only ever consumed by select.
  CUDP_HD static word eq_mask(word a, word b) { return from_bits(a == b ? 0xffffffffu : 0u); }
  CUDP_HD static word gt_mask(word a, word b) { return from_bits(a > b ? 0xffffffffu : 0u); }
  CUDP_HD static word mask_from_bits(unsigned bits) { return from_bits((bits & 1u) ? 0xffffffffu : 0u); }
  CUDP_HD static word select(word mask, word if_set, word if_clear) {
    std::uint32_t m = to_bits(mask);
    return from_bits((to_bits(if_set) & m) | (to_bits(if_clear) & ~m));
  }
  //@}

  /// Score words of R columns of the lane's profile row (see RowChunks for Interleave).
  template <int R, int Interleave = 1>
  CUDP_HD static void gather(const scalar* const (&rows)[width], word (&out)[R]) {
    std::uint32_t w[R];
    RowChunks<scalar, R, Interleave>::load(rows[0], w);
    CUDP_UNROLL
    for (int r = 0; r < R; ++r) out[r] = from_bits(w[r]);
  }

 private:
  /// \name Bits
  //@{
  /// The bits of a float and the float of some bits (how masks are carried).
  CUDP_HD static std::uint32_t to_bits(float f) {
#if CUDP_DEVICE_PASS
    return __float_as_uint(f);
#else
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
#endif
  }
  CUDP_HD static float from_bits(std::uint32_t u) {
#if CUDP_DEVICE_PASS
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, 4);
    return f;
#endif
  }
  //@}
};

}  // namespace cudp::lanes
