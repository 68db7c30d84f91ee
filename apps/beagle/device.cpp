// The GPUs the library offers: compiled as CUDA when the toolkit is present, as plain C++ (no GPU) otherwise.
#include <string>

#include "backend.hpp"
#include "states.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>

#include "device_backend.cuh"
#endif

namespace cudp_beagle {

#if defined(__CUDACC__)

std::vector<GpuInfo> gpus() {
  std::vector<GpuInfo> out;
  int count = 0;
  // No driver or no device is no GPU, not an error: the host resource remains.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return out;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    GpuInfo g;
    g.name = std::string(p.name) + " (cudp CUDA tiers)";
    g.description = "Global memory (MB): " + std::to_string(p.totalGlobalMem >> 20) +
                    " | Multiprocessors: " + std::to_string(p.multiProcessorCount) +
                    " | Compute capability: " + std::to_string(p.major) + "." + std::to_string(p.minor);
    out.push_back(g);
  }
  return out;
}

std::unique_ptr<Backend> make_device_backend(int device, int states, bool single, const Layout& layout, int matrices,
                                             int eigens) {
  return single ? make_device_backend_single(device, states, layout, matrices, eigens)
                : make_device_backend_double(device, states, layout, matrices, eigens);
}

const std::vector<int>& device_state_counts() {
  static const std::vector<int> counts = DeviceStates::values();
  return counts;
}

#else

std::vector<GpuInfo> gpus() { return {}; }

std::unique_ptr<Backend> make_device_backend(int, int, bool, const Layout&, int, int) { return nullptr; }

const std::vector<int>& device_state_counts() {
  static const std::vector<int> none;
  return none;
}

#endif

}  // namespace cudp_beagle
