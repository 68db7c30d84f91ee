// Compiled as CUDA when the toolkit is present, so that cudp's front door has its device backend here.
#include <cstdio>

#include "backend.hpp"
#if defined(__CUDACC__)
#include <cudp/engine/device_contexts.cuh>
#endif
#include "kit/gpu_choice.hpp"
#include "kit/tuning_env.hpp"

namespace swsearch {

template <class L> using LocalSW = cudp::recurrences::Gotoh<cudp::recurrences::AlignMode::Local, L>;

std::vector<int> start_cuda(int gpus, int process_on_node, int processes) {
  const std::vector<int> devices = cudp::apps::choose_gpus(gpus, cudp::device_count(), process_on_node, processes);
#if defined(__CUDACC__)
  cudp::engine::start_contexts(devices);
#endif
  return devices;
}

ScoreTable score_all(const cudp::engine::SequencesView& queries, const cudp::engine::SequencesView& db,
                     const cudp::io::SubstitutionMatrix& matrix, cudp::recurrences::GapCosts gaps, cudp::Backend backend,
                     int threads, cudp::ScoreStats& report, bool progress, const std::vector<int>& devices) {
  cudp::ScoreConfig<cudp::recurrences::GapCosts> config;
  config.devices = devices;
  config.params = gaps;
  config.backend = backend;
  config.threads = threads;
  config.stats = &report;
  config.dispatch = cudp::apps::dispatch_options_from_env();  // CUDP_TIERS, CUDP_WARP_SHAPE: tuning runs
  if (progress)
    config.progress = [](std::size_t done, std::size_t total) {
      std::fprintf(stderr, "\rcudp-swsearch: query %zu/%zu%s", done, total, done == total ? "\n" : "");
    };
  cudp::DatabaseScorer<LocalSW> scorer(db, matrix, matrix.size, config);
  return scorer.score(queries);
}

}  // namespace swsearch
