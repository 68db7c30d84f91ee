#pragma once
// The boundary between the command-line program (plain C++) and the CUDA backend (compiled by nvcc when present).
#include <cstdint>
#include <string>
#include <vector>

#include <cudp/engine/cascade.hpp>
#include <cudp/engine/sequences.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/recurrences/gotoh.hpp>

namespace swsearch {

struct BackendReport {
  std::string device;          // e.g. "NVIDIA H100 80GB HBM3" or "host, 16 threads"
  double kernel_seconds = 0;   // device time in the scoring kernels (0 for the host)
  cudp::engine::CascadeStats cascade;
};

// Scores every query against every target: result[q][t] is the local alignment score.
using ScoreTable = std::vector<std::vector<std::int32_t>>;

bool cuda_available();
// Creates the device's context (a few tenths of a second), so that it can be done while the inputs are read.
bool start_cuda();
ScoreTable score_with_cuda(const cudp::engine::SequencesView& queries, const cudp::engine::SequencesView& db,
                           const cudp::io::SubstitutionMatrix& matrix, cudp::recurrences::GapCosts gaps,
                           BackendReport& report, bool progress);
ScoreTable score_with_host(const cudp::engine::SequencesView& queries, const cudp::engine::SequencesView& db,
                           const cudp::io::SubstitutionMatrix& matrix, cudp::recurrences::GapCosts gaps, int threads,
                           BackendReport& report, bool progress);

}  // namespace swsearch
