#pragma once
// One float lane, for probabilistic recurrences (Forward, Felsenstein) and half-precision experiments.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "../config.hpp"
#include "row_chunks.hpp"

namespace cudp::lanes {

struct f32 {
  using word = float;
  using scalar = float;
  static constexpr int width = 1;
  static constexpr int bits = 32;
  static constexpr float neg_inf = -1e30f;
  static constexpr const char* name = "f32";

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
  // Masks are carried as the float with all bits set (a NaN pattern), only ever consumed by select.
  CUDP_HD static word eq_mask(word a, word b) { return from_bits(a == b ? 0xffffffffu : 0u); }
  CUDP_HD static word gt_mask(word a, word b) { return from_bits(a > b ? 0xffffffffu : 0u); }
  CUDP_HD static word mask_from_bits(unsigned bits) { return from_bits((bits & 1u) ? 0xffffffffu : 0u); }
  CUDP_HD static word select(word mask, word if_set, word if_clear) {
    std::uint32_t m = to_bits(mask);
    return from_bits((to_bits(if_set) & m) | (to_bits(if_clear) & ~m));
  }

  // Score words of R columns of the lane's profile row (see RowChunks for Interleave).
  template <int R, int Interleave = 1>
  CUDP_HD static void gather(const scalar* const (&rows)[width], word (&out)[R]) {
    std::uint32_t w[R];
    RowChunks<scalar, R, Interleave>::load(rows[0], w);
    CUDP_UNROLL
    for (int r = 0; r < R; ++r) out[r] = from_bits(w[r]);
  }

 private:
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
};

}  // namespace cudp::lanes
