#pragma once
// Where cudp-align's alignments are computed, chosen in one place: on the host tier, a pair at a time (the passes
// of align/linear_space.hpp), or on the GPU, all pairs in one batch (device.hpp).
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include <cudp/align/linear_space.hpp>

#include "device.hpp"

namespace align_app {

enum class AlignBackend { Host, Device };

// --backend auto|host|cuda: auto takes the GPU when this build has the path and a device is present.
inline AlignBackend choose_backend(const std::string& requested) {
  if (requested == "host") return AlignBackend::Host;
  const bool gpu = gpu_available();
  if (requested == "cuda" && !gpu)
    throw std::runtime_error("--backend cuda: no CUDA device found, or this cudp-align was built without CUDA");
  return gpu ? AlignBackend::Device : AlignBackend::Host;
}

// One pair on the host; threads: host threads for this pair's passes (0: all cores); progress: called with the
// fraction of the pair done, or empty.
template <class Matrix>
cudp::align::Alignment align_pair_on_host(cudp::recurrences::AlignMode mode, const std::uint8_t* query, int m,
                                          const std::uint8_t* target, int n, const Matrix& matrix,
                                          cudp::recurrences::GapCosts gaps, int threads,
                                          std::function<void(double)> progress = {}) {
  cudp::align::LinearSpaceOptions options;
  options.threads = threads;
  options.progress = std::move(progress);
  return cudp::align::align_linear_space(mode, query, m, target, n, matrix, gaps, options);
}

}  // namespace align_app
