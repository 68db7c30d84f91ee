#pragma once
// hmmsearch's biased-composition filter (plan7_bias_filter.hpp) on the GPU, for the targets that pass the MSV
// filter: a logarithm and two divisions per residue, the largest host stage left beside the GPU filters, and one
// that every GPU's part of the database paid on the same host cores.
//
// One thread per target runs bias_forward_sum, the host's own code, with every operation rounded as on the host.
// Two things can still differ, and the thread reports its sum as not certain when either may have (the host then
// computes that target again):
//   - the logarithm: Easel's is glibc's double log rounded to float, and CUDA's double log may differ from glibc's
//     by a unit or two in the last place of the double. The float they round to is the same unless the double lies
//     within a few of its units of a point halfway between two floats: then the sum is not certain;
//   - HMMER's float mode flushes subnormal values to zero on the host, and the device keeps them: a row whose cells
//     fall below 1e-30 (far above the subnormal range, whatever the products that follow) is not certain.
// Everything else is IEEE single precision with the same operands in the same order.
#include <cmath>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "../engine/cuda_check.cuh"
#include "../engine/device_buffer.cuh"
#include "../engine/device_stream.cuh"
#include "../engine/device_striped.cuh"
#include "../engine/quiet_wait.cuh"
#include "plan7_bias_filter.hpp"

namespace cudp::hmmer {

namespace device_bias {

// Values below this, other than 0, may be flushed on the host in what follows them.
constexpr float kSmallest = 1e-30f;

// (float) log((double) x) as Easel computes it, or a doubt: x outside the normal positive range, or a double
// result too near a float rounding boundary for the two libraries' logarithms to be sure to round alike.
__device__ __forceinline__ float easel_log(float x, bool& doubtful) {
  if (!(x >= kSmallest) || !(x <= 3.0e38f)) {
    doubtful = true;
    return 0.0f;
  }
  const double l = log(static_cast<double>(x));
  const float f = __double2float_rn(l);
  const double at = static_cast<double>(f);
  if (l != at) {
    const double next = static_cast<double>(nextafterf(f, l > at ? INFINITY : -INFINITY));
    const double halfway = 0.5 * (at + next);
    // Eight units of the double's last place: CUDA's log is within one of the exact value, glibc's within one.
    if (fabs(l - halfway) <= 8.0 * 0x1p-52 * fabs(l)) doubtful = true;
  }
  return f;
}

// A template so that every translation unit that includes this header may have it, as the parsers' kernel.
template <class Unused = void>
__global__ void forward_sums_kernel(BiasModel model, const std::uint8_t* residues, const std::uint64_t* offsets,
                                    const std::uint32_t* ids, std::uint32_t count, BiasSum* sums) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const std::uint32_t id = ids[t];
  const std::uint64_t begin = offsets[id];
  const auto L = static_cast<std::uint32_t>(offsets[id + 1] - begin);
  BiasSum out;
  if (L == 0) {
    sums[t] = out;  // not certain: the host skips it as after_msv does
    return;
  }
  bool doubtful = false;
  out.nats = bias_forward_sum(
      model, residues + begin, L, [&](float x) { return easel_log(x, doubtful); },
      [&](float d0, float d1) {
        if ((d0 != 0.0f && d0 < kSmallest) || (d1 != 0.0f && d1 < kSmallest)) doubtful = true;
      });
  out.certain = !doubtful;
  sums[t] = out;
}

}  // namespace device_bias

// The bias filter's Forward sums of database targets, on a high-priority stream of its own so that they run beside
// another thread's long kernel (the next model's MSV filter).
class DeviceBiasFilter {
 public:
  explicit DeviceBiasFilter(const engine::DeviceStripedDatabase& db)
      : db_(db), stream_(engine::StreamPriority::High) {}

  // BiasFilter::forward_sum of the targets `ids` (database indices), in that order, each `certain` or not.
  std::vector<BiasSum> sums(const BiasModel& model, const std::vector<std::uint32_t>& ids) {
    std::vector<BiasSum> out(ids.size());
    if (ids.empty()) return out;
    ids_.upload_in_order(ids, stream_.get());
    sums_.reserve(ids.size(), stream_.get());
    constexpr unsigned kThreads = 128;
    const auto blocks = static_cast<unsigned>((ids.size() + kThreads - 1) / kThreads);
    device_bias::forward_sums_kernel<><<<blocks, kThreads, 0, stream_.get()>>>(
        model, db_.residues(), db_.offsets(), ids_.get(), static_cast<std::uint32_t>(ids.size()), sums_.get());
    CUDP_CUDA_CHECK(cudaGetLastError());
    sums_.download(out.data(), out.size(), stream_.get());
    engine::wait_quietly(stream_.get());  // beside the host's workers: asleep
    return out;
  }

 private:
  const engine::DeviceStripedDatabase& db_;
  engine::DeviceStream stream_;
  engine::DeviceBuffer<std::uint32_t> ids_;
  engine::DeviceBuffer<BiasSum> sums_;
};

}  // namespace cudp::hmmer
