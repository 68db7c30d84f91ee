#pragma once
// The boundary between cudp-msa (plain C++) and its one translation unit that may use the GPU (device.cpp, compiled
// by nvcc when the CUDA toolkit is present).
#include <atomic>
#include <cstddef>
#include <vector>

#include <cudp/msa/clustal_full_pairwise.hpp>
#include <cudp/phylo/distance_trees.hpp>

namespace msa_app {

// Whether this build has the GPU path and a device is present.
bool gpu_available();

// ClustalW's full pairwise distances, the alignments on the GPU (cudp/msa/device_clustal_distances.cuh), the same
// to the bit as on the host; `host_threads` align the pairs of sequences too long for the GPU's scratch meanwhile.
// `pairs_done` counts the pairs finished. Throws when this build has no GPU path.
cudp::phylo::DistanceMatrix full_distances_on_gpu(const std::vector<std::vector<int>>& residues,
                                                  const cudp::msa::FullPairwiseSettings& settings, int host_threads,
                                                  std::atomic<std::size_t>* pairs_done);

}  // namespace msa_app
