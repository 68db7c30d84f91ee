// The host vector lanes (lanes/host_vector-inl.hpp), every operation the policies call, lane by lane against a
// scalar model (HMMER's saturating words and the float lanes too), in every instruction set this CPU has: the lanes are compiled here once per target, as the
// kernels are in src/host_vector.cpp.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "lane_ops.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tests/lanes/host_vector_lanes_test.cpp"  // through the project root, an include directory
#include <hwy/foreach_target.h>
#include <hwy/highway.h>

#include <cudp/lanes/host_vector-inl.hpp>

#ifndef CUDP_HOST_VECTOR_LANES_TEST_MODEL
#define CUDP_HOST_VECTOR_LANES_TEST_MODEL
namespace cudp::test {

// What lane operation `op` of lane_ops.hpp gives on one lane of a signed T.
template <class T>
long lane_model(int op, long a, long b, long c) {
  const long lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  auto wrap = [&](long v) { return static_cast<long>(static_cast<T>(static_cast<std::uint64_t>(v))); };
  auto saturate = [&](long v) { return std::clamp(v, lo, hi); };
  switch (op) {
    case 0: return wrap(a + b);
    case 1: return wrap(a - b);
    case 2: return saturate(a + b);
    case 3: return saturate(a - b);
    case 4: return std::max(a, b);
    case 5: return std::min(a, b);
    case 6: return std::max({a, b, c});
    case 7: return std::min({a, b, c});
    case 8: return std::max({a, b, c, 0L});
    case 9: return std::max(wrap(a + b), c);
    case 10: return std::min(wrap(a + b), c);
    case 11: return a == b ? -1 : 0;
    default: return a > b ? -1 : 0;
  }
}

// Values that break lanes: the extremes, the floor the policies use as minus infinity, small ones, and random ones.
template <class T>
std::vector<long> lane_values(std::mt19937_64& rng, int n) {
  const long lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  std::vector<long> v;
  for (long x : {lo, lo + 1, hi, hi - 1, 0L, 1L, -1L, lo / 2, lo / 2 - 1, hi / 2 + 1})
    if (x >= lo && x <= hi) v.push_back(x);  // unsigned lanes have no negative ones
  std::uniform_int_distribution<long> any(lo, hi);
  while (static_cast<int>(v.size()) < n) v.push_back(any(rng));
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

}  // namespace cudp::test
#endif

HWY_BEFORE_NAMESPACE();
namespace cudp::test::HWY_NAMESPACE {

// A word holding values[k] in lane k, put there one lane at a time (insert is under test too).
template <class L>
typename L::word word_of(const std::vector<long>& values) {
  typename L::word w = L::splat(0);
  for (int k = 0; k < L::width; ++k) w = L::insert(w, k, static_cast<int>(values[k]));
  return w;
}

// The first disagreement with the model in lane type L, or "" when there is none.
template <class L>
__attribute__((flatten)) std::string check_lane(std::uint64_t seed) {
  using T = typename L::scalar;
  constexpr int W = L::width;
  std::mt19937_64 rng(seed);
  alignas(64) T x[W], y[W], z[W], out[W];
  for (int round = 0; round < 200; ++round) {
    const auto a = lane_values<T>(rng, W), b = lane_values<T>(rng, W), c = lane_values<T>(rng, W);
    const typename L::word wa = word_of<L>(a), wb = word_of<L>(b), wc = word_of<L>(c);
    for (int k = 0; k < W; ++k) {
      x[k] = static_cast<T>(a[k]);
      y[k] = static_cast<T>(b[k]);
      z[k] = static_cast<T>(c[k]);
    }
    for (int k = 0; k < W; ++k)
      if (L::extract(wa, k) != x[k]) return std::string(L::name) + ": insert/extract, lane " + std::to_string(k);
    for (int op = 0; op < kLaneOps; ++op) {
      const typename L::word r = apply_lane_op<L>(op, wa, wb, wc);
      for (int k = 0; k < W; ++k) {
        out[k] = static_cast<T>(L::extract(r, k));
        if (out[k] != lane_model<T>(op, x[k], y[k], z[k]))
          return std::string(L::name) + " " + kLaneOpNames[op] + ": " + std::to_string(x[k]) + ", " + std::to_string(y[k]) +
                 ", " + std::to_string(z[k]) + " gave " + std::to_string(out[k]);
      }
    }
    const std::uint64_t bits = rng();
    const typename L::word m = L::mask_from_bits(bits);
    const typename L::word chosen = L::select(m, wa, wb);
    for (int k = 0; k < W; ++k)
      if (L::extract(chosen, k) != (((bits >> k) & 1u) ? x[k] : y[k]))
        return std::string(L::name) + ": mask_from_bits/select, lane " + std::to_string(k);
    if (L::any(m) != ((W == 64 ? bits : bits & ((std::uint64_t{1} << W) - 1)) != 0))
      return std::string(L::name) + ": any";
    if (L::extract(L::splat(static_cast<int>(x[0])), W - 1) != x[0]) return std::string(L::name) + ": splat";
  }
  return "";
}

// HMMER's saturating words: their few operations, the cross-block shift and the reduction against the model.
template <class L>
__attribute__((flatten)) std::string check_saturating_lane(std::uint64_t seed) {
  using T = typename L::scalar;
  constexpr int W = L::width;
  const long lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  auto saturate = [&](long v) { return std::clamp(v, lo, hi); };
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 300; ++round) {
    const auto a = lane_values<T>(rng, W), b = lane_values<T>(rng, W), c = lane_values<T>(rng, W);
    const typename L::word wa = word_of<L>(a), wb = word_of<L>(b), wc = word_of<L>(c);
    const typename L::word adds = L::adds(wa, wb), subs = L::subs(wa, wb), max3 = L::max3(wa, wb, wc);
    const typename L::word add_max = L::add_max(wa, wb, wc), shifted = L::shift_up(wa, wb);
    long best = lo;
    bool greater = false;
    for (int k = 0; k < W; ++k) {
      const std::string at = std::string(L::name) + " lane " + std::to_string(k) + ": ";
      if (L::extract(adds, k) != saturate(a[k] + b[k])) return at + "adds";
      if (L::extract(subs, k) != saturate(a[k] - b[k])) return at + "subs";
      if (L::extract(max3, k) != std::max({a[k], b[k], c[k]})) return at + "max3";
      if (L::extract(add_max, k) != std::max(saturate(a[k] + b[k]), c[k])) return at + "add_max";
      if (L::extract(shifted, k) != (k == 0 ? b[W - 1] : a[k - 1])) return at + "shift_up";
      best = std::max(best, a[k]);
      greater = greater || a[k] > b[k];
    }
    if (L::hmax(wa) != best) return std::string(L::name) + ": hmax";
    if (L::any_greater(wa, wb) != greater) return std::string(L::name) + ": any_greater";
    if (L::any_greater(wa, wa)) return std::string(L::name) + ": any_greater of equal words";
  }
  return "";
}

// Float and double lanes: every operation of lanes/f32.hpp, on values that include the lane's minus infinity.
template <class L>
__attribute__((flatten)) std::string check_float_lane(std::uint64_t seed) {
  using T = typename L::scalar;
  constexpr int W = L::width;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<T> any(T(-1000), T(1000));
  alignas(64) T a[W], b[W], c[W];
  for (int round = 0; round < 200; ++round) {
    typename L::word wa = L::splat(T(0)), wb = wa, wc = wa;
    for (int k = 0; k < W; ++k) {
      a[k] = k % 7 == 0 ? L::neg_inf : any(rng);
      b[k] = k % 5 == 0 ? a[k] : any(rng);  // equal lanes for eq_mask
      c[k] = any(rng);
      wa = L::insert(wa, k, a[k]);
      wb = L::insert(wb, k, b[k]);
      wc = L::insert(wc, k, c[k]);
    }
    const std::uint64_t bits = rng();
    const typename L::word results[] = {L::add(wa, wb), L::sub(wa, wb), L::adds(wa, wb), L::subs(wa, wb),
                                        L::max(wa, wb), L::min(wa, wb), L::max3(wa, wb, wc), L::min3(wa, wb, wc),
                                        L::max3_relu(wa, wb, wc), L::add_max(wa, wb, wc), L::add_min(wa, wb, wc),
                                        L::select(L::eq_mask(wa, wb), wc, wa), L::select(L::gt_mask(wa, wb), wc, wa),
                                        L::select(L::mask_from_bits(bits), wa, wb)};
    for (int k = 0; k < W; ++k) {
      const T x = a[k], y = b[k], z = c[k];
      const T want[] = {x + y, x - y, x + y, x - y, std::max(x, y), std::min(x, y), std::max({x, y, z}),
                        std::min({x, y, z}), std::max({x, y, z, T(0)}), std::max(x + y, z), std::min(x + y, z),
                        x == y ? z : x, x > y ? z : x, ((bits >> k) & 1u) ? x : y};
      for (int op = 0; op < 14; ++op)
        if (L::extract(results[op], k) != want[op])
          return std::string(L::name) + " operation " + std::to_string(op) + ", lane " + std::to_string(k);
    }
  }
  return "";
}

std::string CheckLanes(std::uint64_t seed) {
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  (void)seed;
  return "";  // not used by the kernels on these targets (src/host_vector.cpp)
#else
  for (std::string failure : {check_lane<cudp::lanes::HWY_NAMESPACE::s8xn>(seed),
                              check_lane<cudp::lanes::HWY_NAMESPACE::s16xn>(seed + 1),
                              check_lane<cudp::lanes::HWY_NAMESPACE::s32xn>(seed + 2),
                              check_saturating_lane<cudp::lanes::HWY_NAMESPACE::u8xn>(seed + 3),
                              check_saturating_lane<cudp::lanes::HWY_NAMESPACE::s16xn_saturating>(seed + 4),
                              check_float_lane<cudp::lanes::HWY_NAMESPACE::f32xn>(seed + 5),
                              check_float_lane<cudp::lanes::HWY_NAMESPACE::f64xn>(seed + 6)})
    if (!failure.empty()) return failure;
  return "";
#endif
}

int Widths() { return cudp::lanes::HWY_NAMESPACE::s8xn::width; }

}  // namespace cudp::test::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace cudp::test {
HWY_EXPORT(CheckLanes);
HWY_EXPORT(Widths);
}  // namespace cudp::test

TEST_CASE("Host vector lanes match the scalar model in every instruction set", "[lanes][host_vector]") {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  for (std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    INFO("instruction set " << hwy::TargetName(target));
    const int width = HWY_DYNAMIC_DISPATCH(cudp::test::Widths)();
    if (target == HWY_AVX3) CHECK(width == 64);
    if (target == HWY_AVX2) CHECK(width == 32);
    if (target == HWY_SSE4 || target == HWY_SSSE3) CHECK(width == 16);
    CHECK(HWY_DYNAMIC_DISPATCH(cudp::test::CheckLanes)(7 + static_cast<std::uint64_t>(target)) == "");
  }
  hwy::SetSupportedTargetsForTest(0);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}
#endif
