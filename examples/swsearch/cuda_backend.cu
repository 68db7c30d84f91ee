#include <cstdio>

#include <cudp/engine/device_scorer.cuh>

#include "backend.hpp"
#include "tuning_env.hpp"

namespace swsearch {

template <class L> using LocalSW = cudp::recurrences::Gotoh<cudp::recurrences::AlignMode::Local, L>;

bool cuda_available() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

bool start_cuda() { return cuda_available() && cudaFree(nullptr) == cudaSuccess; }

ScoreTable score_with_cuda(const cudp::engine::SequencesView& queries, const cudp::engine::SequencesView& db,
                           const cudp::io::SubstitutionMatrix& matrix, cudp::recurrences::GapCosts gaps,
                           BackendReport& report, bool progress) {
  int device = 0;
  cudaDeviceProp prop{};
  CUDP_CUDA_CHECK(cudaGetDevice(&device));
  CUDP_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  report.device = prop.name;
  using Scorer = cudp::engine::DeviceScorer<LocalSW, cudp::lanes::s16x2>;
  // The tuning of this device's architecture; CUDP_TIERS and CUDP_WARP_SHAPE override it for tuning runs.
  Scorer scorer(db, static_cast<std::uint8_t>(matrix.size), cudp::examples::dispatch_options_from_env());
  ScoreTable table;
  if (scorer.streamed()) {
    // The database does not fit on the GPU: every batch is uploaded once and scored against all queries.
    if (progress) std::fprintf(stderr, "cudp-swsearch: %zu queries, database streamed in %zu batches\n", queries.count,
                               scorer.batch_count());
    std::vector<Scorer::Query> list;
    for (std::size_t q = 0; q < queries.count; ++q) list.push_back({queries.data(q), static_cast<int>(queries.length(q))});
    cudp::engine::DeviceRunStats run;
    table = scorer.score_queries(gaps, matrix, matrix.size, list.data(), list.size(), &report.cascade, &run);
    report.kernel_seconds += (run.kernel_ms + run.rescore_ms) / 1000.0;
    return table;
  }
  for (std::size_t q = 0; q < queries.count; ++q) {
    if (progress) std::fprintf(stderr, "\rcudp-swsearch: query %zu/%zu", q + 1, queries.count);
    cudp::engine::DeviceRunStats run;
    table.push_back(scorer.score(gaps, matrix, matrix.size, queries.data(q), static_cast<int>(queries.length(q)),
                                 &report.cascade, &run));
    report.kernel_seconds += (run.kernel_ms + run.rescore_ms) / 1000.0;
  }
  if (progress) std::fprintf(stderr, "\n");
  return table;
}

}  // namespace swsearch
