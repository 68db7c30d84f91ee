#pragma once
/// \file
/// Two IEEE half-precision lanes in one 32-bit word (CUDA's __half2), carrying integer scores. Every integer of
/// magnitude up to 2048 is exact in half precision and so is every sum of two of them that stays in that range, so a
/// local alignment whose best score is at most max_value minus the largest substitution score is computed exactly;
/// a higher one is rescored in a wider lane like any narrow-lane overflow. Local mode only: global and semi-global
/// scores go far below -2048, where half precision rounds.
///
/// The lane answers a measured question (bench/RESULTS.md): do half2 lanes, two HADD2/HMNMX2 instructions where DPX
/// needs one, pay against s16x2 on a given GPU? The host twin rounds exactly as the device does: a sum of two halves
/// is computed in float (24 bits, enough that rounding it once more to half is the correctly rounded half sum) and
/// rounded to nearest even.
#include <cstdint>
#include <cstring>

#include "packed_word.hpp"
#include "row_chunks.hpp"

#if CUDP_DEVICE_PASS
#include <cuda_fp16.h>
#endif

namespace cudp::lanes {

namespace detail {

CUDP_HD float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0x1fu) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf, NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    int e = -1;
    do {
      ++e;
      mantissa <<= 1;
    } while ((mantissa & 0x400u) == 0);
    bits = sign | ((112u - static_cast<std::uint32_t>(e)) << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Round to nearest, ties to even; overflow gives infinity.
CUDP_HD std::uint16_t half_from_float(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u)  // inf stays inf, NaN stays a quiet NaN
    return static_cast<std::uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0u));
  if (magnitude >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (magnitude < 0x38800000u) {  // below the smallest normal half: a subnormal or zero, in units of 2^-24
    if (magnitude < 0x33000000u) return sign;  // at most half of 2^-24: rounds to zero
    const std::uint32_t exponent = magnitude >> 23;
    const std::uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126u - exponent;  // 14..24 for exponents 102..112
    std::uint32_t units = significand >> shift;
    const std::uint32_t rest = significand & ((1u << shift) - 1u), half_unit = 1u << (shift - 1u);
    if (rest > half_unit || (rest == half_unit && (units & 1u))) ++units;
    return static_cast<std::uint16_t>(sign | units);
  }
  std::uint32_t h = ((magnitude >> 13) - (112u << 10));  // rebias 127 -> 15, keep 10 mantissa bits
  const std::uint32_t rest = magnitude & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is the right answer
  return static_cast<std::uint16_t>(sign | h);
}

}  // namespace detail

/// A half-precision profile score, as its bits; built from the integer scores of a substitution matrix.
struct half_bits {
  std::uint16_t bits = 0;  ///< IEEE binary16 bits
  half_bits() = default;
  /// The half nearest to v (exact for |v| <= 2048).
  CUDP_HD explicit half_bits(int v) : bits(detail::half_from_float(static_cast<float>(v))) {}
};

/// Two half-precision lanes in one 32-bit word carrying integer scores, exact up to 2048 (local mode).
struct h16x2 {
  /// \name Types and constants
  //@{
  /// The lane's types and constants, the same in every lane type (docs/architecture.md, "lanes/"): `word` is
  /// what a register holds, `scalar` the value of one lane and of a profile entry, `width` lanes of `bits` bits
  /// each, `min_value` and `max_value` their range, `neg_inf` the lane's minus infinity (low enough that
  /// subtracting gap costs from it never wraps) and `name` the lane's name in reports.
  using word = std::uint32_t;
  using scalar = half_bits;
  static constexpr int width = 2;
  static constexpr int bits = 16;
  static constexpr int min_value = -2048;
  static constexpr int max_value = 2048;
  /// Exact in half precision, and far enough below any local score that a gap cost more leaves it far below.
  static constexpr int neg_inf = -16384;
  static constexpr const char* name = "h16x2";
  //@}

  /// \name Operations
  //@{
  /// The lane operations, the same in every lane type: `splat` puts a scalar in every lane, `extract` and `insert`
  /// read and replace lane k; `add` and `sub` wrap (two's complement), `adds` and `subs` saturate at the lane's
  /// range; `max`, `min`, `max3`, `min3` and `max3_relu` (the maximum of three and 0) work lane by lane;
  /// `add_max(a, b, c)` is max(a + b, c) and `add_min(a, b, c)` min(a + b, c), with a wrapping add; `eq_mask` and
  /// `gt_mask` set every bit of the lanes where a == b or a > b; `mask_from_bits` sets the lanes whose bit is set
  /// (bit k, lane k); `select(mask, if_set, if_clear)` takes each lane from `if_set` where the mask is set.
  CUDP_HD static word splat(int v) { return static_cast<word>(detail::half_from_float(static_cast<float>(v))) * 0x10001u; }
  CUDP_HD static int extract(word w, int k) { return static_cast<int>(lane(w, k)); }
  CUDP_HD static word insert(word w, int k, int v) {
    const word shift = 16u * static_cast<word>(k);
    return (w & ~(0xffffu << shift)) | (static_cast<word>(detail::half_from_float(static_cast<float>(v))) << shift);
  }

