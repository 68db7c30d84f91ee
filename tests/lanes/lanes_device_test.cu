// Device lanes (DPX and video intrinsics) against their host twins on tens of millions of random and boundary
// words, for every operation.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include <cudp/engine/device_buffer.cuh>
#include <cudp/lanes.hpp>

#include "lane_ops.hpp"

using namespace cudp;

namespace {

template <class L>
__global__ void apply_all(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c, std::uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int op = 0; op < test::kLaneOps; ++op)
    out[static_cast<std::size_t>(op) * n + i] = static_cast<std::uint32_t>(test::apply_lane_op<L>(
        op, static_cast<typename L::word>(a[i]), static_cast<typename L::word>(b[i]), static_cast<typename L::word>(c[i])));
}

// The words a lane type is tested on. Half lanes take finite values without negative zero: NaN payloads and the
// sign of a zero maximum are not scores, and IEEE leaves them to the implementation.
template <class L>
std::uint32_t test_word(std::uint32_t w) {
  if constexpr (std::is_same_v<L, lanes::h16x2>) {
    for (int k = 0; k < 2; ++k) {
      std::uint32_t h = (w >> (16 * k)) & 0xffffu;
      if ((h & 0x7c00u) == 0x7c00u) h &= 0xbfffu;  // inf and NaN become finite
      if (h == 0x8000u) h = 0;
      w = (w & ~(0xffffu << (16 * k))) | (h << (16 * k));
    }
  }
  return w;
}

template <class L>
void compare_device_with_host(std::uint64_t seed) {
  const int n = 1 << 22;  // 4M words x 13 operations x 3 passes = ~160M results per lane type
  std::mt19937_64 rng(seed);
  const std::uint32_t specials[] = {0x00000000u, 0xffffffffu, 0x80008000u, 0x7fff7fffu, 0x80007fffu, 0x7fff8000u,
                                    0x80808080u, 0x7f7f7f7fu, 0x00010001u, 0xc000c000u, 0x00ff00ffu, 0x01010101u};
  engine::DeviceBuffer<std::uint32_t> da(n), db(n), dc(n), dout(static_cast<std::size_t>(n) * test::kLaneOps);
  std::vector<std::uint32_t> a(n), b(n), c(n), out(static_cast<std::size_t>(n) * test::kLaneOps);
  for (int pass = 0; pass < 3; ++pass) {
    for (int i = 0; i < n; ++i) {
      // A third of the words are built from boundary patterns, the rest uniformly random.
      bool special = (rng() % 3) == 0;
      a[i] = test_word<L>(special ? specials[rng() % 12] ^ static_cast<std::uint32_t>(rng() % 3) : static_cast<std::uint32_t>(rng()));
      b[i] = test_word<L>(special ? specials[rng() % 12] : static_cast<std::uint32_t>(rng()));
      c[i] = test_word<L>(special ? specials[rng() % 12] : static_cast<std::uint32_t>(rng()));
    }
    da.upload(a);
    db.upload(b);
    dc.upload(c);
    apply_all<L><<<(n + 255) / 256, 256>>>(da.get(), db.get(), dc.get(), dout.get(), n);
    CUDP_CUDA_CHECK(cudaGetLastError());
    CUDP_CUDA_CHECK(cudaDeviceSynchronize());
    dout.download(out.data(), out.size());
    CUDP_CUDA_CHECK(cudaDeviceSynchronize());
    std::size_t mismatches = 0;
    for (int op = 0; op < test::kLaneOps; ++op)
      for (int i = 0; i < n; ++i) {
        auto host = static_cast<std::uint32_t>(test::apply_lane_op<L>(op, static_cast<typename L::word>(a[i]),
                                                                        static_cast<typename L::word>(b[i]),
                                                                        static_cast<typename L::word>(c[i])));
        if (host != out[static_cast<std::size_t>(op) * n + i] && mismatches++ < 5)
          WARN(L::name << " " << test::kLaneOpNames[op] << " a=" << std::hex << a[i] << " b=" << b[i] << " c=" << c[i]
                       << " host=" << host << " device=" << out[static_cast<std::size_t>(op) * n + i]);
      }
    REQUIRE(mismatches == 0);
  }
}

}  // namespace

TEST_CASE("s16x2 device == host", "[lanes][gpu]") { compare_device_with_host<lanes::s16x2>(1); }
TEST_CASE("s8x4 device == host", "[lanes][gpu]") { compare_device_with_host<lanes::s8x4>(2); }
TEST_CASE("u8x4 device == host", "[lanes][gpu]") { compare_device_with_host<lanes::u8x4>(3); }
TEST_CASE("s32 device == host", "[lanes][gpu]") { compare_device_with_host<lanes::s32>(4); }
TEST_CASE("h16x2 device == host", "[lanes][gpu]") { compare_device_with_host<lanes::h16x2>(5); }

namespace {

__global__ void max_noting_first_all(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  bool first0 = false, first1 = false;
  out[2 * i] = lanes::s16x2::max_noting_first(a[i], b[i], first0, first1);
  out[2 * i + 1] = (first0 ? 1u : 0u) | (first1 ? 2u : 0u) | (lanes::s16x2::pack_low_halves(a[i], b[i]) & ~3u);
}

}  // namespace

TEST_CASE("s16x2 max_noting_first and pack_low_halves: device == host", "[lanes][gpu]") {
  const int n = 1 << 20;
  std::mt19937_64 rng(6);
  std::vector<std::uint32_t> a(n), b(n), out(2 * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<std::uint32_t>(rng());
    // Every fourth pair ties in a lane, so that both predicates meet a >= b with a == b.
    b[i] = i % 4 == 0 ? (a[i] & 0xffff0000u) | (static_cast<std::uint32_t>(rng()) & 0xffffu)
                      : (i % 4 == 1 ? (a[i] & 0xffffu) | (static_cast<std::uint32_t>(rng()) & 0xffff0000u)
                                    : static_cast<std::uint32_t>(rng()));
  }
  engine::DeviceBuffer<std::uint32_t> da(n), db(n), dout(out.size());
  da.upload(a);
  db.upload(b);
  max_noting_first_all<<<(n + 255) / 256, 256>>>(da.get(), db.get(), dout.get(), n);
  CUDP_CUDA_CHECK(cudaGetLastError());
  CUDP_CUDA_CHECK(cudaDeviceSynchronize());
  dout.download(out.data(), out.size());
  CUDP_CUDA_CHECK(cudaDeviceSynchronize());
  std::size_t mismatches = 0;
  for (int i = 0; i < n; ++i) {
    bool first0 = false, first1 = false;
    const std::uint32_t max = lanes::s16x2::max_noting_first(a[i], b[i], first0, first1);
    const std::uint32_t flags = (first0 ? 1u : 0u) | (first1 ? 2u : 0u) | (lanes::s16x2::pack_low_halves(a[i], b[i]) & ~3u);
    if ((max != out[2 * i] || flags != out[2 * i + 1]) && mismatches++ < 5)
      WARN("a=" << std::hex << a[i] << " b=" << b[i] << " host " << max << "/" << flags << " device " << out[2 * i]
                << "/" << out[2 * i + 1]);
  }
  REQUIRE(mismatches == 0);
}
