/// \file
/// Host SIMD lanes: 8-, 16- and 32-bit signed lanes (and float, double) as wide as the CPU's vectors (16 to 64
/// bytes), with the lane interface of the GPU lanes, so that the recurrence policies run on them unchanged. Written
/// on Google Highway: this header is compiled once per instruction set (SSSE3, SSE4, AVX2, AVX-512, NEON...) in a
/// translation unit that includes it after <hwy/foreach_target.h>, and the best set the CPU offers is picked at run
/// time.
///
/// Each inclusion defines cudp::lanes::HWY_NAMESPACE::{s8xn, s16xn, s32xn, f32xn, f64xn} for the target being
/// compiled, and HMMER's saturating words u8xn and s16xn_saturating. The operations are plain `inline` functions of
/// that target, not always-inline ones: a policy's member functions are compiled for no particular target, and only
/// a caller marked `flatten` in the target's code (tiers/host_vector-inl) can absorb them, with every lane operation
/// they call.
//
// Per-target include guard, as Highway's own -inl headers do it: toggled by foreach_target for each target.
#if defined(CUDP_LANES_HOST_VECTOR_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef CUDP_LANES_HOST_VECTOR_INL_HPP_
#undef CUDP_LANES_HOST_VECTOR_INL_HPP_
#else
#define CUDP_LANES_HOST_VECTOR_INL_HPP_
#endif

#include <hwy/highway.h>

#include <cstdint>
#include <limits>
#include <type_traits>

HWY_BEFORE_NAMESPACE();
namespace cudp::lanes::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

#if HWY_HAVE_SCALABLE
#error "cudp's host vector lanes need a fixed vector width; leave the scalable targets out (HWY_DISABLED_TARGETS)"
#endif

namespace detail {
// The floor each width treats as minus infinity: far enough above the lane's minimum that adding a gap cost or a
// score to it cannot wrap, the same values as the GPU lanes of that width.
template <class T>
constexpr int vector_neg_inf() {
  return sizeof(T) == 1 ? -64 : (sizeof(T) == 2 ? -16384 : -(1 << 29));
}
// One lane read or written through memory (extract and insert are for set-up and tests, not inner loops), and a
// mask word from a lane set: shared by every lane type below.
template <class Tag>
auto lane_value(hn::Vec<Tag> w, int k) {
  alignas(64) hn::TFromD<Tag> v[hn::MaxLanes(Tag())];
  hn::Store(w, Tag(), v);
  return v[k];
}
template <class Tag, class Value>
hn::Vec<Tag> with_lane(hn::Vec<Tag> w, int k, Value value) {
  alignas(64) hn::TFromD<Tag> v[hn::MaxLanes(Tag())];
  hn::Store(w, Tag(), v);
  v[k] = static_cast<hn::TFromD<Tag>>(value);
  return hn::Load(Tag(), v);
}
template <class Tag>
hn::Vec<Tag> mask_word(std::uint64_t bits) {
  alignas(8) std::uint8_t bytes[8];
  for (int k = 0; k < 8; ++k) bytes[k] = static_cast<std::uint8_t>(bits >> (8 * k));
  return hn::VecFromMask(Tag(), hn::LoadMaskBits(Tag(), bytes));
}

// The tag of a word of Bytes bytes (0: the widest vector), picked without naming a zero-lane tag.
template <class T, int Bytes>
struct WordTag {
  using type = hn::CappedTag<T, Bytes / sizeof(T)>;
};
template <class T>
struct WordTag<T, 0> {
  using type = hn::ScalableTag<T>;
};
}  // namespace detail

/// Signed 8-, 16- or 32-bit lanes (`T`) as wide as the CPU's vectors: s8xn, s16xn, s32xn.
template <class T>
struct VectorLane {
  /// \name Types and constants
  //@{
  /// The lane's types and constants, as in the GPU lanes (docs/architecture.md, "lanes/"): `tag` is Highway's
  /// descriptor of the vector, `word` the vector, `scalar` one lane's value, `width` lanes (the CPU's vector bytes
  /// over the lane's) of `bits` bits, their range, `neg_inf` and the lane's `name`.
  using tag = hn::ScalableTag<T>;
  using word = hn::Vec<tag>;
  using scalar = T;
  using mask = hn::Mask<tag>;
  static constexpr int width = static_cast<int>(hn::MaxLanes(tag()));
  static constexpr int bits = 8 * static_cast<int>(sizeof(T));
  static constexpr int min_value = std::numeric_limits<T>::min();
  static constexpr int max_value = std::numeric_limits<T>::max();
  static constexpr int neg_inf = detail::vector_neg_inf<T>();
  static constexpr const char* name = sizeof(T) == 1 ? "s8xn" : (sizeof(T) == 2 ? "s16xn" : "s32xn");
  static_assert(width <= 64, "lane masks are built from 64-bit lane sets");

