// Compiled as CUDA when the toolkit is present, so that cudp's front door has its device backend here.
#include <cstdio>

#include "backend.hpp"
#if defined(__CUDACC__)
#include <cudp/engine/cuda_check.cuh>
#endif
#include "tuning_env.hpp"

namespace swsearch {

template <class L> using LocalSW = cudp::recurrences::Gotoh<cudp::recurrences::AlignMode::Local, L>;

namespace {
// The device of the node's process `process_on_node` when the node has several (the runtime's choice is per thread,
// so each thread that uses the device makes it).
void choose_device(int process_on_node) {
#if defined(__CUDACC__)
  int count = 0;
  if (process_on_node > 0 && cudaGetDeviceCount(&count) == cudaSuccess && count > 1)
    CUDP_CUDA_CHECK(cudaSetDevice(process_on_node % count));
#else
  (void)process_on_node;
#endif
}
}  // namespace

bool start_cuda(int process_on_node) {
  if (!cudp::device_backend_available()) return false;
  choose_device(process_on_node);
  return cudp::start_device();
}

ScoreTable score_all(const cudp::engine::SequencesView& queries, const cudp::engine::SequencesView& db,
                     const cudp::io::SubstitutionMatrix& matrix, cudp::recurrences::GapCosts gaps, cudp::Backend backend,
                     int threads, cudp::ScoreStats& report, bool progress, int process_on_node) {
  if (backend == cudp::Backend::Device) choose_device(process_on_node);
  cudp::ScoreConfig<cudp::recurrences::GapCosts> config;
  config.params = gaps;
  config.backend = backend;
  config.threads = threads;
  config.stats = &report;
  config.dispatch = cudp::examples::dispatch_options_from_env();  // CUDP_TIERS, CUDP_WARP_SHAPE: tuning runs
  if (progress)
    config.progress = [](std::size_t done, std::size_t total) {
      std::fprintf(stderr, "\rcudp-swsearch: query %zu/%zu%s", done, total, done == total ? "\n" : "");
    };
  cudp::DatabaseScorer<LocalSW> scorer(db, matrix, matrix.size, config);
  return scorer.score(queries);
}

}  // namespace swsearch
