#pragma once
// The front door: score queries against a database with one configuration and one interface, on the GPU or on
// the host. A configuration names the policy's parameters, the backend (host, device or auto), host threads,
// the device memory the database may take and where statistics go; the lane cascade, the tier choice and the
// pad code are the library's business.
//
//   cudp::ScoreConfig<cudp::recurrences::GapCosts> config;   // parameters {11, 1}, backend auto
//   cudp::DatabaseScorer<LocalSW> scorer(db, matrix, matrix.size, config);
//   std::vector<std::int32_t> scores = scorer.score(query, m);
//
// The device backend exists where this header is compiled by nvcc (a .cu translation unit, or a C++ source given
// the CUDA language); elsewhere `Backend::Auto` means the host and `Backend::Device` is an error that says so.
// `config.devices` splits the database across several GPUs (engine/device_split.hpp), scored side by side, each
// from a host thread of its own; the scores are those of one GPU.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/cascade.hpp"
#include "engine/device_split.hpp"
#include "engine/dispatch_options.hpp"
#include "engine/host_vector.hpp"
#include "engine/setup_times.hpp"
#include "engine/sequences.hpp"
#include "lanes/s16x2.hpp"
#include "lanes/s32.hpp"
#include "recurrences/concepts.hpp"
#include "host/host_cores.hpp"
#include "host/parallel_for.hpp"

#if defined(__CUDACC__)
#include "engine/device_scorer.cuh"
#endif

namespace cudp {

enum class Backend { Auto, Host, Device };

constexpr const char* to_string(Backend b) {
  return b == Backend::Host ? "host" : (b == Backend::Device ? "device" : "auto");
}

// What a run did, summed over every call of one scorer.
struct ScoreStats {
  std::string where;               // "host, 16 threads", the GPU's name, or "2 x " that name for two GPUs
  double kernel_seconds = 0;       // device time in the scoring kernels (0 on the host); the slowest GPU's
  double setup_seconds = 0;        // wall time to pack and upload the database (the GPUs side by side)
  engine::DatabaseSetupTimes setup_phases;  // of setup_seconds: prepare, sort, pack, upload (each the slowest GPU's)
  engine::CascadeStats cascade;    // cells, narrow and rescored targets
  int narrow_bits = 32;            // bits per lane that targets start in: 16 on the GPU, 8 in host vectors
};

template <class Params>
struct ScoreConfig {
  Params params{};
  Backend backend = Backend::Auto;
  int threads = 0;                   // host threads (0: every core this process may run on)
  std::size_t device_bytes = 0;      // GPU memory the packed database may take on each GPU (0: most of what is free)
  // GPUs (CUDA ids) the database is split across, a part each of about equal residues; empty: the calling
  // thread's current GPU. A GPU listed twice takes two parts, scored side by side on it.
  std::vector<int> devices;
  engine::DispatchOptions dispatch;  // tier thresholds, warp shape or architecture instead of the device's tuning
  ScoreStats* stats = nullptr;       // filled when given
  // Called as queries are done (done, total). A database streamed through the GPU scores a group of queries in one
  // pass, so their calls come together at the group's end.
  std::function<void(std::size_t, std::size_t)> progress;
};

// Whether this translation unit can run the device backend, and a device is present.
inline bool device_backend_available() {
#if defined(__CUDACC__)
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
#else
  return false;
#endif
}

// The CUDA devices this process sees (CUDA_VISIBLE_DEVICES narrows them); 0 without a device backend.
inline int device_count() {
#if defined(__CUDACC__)
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess ? devices : 0;
#else
  return 0;
#endif
}

// Creates the device's context (a few tenths of a second), so that a program can do it while it reads its inputs.
inline bool start_device() {
#if defined(__CUDACC__)
  return device_backend_available() && cudaFree(nullptr) == cudaSuccess;
#else
  return false;
#endif
}

// Substitution scores copied out of any matrix callable as matrix(target_code, query_code).
struct SubstitutionTable {
  int size = 0;
  std::vector<int> scores;
  template <class Matrix>
  static SubstitutionTable of(const Matrix& matrix, int size) {
    SubstitutionTable t{size, std::vector<int>(static_cast<std::size_t>(size) * size)};
    for (int a = 0; a < size; ++a)
      for (int b = 0; b < size; ++b) t.scores[static_cast<std::size_t>(a) * size + b] = matrix(a, b);
    return t;
  }
  int operator()(int a, int b) const { return scores[static_cast<std::size_t>(a) * size + b]; }
};

// Scores any number of queries against one database. `Policy` is a wavefront policy template over a lane; the
// narrow lane `Narrow` runs first on the device and the overflow cascade rescores in s32 what it cannot hold. On
// the host, a policy with registered vector kernels scores in CPU vectors of 8 then 16 bits first
// (engine/host_vector.hpp; a policy of one's own gets them through engine/host_vector_kernels-inl.hpp), the others
// in s32: uses_vector_lanes() says which.
template <template <class> class Policy, class Narrow = lanes::s16x2>
class DatabaseScorer {
  static_assert(recurrences::check_cascade_pair<Policy, Narrow, lanes::s32>());

