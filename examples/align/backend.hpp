#pragma once
// Where cudp-align's alignments are computed. The library has a host path only for full alignments
// (align/linear_space.hpp); a device path goes into align_pair, the single place that dispatches on the backend.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cudp/align/linear_space.hpp>

namespace align_app {

enum class AlignBackend { Host };

// --backend auto|host|cuda. cuda is refused until the library has a GPU path for full alignments.
inline AlignBackend choose_backend(const std::string& requested) {
  if (requested == "cuda")
    throw std::runtime_error(
        "--backend cuda: no GPU alignment backend yet (full alignments run on the host only); use --backend host or "
        "auto");
  return AlignBackend::Host;
}

inline const char* backend_name(AlignBackend) { return "host"; }

// One pair; threads: host threads for this pair's passes (0: all cores).
template <class Matrix>
cudp::align::Alignment align_pair(AlignBackend backend, cudp::recurrences::AlignMode mode, const std::uint8_t* query,
                                  int m, const std::uint8_t* target, int n, const Matrix& matrix,
                                  cudp::recurrences::GapCosts gaps, int threads) {
  switch (backend) {
    case AlignBackend::Host:
    default: {
      cudp::align::LinearSpaceOptions options;
      options.threads = threads;
      return cudp::align::align_linear_space(mode, query, m, target, n, matrix, gaps, options);
    }
  }
}

}  // namespace align_app
