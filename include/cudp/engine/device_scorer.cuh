#pragma once
// Scores queries against a database on the GPU. At construction the targets are sorted by length on the device
// (CUB radix sort), split into length ranges by the architecture's tier table and packed Width targets per task.
// A database that fits in the device memory budget is uploaded once; a larger one is cut into batches that are
// streamed once per group of queries (`score_queries`), the upload of one batch overlapping the kernels of the
// previous. Each query runs its tiers in the narrow lane (the warp tier in the shape its length wastes least on),
// then the overflow cascade rescores the few targets the narrow lane could not hold in s32.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "../lanes/s16x2.hpp"
#include "../lanes/s32.hpp"
#include "../lanes/s8x4.hpp"
#include "cascade.hpp"
#include "device_tasks.cuh"
#include "launch.cuh"
#include "profile.hpp"
#include "tier_shapes.cuh"
#include "tuning.hpp"

namespace cudp::engine {

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
  float wall_ms = 0;                    // the whole query, uploads of streamed batches included
  std::array<float, 3> tier_ms{};       // narrow pass per tier
  std::array<std::uint64_t, 3> tier_cells{};
  WarpShape warp_shape{};               // the warp-tier shape the query ran in
};

template <template <class> class Policy, class Narrow = lanes::s16x2, class Shapes = TierShapes<Narrow>>
class DeviceScorer {
 public:
  using NarrowPolicy = Policy<Narrow>;
  using WidePolicy = Policy<lanes::s32>;
  using Params = typename WidePolicy::Params;
  using WarpMenu = typename Shapes::Warps;
  using WideTier = std::tuple_element_t<0, typename TierShapes<lanes::s32>::Warps>;
  static constexpr int W = Narrow::width;

