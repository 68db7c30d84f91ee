// The SSE2 host lanes (u8x16, s16x8) against plain integer arithmetic, lane by lane: saturating adds and
// subtractions, maxima, add-max, the striped shift and the horizontal maximum, on boundary and random values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <cudp/lanes/sse.hpp>

#if CUDP_HAS_SSE_LANES

using namespace cudp;

namespace {

template <class L>
typename L::word word_of(const std::vector<int>& v) {
  typename L::word w{};
  for (int k = 0; k < L::width; ++k) w = L::insert(w, k, v[static_cast<std::size_t>(k)]);
  return w;
}

// Words whose lanes mix the range's boundaries with random values.
template <class L>
std::vector<std::vector<int>> lane_cases(int lo, int hi) {
  const std::vector<int> boundaries{lo, lo + 1, -1, 0, 1, hi / 2, hi - 1, hi};
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> any(lo, hi);
  std::vector<std::vector<int>> cases;
  for (int n = 0; n < 400; ++n) {
    std::vector<int> v(static_cast<std::size_t>(L::width));
    for (int k = 0; k < L::width; ++k) {
      const int boundary = std::clamp(boundaries[static_cast<std::size_t>((n / 2 + k) % 8)], lo, hi);
      v[static_cast<std::size_t>(k)] = n % 2 ? any(rng) : boundary;
    }
    cases.push_back(v);
  }
  return cases;
}

// The operations both lanes have, checked against saturating arithmetic on [lo, hi].
template <class L>
void check_common(int lo, int hi) {
  const auto cases = lane_cases<L>(lo, hi);
  auto clamp = [&](int v) { return std::clamp(v, lo, hi); };
  for (std::size_t n = 0; n + 2 < cases.size(); ++n) {
    const auto &a = cases[n], &b = cases[n + 1], &c = cases[n + 2];
    const auto wa = word_of<L>(a), wb = word_of<L>(b), wc = word_of<L>(c);
    const auto adds = L::adds(wa, wb), max = L::max(wa, wb), max3 = L::max3(wa, wb, wc);
    const auto shifted = L::shift_up(wa, wb);
    int best = lo;
    for (int k = 0; k < L::width; ++k) {
      const auto i = static_cast<std::size_t>(k);
      INFO(L::name << " lane " << k << ": " << a[i] << ", " << b[i] << ", " << c[i]);
      CHECK(L::extract(adds, k) == clamp(a[i] + b[i]));
      CHECK(L::extract(max, k) == std::max(a[i], b[i]));
      CHECK(L::extract(max3, k) == std::max({a[i], b[i], c[i]}));
      CHECK(L::extract(shifted, k) == (k == 0 ? b[static_cast<std::size_t>(L::width) - 1] : a[i - 1]));
      best = std::max(best, a[i]);
    }
    CHECK(L::hmax(wa) == best);
  }
  CHECK(L::extract(L::splat(hi), L::width - 1) == hi);
  CHECK(L::extract(L::splat(lo), 0) == lo);
}

}  // namespace

TEST_CASE("u8x16: HMMER's byte arithmetic, lane by lane", "[lanes][sse]") {
  using L = lanes::u8x16;
  check_common<L>(0, 255);
  const auto cases = lane_cases<L>(0, 255);
  for (std::size_t n = 0; n + 1 < cases.size(); ++n) {
    const auto subs = L::subs(word_of<L>(cases[n]), word_of<L>(cases[n + 1]));
    for (int k = 0; k < L::width; ++k) {
      const auto i = static_cast<std::size_t>(k);
      CHECK(L::extract(subs, k) == std::max(cases[n][i] - cases[n + 1][i], 0));
    }
  }
}

TEST_CASE("s16x8: HMMER's word arithmetic, lane by lane", "[lanes][sse]") {
  using L = lanes::s16x8;
  check_common<L>(-32768, 32767);
  const auto cases = lane_cases<L>(-32768, 32767);
  for (std::size_t n = 0; n + 2 < cases.size(); ++n) {
    const auto &a = cases[n], &b = cases[n + 1], &c = cases[n + 2];
    const auto add_max = L::add_max(word_of<L>(a), word_of<L>(b), word_of<L>(c));
    bool greater = false;
    for (int k = 0; k < L::width; ++k) {
      const auto i = static_cast<std::size_t>(k);
      CHECK(L::extract(add_max, k) == std::max(std::clamp(a[i] + b[i], -32768, 32767), c[i]));
      greater = greater || a[i] > b[i];
    }
    CHECK(L::any_greater(word_of<L>(a), word_of<L>(b)) == greater);
  }
}

#endif
