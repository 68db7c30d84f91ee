#pragma once
// Scores queries against a database resident on the GPU. At construction the targets are sorted by length on the
// device (CUB radix sort), split into length ranges by the architecture's tier table, packed Width targets per
// task and uploaded once. Each query then runs one kernel per tier in the narrow lane, and the overflow cascade
// rescores the few targets the narrow lane could not hold in s32.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "../lanes/s16x2.hpp"
#include "../lanes/s32.hpp"
#include "../lanes/s8x4.hpp"
#include "../tiers/block.cuh"
#include "../tiers/thread.cuh"
#include "../tiers/warp.cuh"
#include "cascade.hpp"
#include "device_tasks.cuh"
#include "launch.cuh"
#include "profile.hpp"
#include "tuning.hpp"

namespace cudp::engine {

// Kernel shapes per lane (tuning data): columns per thread, group and block sizes of each tier.
template <class Lane>
struct TierShapes {
  using Thread = tiers::ThreadTier<16, 128>;
  using Warp = tiers::WarpTier<32, 16, 128>;
  using Block = tiers::BlockTier<8, 256>;
};
template <>
struct TierShapes<lanes::s32> {
  using Thread = tiers::ThreadTier<8, 128>;
  using Warp = tiers::WarpTier<32, 8, 128>;
  using Block = tiers::BlockTier<4, 256>;
};

enum class TierKind { Thread = 0, Warp = 1, Block = 2 };
constexpr const char* to_string(TierKind k) { return k == TierKind::Thread ? "thread" : (k == TierKind::Warp ? "warp" : "block"); }

// Ascending target order by length, sorted on the device.
inline std::vector<std::uint32_t> sort_by_length_on_device(const SequencesView& db, cudaStream_t stream) {
  std::vector<std::uint32_t> lengths(db.count), ids(db.count);
  for (std::size_t t = 0; t < db.count; ++t) lengths[t] = db.length(t);
  std::iota(ids.begin(), ids.end(), 0u);
  DeviceBuffer<std::uint32_t> keys_in, keys_out, ids_in, ids_out;
  keys_in.upload(lengths, stream);
  ids_in.upload(ids, stream);
  keys_out.reserve(db.count);
  ids_out.reserve(db.count);
  std::size_t temp_bytes = 0;
  int items = static_cast<int>(db.count);
  CUDP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in.get(), keys_out.get(), ids_in.get(),
                                                  ids_out.get(), items, 0, 32, stream));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  CUDP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, keys_in.get(), keys_out.get(), ids_in.get(),
                                                  ids_out.get(), items, 0, 32, stream));
  ids_out.download(ids.data(), db.count, stream);
  CUDP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return ids;
}

struct DeviceRunStats {
  float kernel_ms = 0;                  // narrow pass, all tiers
  float rescore_ms = 0;                 // wide pass
  std::array<float, 3> tier_ms{};       // narrow pass per tier
  std::array<std::uint64_t, 3> tier_cells{};
};

template <template <class> class Policy, class Narrow = lanes::s16x2>
class DeviceScorer {
 public:
  using NarrowPolicy = Policy<Narrow>;
  using WidePolicy = Policy<lanes::s32>;
  using Params = typename WidePolicy::Params;
  using NarrowShapes = TierShapes<Narrow>;
  using WideTier = typename TierShapes<lanes::s32>::Warp;
  static constexpr int W = Narrow::width;

