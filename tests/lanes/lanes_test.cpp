// The host twins of the packed lanes against plain integer arithmetic, lane by lane: every 16-bit value against a
// set of boundary values in both halves, and the 8-bit lanes exhaustively on all pairs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>

#include <cudp/lanes.hpp>

#include "lane_ops.hpp"

using namespace cudp;

namespace {

// The expected result of op on one lane, from the definitions alone.
int expected(int op, int a, int b, int c, int lo, int hi) {
  auto wrap = [&](long v) {
    long span = static_cast<long>(hi) - lo + 1;
    long r = ((v - lo) % span + span) % span + lo;
    return static_cast<int>(r);
  };
  auto clamp = [&](long v) { return static_cast<int>(std::min<long>(hi, std::max<long>(lo, v))); };
  switch (op) {
    case 0: return wrap(static_cast<long>(a) + b);
    case 1: return wrap(static_cast<long>(a) - b);
    case 2: return clamp(static_cast<long>(a) + b);
    case 3: return clamp(static_cast<long>(a) - b);
    case 4: return std::max(a, b);
    case 5: return std::min(a, b);
    case 6: return std::max({a, b, c});
    case 7: return std::min({a, b, c});
    case 8: return std::max({a, b, c, 0});
    case 9: return std::max(wrap(static_cast<long>(a) + b), c);
    case 10: return std::min(wrap(static_cast<long>(a) + b), c);
    case 11: return a == b ? (lo < 0 ? -1 : hi) : 0;
    default: return a > b ? (lo < 0 ? -1 : hi) : 0;
  }
}

template <class L>
void check_word(typename L::word a, typename L::word b, typename L::word c) {
  for (int op = 0; op < test::kLaneOps; ++op) {
    typename L::word r = test::apply_lane_op<L>(op, a, b, c);
    for (int k = 0; k < L::width; ++k) {
      int ea = L::extract(a, k), eb = L::extract(b, k), ec = L::extract(c, k);
      int want = expected(op, ea, eb, ec, L::min_value, L::max_value);
      if (L::extract(r, k) != want) {
        INFO(L::name << " " << test::kLaneOpNames[op] << " lane " << k << " a=" << ea << " b=" << eb << " c=" << ec);
        REQUIRE(L::extract(r, k) == want);
      }
    }
  }
}

}  // namespace

TEST_CASE("s16x2 host twin: every 16-bit value against the boundary values, in both lanes", "[lanes]") {
  using L = lanes::s16x2;
  const int boundary[] = {-32768, -32767, -16385, -16384, -2, -1, 0, 1, 2, 255, 256, 16383, 16384, 32766, 32767};
  for (int x = -32768; x <= 32767; ++x)
    for (int y : boundary) {
      int z = boundary[(x & 0xff) % 15];
      // Lane 0 sweeps x, lane 1 sweeps the mirrored value, so both halves and their carries are covered.
      L::word a = L::insert(L::insert(0, 0, x), 1, -1 - x);
      L::word b = L::insert(L::insert(0, 0, y), 1, y);
      L::word c = L::insert(L::insert(0, 0, z), 1, -z - 1);
      check_word<L>(a, b, c);
      check_word<L>(b, a, c);
    }
}

TEST_CASE("s8x4 and u8x4 host twins: all pairs of byte values", "[lanes]") {
  for (int x = 0; x < 256; ++x)
    for (int y = 0; y < 256; ++y) {
      std::uint32_t a = static_cast<std::uint32_t>(x) * 0x01010101u ^ 0x00ff0000u;
      std::uint32_t b = static_cast<std::uint32_t>(y) * 0x01010101u ^ 0xff000000u;
      std::uint32_t c = static_cast<std::uint32_t>(x ^ y) * 0x01010101u;
      check_word<lanes::s8x4>(a, b, c);
      check_word<lanes::u8x4>(a, b, c);
    }
}

TEST_CASE("s32 lane: boundary values", "[lanes]") {
  const int values[] = {INT32_MIN, INT32_MIN + 1, -65536, -1, 0, 1, 65535, INT32_MAX - 1, INT32_MAX};
  for (int a : values)
    for (int b : values)
      for (int c : {INT32_MIN, 0, INT32_MAX}) check_word<lanes::s32>(a, b, c);
}

TEST_CASE("mask_from_bits, select and splat agree lane by lane", "[lanes]") {
  using L = lanes::s16x2;
  REQUIRE(L::mask_from_bits(1) == 0x0000ffffu);
  REQUIRE(L::mask_from_bits(2) == 0xffff0000u);
  REQUIRE(L::select(L::mask_from_bits(2), L::splat(7), L::splat(-3)) == L::insert(L::splat(-3), 1, 7));
  REQUIRE(lanes::s8x4::mask_from_bits(0b1010) == 0xff00ff00u);
  REQUIRE(lanes::s8x4::extract(lanes::s8x4::splat(-5), 3) == -5);
}

