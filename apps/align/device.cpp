// Compiled as CUDA when the toolkit is present (apps/align/CMakeLists.txt), as plain C++ otherwise: then the
// GPU path reports itself absent.
#include "device.hpp"

#include <algorithm>
#include <future>
#include <stdexcept>
#include <utility>

#include <cudp/scorer.hpp>

#include "kit/gpu_choice.hpp"
#include "kit/stage_times.hpp"
#if defined(__CUDACC__)
#include <cudp/align/device_leaves.cuh>
#include <cudp/align/device_row_passes.cuh>
#endif

namespace align_app {

#if defined(__CUDACC__)
constexpr long kDeviceLeafCells = 1100000;  // 1001 x 1050 cells
// Boxes from this size on are cut at checkpoint rows, kept on the device: up to 32 of them, at least 512 rows apart
// (so that a batch's 5 kbp boxes leave parts of about 500 x 500 to the leaves, not hundreds of thousands of small
// ones for the host to keep track of), the boxes of a level together in up to a quarter of the free device memory
// (16 GiB at most). On an H200: 10,000 DNA pairs of 1-10 kbp in 0.36-0.37 s instead of 0.49-0.53 s with
// Myers-Miller alone, one 100 kbp pair in 0.073 s instead of 0.080 s, one of 1 Mbp in 0.86 s (bench/RESULTS.md,
// 2026-12-01).
constexpr double kDeviceCheckpointCells = 4e6;
constexpr int kDeviceCheckpointRows = 512;
constexpr std::size_t kDeviceCheckpointBytesAtMost = std::size_t{16} << 30;

std::size_t checkpoint_bytes() {
  std::size_t free = 0, total = 0;
  CUDP_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return std::min(kDeviceCheckpointBytesAtMost, free / 4);
}

using cudp::apps::StageTimes;

// The pairs laid end to end (stage "  batch" of CUDP_STAGE_TIMES).
cudp::align::PairBatch batch_of(const std::vector<cudp::align::SequenceView>& queries,
                                const std::vector<cudp::align::SequenceView>& targets) {
  const auto start = StageTimes::clock::now();
  cudp::align::PairBatch batch(queries, targets);
  StageTimes::global().add("  batch", start);
  return batch;
}
#endif

bool gpu_available() { return cudp::device_backend_available(); }

namespace {
std::shared_future<void>& gpu_started() {
  static std::shared_future<void> started;
  return started;
}
#if defined(__CUDACC__)
int& gpu_chosen() {
  static int device = 0;
  return device;
}

// Waits for start_gpu's context and makes the calling thread use its device.
void use_started_gpu() {
  if (gpu_started().valid()) gpu_started().wait();
  CUDP_CUDA_CHECK(cudaSetDevice(gpu_chosen()));
}
#endif
}  // namespace

void start_gpu(int process_on_node, int processes) {
#if defined(__CUDACC__)
  const std::vector<int> devices =
      cudp::apps::choose_gpus(1, cudp::device_count(), process_on_node, processes);
  gpu_chosen() = devices.empty() ? 0 : devices.front();
  // Errors are left to the first call that needs the context: it reports them.
  gpu_started() = std::async(std::launch::async, [device = gpu_chosen()] {
                    if (cudaSetDevice(device) == cudaSuccess) (void)cudaFree(nullptr);
                  }).share();
#else
  (void)process_on_node, (void)processes;
#endif
}

std::vector<cudp::align::Alignment> align_batch_on_gpu(cudp::recurrences::AlignMode mode,
                                                       const std::vector<cudp::align::SequenceView>& queries,
                                                       const std::vector<cudp::align::SequenceView>& targets,
                                                       const cudp::io::SubstitutionMatrix& matrix,
                                                       cudp::recurrences::GapCosts gaps, int threads,
                                                       std::function<void(double)> progress) {
#if defined(__CUDACC__)
  const cudp::align::PairBatch batch = batch_of(queries, targets);
  use_started_gpu();
  const auto copying = StageTimes::clock::now();
  cudp::align::DeviceRowPasses<> passes(batch.pair(), matrix);
  cudp::align::DeviceLeaves<> leaves(batch.pair(), matrix, passes.forward_sequences());
  StageTimes::global().add("  device copies", copying);
  cudp::align::LinearSpaceOptions options;
  options.threads = threads;
  options.progress = std::move(progress);
  // Leaves up to a million cells, so that a pair of two 1000-residue proteins is one leaf and a batch of them one
  // kernel (bench/RESULTS.md, 2026-11-24).
  options.leaf_cells = kDeviceLeafCells;
  options.checkpoint_cells = kDeviceCheckpointCells;
  options.checkpoint_rows = kDeviceCheckpointRows;
  options.checkpoint_bytes = checkpoint_bytes();
  return cudp::align::align_batch_linear_space(
      mode, batch, matrix, gaps, options,
      [&](const std::vector<cudp::align::RowPass>& level, const cudp::align::SequencePair&,
          cudp::align::RowPassOutput out) { passes.run(level, gaps, out); },
      [&](const std::vector<cudp::align::Box>& boxes, std::vector<cudp::align::Alignment>& out) {
        leaves.solve(boxes, gaps, out, threads);
      },
      [&](const std::vector<cudp::align::RowPass>& ends, cudp::recurrences::AlignMode pass_mode,
          cudp::align::CellScope scope, const cudp::align::SequencePair&, cudp::tiers::CellEnd* out) {
        const auto locating = StageTimes::clock::now();
        passes.find_best_cells(ends, pass_mode, scope, gaps, out);
        StageTimes::global().add("  locating ends", locating);
      });
#else
  (void)mode, (void)queries, (void)targets, (void)matrix, (void)gaps, (void)threads, (void)progress;
  throw std::runtime_error("this cudp-align was built without CUDA");
#endif
}

std::vector<long> scores_on_gpu(cudp::recurrences::AlignMode mode, const std::vector<cudp::align::SequenceView>& queries,
                                const std::vector<cudp::align::SequenceView>& targets,
                                const cudp::io::SubstitutionMatrix& matrix, cudp::recurrences::GapCosts gaps,
                                int threads) {
#if defined(__CUDACC__)
  const cudp::align::PairBatch batch = batch_of(queries, targets);
  use_started_gpu();
  const auto copying = StageTimes::clock::now();
  cudp::align::DeviceRowPasses<> passes(batch.pair(), matrix);
  StageTimes::global().add("  device copies", copying);
  cudp::align::LinearSpaceOptions options;
  options.threads = threads;
  if (mode != cudp::recurrences::AlignMode::Global)
    return cudp::align::located_scores(
        mode, batch, matrix, gaps, options,
        [&](const std::vector<cudp::align::RowPass>& ends, cudp::recurrences::AlignMode pass_mode,
            cudp::align::CellScope scope, const cudp::align::SequencePair&, cudp::tiers::CellEnd* out) {
          passes.find_best_cells(ends, pass_mode, scope, gaps, out);
        });
  return cudp::align::global_scores(
      batch, matrix, gaps, options,
      [&](const std::vector<cudp::align::RowPass>& level, const cudp::align::SequencePair&,
          cudp::align::RowPassOutput out) { passes.run(level, gaps, out); });
#else
  (void)mode, (void)queries, (void)targets, (void)matrix, (void)gaps, (void)threads;
  throw std::runtime_error("this cudp-align was built without CUDA");
#endif
}

}  // namespace align_app