  DeviceScorer(const SequencesView& db, TierThresholds thresholds, std::uint8_t pad_code) : db_(db), pad_code_(pad_code) {
    CUDP_CUDA_CHECK(cudaStreamCreate(&stream_));
    order_ = sort_by_length_on_device(db, stream_);
    std::size_t begin = 0;
    const long limits[3] = {thresholds.thread_max_length, thresholds.warp_max_length, -1};
    std::uint64_t bytes = 0;
    for (int k = 0; k < 3; ++k) {
      std::size_t end = begin;
      while (end < db.count && (limits[k] < 0 || db.length(order_[end]) <= static_cast<std::uint32_t>(limits[k]))) ++end;
      auto plan = plan_tasks<W>(db, order_.data() + begin, end - begin);
      for (std::size_t i = begin; i < end; ++i) residues_[k] += db.length(order_[i]);
      total_residues_ += residues_[k];
      bytes += plan.residues.size() + plan.boundary_slots * sizeof(typename NarrowPolicy::Right);
      fill_task_residues(db, plan, plan.residues.data(), pad_code);
      check_fits(bytes);
      tasks_[k].upload(plan, stream_);
      begin = end;
    }
    scores_.reserve(db.count);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDP_CUDA_CHECK(cudaEventCreate(&start_));
    CUDP_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  DeviceScorer(const DeviceScorer&) = delete;
  DeviceScorer& operator=(const DeviceScorer&) = delete;
  ~DeviceScorer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream_);
  }

  int tasks_in(TierKind k) const { return tasks_[static_cast<int>(k)].count; }
  std::uint64_t residues_in(TierKind k) const { return residues_[static_cast<int>(k)]; }

  template <class Matrix>
  std::vector<std::int32_t> score(const Params& params, const Matrix& matrix, int alphabet_size, const std::uint8_t* query,
                                  int m, CascadeStats* cascade = nullptr, DeviceRunStats* run = nullptr) {
    CascadeStats local_cascade;
    DeviceRunStats local_run;
    CascadeStats& cs = cascade ? *cascade : local_cascade;
    DeviceRunStats& rs = run ? *run : local_run;
    std::vector<std::int32_t> scores(db_.count, 0);

    constexpr int multiple = std::max({NarrowShapes::Thread::group_size * NarrowShapes::Thread::columns_per_thread,
                                       NarrowShapes::Warp::group_size * NarrowShapes::Warp::columns_per_thread,
                                       NarrowShapes::Block::group_size * NarrowShapes::Block::columns_per_thread});
    Profile<NarrowPolicy> prof = build_profile<NarrowPolicy>(params, matrix, alphabet_size, query, m, multiple);
    Profile<WidePolicy> wide_prof = build_profile<WidePolicy>(params, matrix, alphabet_size, query, m, multiple);
    recurrences::ProblemShape shape = shape_of(wide_prof.data, alphabet_size, wide_prof.stride, m);
    NarrowPolicy p(params, shape);
    narrow_profile_.upload(prof.data, stream_);
    tiers::ProfileView<typename Narrow::scalar> pv{narrow_profile_.get(), prof.stride, prof.rows};

    launch_narrow<typename NarrowShapes::Thread>(p, TierKind::Thread, pv, m, rs);
    launch_narrow<typename NarrowShapes::Warp>(p, TierKind::Warp, pv, m, rs);
    launch_narrow<typename NarrowShapes::Block>(p, TierKind::Block, pv, m, rs);
    scores_.download(scores.data(), db_.count, stream_);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream_));

    // Every target ran narrow; those the narrow lane cannot hold for certain are simply not read.
    cs.cells += total_residues_ * static_cast<std::uint64_t>(m);
    std::vector<std::uint32_t> wide = finish_cascade(p, plan_lanes<NarrowPolicy>(params, shape, db_), scores.data(), cs);
    if (!wide.empty()) {
      auto plan = pack_tasks<1>(db_, wide.data(), wide.size(), pad_code_);
      wide_tasks_.upload(plan, stream_);
      wide_profile_.upload(wide_prof.data, stream_);
      WidePolicy wp(params, shape);
      tiers::ProfileView<std::int32_t> wpv{wide_profile_.get(), wide_prof.stride, wide_prof.rows};
      typename WidePolicy::Right* boundary = boundary_for<WidePolicy, WideTier>(plan.boundary_slots, m);
      rs.rescore_ms += timed([&] {
        launch_tier<WidePolicy, WideTier>(wp, wide_tasks_.view(), wpv, m, boundary, scores_.get(), stream_);
      });
      std::vector<std::int32_t> rescored(db_.count);
      scores_.download(rescored.data(), db_.count, stream_);
      CUDP_CUDA_CHECK(cudaStreamSynchronize(stream_));
      for (std::uint32_t t : wide) scores[t] = rescored[t];
    }
    return scores;
  }

 private:
  template <class Tier>
  void launch_narrow(const NarrowPolicy& p, TierKind kind, const tiers::ProfileView<typename Narrow::scalar>& pv, int m,
                     DeviceRunStats& rs) {
    auto& tasks = tasks_[static_cast<int>(kind)];
    if (tasks.count == 0) return;
    auto* boundary = boundary_for<NarrowPolicy, Tier>(tasks.boundary_slots, m);
    float ms = timed([&] { launch_tier<NarrowPolicy, Tier>(p, tasks.view(), pv, m, boundary, scores_.get(), stream_); });
    rs.tier_ms[static_cast<int>(kind)] += ms;
    rs.tier_cells[static_cast<int>(kind)] += residues_[static_cast<int>(kind)] * static_cast<std::uint64_t>(m);
    rs.kernel_ms += ms;
  }

  // Milliseconds the work `launch` enqueues on the stream takes, by events; waits for it.
  template <class Launch>
  float timed(Launch launch) {
    CUDP_CUDA_CHECK(cudaEventRecord(start_, stream_));
    launch();
    CUDP_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    CUDP_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDP_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

  // Carries between strips are needed only when the query is wider than one strip.
  template <class P, class Tier>
  typename P::Right* boundary_for(std::uint64_t slots, int m) {
    if (m <= Tier::group_size * Tier::columns_per_thread) return nullptr;
    boundary_.reserve(slots * sizeof(typename P::Right));
    return reinterpret_cast<typename P::Right*>(boundary_.get());
  }

  void check_fits(std::uint64_t bytes) const {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > free_bytes)
      throw std::runtime_error("the packed database needs " + std::to_string(bytes >> 20) + " MiB of GPU memory but only " +
                               std::to_string(free_bytes >> 20) + " MiB are free; split the database");
  }

  SequencesView db_;
  std::uint8_t pad_code_;
  std::vector<std::uint32_t> order_;
  std::array<DeviceTasks<W>, 3> tasks_;
  std::array<std::uint64_t, 3> residues_{};
  std::uint64_t total_residues_ = 0;
  DeviceTasks<1> wide_tasks_;
  DeviceBuffer<std::int32_t> scores_;
  DeviceBuffer<typename Narrow::scalar> narrow_profile_;
  DeviceBuffer<std::int32_t> wide_profile_;
  DeviceBuffer<unsigned char> boundary_;
  cudaStream_t stream_{};
  cudaEvent_t start_{}, stop_{};
};

}  // namespace cudp::engine
