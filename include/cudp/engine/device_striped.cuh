#pragma once
// Running striped row policies (tiers/striped_rows.cuh) on the GPU: the database uploaded once, then per model a
// length-sorted target list and one kernel of the menu shape chosen for the model size. The HMMER filters built on
// it are in hmmer/device_filters.cuh.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include "../tiers/striped_rows.cuh"
#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "device_stream.cuh"
#include "sequences.hpp"
#include "striped_tuning.hpp"

namespace cudp::engine {

// Database residues and offsets on the device, shared by every model of a run: the whole database, or one batch of
// a streamed one at a time (striped_batches.cuh reloads it). Its generation tells the runners when the targets
// behind an id changed.
class DeviceStripedDatabase {
 public:
  DeviceStripedDatabase() = default;
  explicit DeviceStripedDatabase(const SequencesView& db) {
    load(db, 0);
    CUDP_CUDA_CHECK(cudaDeviceSynchronize());
  }
  // Replaces the contents with `db` (offsets from 0), copied on `stream`: the host memory must stay valid, and the
  // database unread, until the stream has run the copies; page-locked host memory makes them asynchronous.
  void load(const SequencesView& db, cudaStream_t stream) {
    count_ = db.count;
    lengths_.resize(db.count);
    max_length_ = 0;
    for (std::size_t i = 0; i < db.count; ++i) {
      lengths_[i] = db.length(i);
      max_length_ = std::max(max_length_, lengths_[i]);
    }
    const std::uint64_t residues = db.count ? db.offsets[db.count] : 0;
    residues_.upload(db.residues, static_cast<std::size_t>(residues), stream);
    offsets_.upload(db.offsets, db.count + 1, stream);
    ++generation_;
  }
  // Device room for a database of up to this many residues and targets, so that loading one allocates nothing.
  void reserve(std::size_t residues, std::size_t targets) {
    residues_.reserve(residues);
    offsets_.reserve(targets + 1);
  }
  std::size_t count() const { return count_; }
  std::uint32_t length(std::size_t i) const { return lengths_[i]; }
  std::uint32_t max_length() const { return max_length_; }
  const std::uint8_t* residues() const { return residues_.get(); }
  const std::uint64_t* offsets() const { return offsets_.get(); }
  std::uint64_t generation() const { return generation_; }

 private:
  std::size_t count_ = 0;
  std::vector<std::uint32_t> lengths_;
  std::uint32_t max_length_ = 0;
  DeviceBuffer<std::uint8_t> residues_;
  DeviceBuffer<std::uint64_t> offsets_;
  std::uint64_t generation_ = 0;
};

namespace detail {

struct TargetLength {
  const std::uint64_t* offsets;
  __device__ std::uint32_t operator()(std::uint32_t id) const {
    return static_cast<std::uint32_t>(offsets[id + 1] - offsets[id]);
  }
};

constexpr int kStripedBlockThreads = 128;

template <class Policy, int G, int Q>
void launch_striped(const typename Policy::Model& md, const tiers::StripedTargets& targets,
                    typename Policy::Result* results, cudaStream_t stream) {
  constexpr int block_threads = kStripedBlockThreads;
  constexpr int groups_per_block = block_threads / G;
  int sms = 0, device = 0;
  CUDP_CUDA_CHECK(cudaGetDevice(&device));
  CUDP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t needed = (targets.count + groups_per_block - 1) / groups_per_block;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>(needed, static_cast<std::size_t>(sms) * kStripedBlocksPerSm));
  tiers::striped_rows_kernel<Policy, G, Q, block_threads><<<blocks, block_threads, 0, stream>>>(md, targets, results);
  CUDP_CUDA_CHECK(cudaGetLastError());
}

template <class Policy, class Menu, std::size_t... I>
void launch_striped_shape(int index, const typename Policy::Model& md, const tiers::StripedTargets& targets,
                          typename Policy::Result* results, cudaStream_t stream, std::index_sequence<I...>) {
  const bool launched = ((index == static_cast<int>(I)
                              ? (launch_striped<Policy, Menu::groups[I], Menu::segments[I]>(md, targets, results, stream), true)
                              : false) ||
                         ...);
  if (!launched) throw std::out_of_range("striped shape index " + std::to_string(index));
}

// Loads every shape's kernel into the context now. CUDA loads a kernel at its first launch by default
// (CUDA_MODULE_LOADING=LAZY), and the CUDA guide warns that loading may synchronize the context: a filter's first
// kernel of a model size could then wait for the kernels another thread runs beside it (the next model's MSV).
template <class Policy, class Menu, std::size_t... I>
void load_striped_shapes(std::index_sequence<I...>) {
  cudaFuncAttributes attributes{};
  (CUDP_CUDA_CHECK(cudaFuncGetAttributes(
       &attributes, tiers::striped_rows_kernel<Policy, Menu::groups[I], Menu::segments[I], kStripedBlockThreads>)),
   ...);
}

// The forced shape when it holds M nodes, else the menu's choice.
template <class Menu>
int shape_index(int forced, int M, int width) {
  if (forced >= 0 && static_cast<std::size_t>(forced) < Menu::size &&
      Menu::groups[static_cast<std::size_t>(forced)] * Menu::segments[static_cast<std::size_t>(forced)] * width >= M) {
    return forced;
  }
  return choose_striped_shape<Menu>(M, width);
}

}  // namespace detail