  CUDP_HD static word add(word a, word b) {
#if CUDP_DEVICE_PASS
    return bits_of(__hadd2(h2(a), h2(b)));
#else
    return map(a, b, [](float x, float y) { return x + y; });
#endif
  }
  CUDP_HD static word sub(word a, word b) {
#if CUDP_DEVICE_PASS
    return bits_of(__hsub2(h2(a), h2(b)));
#else
    return map(a, b, [](float x, float y) { return x - y; });
#endif
  }
  /// Half precision saturates at infinity on its own; within the exact range these are add and sub.
  CUDP_HD static word adds(word a, word b) { return add(a, b); }
  CUDP_HD static word subs(word a, word b) { return sub(a, b); }
  CUDP_HD static word max(word a, word b) {
#if CUDP_DEVICE_PASS
    return bits_of(__hmax2(h2(a), h2(b)));
#else
    return map(a, b, [](float x, float y) { return x > y ? x : y; });
#endif
  }
  CUDP_HD static word min(word a, word b) {
#if CUDP_DEVICE_PASS
    return bits_of(__hmin2(h2(a), h2(b)));
#else
    return map(a, b, [](float x, float y) { return x < y ? x : y; });
#endif
  }
  CUDP_HD static word max3(word a, word b, word c) { return max(max(a, b), c); }
  CUDP_HD static word min3(word a, word b, word c) { return min(min(a, b), c); }
  CUDP_HD static word max3_relu(word a, word b, word c) { return max(max(a, b), max(c, 0u)); }
  CUDP_HD static word add_max(word a, word b, word c) { return max(add(a, b), c); }
  CUDP_HD static word add_min(word a, word b, word c) { return min(add(a, b), c); }
  CUDP_HD static word eq_mask(word a, word b) {
#if CUDP_DEVICE_PASS
    return __heq2_mask(h2(a), h2(b));
#else
    return masks(lane(a, 0) == lane(b, 0), lane(a, 1) == lane(b, 1));
#endif
  }
  CUDP_HD static word gt_mask(word a, word b) {
#if CUDP_DEVICE_PASS
    return __hgt2_mask(h2(a), h2(b));
#else
    return masks(lane(a, 0) > lane(b, 0), lane(a, 1) > lane(b, 1));
#endif
  }
  /// Whether a > b in any lane.
  CUDP_HD static bool any_greater(word a, word b) { return gt_mask(a, b) != 0u; }
  CUDP_HD static word mask_from_bits(unsigned bits) { return masks((bits & 1u) != 0, (bits & 2u) != 0); }
  CUDP_HD static word select(word mask, word if_set, word if_clear) { return (if_set & mask) | (if_clear & ~mask); }
  //@}

  /// The same column-pair packing as s16x2: the profile's scalars are 16-bit patterns either way.
  template <int R, int Interleave = 1>
  CUDP_HD static void gather(const scalar* const (&rows)[width], word (&out)[R]) {
    detail::gather_16bit_pairs<scalar, R, Interleave>(rows, out);
  }

 private:
  CUDP_HD static float lane(word w, int k) { return detail::half_to_float(static_cast<std::uint16_t>(w >> (16 * k))); }
  CUDP_HD static word masks(bool low, bool high) { return (low ? 0xffffu : 0u) | (high ? 0xffff0000u : 0u); }
  template <class Op>
  CUDP_HD static word map(word a, word b, Op op) {
    return static_cast<word>(detail::half_from_float(op(lane(a, 0), lane(b, 0)))) |
           (static_cast<word>(detail::half_from_float(op(lane(a, 1), lane(b, 1)))) << 16);
  }
#if CUDP_DEVICE_PASS
  __device__ static __half2 h2(word w) {
    __half2 h;
    std::memcpy(&h, &w, 4);
    return h;
  }
  __device__ static word bits_of(__half2 h) {
    word w;
    std::memcpy(&w, &h, 4);
    return w;
  }
#endif
};

}  // namespace cudp::lanes
