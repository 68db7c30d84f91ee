#pragma once
// CUDA runtime errors become exceptions carrying the call site, so that a failed launch never passes silently.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace cudp::engine {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void cuda_check(cudaError_t status, const char* what, const char* file, int line) {
  if (status != cudaSuccess)
    throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " + cudaGetErrorString(status));
}

}  // namespace cudp::engine

#define CUDP_CUDA_CHECK(call) ::cudp::engine::cuda_check((call), #call, __FILE__, __LINE__)