// The results a run kept, with their places in the list of targets it was given (ascending).
template <class Result>
struct KeptResults {
  std::vector<std::uint32_t> positions;
  std::vector<Result> results;
};

namespace detail {
// copy_if's stencil test: the (result, target length) pair through the caller's Keep.
template <class Keep>
struct KeepPair {
  Keep keep;
  template <class Pair>
  __device__ bool operator()(const Pair& p) const {
    return keep(thrust::get<0>(p), thrust::get<1>(p));
  }
};
}  // namespace detail

// Runs Policy over the database targets `ids` with the model `md` (device pointers), whose shape is Menu's entry
// `shape_index`. Results come back in the order of ids. Targets run longest first so that the last warps to
// finish hold short ones; the sort and the return to the given order run on the device (sorting the 570,000 ids of
// a 200 MB database on one host thread took 50 ms, longer than the filter).
template <class Policy, class Menu>
class DeviceStripedRunner {
 public:
  // priority: that of the runner's own stream (see device_stream.cuh).
  explicit DeviceStripedRunner(const DeviceStripedDatabase& db, StreamPriority priority = StreamPriority::Default)
      : db_(db), stream_(priority) {
    CUDP_CUDA_CHECK(cudaEventCreate(&start_));
    CUDP_CUDA_CHECK(cudaEventCreate(&stop_));
    detail::load_striped_shapes<Policy, Menu>(std::make_index_sequence<Menu::size>{});
  }
  ~DeviceStripedRunner() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  DeviceStripedRunner(const DeviceStripedRunner&) = delete;
  DeviceStripedRunner& operator=(const DeviceStripedRunner&) = delete;

  std::vector<typename Policy::Result> run(int shape_index, const typename Policy::Model& md,
                                           const std::vector<std::uint32_t>& ids) {
    const std::size_t n = launch(shape_index, md, ids);
    results_.reserve(n, stream_.get());
    thrust::scatter(stream_.policy(), sorted_results_.get(), sorted_results_.get() + n, positions_.get(),
                    results_.get());
    std::vector<typename Policy::Result> results(n);
    results_.download(results.data(), n, stream_.get());
    finish_timing();
    return results;
  }

  // The same run, but only the results that keep(result, target length) accepts (a device functor) come back,
  // with their places in ids, in the order of ids: a filter that knows its certain failures sets them aside here,
  // and the copy shrinks with them.
  template <class Keep>
  KeptResults<typename Policy::Result> run_kept(int shape_index, const typename Policy::Model& md,
                                                const std::vector<std::uint32_t>& ids, Keep keep) {
    const std::size_t n = launch(shape_index, md, ids);
    const auto on_stream = stream_.policy();
    results_.reserve(n, stream_.get());
    kept_positions_.reserve(n, stream_.get());
    const auto from = thrust::make_zip_iterator(thrust::make_tuple(positions_.get(), sorted_results_.get()));
    const auto tested = thrust::make_zip_iterator(thrust::make_tuple(sorted_results_.get(), lengths_.get()));
    const auto to = thrust::make_zip_iterator(thrust::make_tuple(kept_positions_.get(), results_.get()));
    const std::size_t kept =
        static_cast<std::size_t>(thrust::copy_if(on_stream, from, from + n, tested, to, detail::KeepPair<Keep>{keep}) - to);
    thrust::sort_by_key(on_stream, kept_positions_.get(), kept_positions_.get() + kept, results_.get());
    KeptResults<typename Policy::Result> out;
    out.positions.resize(kept);
    out.results.resize(kept);
    kept_positions_.download(out.positions.data(), kept, stream_.get());
    results_.download(out.results.data(), kept, stream_.get());
    finish_timing();
    return out;
  }
  double kernel_ms() const { return kernel_ms_; }
  double last_kernel_ms() const { return last_kernel_ms_; }
  // The last run's wall time on the host from its call to its kernel's launch (the sort of a new target list, the
  // uploads), and in all: what a run costs beside its kernel.
  double last_launch_ms() const { return last_launch_ms_; }
  double last_wall_ms() const { return last_wall_ms_; }
  // The stream the runner's copies and kernels go on: a filter's uploads of its model go there too.
  cudaStream_t stream() const { return stream_.get(); }