  /// \name Operations
  //@{
  /// The lane operations, the GPU lanes' interface in Highway's operations: `splat`, `extract`, `insert`; `add`
  /// and `sub` wrap, `adds` and `subs` saturate; `max`, `min`, `max3`, `min3`, `max3_relu`; `add_max(a, b, c)`
  /// is max(a + b, c) and `add_min(a, b, c)` min(a + b, c); `eq_mask`, `gt_mask` and `mask_from_bits` make
  /// masks, words with every bit of a lane set, that `select(mask, if_set, if_clear)` reads.
  static inline word splat(int v) { return hn::Set(tag(), static_cast<T>(v)); }
  static inline int extract(word w, int k) { return detail::lane_value<tag>(w, k); }
  static inline word insert(word w, int k, int value) { return detail::with_lane<tag>(w, k, value); }

  /// add and sub wrap, as the GPU lanes' do: the policies bound their values (neg_inf, overflow limits) so that a
  /// wrap never reaches a kept value, and saturating forms exist where a policy asks for them.
  static inline word add(word a, word b) { return hn::Add(a, b); }
  static inline word sub(word a, word b) { return hn::Sub(a, b); }
  static inline word adds(word a, word b) {
    if constexpr (sizeof(T) <= 2) return hn::SaturatedAdd(a, b);
    else return saturate_wide(a, b, false);
  }
  static inline word subs(word a, word b) {
    if constexpr (sizeof(T) <= 2) return hn::SaturatedSub(a, b);
    else return saturate_wide(a, b, true);
  }
  static inline word max(word a, word b) { return hn::Max(a, b); }
  static inline word min(word a, word b) { return hn::Min(a, b); }
  static inline word eq_mask(word a, word b) { return hn::VecFromMask(tag(), hn::Eq(a, b)); }
  static inline word gt_mask(word a, word b) { return hn::VecFromMask(tag(), hn::Gt(a, b)); }
  static inline word max3(word a, word b, word c) { return hn::Max(hn::Max(a, b), c); }
  static inline word min3(word a, word b, word c) { return hn::Min(hn::Min(a, b), c); }
  static inline word max3_relu(word a, word b, word c) { return hn::Max(max3(a, b, c), hn::Zero(tag())); }
  static inline word add_max(word a, word b, word c) { return hn::Max(hn::Add(a, b), c); }
  static inline word add_min(word a, word b, word c) { return hn::Min(hn::Add(a, b), c); }

  /// Lane k set where bit k of `bits` is.
  static inline word mask_from_bits(std::uint64_t bits) { return detail::mask_word<tag>(bits); }
  static inline word select(word mask, word if_set, word if_clear) {
    return hn::IfThenElse(hn::MaskFromVec(mask), if_set, if_clear);
  }
  /// Whether any lane of the mask is set.
  static inline bool any(word mask) { return !hn::AllFalse(tag(), hn::MaskFromVec(mask)); }

 private:
  // 32-bit lanes saturate through 64-bit sums, one half of the lanes at a time: Highway 1.0 has no saturating
  // 32-bit addition. No policy of the library asks for it in its inner loop.
  static inline word saturate_wide(word a, word b, bool subtract) {
    alignas(64) T x[width], y[width];
    hn::Store(a, tag(), x);
    hn::Store(b, tag(), y);
    for (int k = 0; k < width; ++k) {
      const std::int64_t s = subtract ? std::int64_t{x[k]} - y[k] : std::int64_t{x[k]} + y[k];
      x[k] = static_cast<T>(s > max_value ? max_value : (s < min_value ? min_value : s));
    }
    return hn::Load(tag(), x);
  }
};

