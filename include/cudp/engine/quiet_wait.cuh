#pragma once
// Waiting for a stream's work without holding a core. The runtime's own waits (cudaStreamSynchronize, a copy into
// pageable memory behind a kernel) spin on the waiting thread while the device has fewer contexts than the host
// has cores; a thread that feeds the device beside host workers on every core would take a core from them for as
// long as its kernel runs. A blocking-sync event puts the thread to sleep until the work is done instead.
#include <cuda_runtime.h>

#include "cuda_check.cuh"

namespace cudp::engine {

// Returns once everything queued on `stream` so far has finished, the calling thread asleep meanwhile.
inline void wait_quietly(cudaStream_t stream) {
  cudaEvent_t done{};
  CUDP_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventBlockingSync | cudaEventDisableTiming));
  cudaError_t status = cudaEventRecord(done, stream);
  if (status == cudaSuccess) status = cudaEventSynchronize(done);
  cudaEventDestroy(done);
  CUDP_CUDA_CHECK(status);
}

}  // namespace cudp::engine
