#pragma once
/// \file
/// The front door: score queries against a database with one configuration and one interface, on the GPU or on
/// the host. A configuration names the policy's parameters, the backend (host, device or auto), host threads,
/// the device memory the database may take and where statistics go; the lane cascade, the tier choice and the
/// pad code are the library's business.
///
///   cudp::ScoreConfig<cudp::recurrences::GapCosts> config;   // parameters {11, 1}, backend auto
///   cudp::DatabaseScorer<LocalSW> scorer(db, matrix, matrix.size, config);
///   std::vector<std::int32_t> scores = scorer.score(query, m);
///
/// One class, one definition. DatabaseScorer<Policy, Narrow> is the same type, with the same members and the same
/// member functions, in every translation unit, whether g++ or nvcc compiles it: a program may build and pass one
/// around in .cpp and .cu files alike (the one-definition rule; tests/scorer_one_definition_test checks it, with
/// GCC's link-time ODR check where the compiler is GCC). The device backend sits behind an interface
/// (detail::DeviceBackend, scorer_types.hpp) that the scorer holds by pointer; its implementation
/// (scorer_device.cuh: DeviceScorer on one GPU or several) is included only where nvcc compiles this header, and
/// only there is the function that builds it, detail::make_device_backend<Policy, Narrow>, defined. That function is
/// declared weak for every unit: where a unit compiled by nvcc builds DatabaseScorer<Policy, Narrow>, the linker
/// resolves it, and every scorer of that type in the program can use the GPU, the ones built in plain C++ units
/// too; where none does, its address is null and the scorer runs on the host. The alternatives were worse:
/// members under `#if defined(__CUDACC__)` give the class two layouts (undefined behaviour, seen as crashes or as
/// the GPU silently unused, depending on which copy the linker keeps), and a device backend chosen through a
/// template argument makes the .cpp's and the .cu's scorers two types. The cost is a GCC/Clang attribute on ELF
/// platforms, the ones cudp supports.
///
/// Backend::Auto means the device where the program has the device backend for this scorer and a CUDA device is
/// present, the host otherwise; Backend::Device without both is an error that says which is missing.
/// `config.devices` splits the database across several GPUs (engine/device_split.hpp), scored side by side, each
/// from a host thread of its own; the scores are those of one GPU.
///
/// On the host, a policy runs in CPU vector lanes (engine/host_vector.hpp) where kernels are registered for it (the
/// library's own Gotoh and Levenshtein in cudp::host_vector; a policy of one's own through
/// engine/host_vector_kernels-inl.hpp), in the 32-bit host tier otherwise: `uses_vector_lanes()` says which.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/cascade.hpp"
#include "engine/host_vector.hpp"
#include "engine/sequences.hpp"
#include "host/host_cores.hpp"
#include "lanes/s16x2.hpp"
#include "lanes/s32.hpp"
#include "recurrences/concepts.hpp"
#include "scorer_types.hpp"

#if defined(__CUDACC__)
// Adds definitions (the device backend and its hooks); changes none of the declarations above or below.
#include "scorer_device.cuh"
#endif

namespace cudp {

/// The CUDA devices this process sees (CUDA_VISIBLE_DEVICES narrows them); 0 in a program without the device
/// backend (no translation unit compiled by nvcc includes this header).
inline int device_count() {
  const auto count = detail::linked(&detail::cuda_device_count<>);
  return count ? count() : 0;
}

/// Whether this program has the device backend and a device is present.
inline bool device_backend_available() { return device_count() > 0; }

/// Creates the device's context (a few tenths of a second), so that a program can do it while it reads its inputs.
inline bool start_device() {
  const auto start = detail::linked(&detail::cuda_start_device<>);
  return start && start();
}

/// Scores any number of queries against one database. `Policy` is a wavefront policy template over a lane; the
/// narrow lane `Narrow` runs first on the device and the overflow cascade rescores in s32 what it cannot hold. On
/// the host, a policy with registered vector kernels scores in CPU vectors of 8 then 16 bits first
/// (engine/host_vector.hpp), the others in s32.
template <template <class> class Policy, class Narrow = lanes::s16x2>
class DatabaseScorer {
  static_assert(recurrences::check_cascade_pair<Policy, Narrow, lanes::s32>());

 public:
  using Params = typename Policy<lanes::s32>::Params;  ///< the policy's parameters (GapCosts for Gotoh)
  using Config = ScoreConfig<Params>;  ///< the configuration the scorer takes

  /// The database is viewed, not copied: it must outlive the scorer; the matrix is copied. Residue codes run from 0
  /// to alphabet_size - 1; the code after them pads packed tasks.
  template <class Matrix>
  DatabaseScorer(const engine::SequencesView& db, const Matrix& matrix, int alphabet_size, const Config& config)
      : db_(db), matrix_(check_alphabet(alphabet_size) ? SubstitutionTable::of(matrix, alphabet_size) : SubstitutionTable{}),
        alphabet_size_(alphabet_size), config_(config) {
    const auto make_device = detail::linked(&detail::make_device_backend<Policy, Narrow>);
    const bool device = make_device != nullptr && device_backend_available();
    if (config.backend == Backend::Device && !device)
      throw std::runtime_error(make_device != nullptr
                                   ? "backend device: no CUDA device found"
                                   : "backend device: no translation unit of this program that was compiled by nvcc "
                                     "builds this DatabaseScorer, so it has no device backend (cudp/scorer.hpp)");
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
    } else {
      device_ = make_device(db_, alphabet_size, config, stats_);
      if (config_.stats) *config_.stats = stats_;
    }
  }

  /// The backend the scorer runs on (never Auto).
  Backend backend() const { return backend_; }
  const ScoreStats& stats() const { return stats_; }  ///< what the scorer did so far (also copied to config.stats)

  /// Whether the host backend scores this policy in CPU vector lanes (8, then 16, then 32 bits): vector kernels are
  /// registered for it (engine/host_vector_kernels-inl.hpp) and the CPU has vectors they run in. False on the device
  /// backend and where the policy runs in the 32-bit host tier. A query whose scores do not fit a byte table runs
  /// there too (stats().cascade.wide_only counts its targets).
  bool uses_vector_lanes() const { return vector_lanes_; }

  /// Scores of every target against one query, in database order.
  std::vector<std::int32_t> score(const std::uint8_t* query, int length) {
    const engine::SequencesView one = single(query, length);
    return std::move(score(one).front());
  }

  /// Scores of every target for each query: result[q][t].
  std::vector<std::vector<std::int32_t>> score(const engine::SequencesView& queries) {
    std::vector<std::vector<std::int32_t>> out;
    if (device_) {
      out = device_->score(config_, matrix_, alphabet_size_, queries, stats_);
      return std::move(finish(out, queries.count));
    }
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
  std::unique_ptr<detail::DeviceBackend<Params>> device_;  // the device backend; null on the host
};

}  // namespace cudp