using s8xn = VectorLane<std::int8_t>;  ///< signed bytes: 16 to 64 lanes
using s16xn = VectorLane<std::int16_t>;  ///< signed 16-bit lanes
using s32xn = VectorLane<std::int32_t>;  ///< signed 32-bit lanes

/// Float and double lanes as wide as the CPU's vectors, the interface of lanes/f32.hpp: for probabilistic
/// recurrences (Forward, tree likelihoods). The saturating forms are the plain ones, as in f32.
template <class T>
struct FloatVectorLane {
  static_assert(std::is_floating_point_v<T>, "float or double");
  /// \name Types and constants
  //@{
  /// The lane's types and constants, as in the GPU lanes (docs/architecture.md, "lanes/"): `tag` is Highway's
  /// descriptor of the vector, `word` the vector, `scalar` one lane's value, `width` lanes (the CPU's vector bytes
  /// over the lane's) of `bits` bits, their range, `neg_inf` and the lane's `name`.
  using tag = hn::ScalableTag<T>;
  using word = hn::Vec<tag>;
  using scalar = T;
  static constexpr int width = static_cast<int>(hn::MaxLanes(tag()));
  static constexpr int bits = 8 * static_cast<int>(sizeof(T));
  static constexpr T neg_inf = sizeof(T) == 4 ? T(-1e30f) : T(-1e300);
  static constexpr const char* name = sizeof(T) == 4 ? "f32xn" : "f64xn";

  /// \name Operations
  //@{
  /// The lane operations, the GPU lanes' interface in Highway's operations: `splat`, `extract`, `insert`; `add`
  /// and `sub` wrap, `adds` and `subs` saturate; `max`, `min`, `max3`, `min3`, `max3_relu`; `add_max(a, b, c)`
  /// is max(a + b, c) and `add_min(a, b, c)` min(a + b, c); `eq_mask`, `gt_mask` and `mask_from_bits` make
  /// masks, words with every bit of a lane set, that `select(mask, if_set, if_clear)` reads.
  static inline word splat(T v) { return hn::Set(tag(), v); }
  static inline T extract(word w, int k) { return detail::lane_value<tag>(w, k); }
  static inline word insert(word w, int k, T value) { return detail::with_lane<tag>(w, k, value); }
  static inline word add(word a, word b) { return hn::Add(a, b); }
  static inline word sub(word a, word b) { return hn::Sub(a, b); }
  static inline word adds(word a, word b) { return hn::Add(a, b); }
  static inline word subs(word a, word b) { return hn::Sub(a, b); }
  static inline word max(word a, word b) { return hn::Max(a, b); }
  static inline word min(word a, word b) { return hn::Min(a, b); }
  static inline word max3(word a, word b, word c) { return hn::Max(hn::Max(a, b), c); }
  static inline word min3(word a, word b, word c) { return hn::Min(hn::Min(a, b), c); }
  static inline word max3_relu(word a, word b, word c) { return hn::Max(max3(a, b, c), hn::Zero(tag())); }
  static inline word add_max(word a, word b, word c) { return hn::Max(hn::Add(a, b), c); }
  static inline word add_min(word a, word b, word c) { return hn::Min(hn::Add(a, b), c); }
  /// Masks are words with every bit of a lane set, only ever consumed by select (as in f32).
  static inline word eq_mask(word a, word b) { return hn::VecFromMask(tag(), hn::Eq(a, b)); }
  static inline word gt_mask(word a, word b) { return hn::VecFromMask(tag(), hn::Gt(a, b)); }
  static inline word mask_from_bits(std::uint64_t bits) { return detail::mask_word<tag>(bits); }
  static inline word select(word mask, word if_set, word if_clear) {
    return hn::IfThenElse(hn::MaskFromVec(mask), if_set, if_clear);
  }
  //@}
  //@}
};

using f32xn = FloatVectorLane<float>;  ///< float lanes
using f64xn = FloatVectorLane<double>;  ///< double lanes

