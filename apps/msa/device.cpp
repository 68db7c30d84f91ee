// Compiled as CUDA when the toolkit is present (apps/msa/CMakeLists.txt), as plain C++ otherwise: then the GPU path
// reports itself absent.
#include "device.hpp"

#include <stdexcept>

#include <cudp/scorer.hpp>
#if defined(__CUDACC__)
#include <cudp/msa/device_clustal_distances.cuh>
#endif

namespace msa_app {

bool gpu_available() { return cudp::device_backend_available(); }

cudp::phylo::DistanceMatrix full_distances_on_gpu(const std::vector<std::vector<int>>& residues,
                                                  const cudp::msa::FullPairwiseSettings& settings, int host_threads,
                                                  std::atomic<std::size_t>* pairs_done) {
#if defined(__CUDACC__)
  cudp::msa::DeviceClustalLimits limits;
  limits.host_threads = host_threads;
  return cudp::msa::DeviceClustalDistances(residues, limits).distances(settings, pairs_done);
#else
  (void)residues, (void)settings, (void)host_threads, (void)pairs_done;
  throw std::runtime_error("this build has no CUDA backend");
#endif
}

}  // namespace msa_app