 public:
  using Params = typename Policy<lanes::s32>::Params;
  using Config = ScoreConfig<Params>;

  // The database is viewed, not copied: it must outlive the scorer; the matrix is copied. Residue codes run from 0
  // to alphabet_size - 1; the code after them pads packed tasks.
  template <class Matrix>
  DatabaseScorer(const engine::SequencesView& db, const Matrix& matrix, int alphabet_size, const Config& config)
      : db_(db), matrix_(check_alphabet(alphabet_size) ? SubstitutionTable::of(matrix, alphabet_size) : SubstitutionTable{}),
        alphabet_size_(alphabet_size), config_(config) {
    const bool device = device_backend_available();
    if (config.backend == Backend::Device && !device)
      throw std::runtime_error(
#if defined(__CUDACC__)
          "backend device: no CUDA device found"
#else
          "backend device: this translation unit was not compiled by nvcc, so it has no device backend"
#endif
      );
    backend_ = config.backend == Backend::Host || !device ? Backend::Host : Backend::Device;
    if (backend_ == Backend::Host) {
      threads_ = config.threads > 0 ? config.threads : cudp::host::usable_cores();
      stats_.where = "host, " + std::to_string(threads_) + " threads";
      if (const engine::host_vector::Kernels* kernels = engine::host_vector::kernels_of<Policy>()) {
        const engine::host_vector::TargetInfo target = kernels->target();
        if (target.vectors) {
          vector_lanes_ = true;
          stats_.where += std::string(", ") + target.name + " vectors";
          stats_.narrow_bits = 8;
        }
      }
    }
#if defined(__CUDACC__)
    else {
      const auto start = std::chrono::steady_clock::now();
      start_parts(config.devices);
      stats_.narrow_bits = Narrow::bits;
      for_each_part([&](std::size_t, DevicePart& part) {
        part.scorer = std::make_unique<Device>(part.view(db_), static_cast<std::uint8_t>(alphabet_size),
                                               config.dispatch, config.device_bytes);
      });
      for (const DevicePart& part : parts_) stats_.setup_phases.keep_slowest(part.scorer->setup_times());
      stats_.setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (config_.stats) *config_.stats = stats_;
    }
#endif
  }

  // The backend the scorer runs on (never Auto).
  Backend backend() const { return backend_; }
  const ScoreStats& stats() const { return stats_; }

  // Whether the host backend scores this policy in CPU vector lanes (8, then 16, then 32 bits): vector kernels are
  // registered for it (engine/host_vector_kernels-inl.hpp) and the CPU has vectors they run in. False on the device
  // backend and where the policy runs in the 32-bit host tier. A query whose scores do not fit a byte table runs
  // there too (stats().cascade.wide_only counts its targets).
  bool uses_vector_lanes() const { return vector_lanes_; }

  // Scores of every target against one query, in database order.
  std::vector<std::int32_t> score(const std::uint8_t* query, int length) {
    const engine::SequencesView one = single(query, length);
    return std::move(score(one).front());
  }