// HMMER's words at the CPU's vector width: unsigned bytes for MSV and SSV, signed 16-bit words for the Viterbi
// filter, every addition saturating as HMMER's _mm_adds_* do (so add_max is max(a +sat b, c)). The lanes of
// lanes/sse.hpp (u8x16, s16x8) at 128 bits, widened: the striped layout is the same for any width, and so are the
// scores. Only what the striped Plan7 policies and tiers call. Not on Highway's scalar and emulated targets, which
// have no byte shuffles: there the SSE2 words or the scalar filters run.
#if HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
//
// Bytes caps the width (16, 32; 0 for the CPU's widest): a short model striped over wide words has too few segments
// per row for the row's fixed work (the shift, the reductions) to pay off.
template <class T, int Bytes = 0>
struct SaturatingVectorLane {
  static_assert(std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::int16_t>, "HMMER's words");
  using tag = typename detail::WordTag<T, Bytes>::type;
  using vec = hn::Vec<tag>;
  // The striped policies keep their words in std::vectors built by code compiled for the baseline, where GCC aligns
  // a 512-bit vector type to 16 bytes only; a word with its alignment written out is aligned alike everywhere.
  struct alignas(sizeof(vec)) word {
    vec v;
  };
  using scalar = T;
  static constexpr int width = static_cast<int>(hn::MaxLanes(tag()));
  static constexpr int bits = 8 * static_cast<int>(sizeof(T));
  static constexpr const char* name = sizeof(T) == 1 ? "u8xn (saturating)" : "s16xn (saturating)";
  //@}
  //@}

  static inline word splat(int v) { return {hn::Set(tag(), static_cast<T>(v))}; }
  static inline int extract(word w, int k) { return detail::lane_value<tag>(w.v, k); }
  static inline word insert(word w, int k, int value) { return {detail::with_lane<tag>(w.v, k, value)}; }
  static inline word adds(word a, word b) { return {hn::SaturatedAdd(a.v, b.v)}; }
  static inline word subs(word a, word b) { return {hn::SaturatedSub(a.v, b.v)}; }
  static inline word max(word a, word b) { return {hn::Max(a.v, b.v)}; }
  static inline word max3(word a, word b, word c) { return {hn::Max(hn::Max(a.v, b.v), c.v)}; }
  static inline word add_max(word a, word b, word c) { return {hn::Max(hn::SaturatedAdd(a.v, b.v), c.v)}; }
  static inline bool any_greater(word a, word b) { return !hn::AllFalse(tag(), hn::Gt(a.v, b.v)); }

  static inline int hmax(word w) {
    if constexpr (sizeof(T) == 2) {
      return hn::GetLane(hn::MaxOfLanes(tag(), w.v));
    } else {
      // No byte MaxOfLanes in Highway 1.0: the two halves widened to 16 bits.
      const hn::Repartition<std::uint16_t, tag> d16;
      const auto even = hn::And(hn::BitCast(d16, w.v), hn::Set(d16, 0xff));
      const auto odd = hn::ShiftRight<8>(hn::BitCast(d16, w.v));
      return hn::GetLane(hn::MaxOfLanes(d16, hn::Max(even, odd)));
    }
  }

  // The word moved up one lane, the top lane of `below` entering at the bottom (HMMER's rightshift, across the
  // whole vector): each 128-bit block takes its top lane from the block before it, which `previous` lines up.
  static inline word shift_up(word w, word below) {
    const tag d;
    vec previous;
    if constexpr (sizeof(vec) == 16) {
      previous = below.v;
    } else if constexpr (sizeof(vec) == 32) {
      previous = hn::ConcatLowerUpper(d, w.v, below.v);  // blocks: below's upper, w's lower
    } else {
#if HWY_TARGET <= HWY_AVX3
      // Blocks: below's last, w's first three. Highway 1.0 has no cross-block slide for 512 bits; valignq is it.
      previous = vec{_mm512_alignr_epi64(w.v.raw, below.v.raw, 6)};
#else
      static_assert(sizeof(vec) <= 32, "a 512-bit target other than AVX-512");
#endif
    }
    return {hn::CombineShiftRightBytes<16 - sizeof(T)>(d, w.v, previous)};
  }
};

using u8xn = SaturatingVectorLane<std::uint8_t>;
using s16xn_saturating = SaturatingVectorLane<std::int16_t>;
template <int Bytes>
using u8xn_capped = SaturatingVectorLane<std::uint8_t, Bytes>;
template <int Bytes>
using s16xn_saturating_capped = SaturatingVectorLane<std::int16_t, Bytes>;
#endif

}  // namespace cudp::lanes::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
