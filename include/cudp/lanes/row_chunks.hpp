#pragma once
/// \file
/// Reading a thread's slice of a profile row with vector loads, the one memory access in every tier's inner loop.
#include <cstdint>
#include <cstring>

#include "../config.hpp"
#include "packed_word.hpp"

namespace cudp::lanes {

/// How a thread's R consecutive scalars of a profile row are read: in chunks of up to 16 bytes (one vector load
/// each). With Interleave = G, a tile stores the c-th chunk of each of G threads side by side, so that threads
/// reading the same row touch consecutive addresses; the thread's chunks then sit `stride` scalars apart.
template <class Scalar, int R, int Interleave = 1>
struct RowChunks {
  /// \name Layout
  //@{
  /// The slice's layout: `row_bytes` in all, read in `count` chunks of `bytes` bytes (`words` 32-bit words,
  /// `scalars` scalars) that sit `stride` scalars apart in the row.
  static constexpr int row_bytes = R * static_cast<int>(sizeof(Scalar));
  static constexpr int bytes = row_bytes >= 16 ? 16 : row_bytes;
  static constexpr int words = bytes / 4;
  static constexpr int scalars = bytes / static_cast<int>(sizeof(Scalar));
  static constexpr int count = row_bytes / bytes;
  static constexpr int stride = scalars * Interleave;
  //@}
  static_assert(bytes == 4 || bytes == 8 || bytes == 16, "a thread's row slice is 4, 8 or a multiple of 16 bytes");
  static_assert(row_bytes % bytes == 0, "a thread's row slice is whole chunks");

  /// The slice as 32-bit words, in column order.
  CUDP_HD static void load(const Scalar* row, std::uint32_t (&w)[count * words]) {
    CUDP_UNROLL
    for (int c = 0; c < count; ++c) {
      const Scalar* src = row + c * stride;
#if CUDP_DEVICE_PASS
      if constexpr (bytes == 16) {
        uint4 v = *reinterpret_cast<const uint4*>(src);
        w[4 * c] = v.x, w[4 * c + 1] = v.y, w[4 * c + 2] = v.z, w[4 * c + 3] = v.w;
      } else if constexpr (bytes == 8) {
        uint2 v = *reinterpret_cast<const uint2*>(src);
        w[2 * c] = v.x, w[2 * c + 1] = v.y;
      } else {
        w[c] = *reinterpret_cast<const std::uint32_t*>(src);
      }
#else
      std::memcpy(w + c * words, src, bytes);
#endif
    }
  }

  /// One chunk, both ends aligned to its size: how tiles are filled.
  CUDP_HD static void copy(const Scalar* src, Scalar* dst) {
#if CUDP_DEVICE_PASS
    if constexpr (bytes == 16) *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
    else if constexpr (bytes == 8) *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(src);
    else *reinterpret_cast<std::uint32_t*>(dst) = *reinterpret_cast<const std::uint32_t*>(src);
#else
    std::memcpy(dst, src, bytes);
#endif
  }

  /// One chunk from `src` (aligned to its size) into `dst`.
  CUDP_HD static void copy(const void* src, void* dst) {
#if CUDP_DEVICE_PASS
    if constexpr (bytes == 16) *static_cast<uint4*>(dst) = *static_cast<const uint4*>(src);
    else if constexpr (bytes == 8) *static_cast<uint2*>(dst) = *static_cast<const uint2*>(src);
    else *static_cast<std::uint32_t*>(dst) = *static_cast<const std::uint32_t*>(src);
#else
    std::memcpy(dst, src, bytes);
#endif
  }
};

namespace detail {

// The gather of the two-lane 16-bit types (s16x2, h16x2): R columns of each lane's profile row, packed column by
// column into R words, lane k in half k, one __byte_perm per word.
template <class Scalar, int R, int Interleave>
CUDP_HD void gather_16bit_pairs(const Scalar* const (&rows)[2], std::uint32_t (&out)[R]) {
  static_assert(sizeof(Scalar) == 2 && R % 2 == 0, "16-bit lanes gather column pairs");
  using Chunks = RowChunks<Scalar, R, Interleave>;
  std::uint32_t w0[R / 2], w1[R / 2];
  Chunks::load(rows[0], w0);
  Chunks::load(rows[1], w1);
  CUDP_UNROLL
  for (int p = 0; p < R / 2; ++p) {
    out[2 * p] = byte_perm(w0[p], w1[p], 0x5410);
    out[2 * p + 1] = byte_perm(w0[p], w1[p], 0x7632);
  }
}

}  // namespace detail

}  // namespace cudp::lanes
