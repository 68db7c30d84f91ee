#pragma once
// Host-side model of a 32-bit word holding independent lanes. The host twins of every packed lane type are written
// against this model, so that each device intrinsic has one obvious scalar definition to be checked against.
#include <cstdint>

#include "../config.hpp"

namespace cudp::lanes::detail {

template <int Bits, bool Signed>
struct PackedWord {
  static constexpr int width = 32 / Bits;
  static constexpr std::uint32_t lane_mask = (Bits == 32) ? 0xffffffffu : ((1u << Bits) - 1u);
  static constexpr int lo = Signed ? -(1 << (Bits - 1)) : 0;
  static constexpr int hi = Signed ? (1 << (Bits - 1)) - 1 : (1 << Bits) - 1;

  CUDP_HD static int get(std::uint32_t w, int k) {
    std::uint32_t raw = (w >> (k * Bits)) & lane_mask;
    if (Signed && (raw >> (Bits - 1))) return static_cast<int>(raw) - (1 << Bits);
    return static_cast<int>(raw);
  }
  // Stores the low Bits of v: the wrapping (two's complement) result.
  CUDP_HD static std::uint32_t set(std::uint32_t w, int k, int v) {
    std::uint32_t shift = k * Bits;
    return (w & ~(lane_mask << shift)) | ((static_cast<std::uint32_t>(v) & lane_mask) << shift);
  }
  CUDP_HD static int clamp(int v) { return v < lo ? lo : (v > hi ? hi : v); }

  template <class Op>
  CUDP_HD static std::uint32_t map(std::uint32_t a, std::uint32_t b, std::uint32_t c, Op op) {
    std::uint32_t r = 0;
    for (int k = 0; k < width; ++k) r = set(r, k, op(get(a, k), get(b, k), get(c, k)));
    return r;
  }
};

// __byte_perm: output byte i is byte (selector nibble i & 7) of the 8-byte value {b:a}.
CUDP_HD std::uint32_t byte_perm(std::uint32_t a, std::uint32_t b, std::uint32_t selector) {
#if CUDP_DEVICE_PASS
  return __byte_perm(a, b, selector);
#else
  std::uint64_t both = (static_cast<std::uint64_t>(b) << 32) | a;
  std::uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    std::uint32_t pick = (selector >> (4 * i)) & 7u;
    r |= static_cast<std::uint32_t>((both >> (8 * pick)) & 0xffu) << (8 * i);
  }
  return r;
#endif
}

}  // namespace cudp::lanes::detail
