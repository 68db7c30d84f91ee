#pragma once
// The front door's device backend (cudp/scorer.hpp): DeviceScorer<Policy, Narrow> on one GPU, or the database split
// across several (engine/device_split.hpp), each part scored from a host thread of its own. scorer.hpp includes
// this header where nvcc compiles it; its definitions of the hooks declared in scorer_types.hpp are what give a
// program that has such a translation unit its device backend.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/device_scorer.cuh"
#include "engine/device_split.hpp"
#include "host/parallel_for.hpp"
#include "scorer_types.hpp"

namespace cudp::detail {

template <int Unused>
int cuda_device_count() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess ? devices : 0;
}

template <int Unused>
bool cuda_start_device() {
  return cuda_device_count<Unused>() > 0 && cudaFree(nullptr) == cudaSuccess;
}

// Instantiates the runtime hooks in every translation unit compiled by nvcc that includes this header, so that
// cudp::device_count() of a plain C++ unit of the same program finds them.
__attribute__((used)) inline int (*const cuda_device_count_hook)() = &cuda_device_count<0>;
__attribute__((used)) inline bool (*const cuda_start_device_hook)() = &cuda_start_device<0>;

template <template <class> class Policy, class Narrow>
class DeviceScorerBackend final : public DeviceBackend<ParamsOf<Policy>> {
 public:
  using Params = ParamsOf<Policy>;
  using Device = engine::DeviceScorer<Policy, Narrow>;

  DeviceScorerBackend(const engine::SequencesView& db, int alphabet_size, const ScoreConfig<Params>& config,
                      ScoreStats& stats)
      : db_(db) {
    const auto start = std::chrono::steady_clock::now();
    start_parts(config.devices, stats);
    stats.narrow_bits = Narrow::bits;
    for_each_part([&](std::size_t, DevicePart& part) {
      part.scorer = std::make_unique<Device>(part.view(db_), static_cast<std::uint8_t>(alphabet_size), config.dispatch,
                                             config.device_bytes);
    });
    for (const DevicePart& part : parts_) stats.setup_phases.keep_slowest(part.scorer->setup_times());
    stats.setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // Every GPU scores its part against all queries, writing its run of each query's scores in place. Progress counts
  // the queries every GPU is done with.
  std::vector<std::vector<std::int32_t>> score(const ScoreConfig<Params>& config, const SubstitutionTable& matrix,
                                               int alphabet_size, const engine::SequencesView& queries,
                                               ScoreStats& stats) override {
    std::vector<std::vector<std::int32_t>> out(queries.count);
    std::vector<std::once_flag> allocated(queries.count);  // by the first GPU to need it, while the GPUs compute
    std::vector<engine::CascadeStats> cascades(parts_.size());
    std::vector<double> seconds(parts_.size(), 0.0);
    std::vector<std::size_t> done(parts_.size(), 0);
    std::size_t reported = 0;
    std::mutex progress_lock;
    const auto finished = [&](std::size_t p, std::size_t queries_done) {
      if (!config.progress) return;
      std::lock_guard<std::mutex> lock(progress_lock);
      done[p] = queries_done;
      const std::size_t all = *std::min_element(done.begin(), done.end());
      if (all > reported && all < queries.count) config.progress(reported = all, queries.count);
    };
    std::vector<typename Device::Query> list;
    for (std::size_t q = 0; q < queries.count; ++q) list.push_back({queries.data(q), static_cast<int>(queries.length(q))});
    for_each_part([&](std::size_t p, DevicePart& part) {
      engine::DeviceRunStats run;
      const std::size_t first = part.whole ? 0 : part.slice.first;
      part.scorer->score_queries_into(
          config.params, matrix, alphabet_size, list.data(), list.size(),
          [&](std::size_t q) {
            std::call_once(allocated[q], [&] { out[q].resize(db_.count); });
            return out[q].data() + first;
          },
          &cascades[p], &run, [&](std::size_t q) { finished(p, q + 1); });
      seconds[p] = (run.kernel_ms + run.rescore_ms) / 1000.0;  // the run's statistics add up over its queries
    });
    for (const engine::CascadeStats& c : cascades) stats.cascade += c;
    stats.kernel_seconds += *std::max_element(seconds.begin(), seconds.end());
    return out;
  }

 private:
  // One GPU's share of the database: all of it when there is one GPU; else its slice.
  struct DevicePart {
    int device = 0;
    bool whole = true;
    engine::DatabaseSlice slice;
    std::unique_ptr<Device> scorer;
    engine::SequencesView view(const engine::SequencesView& db) const { return whole ? db : slice.view; }
  };

  void start_parts(const std::vector<int>& devices, ScoreStats& stats) {
    const int count = cuda_device_count<0>();
    for (const int device : devices)
      if (device < 0 || device >= count)
        throw std::invalid_argument("device " + std::to_string(device) + " does not exist: this process sees " +
                                    std::to_string(count) + " CUDA device(s)");
    if (devices.size() <= 1) {
      parts_.resize(1);
      if (devices.empty()) CUDP_CUDA_CHECK(cudaGetDevice(&parts_[0].device));
      else parts_[0].device = devices[0];
    } else {
      std::vector<engine::DatabaseSlice> slices = engine::split_by_residues(db_, static_cast<int>(devices.size()));
      parts_.resize(devices.size());
      for (std::size_t p = 0; p < devices.size(); ++p) {
        parts_[p].device = devices[p];
        parts_[p].whole = false;
        parts_[p].slice = std::move(slices[p]);
      }
    }
    std::string name;
    for (const DevicePart& part : parts_) {
      cudaDeviceProp prop{};
      CUDP_CUDA_CHECK(cudaGetDeviceProperties(&prop, part.device));
      if (name.empty()) name = prop.name;
      else if (name != prop.name) name += std::string(" + ") + prop.name;
    }
    stats.where = parts_.size() > 1 && name.find(" + ") == std::string::npos
                      ? std::to_string(parts_.size()) + " x " + name
                      : name;
  }

  // body(index, part) for every part, each on a thread of its own that takes the part's device, a single part
  // too: the calling thread's current device is left alone and no other device's context starts (setting a
  // device back would start its context: under mpirun, every process's on GPU 0). The first error is rethrown.
  template <class Body>
  void for_each_part(Body body) {
    const auto on_its_device = [&](std::size_t p) {
      CUDP_CUDA_CHECK(cudaSetDevice(parts_[p].device));
      body(p, parts_[p]);
    };
    if (parts_.size() > 1) {
      host::each_on_own_thread(parts_.size(), on_its_device);
      return;
    }
    std::exception_ptr error;
    std::thread([&] {
      try {
        on_its_device(0);
      } catch (...) {
        error = std::current_exception();
      }
    }).join();
    if (error) std::rethrow_exception(error);
  }

  engine::SequencesView db_;
  std::vector<DevicePart> parts_;
};

template <template <class> class Policy, class Narrow>
std::unique_ptr<DeviceBackend<ParamsOf<Policy>>> make_device_backend(const engine::SequencesView& db, int alphabet_size,
                                                                     const ScoreConfig<ParamsOf<Policy>>& config,
                                                                     ScoreStats& stats) {
  return std::make_unique<DeviceScorerBackend<Policy, Narrow>>(db, alphabet_size, config, stats);
}

}  // namespace cudp::detail