TEST_CASE("s16x2 max_noting_first: the maximum, and a >= b in each lane; pack_low_halves", "[lanes]") {
  using L = lanes::s16x2;
  bool first0 = false, first1 = false;
  // Lane 0: -3 against 7 (b wins); lane 1: 5 against 5 (a tie goes to a).
  const L::word a = L::insert(L::splat(5), 0, -3), b = L::insert(L::splat(5), 0, 7);
  const L::word m = L::max_noting_first(a, b, first0, first1);
  REQUIRE(L::extract(m, 0) == 7);
  REQUIRE(L::extract(m, 1) == 5);
  REQUIRE(!first0);
  REQUIRE(first1);
  L::max_noting_first(L::splat(-32768), L::splat(32767), first0, first1);
  REQUIRE((!first0 && !first1));
  REQUIRE(L::pack_low_halves(0x1234abcdu, 0x5678ef01u) == 0xef01abcdu);
  REQUIRE(L::extract(L::pack_low_halves(static_cast<std::uint32_t>(-9), static_cast<std::uint32_t>(4)), 0) == -9);
}

TEST_CASE("gather packs profile rows lane by lane", "[lanes]") {
  std::int16_t r0[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r1[8] = {-1, -2, -3, -4, -5, -6, -7, -8};
  const std::int16_t* rows[2] = {r0, r1};
  lanes::s16x2::word out[8];
  lanes::s16x2::gather<8>(rows, out);
  for (int j = 0; j < 8; ++j) {
    REQUIRE(lanes::s16x2::extract(out[j], 0) == r0[j]);
    REQUIRE(lanes::s16x2::extract(out[j], 1) == r1[j]);
  }
  std::int8_t q[4][8];
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 8; ++j) q[k][j] = static_cast<std::int8_t>(10 * k - j);
  const std::int8_t* rows8[4] = {q[0], q[1], q[2], q[3]};
  lanes::s8x4::word out8[8];
  lanes::s8x4::gather<8>(rows8, out8);
  for (int j = 0; j < 8; ++j)
    for (int k = 0; k < 4; ++k) REQUIRE(lanes::s8x4::extract(out8[j], k) == q[k][j]);
}

TEST_CASE("h16x2 host twin: integer scores are exact up to 2048 in both lanes", "[lanes]") {
  using L = lanes::h16x2;
  // Every integer of -2048..2048 converts and back; each op against its integer definition wherever the exact
  // result is in range (c anywhere, a and b from a grid that keeps sums within 2048).
  for (int v = -2048; v <= 2048; ++v) REQUIRE(L::extract(L::splat(v), 0) == v);
  const int edges[] = {-1024, -1023, -12, -11, -1, 0, 1, 11, 12, 1023, 1024};
  for (int a = -1024; a <= 1024; a += 3)
    for (int b : edges)
      for (int c : {-2048, -1, 0, 1, 2048}) {
        const L::word wa = L::insert(L::splat(b), 0, a), wb = L::insert(L::splat(a), 0, b), wc = L::splat(c);
        for (int op = 0; op < 11; ++op) {  // the arithmetic ones; masks below
          const L::word r = test::apply_lane_op<L>(op, wa, wb, wc);
          INFO(test::kLaneOpNames[op] << " a=" << a << " b=" << b << " c=" << c);
          REQUIRE(L::extract(r, 0) == expected(op, a, b, c, -65536, 65535));
          REQUIRE(L::extract(r, 1) == expected(op, b, a, c, -65536, 65535));
        }
        REQUIRE(L::eq_mask(wa, wb) == (a == b ? 0xffffffffu : 0u));
        REQUIRE(L::gt_mask(wa, wb) == ((a > b ? 0x0000ffffu : 0u) | (b > a ? 0xffff0000u : 0u)));
      }
  // Past 2048 half precision rounds (to even): why max_value is 2048 and larger scores are rescored.
  REQUIRE(L::extract(L::add(L::splat(2048), L::splat(1)), 0) == 2048);
  REQUIRE(L::extract(L::add(L::splat(2048), L::splat(3)), 0) == 2052);
  REQUIRE(L::extract(L::splat(L::neg_inf), 1) == L::neg_inf);
}

TEST_CASE("h16x2 conversions round to nearest even, subnormals and overflow included", "[lanes]") {
  using lanes::detail::half_from_float;
  using lanes::detail::half_to_float;
  // Every finite half converts to float and back unchanged.
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7c00u) == 0x7c00u) continue;
    REQUIRE(half_from_float(half_to_float(static_cast<std::uint16_t>(h))) == h);
  }
  CHECK(half_to_float(0x0001) == 5.9604644775390625e-8f);  // 2^-24, the smallest subnormal
  CHECK(half_from_float(2.98023223876953125e-8f) == 0x0000);  // 2^-25: a tie, to even (zero)
  CHECK(half_from_float(4.4703483581542969e-8f) == 0x0001);   // 1.5 * 2^-25 rounds up
  CHECK(half_from_float(65504.0f) == 0x7bff);
  CHECK(half_from_float(65519.0f) == 0x7bff);
  CHECK(half_from_float(65520.0f) == 0x7c00);  // the tie past the largest half goes to infinity
  CHECK(half_from_float(-std::numeric_limits<float>::infinity()) == 0xfc00);
  CHECK(half_from_float(2049.0f) == 0x6800);  // 2048: ties to even
  CHECK(half_from_float(2051.0f) == 0x6802);  // 2052
}
