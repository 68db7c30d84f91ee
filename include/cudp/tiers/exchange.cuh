#pragma once
// Moving a policy's carry (any struct of 32-bit words) between threads: through shuffles inside a warp or through
// shared memory across a block. A tier picks one; the carry's type is the policy's business.
#include <cstdint>
#include <cstring>

#include "../config.hpp"

namespace cudp::tiers::detail {

template <class T>
struct Words {
  static_assert(sizeof(T) % 4 == 0, "carries are made of 32-bit words");
  static constexpr int count = sizeof(T) / 4;
  std::uint32_t w[count];
  CUDP_DEVICE static Words of(const T& v) {
    Words r;
    memcpy(r.w, &v, sizeof(T));
    return r;
  }
  CUDP_DEVICE T value() const {
    T v;
    memcpy(&v, w, sizeof(T));
    return v;
  }
};

// Value of the thread one rank down within groups of Width lanes (rank 0 gets its own back).
template <int Width, class T>
CUDP_DEVICE T shuffle_up(const T& v) {
  Words<T> in = Words<T>::of(v), out;
  CUDP_UNROLL
  for (int k = 0; k < Words<T>::count; ++k) out.w[k] = __shfl_up_sync(0xffffffffu, in.w[k], 1, Width);
  return out.value();
}

template <int Width, class T>
CUDP_DEVICE T shuffle_xor(const T& v, int mask) {
  Words<T> in = Words<T>::of(v), out;
  CUDP_UNROLL
  for (int k = 0; k < Words<T>::count; ++k) out.w[k] = __shfl_xor_sync(0xffffffffu, in.w[k], mask, Width);
  return out.value();
}

}  // namespace cudp::tiers::detail