  // Scores of every target for each query: result[q][t].
  std::vector<std::vector<std::int32_t>> score(const engine::SequencesView& queries) {
    std::vector<std::vector<std::int32_t>> out;
#if defined(__CUDACC__)
    if (backend_ == Backend::Device) {
      out = score_on_devices(queries);
      return std::move(finish(out, queries.count));
    }
#endif
    for (std::size_t q = 0; q < queries.count; ++q) {
      const int m = static_cast<int>(queries.length(q));
      out.push_back(engine::host_vector::score<Policy>(config_.params, matrix_, alphabet_size_, queries.data(q), m, db_,
                                                       threads_, &stats_.cascade));
      if (config_.progress && q + 1 < queries.count) config_.progress(q + 1, queries.count);
    }
    return std::move(finish(out, queries.count));
  }

 private:
  static bool check_alphabet(int size) {
    if (size < 1 || size > 255) throw std::invalid_argument("alphabet size must be 1..255, got " + std::to_string(size));
    return true;
  }

  engine::SequencesView single(const std::uint8_t* query, int length) {
    single_offsets_[0] = 0;
    single_offsets_[1] = static_cast<std::uint64_t>(length);
    return {query, single_offsets_, 1};
  }
  std::vector<std::vector<std::int32_t>>& finish(std::vector<std::vector<std::int32_t>>& out, std::size_t queries) const {
    if (config_.stats) *config_.stats = stats_;
    if (config_.progress) config_.progress(queries, queries);
    return out;
  }

  engine::SequencesView db_;
  SubstitutionTable matrix_;
  int alphabet_size_;
  Config config_;
  Backend backend_ = Backend::Host;
  int threads_ = 0;
  bool vector_lanes_ = false;
  ScoreStats stats_;
  std::uint64_t single_offsets_[2] = {0, 0};
#if defined(__CUDACC__)
  using Device = engine::DeviceScorer<Policy, Narrow>;
  // One GPU's share of the database: all of it when there is one GPU; else its slice.
  struct DevicePart {
    int device = 0;
    bool whole = true;
    engine::DatabaseSlice slice;
    std::unique_ptr<Device> scorer;
    engine::SequencesView view(const engine::SequencesView& db) const { return whole ? db : slice.view; }
  };
  std::vector<DevicePart> parts_;

  void start_parts(const std::vector<int>& devices) {
    const int count = device_count();
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
    stats_.where = parts_.size() > 1 && name.find(" + ") == std::string::npos
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

  // Every GPU scores its part against all queries, writing its run of each query's scores in place. Progress counts
  // the queries every GPU is done with.
  std::vector<std::vector<std::int32_t>> score_on_devices(const engine::SequencesView& queries) {
    std::vector<std::vector<std::int32_t>> out(queries.count);
    std::vector<std::once_flag> allocated(queries.count);  // by the first GPU to need it, while the GPUs compute
    std::vector<engine::CascadeStats> cascades(parts_.size());
    std::vector<double> seconds(parts_.size(), 0.0);
    std::vector<std::size_t> done(parts_.size(), 0);
    std::size_t reported = 0;
    std::mutex progress_lock;
    const auto finished = [&](std::size_t p, std::size_t queries_done) {
      if (!config_.progress) return;
      std::lock_guard<std::mutex> lock(progress_lock);
      done[p] = queries_done;
      const std::size_t all = *std::min_element(done.begin(), done.end());
      if (all > reported && all < queries.count) config_.progress(reported = all, queries.count);
    };
    std::vector<typename Device::Query> list;
    for (std::size_t q = 0; q < queries.count; ++q) list.push_back({queries.data(q), static_cast<int>(queries.length(q))});
    for_each_part([&](std::size_t p, DevicePart& part) {
      engine::DeviceRunStats run;
      const std::size_t first = part.whole ? 0 : part.slice.first;
      part.scorer->score_queries_into(
          config_.params, matrix_, alphabet_size_, list.data(), list.size(),
          [&](std::size_t q) {
            std::call_once(allocated[q], [&] { out[q].resize(db_.count); });
            return out[q].data() + first;
          },
          &cascades[p], &run, [&](std::size_t q) { finished(p, q + 1); });
      seconds[p] = (run.kernel_ms + run.rescore_ms) / 1000.0;  // the run's statistics add up over its queries
    });
    for (const engine::CascadeStats& c : cascades) stats_.cascade += c;
    stats_.kernel_seconds += *std::max_element(seconds.begin(), seconds.end());
    return out;
  }
#endif
};

}  // namespace cudp
