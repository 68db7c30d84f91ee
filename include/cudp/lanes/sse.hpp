#pragma once
/// \file
/// 128-bit SSE2 lanes for the host backend: sixteen unsigned bytes (HMMER's MSV/SSV arithmetic) and eight signed
/// 16-bit words (its Viterbi filter arithmetic). The additions saturate, as HMMER's _mm_adds_* do, so add_max is
/// max(a +sat b, c). Host only: nothing here compiles for a device. With a group of one lane, the striped layout of
/// these words is Farrar's, the layout of HMMER's own SSE filters.
#if defined(__SSE2__) && !defined(__CUDA_ARCH__)
/// Defined where these lanes exist: an SSE2 host compilation.
#define CUDP_HAS_SSE_LANES 1
#include <emmintrin.h>

#include <cstdint>

namespace cudp::lanes {

/// The register in a plain struct, so that it can be a template argument (std::vector<Sse128>) without the
/// compiler dropping __m128i's attributes.
struct alignas(16) Sse128 {
  __m128i v;  ///< the register
};

namespace detail {
template <class Scalar, int Width>
struct SseScalars {
  static Scalar get(Sse128 w, int k) {
    alignas(16) Scalar v[Width];
    _mm_store_si128(reinterpret_cast<__m128i*>(v), w.v);
    return v[k];
  }
  static Sse128 set(Sse128 w, int k, int value) {
    alignas(16) Scalar v[Width];
    _mm_store_si128(reinterpret_cast<__m128i*>(v), w.v);
    v[k] = static_cast<Scalar>(value);
    return {_mm_load_si128(reinterpret_cast<const __m128i*>(v))};
  }
};
}  // namespace detail

/// Sixteen unsigned bytes in an SSE2 register, with HMMER's saturating byte arithmetic (MSV and SSV filters).
struct u8x16 {
  /// \name Types and constants
  //@{
  /// The lane's types and constants, as in the GPU lanes: `word` is the 128-bit register, `scalar` one lane's
  /// value, `width` lanes of `bits` bits each, and the lane's `name` in reports.
  using word = Sse128;
  using scalar = std::uint8_t;
  static constexpr int width = 16;
  static constexpr int bits = 8;
  static constexpr const char* name = "u8x16 (SSE2)";
  /// \name Operations
  //@{
  /// The lane operations HMMER's byte filters use: `splat`, `extract` and `insert` as in the GPU lanes; `adds`
  /// and `subs` saturate at 0 and 255 (_mm_adds_epu8, _mm_subs_epu8); `max` and `max3` lane by lane; `hmax` is the
  /// largest lane.
  static word splat(int v) { return {_mm_set1_epi8(static_cast<char>(v))}; }
  static int extract(word w, int k) { return detail::SseScalars<std::uint8_t, 16>::get(w, k); }
  static word insert(word w, int k, int v) { return detail::SseScalars<std::uint8_t, 16>::set(w, k, v); }
  static word adds(word a, word b) { return {_mm_adds_epu8(a.v, b.v)}; }
  static word subs(word a, word b) { return {_mm_subs_epu8(a.v, b.v)}; }
  static word max(word a, word b) { return {_mm_max_epu8(a.v, b.v)}; }
  static word max3(word a, word b, word c) { return {_mm_max_epu8(_mm_max_epu8(a.v, b.v), c.v)}; }
  static int hmax(word w) {
    __m128i m = _mm_max_epu8(w.v, _mm_srli_si128(w.v, 8));
    m = _mm_max_epu8(m, _mm_srli_si128(m, 4));
    m = _mm_max_epu8(m, _mm_srli_si128(m, 2));
    m = _mm_max_epu8(m, _mm_srli_si128(m, 1));
    return _mm_cvtsi128_si32(m) & 0xff;
  }
  /// The word moved up one byte, the top byte of `below` entering at the bottom.
  static word shift_up(word w, word below) {
    return {_mm_or_si128(_mm_slli_si128(w.v, 1), _mm_srli_si128(below.v, 15))};
  }
};

/// Eight signed 16-bit words in an SSE2 register, with HMMER's saturating word arithmetic (Viterbi filter).
struct s16x8 {
  /// \name Types and constants
  //@{
  /// The lane's types and constants, as in the GPU lanes: `word` is the 128-bit register, `scalar` one lane's
  /// value, `width` lanes of `bits` bits each, and the lane's `name` in reports.
  using word = Sse128;
  using scalar = std::int16_t;
  static constexpr int width = 8;
  static constexpr int bits = 16;
  static constexpr const char* name = "s16x8 (SSE2)";
  //@}
  //@}
  /// \name Operations
  //@{
  /// The lane operations HMMER's word filter uses: `splat`, `extract` and `insert` as in the GPU lanes; `adds`
  /// saturates (_mm_adds_epi16); `max` and `max3` lane by lane; `hmax` is the largest lane; `add_max(a, b, c)` is
  /// max(a +sat b, c); `any_greater(a, b)` says whether a > b in any lane.
  static word splat(int v) { return {_mm_set1_epi16(static_cast<short>(v))}; }
  static int extract(word w, int k) { return detail::SseScalars<std::int16_t, 8>::get(w, k); }
  static word insert(word w, int k, int v) { return detail::SseScalars<std::int16_t, 8>::set(w, k, v); }
  static word adds(word a, word b) { return {_mm_adds_epi16(a.v, b.v)}; }
  static word max(word a, word b) { return {_mm_max_epi16(a.v, b.v)}; }
  static word max3(word a, word b, word c) { return {_mm_max_epi16(_mm_max_epi16(a.v, b.v), c.v)}; }
  static int hmax(word w) {
    __m128i m = _mm_max_epi16(w.v, _mm_srli_si128(w.v, 8));
    m = _mm_max_epi16(m, _mm_srli_si128(m, 4));
    m = _mm_max_epi16(m, _mm_srli_si128(m, 2));
    return static_cast<std::int16_t>(_mm_cvtsi128_si32(m) & 0xffff);
  }
  //@}
  static word add_max(word a, word b, word c) { return {_mm_max_epi16(_mm_adds_epi16(a.v, b.v), c.v)}; }
  static bool any_greater(word a, word b) { return _mm_movemask_epi8(_mm_cmpgt_epi16(a.v, b.v)) != 0; }
  //@}
  static word shift_up(word w, word below) {
    return {_mm_or_si128(_mm_slli_si128(w.v, 2), _mm_srli_si128(below.v, 14))};
  }
};

}  // namespace cudp::lanes
#endif