  // `device_bytes` caps the GPU memory the packed database may take (0: most of what is free); a database above
  // it is streamed in batches.
  DeviceScorer(const SequencesView& db, TierThresholds thresholds, std::uint8_t pad_code, std::size_t device_bytes = 0)
      : db_(db), pad_code_(pad_code), warp_menu_(warp_shapes<WarpMenu>()) {
    CUDP_CUDA_CHECK(cudaStreamCreate(&stream_));
    CUDP_CUDA_CHECK(cudaStreamCreate(&copy_stream_));
    order_ = sort_by_length_on_device(db, stream_);
    scores_.reserve(db.count);
    const std::size_t budget = device_budget(device_bytes);
    const long limits[3] = {thresholds.thread_max_length, thresholds.warp_max_length, -1};
    std::size_t begin = 0;
    std::vector<Range> ranges;
    std::uint64_t total = 0;
    for (int k = 0; k < 3; ++k) {
      std::size_t end = begin;
      while (end < db.count && (limits[k] < 0 || db.length(order_[end]) <= static_cast<std::uint32_t>(limits[k]))) ++end;
      for (std::size_t i = begin; i < end; ++i) residues_[k] += db.length(order_[i]);
      total_residues_ += residues_[k];
      if (end > begin) {
        ranges.push_back({static_cast<TierKind>(k), begin, end});
        total += footprint(begin, end);
      }
      begin = end;
    }
    // Resident when everything fits; otherwise batches of at most half the budget, two of them on the GPU at once.
    footprint_bytes_ = total;
    streamed_ = total > budget;
    const std::uint64_t batch_limit = streamed_ ? budget / 2 : total;
    for (const Range& r : ranges) split_into_batches(r, batch_limit);
    std::uint64_t slots = 0;
    for (auto& b : batches_) slots = std::max(slots, b.tasks.boundary_slots);
    boundary_slots_ = slots;
    if (streamed_) {
      // Pinned, so that uploads run while the previous batch computes.
      for (auto& b : batches_)
        if (!b.tasks.residues.empty())
          CUDP_CUDA_CHECK(cudaHostRegister(b.tasks.residues.data(), b.tasks.residues.size(), cudaHostRegisterDefault));
      device_slots_.resize(2);
      for (auto& slot : device_slots_) slot.reserve_for(batches_);
    } else {
      device_slots_.resize(batches_.size());
      for (std::size_t b = 0; b < batches_.size(); ++b) device_slots_[b].upload(batches_[b].tasks, stream_);
    }
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDP_CUDA_CHECK(cudaEventCreate(&start_));
    CUDP_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  DeviceScorer(const DeviceScorer&) = delete;
  DeviceScorer& operator=(const DeviceScorer&) = delete;
  ~DeviceScorer() {
    if (streamed_)
      for (auto& b : batches_)
        if (!b.tasks.residues.empty()) cudaHostUnregister(b.tasks.residues.data());
    for (auto& e : batch_events_) cudaEventDestroy(e);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(copy_stream_);
    cudaStreamDestroy(stream_);
  }

  int tasks_in(TierKind k) const {
    int n = 0;
    for (const auto& b : batches_) n += b.kind == k ? b.tasks.count() : 0;
    return n;
  }
  std::uint64_t residues_in(TierKind k) const { return residues_[static_cast<int>(k)]; }
  bool streamed() const { return streamed_; }
  // Device bytes the whole packed database takes when resident.
  std::uint64_t footprint_bytes() const { return footprint_bytes_; }
  // The largest single task: a streaming budget must hold two of them.
  std::uint64_t largest_task_bytes() const { return largest_task_bytes_; }
  std::size_t batch_count() const { return batches_.size(); }
  const std::vector<WarpShape>& warp_menu() const { return warp_menu_; }
  int warp_shape_for(int m) const { return forced_warp_shape_ >= 0 ? forced_warp_shape_ : choose_warp_shape(m, warp_menu_); }
  // Runs every later query in the menu's k-th warp shape (-1: choose by query length); tests use it to cover all.
  void force_warp_shape(int k) { forced_warp_shape_ = k; }

  // One query, as `score_queries` with a list of one.
  template <class Matrix>
  std::vector<std::int32_t> score(const Params& params, const Matrix& matrix, int alphabet_size, const std::uint8_t* query,
                                  int m, CascadeStats* cascade = nullptr, DeviceRunStats* run = nullptr) {
    const Query q{query, m};
    return std::move(score_queries(params, matrix, alphabet_size, &q, 1, cascade, run).front());
  }

  struct Query {
    const std::uint8_t* residues;
    int length;
  };

  // Scores of every target for each of `count` queries. The loop over the database's batches is outside the loop
  // over queries, so a streamed database is uploaded once per group of queries rather than once per query; a group
  // is as many queries as `kGroupScoreBytes` of device score buffers hold. Statistics add up over the queries.
  template <class Matrix>
  std::vector<std::vector<std::int32_t>> score_queries(const Params& params, const Matrix& matrix, int alphabet_size,
                                                       const Query* queries, std::size_t count,
                                                       CascadeStats* cascade = nullptr, DeviceRunStats* run = nullptr) {
    CascadeStats local_cascade;
    DeviceRunStats local_run;
    CascadeStats& cs = cascade ? *cascade : local_cascade;
    DeviceRunStats& rs = run ? *run : local_run;
    std::vector<std::vector<std::int32_t>> out;
    out.reserve(count);
    const std::size_t per_group = std::max<std::size_t>(1, kGroupScoreBytes / (db_.count * sizeof(std::int32_t) + 1));
    for (std::size_t first = 0; first < count; first += per_group)
      score_group(params, matrix, alphabet_size, queries + first, std::min(per_group, count - first), cs, rs, out);
    return out;
  }

 private:
  static constexpr std::size_t kGroupScoreBytes = std::size_t{256} << 20;

  // What a query needs on the device and for its cascade.
  struct Prepared {
    NarrowPolicy policy;
    Profile<WidePolicy> wide_profile;
    recurrences::ProblemShape shape;
    int warp_shape, m;
  };

  template <class Matrix>
  void score_group(const Params& params, const Matrix& matrix, int alphabet_size, const Query* queries, std::size_t n,
                   CascadeStats& cs, DeviceRunStats& rs, std::vector<std::vector<std::int32_t>>& out) {
    CUDP_CUDA_CHECK(cudaEventRecord(start_, stream_));
    std::vector<Prepared> prepared;
    prepared.reserve(n);
    if (group_profiles_.size() < n) group_profiles_.resize(n);
    if (group_scores_.size() + 1 < n) group_scores_.resize(n - 1);
    std::vector<tiers::ProfileView<typename Narrow::scalar>> views;
    for (std::size_t i = 0; i < n; ++i) {
      const int m = queries[i].length;
      const int columns = profile_columns(m);
      Profile<NarrowPolicy> prof = build_profile<NarrowPolicy>(params, matrix, alphabet_size, queries[i].residues, m, columns);
      Profile<WidePolicy> wide = build_profile<WidePolicy>(params, matrix, alphabet_size, queries[i].residues, m, columns);
      recurrences::ProblemShape shape = shape_of(wide.data, alphabet_size, wide.stride, m);
      group_profiles_[i].upload(prof.data, stream_);
      views.push_back({group_profiles_[i].get(), prof.stride, prof.rows});
      if (i > 0) group_scores_[i - 1].reserve(db_.count);
      prepared.push_back(Prepared{NarrowPolicy(params, shape), std::move(wide), shape, warp_shape_for(m), m});
    }
    rs.warp_shape = warp_menu_[prepared.back().warp_shape];
    auto* boundary = reserve_boundary<NarrowPolicy>(boundary_slots_);

    // Kernels go on stream_, uploads of streamed batches on copy_stream_; a slot is refilled only after the
    // kernels that read it, and the kernels of a batch start only after its slot's upload.
    ensure_batch_events();
    const bool streamed = streamed_;
    if (streamed) upload_batch(0);
    for (std::size_t b = 0; b < batches_.size(); ++b) {
      const std::size_t slot = streamed ? b % 2 : b;
      if (streamed) CUDP_CUDA_CHECK(cudaStreamWaitEvent(stream_, uploaded(slot)));
      CUDP_CUDA_CHECK(cudaEventRecord(kernel_start(b), stream_));
      for (std::size_t i = 0; i < n; ++i)
        launch_batch(prepared[i].policy, batches_[b].kind, device_slots_[slot].view(), views[i], prepared[i].m, boundary,
                     prepared[i].warp_shape, group_score_buffer(i));
      CUDP_CUDA_CHECK(cudaEventRecord(kernel_stop(b), stream_));
      if (streamed && b + 1 < batches_.size()) {
        if (b >= 1) CUDP_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, kernel_stop(b - 1)));
        upload_batch(b + 1);
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      out.emplace_back(db_.count);
      CUDP_CUDA_CHECK(cudaMemcpyAsync(out.back().data(), group_score_buffer(i), db_.count * sizeof(std::int32_t),
                                      cudaMemcpyDeviceToHost, stream_));
    }
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (std::size_t b = 0; b < batches_.size(); ++b) {
      float ms = 0;
      CUDP_CUDA_CHECK(cudaEventElapsedTime(&ms, kernel_start(b), kernel_stop(b)));
      const int k = static_cast<int>(batches_[b].kind);
      rs.tier_ms[k] += ms;
      rs.kernel_ms += ms;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t m = static_cast<std::uint64_t>(prepared[i].m);
      for (int k = 0; k < 3; ++k) rs.tier_cells[k] += residues_[k] * m;
      // Every target ran narrow; those the narrow lane cannot hold for certain are simply not read.
      cs.cells += total_residues_ * m;
      rescore_wide(params, prepared[i], out[out.size() - n + i], cs, rs);
    }
    CUDP_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    CUDP_CUDA_CHECK(cudaEventSynchronize(stop_));
    float wall = 0;
    CUDP_CUDA_CHECK(cudaEventElapsedTime(&wall, start_, stop_));
    rs.wall_ms += wall;
  }