 private:
  // Sorts the ids longest first on the device (once for a list and a database generation) and queues the kernel,
  // its results in sorted_results_, the sorted lengths in lengths_; returns the number of targets.
  std::size_t launch(int shape_index, const typename Policy::Model& md, const std::vector<std::uint32_t>& ids) {
    called_ = std::chrono::steady_clock::now();
    const std::size_t n = ids.size();
    const auto on_stream = stream_.policy();
    // Every model of a run filters the whole database: sort that list once (per batch of a streamed database).
    if (ids != last_ids_ || db_.generation() != last_generation_) {
      given_.reserve(n, stream_.get());
      sorted_.reserve(n, stream_.get());
      positions_.reserve(n, stream_.get());
      lengths_.reserve(n, stream_.get());
      given_.upload(ids, stream_.get());
      std::uint32_t* given = given_.get();
      std::uint32_t* lengths = lengths_.get();
      std::uint32_t* positions = positions_.get();
      thrust::transform(on_stream, given, given + n, lengths, detail::TargetLength{db_.offsets()});
      thrust::sequence(on_stream, positions, positions + n);
      thrust::stable_sort_by_key(on_stream, lengths, lengths + n, positions, thrust::greater<std::uint32_t>());
      thrust::gather(on_stream, positions, positions + n, given, sorted_.get());
      last_ids_ = ids;
      last_generation_ = db_.generation();
    }
    sorted_results_.reserve(n, stream_.get());
    tiers::StripedTargets targets{db_.residues(), db_.offsets(), sorted_.get(), static_cast<std::uint32_t>(n)};
    CUDP_CUDA_CHECK(cudaEventRecord(start_, stream_.get()));
    if (n != 0) {
      detail::launch_striped_shape<Policy, Menu>(shape_index, md, targets, sorted_results_.get(), stream_.get(),
                                                 std::make_index_sequence<Menu::size>{});
    }
    CUDP_CUDA_CHECK(cudaEventRecord(stop_, stream_.get()));
    last_launch_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - called_).count();
    return n;
  }
  void finish_timing() {
    CUDP_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDP_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    kernel_ms_ += ms;
    last_kernel_ms_ = ms;
    last_wall_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - called_).count();
  }

  const DeviceStripedDatabase& db_;
  DeviceStream stream_;
  std::vector<std::uint32_t> last_ids_;
  std::uint64_t last_generation_ = 0;
  // The ids as given, sorted longest first, and each sorted entry's place in the given list.
  DeviceBuffer<std::uint32_t> given_, sorted_, positions_, lengths_, kept_positions_;
  DeviceBuffer<typename Policy::Result> sorted_results_, results_;
  cudaEvent_t start_{}, stop_{};
  double kernel_ms_ = 0, last_kernel_ms_ = 0, last_launch_ms_ = 0, last_wall_ms_ = 0;
  std::chrono::steady_clock::time_point called_;
};

// What every striped GPU filter keeps: the database, the runner of its kernels, and the shape of its last call. A
// base for the filters of a model family (hmmer/device_filters.cuh).
template <class Policy, class Menu>
class StripedFilterRun {
 public:
  explicit StripedFilterRun(const DeviceStripedDatabase& db, StreamPriority priority = StreamPriority::Default)
      : db_(db), runner_(db, priority) {}

  recurrences::StripedShape last_shape() const { return last_shape_; }
  double kernel_ms() const { return runner_.kernel_ms(); }
  double last_kernel_ms() const { return runner_.last_kernel_ms(); }
  double last_launch_ms() const { return runner_.last_launch_ms(); }
  double last_wall_ms() const { return runner_.last_wall_ms(); }

 protected:
  // The forced shape when it holds M nodes, else the menu's choice; -1 when no shape holds the model.
  static int shape_for(int forced, int M, int width) { return detail::shape_index<Menu>(forced, M, width); }

  // The menu's shape for a model of M nodes in `width`-lane words (`forced` when set); an error naming `filter`
  // when no shape holds it.
  static int shape_or_throw(const char* filter, int forced, int M, int width) {
    const int index = detail::shape_index<Menu>(forced, M, width);
    if (index < 0) {
      throw std::invalid_argument(std::string(filter) + ": no striped shape holds a model of " + std::to_string(M) +
                                  " nodes");
    }
    return index;
  }

  const DeviceStripedDatabase& db_;
  DeviceStripedRunner<Policy, Menu> runner_;
  recurrences::StripedShape last_shape_;
};

}  // namespace cudp::engine
