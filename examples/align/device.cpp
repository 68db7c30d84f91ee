// Compiled as CUDA when the toolkit is present (examples/align/CMakeLists.txt), as plain C++ otherwise: then the
// GPU path reports itself absent.
#include "device.hpp"

#include <stdexcept>
#include <utility>

#include <cudp/scorer.hpp>
#if defined(__CUDACC__)
#include <cudp/align/device_row_passes.cuh>
#endif

namespace align_app {

bool gpu_available() { return cudp::device_backend_available(); }

std::vector<cudp::align::Alignment> align_batch_on_gpu(cudp::recurrences::AlignMode mode,
                                                       const std::vector<cudp::align::SequenceView>& queries,
                                                       const std::vector<cudp::align::SequenceView>& targets,
                                                       const cudp::io::SubstitutionMatrix& matrix,
                                                       cudp::recurrences::GapCosts gaps, int threads,
                                                       std::function<void(double)> progress) {
#if defined(__CUDACC__)
  const cudp::align::PairBatch batch(queries, targets);
  cudp::align::DeviceRowPasses<> device(batch.pair(), matrix);
  cudp::align::LinearSpaceOptions options;
  options.threads = threads;
  options.progress = std::move(progress);
  // Smaller leaves than on the host: the GPU levels are cheap, the leaves' full traceback runs on the host
  // (bench/RESULTS.md: 4096 was the fastest of 256, 4096 and 65536 for one long pair and for batches).
  options.leaf_cells = 4096;
  return cudp::align::align_batch_linear_space(
      mode, batch, matrix, gaps, options,
      [&](const std::vector<cudp::align::RowPass>& passes, const cudp::align::SequencePair&,
          cudp::align::RowPassOutput out) { device.run(passes, gaps, out); });
#else
  (void)mode, (void)queries, (void)targets, (void)matrix, (void)gaps, (void)threads, (void)progress;
  throw std::runtime_error("this cudp-align was built without CUDA");
#endif
}

}  // namespace align_app