  // The overflow cascade of one query: the targets its narrow pass could not hold, rescored in s32.
  void rescore_wide(const Params& params, const Prepared& q, std::vector<std::int32_t>& scores, CascadeStats& cs,
                    DeviceRunStats& rs) {
    std::vector<std::uint32_t> wide = finish_cascade(q.policy, plan_lanes<NarrowPolicy>(params, q.shape, db_), scores.data(), cs);
    if (wide.empty()) return;
    auto plan = pack_tasks<1>(db_, wide.data(), wide.size(), pad_code_);
    wide_tasks_.upload(plan, stream_);
    wide_profile_.upload(q.wide_profile.data, stream_);
    WidePolicy wp(params, q.shape);
    tiers::ProfileView<std::int32_t> wpv{wide_profile_.get(), q.wide_profile.stride, q.wide_profile.rows};
    auto* wide_boundary = reserve_boundary<WidePolicy>(plan.boundary_slots);
    CUDP_CUDA_CHECK(cudaEventRecord(kernel_start(0), stream_));
    launch_tier<WidePolicy, WideTier>(wp, wide_tasks_.view(), wpv, q.m, wide_boundary, scores_.get(), stream_);
    CUDP_CUDA_CHECK(cudaEventRecord(kernel_stop(0), stream_));
    std::vector<std::int32_t> rescored(db_.count);
    scores_.download(rescored.data(), db_.count, stream_);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream_));
    float ms = 0;
    CUDP_CUDA_CHECK(cudaEventElapsedTime(&ms, kernel_start(0), kernel_stop(0)));
    rs.rescore_ms += ms;
    for (std::uint32_t t : wide) scores[t] = rescored[t];
  }

  // The first query of a group writes into scores_ (which the cascade reuses once every query's narrow scores are
  // on the host); the others into buffers of their own.
  std::int32_t* group_score_buffer(std::size_t i) { return i == 0 ? scores_.get() : group_scores_[i - 1].get(); }

  struct Range {
    TierKind kind;
    std::size_t begin, end;  // into order_
  };
  struct Batch {
    TierKind kind;
    PackedTasks<W> tasks;
  };
  // A batch's device copy; its buffers only grow, so refilling a slot allocates nothing.
  struct Slot : DeviceTasks<W> {
    void reserve_for(const std::vector<Batch>& batches) {
      std::size_t residues = 0, tasks = 0;
      for (const auto& b : batches) {
        residues = std::max(residues, b.tasks.residues.size());
        tasks = std::max(tasks, static_cast<std::size_t>(b.tasks.count()));
      }
      this->residues.reserve(residues);
      this->offsets.reserve(tasks);
      this->boundary_offsets.reserve(tasks);
      this->rows.reserve(tasks);
      this->lengths.reserve(tasks * W);
      this->targets.reserve(tasks * W);
    }
  };

  // Device bytes of the targets order_[begin, end): residues, task tables and strip carries.
  std::uint64_t footprint(std::size_t begin, std::size_t end) {
    std::uint64_t bytes = 0;
    for (std::size_t i = begin; i < end; i += W) {
      const std::uint64_t task = task_bytes(task_rows(i, end));
      bytes += task;
      largest_task_bytes_ = std::max(largest_task_bytes_, task);
    }
    return bytes;
  }
  // Rows of the task made of the targets order_[first, min(first + W, end)): its longest target.
  std::uint64_t task_rows(std::size_t first, std::size_t end) const {
    std::uint64_t rows = 0;
    for (std::size_t k = first; k < std::min(end, first + W); ++k) rows = std::max<std::uint64_t>(rows, db_.length(order_[k]));
    return rows;
  }
  static std::string mib(std::uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
    return buf;
  }
  static std::uint64_t task_bytes(std::uint64_t rows) {
    return (rows * W + 15) / 16 * 16 + (rows + 1) * sizeof(typename NarrowPolicy::Right) + 2 * sizeof(std::uint64_t) +
           (2 * W + 1) * sizeof(std::int32_t);
  }

  void split_into_batches(const Range& r, std::uint64_t limit) {
    std::size_t first = r.begin;
    std::uint64_t bytes = 0;
    for (std::size_t i = r.begin; i < r.end; i += W) {
      const std::uint64_t rows = task_rows(i, r.end);
      const std::uint64_t add = task_bytes(rows);
      if (add > limit)
        throw std::runtime_error("a target of " + std::to_string(rows) + " residues needs " + mib(add) +
                                 " of GPU memory, more than the " + mib(limit) + " a batch may take (half the budget)");
      if (bytes + add > limit && i > first) {
        add_batch(r.kind, first, i);
        first = i;
        bytes = 0;
      }
      bytes += add;
    }
    if (r.end > first) add_batch(r.kind, first, r.end);
  }
  void add_batch(TierKind kind, std::size_t begin, std::size_t end) {
    Batch b{kind, plan_tasks<W>(db_, order_.data() + begin, end - begin)};
    fill_task_residues(db_, b.tasks, b.tasks.residues.data(), pad_code_);
    batches_.push_back(std::move(b));
  }

  std::size_t device_budget(std::size_t requested) const {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Room for the profiles, the rescoring lane and the allocator's slack.
    const std::size_t reserve = (std::size_t{256} << 20) + free_bytes / 10;
    const std::size_t usable = free_bytes > reserve ? free_bytes - reserve : 0;
    if (requested > usable)
      throw std::runtime_error("asked for " + mib(requested) + " of GPU memory for the database but only " + mib(usable) +
                               " are free");
    return requested ? requested : usable;
  }

  // Profile columns: every strip of every tier shape the query might use lies inside the profile.
  int profile_columns(int m) const {
    auto round_up = [m](int strip) { return std::max(1, (m + strip - 1) / strip) * strip; };
    int columns = std::max(round_up(Shapes::Thread::group_size * Shapes::Thread::columns_per_thread),
                           round_up(Shapes::Block::group_size * Shapes::Block::columns_per_thread));
    for (const WarpShape& s : warp_menu_) columns = std::max(columns, round_up(s.strip()));
    return columns;
  }

  void launch_batch(const NarrowPolicy& p, TierKind kind, const tiers::TaskList<W>& tasks,
                    const tiers::ProfileView<typename Narrow::scalar>& pv, int m, typename NarrowPolicy::Right* boundary,
                    int warp_shape, std::int32_t* scores) {
    if (kind == TierKind::Thread)
      launch_tier<NarrowPolicy, typename Shapes::Thread>(p, tasks, pv, m, boundary, scores, stream_);
    else if (kind == TierKind::Block)
      launch_tier<NarrowPolicy, typename Shapes::Block>(p, tasks, pv, m, boundary, scores, stream_);
    else
      with_warp_shape<WarpMenu>(warp_shape, [&](auto tier) {
        launch_tier<NarrowPolicy, decltype(tier)>(p, tasks, pv, m, boundary, scores, stream_);
      });
  }

  void upload_batch(std::size_t b) {
    device_slots_[b % 2].upload(batches_[b].tasks, copy_stream_);
    CUDP_CUDA_CHECK(cudaEventRecord(uploaded(b % 2), copy_stream_));
  }

  // Events: two per batch for kernel timing, then one per streaming slot for its upload.
  void ensure_batch_events() {
    const std::size_t needed = 2 * batches_.size() + 2;
    while (batch_events_.size() < needed) {
      cudaEvent_t e;
      CUDP_CUDA_CHECK(cudaEventCreate(&e));
      batch_events_.push_back(e);
    }
  }
  cudaEvent_t kernel_start(std::size_t b) const { return batch_events_[2 * b]; }
  cudaEvent_t kernel_stop(std::size_t b) const { return batch_events_[2 * b + 1]; }
  cudaEvent_t uploaded(std::size_t slot) const { return batch_events_[2 * batches_.size() + slot]; }

  template <class P>
  typename P::Right* reserve_boundary(std::uint64_t slots) {
    boundary_.reserve(slots * sizeof(typename P::Right));
    return reinterpret_cast<typename P::Right*>(boundary_.get());
  }

  SequencesView db_;
  std::uint8_t pad_code_;
  std::vector<WarpShape> warp_menu_;
  int forced_warp_shape_ = -1;
  std::vector<std::uint32_t> order_;
  std::vector<Batch> batches_;
  std::vector<Slot> device_slots_;
  bool streamed_ = false;
  std::uint64_t footprint_bytes_ = 0, largest_task_bytes_ = 0;
  std::uint64_t boundary_slots_ = 0;
  std::array<std::uint64_t, 3> residues_{};
  std::uint64_t total_residues_ = 0;
  DeviceTasks<1> wide_tasks_;
  DeviceBuffer<std::int32_t> scores_;
  std::vector<DeviceBuffer<typename Narrow::scalar>> group_profiles_;
  std::vector<DeviceBuffer<std::int32_t>> group_scores_;
  DeviceBuffer<std::int32_t> wide_profile_;
  DeviceBuffer<unsigned char> boundary_;
  std::vector<cudaEvent_t> batch_events_;
  cudaStream_t stream_{}, copy_stream_{};
  cudaEvent_t start_{}, stop_{};
};

}  // namespace cudp::engine
