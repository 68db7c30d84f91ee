#pragma once
// A database packed for the wavefront tiers and held on the device. At construction the targets are sorted by length
// on the device (CUB radix sort), cut into one length range per tier of the tuning's tier list and packed Width
// targets per task. A database that fits the device memory budget is uploaded once; a larger one is cut into batches
// of at most half the budget, whose residue buffers are pinned, and streamed through two device slots: the upload of
// batch b+1 (on a copy stream) overlaps the kernels of batch b, and a slot is refilled only after the kernels that
// read it. It knows nothing of queries, recurrences or kernels: the scorer walks its batches (begin_pass, batch,
// end_batch) and launches what each needs.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "device_tasks.cuh"
#include "sequences.hpp"
#include "setup_times.hpp"
#include "task_packing.hpp"

namespace cudp::engine {

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

template <int Width>
class DevicePackedDatabase {
 public:
  static constexpr int W = Width;

  // `tier_max_lengths`: the longest target of each tier, in the tier list's order (-1: no bound). `carry_bytes`:
  // the size of the recurrence's strip carry, of which a task needs one slot per row. `device_bytes` caps the GPU
  // memory the packed database may take (0: most of what is free); a database above it is streamed in batches.
  // `stream` runs the sort and the upload of a resident database.
  DevicePackedDatabase(const SequencesView& db, std::uint8_t pad_code, const std::vector<long>& tier_max_lengths,
                       std::size_t carry_bytes, std::size_t device_bytes, cudaStream_t stream)
      : db_(db), pad_code_(pad_code), carry_bytes_(carry_bytes), residues_(tier_max_lengths.size(), 0) {
    using clock = std::chrono::steady_clock;
    const auto seconds_since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
    auto phase = clock::now();
    order_ = sort_by_length_on_device(db, stream);
    setup_times_.sort = seconds_since(phase);
    phase = clock::now();
    const std::size_t budget = device_budget(device_bytes);
    std::size_t begin = 0;
    std::vector<Range> ranges;
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < tier_max_lengths.size(); ++k) {
      const long limit = tier_max_lengths[k];
      std::size_t end = begin;
      while (end < db.count && (limit < 0 || db.length(order_[end]) <= static_cast<std::uint32_t>(limit))) ++end;
      for (std::size_t i = begin; i < end; ++i) residues_[k] += db.length(order_[i]);
      total_residues_ += residues_[k];
      if (end > begin) {
        ranges.push_back({static_cast<int>(k), begin, end});
        total += footprint(begin, end);
      }
      begin = end;
    }
    if (begin < db.count)
      throw std::invalid_argument("a target of " + std::to_string(db.length(order_[begin])) +
                                  " residues is longer than every tier of the tuning takes");
    // Resident when everything fits; otherwise batches of at most half the budget, two of them on the GPU at once.
    footprint_bytes_ = total;
    streamed_ = total > budget;
    const std::uint64_t batch_limit = streamed_ ? budget / 2 : total;
    for (const Range& r : ranges) split_into_batches(r, batch_limit);
    std::uint64_t slots = 0;
    for (auto& b : batches_) slots = std::max(slots, b.tasks.boundary_slots);
    boundary_slots_ = slots;
    setup_times_.pack = seconds_since(phase);
    phase = clock::now();
    if (streamed_) {
      // Pinned, so that uploads run while the previous batch computes.
      for (auto& b : batches_)
        if (!b.tasks.residues.empty())
          CUDP_CUDA_CHECK(cudaHostRegister(b.tasks.residues.data(), b.tasks.residues.size(), cudaHostRegisterDefault));
      device_slots_.resize(2);
      for (auto& slot : device_slots_) slot.reserve_for(batches_);
      CUDP_CUDA_CHECK(cudaStreamCreate(&copy_stream_));
      for (int s = 0; s < 2; ++s) {
        CUDP_CUDA_CHECK(cudaEventCreateWithFlags(&uploaded_[s], cudaEventDisableTiming));
        CUDP_CUDA_CHECK(cudaEventCreateWithFlags(&released_[s], cudaEventDisableTiming));
      }
    } else {
      device_slots_.resize(batches_.size());
      for (std::size_t b = 0; b < batches_.size(); ++b) device_slots_[b].upload(batches_[b].tasks, stream);
    }
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream));
    setup_times_.upload = seconds_since(phase);
  }
  DevicePackedDatabase(const DevicePackedDatabase&) = delete;
  DevicePackedDatabase& operator=(const DevicePackedDatabase&) = delete;
  ~DevicePackedDatabase() {
    if (!streamed_) return;
    for (auto& b : batches_)
      if (!b.tasks.residues.empty()) cudaHostUnregister(b.tasks.residues.data());
    for (int s = 0; s < 2; ++s) {
      cudaEventDestroy(uploaded_[s]);
      cudaEventDestroy(released_[s]);
    }
    cudaStreamDestroy(copy_stream_);
  }

  const SequencesView& sequences() const { return db_; }
  std::uint8_t pad_code() const { return pad_code_; }
  std::size_t batch_count() const { return batches_.size(); }
  // The tier (index into the tier list) whose targets batch b holds.
  int batch_tier(std::size_t b) const { return batches_[b].tier; }
  int tasks_in(int tier) const {
    int n = 0;
    for (const auto& b : batches_) n += b.tier == tier ? b.tasks.count() : 0;
    return n;
  }
  std::uint64_t residues_in(int tier) const { return residues_[static_cast<std::size_t>(tier)]; }
  std::uint64_t total_residues() const { return total_residues_; }
  bool streamed() const { return streamed_; }
  // Device bytes the whole packed database takes when resident.
  std::uint64_t footprint_bytes() const { return footprint_bytes_; }
  // The largest single task: a streaming budget must hold two of them.
  std::uint64_t largest_task_bytes() const { return largest_task_bytes_; }
  // Where the construction's time went (the upload of a streamed database: pinning its batches).
  const DatabaseSetupTimes& setup_times() const { return setup_times_; }
  // Strip-boundary slots (carries) the largest batch needs.
  std::uint64_t boundary_slots() const { return boundary_slots_; }

  // A pass over every batch in order: begin_pass(), then for each batch b, batch(b, compute), the kernels that read
  // it on `compute`, and end_batch(b, compute). For a streamed database, batch b+1 is uploaded while b computes; the
  // kernels of a batch start only after its upload, and a slot is refilled only after the kernels that read it.
  void begin_pass() {
    if (streamed_ && !batches_.empty()) upload(0);
  }
  tiers::TaskList<Width> batch(std::size_t b, cudaStream_t compute) {
    if (!streamed_) return device_slots_[b].view();
    CUDP_CUDA_CHECK(cudaStreamWaitEvent(compute, uploaded_[b % 2]));
    return device_slots_[b % 2].view();
  }
  void end_batch(std::size_t b, cudaStream_t compute) {
    if (!streamed_) return;
    CUDP_CUDA_CHECK(cudaEventRecord(released_[b % 2], compute));
    if (b + 1 < batches_.size()) {
      if (b >= 1) CUDP_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, released_[(b + 1) % 2]));
      upload(b + 1);
    }
  }

 private:
  struct Range {
    int tier;
    std::size_t begin, end;  // into order_
  };
  struct Batch {
    int tier;
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

  void upload(std::size_t b) {
    device_slots_[b % 2].upload(batches_[b].tasks, copy_stream_);
    CUDP_CUDA_CHECK(cudaEventRecord(uploaded_[b % 2], copy_stream_));
  }

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
  std::uint64_t task_bytes(std::uint64_t rows) const {
    return (rows * W + 15) / 16 * 16 + (rows + 1) * carry_bytes_ + 2 * sizeof(std::uint64_t) + (2 * W + 1) * sizeof(std::int32_t);
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
        add_batch(r.tier, first, i);
        first = i;
        bytes = 0;
      }
      bytes += add;
    }
    if (r.end > first) add_batch(r.tier, first, r.end);
  }
  void add_batch(int tier, std::size_t begin, std::size_t end) {
    Batch b{tier, plan_tasks<W>(db_, order_.data() + begin, end - begin)};
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

  SequencesView db_;
  std::uint8_t pad_code_;
  std::size_t carry_bytes_;
  std::vector<std::uint32_t> order_;
  std::vector<Batch> batches_;
  std::vector<Slot> device_slots_;
  bool streamed_ = false;
  std::uint64_t footprint_bytes_ = 0, largest_task_bytes_ = 0, boundary_slots_ = 0;
  std::vector<std::uint64_t> residues_;  // per tier
  std::uint64_t total_residues_ = 0;
  DatabaseSetupTimes setup_times_;
  cudaStream_t copy_stream_{};
  cudaEvent_t uploaded_[2]{}, released_[2]{};
};

}  // namespace cudp::engine
