#pragma once
// Where cudp-align's alignments are computed, chosen in one place: on the host tier, a pair at a time (the passes
// of align/linear_space.hpp), or on the GPU, all pairs in one batch (device.hpp).
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include <cudp/align/linear_space.hpp>

#include "device.hpp"

namespace align_app {

enum class AlignBackend { Host, Device };

// Below about this many cells a run is faster on the host: the GPU path starts at 0.3-0.4 s (its context, its
// buffers) and the host threads align 1.5 GCUPS of protein pairs (bench/align_crossover.sh on an H200 with 16
// cores: 1000 protein pairs of 100-1000 residues, 3.6e8 cells, 0.23 s on the host and 0.34 s on the GPU; one 10 kbp
// DNA pair, 1e8 cells, 0.21 s and 0.30 s; ten DNA pairs of 1-10 kbp, 2.6e8 cells, 0.52 s and 0.38 s).
constexpr double kHostBelowCells = 2e8;

// A bound on a run's cells known before reading its inputs: the product of the two files' sizes (every pairing
// aligns at most sum(m) x sum(n) cells, and a FASTA file holds at least its residues' bytes), or 0 when a file is
// not a plain regular file (a pipe, or gzip, whose size says little).
inline double cells_bound(const std::string& query, const std::string& target) {
  const auto plain_size = [](const std::string& path) -> double {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return 0;
    unsigned char magic[2] = {0, 0};
    const std::size_t got = std::fread(magic, 1, 2, f);
    std::fclose(f);
    if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) return 0;
    return static_cast<double>(st.st_size);
  };
  return plain_size(query) * plain_size(target);
}

// Whether a run whose cells are at most `at_most_cells` (0: unknown) is known to be faster on the host.
inline bool small_for_gpu(double at_most_cells) { return at_most_cells > 0 && at_most_cells < kHostBelowCells; }

// --backend auto|host|cuda: auto takes the GPU when this build has the path and a device is present, unless the
// run is known to be small (small_for_gpu of a bound on its cells, such as cells_bound's). `no_gpu`, where given, is
// set when auto wanted the GPU and found none (for the run to say so once its inputs are read).
inline AlignBackend choose_backend(const std::string& requested, double at_most_cells = 0, bool* no_gpu = nullptr) {
  if (requested == "host") return AlignBackend::Host;
  if (requested == "auto" && small_for_gpu(at_most_cells)) return AlignBackend::Host;
  const bool gpu = gpu_available();
  if (requested == "cuda" && !gpu)
    throw std::runtime_error("--backend cuda: no CUDA device found, or this cudp-align was built without CUDA");
  if (no_gpu != nullptr) *no_gpu = !gpu;
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
