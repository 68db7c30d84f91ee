#pragma once
// Where cudp-align's alignments are computed: on the host tier (align/linear_space.hpp's default passes) for now.
// The device row passes (align/device_row_passes.cuh) go into align_pair, the single place that dispatches on the
// backend, once cudp-align is compiled as CUDA code.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include <cudp/align/linear_space.hpp>

namespace align_app {

enum class AlignBackend { Host };

// --backend auto|host|cuda. cuda is refused until cudp-align has a GPU path.
inline AlignBackend choose_backend(const std::string& requested) {
  if (requested == "cuda")
    throw std::runtime_error(
        "--backend cuda: cudp-align has no GPU alignment backend yet (it aligns on the host); use --backend host or "
        "auto");
  return AlignBackend::Host;
}

inline const char* backend_name(AlignBackend) { return "host"; }

// One pair; threads: host threads for this pair's passes (0: all cores); progress: called with the fraction of the
// pair done, or empty.
template <class Matrix>
cudp::align::Alignment align_pair(AlignBackend backend, cudp::recurrences::AlignMode mode, const std::uint8_t* query,
                                  int m, const std::uint8_t* target, int n, const Matrix& matrix,
                                  cudp::recurrences::GapCosts gaps, int threads,
                                  std::function<void(double)> progress = {}) {
  switch (backend) {
    case AlignBackend::Host:
    default: {
      cudp::align::LinearSpaceOptions options;
      options.threads = threads;
      options.progress = std::move(progress);
      return cudp::align::align_linear_space(mode, query, m, target, n, matrix, gaps, options);
    }
  }
}

}  // namespace align_app
