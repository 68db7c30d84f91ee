#pragma once
// The CUDA contexts of several GPUs created at once: each takes a few tenths of a second, so a program starts them
// side by side (and on a thread of its own, while it reads its inputs).
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "../host/parallel_for.hpp"
#include "cuda_check.cuh"

namespace cudp::engine {

// Creates the context of every device in `devices`; a CudaError names the first that fails. The calling thread may
// be left on one of them.
inline void start_contexts(const std::vector<int>& devices) {
  std::vector<cudaError_t> status(devices.size(), cudaSuccess);
  host::each_on_own_thread(devices.size(), [&](std::size_t i) {
    status[i] = cudaSetDevice(devices[i]);
    if (status[i] == cudaSuccess) status[i] = cudaFree(nullptr);
  });
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (status[i] != cudaSuccess)
      throw CudaError("CUDA device " + std::to_string(devices[i]) + ": " + cudaGetErrorString(status[i]));
}

}  // namespace cudp::engine
