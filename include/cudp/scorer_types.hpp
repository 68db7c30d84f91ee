#pragma once
/// \file
/// What the front door (cudp/scorer.hpp) and its device backend (cudp/scorer_device.cuh) share: the configuration,
/// the statistics, the copied matrix, and the device backend's interface with the hooks that find it. Plain C++: the
/// same definitions in every translation unit, whichever compiler builds it (scorer.hpp explains why).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/cascade.hpp"
#include "engine/dispatch_options.hpp"
#include "engine/sequences.hpp"
#include "engine/setup_times.hpp"
#include "lanes/s32.hpp"

namespace cudp {

/// Where a scorer runs: Auto (the GPU where the program has the device backend and a device is present, else
/// the host), Host or Device.
enum class Backend { Auto, Host, Device };

/// The backend's name: auto, host, device.
constexpr const char* to_string(Backend b) {
  return b == Backend::Host ? "host" : (b == Backend::Device ? "device" : "auto");
}

/// What a run did, summed over every call of one scorer.
struct ScoreStats {
  std::string where;               ///< "host, 16 threads", the GPU's name, or "2 x " that name for two GPUs
  double kernel_seconds = 0;       ///< device time in the scoring kernels (0 on the host); the slowest GPU's
  double setup_seconds = 0;        ///< wall time to pack and upload the database (the GPUs side by side)
  engine::DatabaseSetupTimes setup_phases;  ///< of setup_seconds: prepare, sort, pack, upload (each the slowest GPU's)
  engine::CascadeStats cascade;    ///< cells, narrow and rescored targets
  int narrow_bits = 32;            ///< bits per lane that targets start in: 16 on the GPU, 8 in host vectors
};

/// A DatabaseScorer's configuration: the policy's parameters and where and how it scores.
template <class Params>
struct ScoreConfig {
  Params params{};  ///< the policy's parameters (gap costs, ...)
  Backend backend = Backend::Auto;  ///< where it scores
  int threads = 0;                   ///< host threads (0: every core this process may run on)
  std::size_t device_bytes = 0;      ///< GPU memory the packed database may take on each GPU (0: most of what is free)
  /// GPUs (CUDA ids) the database is split across, a part each of about equal residues; empty: the calling
  /// thread's current GPU. A GPU listed twice takes two parts, scored side by side on it.
  std::vector<int> devices;
  engine::DispatchOptions dispatch;  ///< tier thresholds, warp shape or architecture instead of the device's tuning
  ScoreStats* stats = nullptr;       ///< filled when given
  /// Called as queries are done (done, total). A database streamed through the GPU scores a group of queries in one
  /// pass, so their calls come together at the group's end.
  std::function<void(std::size_t, std::size_t)> progress;
};

/// Substitution scores copied out of any matrix callable as matrix(target_code, query_code).
struct SubstitutionTable {
  int size = 0;  ///< codes 0 .. size - 1
  std::vector<int> scores;  ///< size x size scores, row by target code
  /// The table of `matrix` over codes 0 .. size - 1.
  template <class Matrix>
  static SubstitutionTable of(const Matrix& matrix, int size) {
    SubstitutionTable t{size, std::vector<int>(static_cast<std::size_t>(size) * size)};
    for (int a = 0; a < size; ++a)
      for (int b = 0; b < size; ++b) t.scores[static_cast<std::size_t>(a) * size + b] = matrix(a, b);
    return t;
  }
  /// The score of target code a against query code b.
  int operator()(int a, int b) const { return scores[static_cast<std::size_t>(a) * size + b]; }
};

namespace detail {

// A DatabaseScorer's device backend: the database on one or more GPUs. Implemented by scorer_device.cuh, in the
// translation units that nvcc compiles; elsewhere it is only this interface.
template <class Params>
class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  // Scores of every target for each query, result[q][t]; adds the kernels' time and the cascade to `stats` and
  // reports the queries done through config.progress (all but the last call, which the front door makes).
  virtual std::vector<std::vector<std::int32_t>> score(const ScoreConfig<Params>& config, const SubstitutionTable& matrix,
                                                       int alphabet_size, const engine::SequencesView& queries,
                                                       ScoreStats& stats) = 0;
};

template <template <class> class Policy>
using ParamsOf = typename Policy<lanes::s32>::Params;

// The hooks of the device backend. They are declared here, for every translation unit, and defined only in
// scorer_device.cuh, which scorer.hpp includes where nvcc compiles it: a translation unit compiled by nvcc that
// builds a DatabaseScorer<Policy, Narrow> instantiates make_device_backend<Policy, Narrow> (and the runtime hooks).
// They are weak, so that in a program where no such unit defines one its address is null; read it through
// `linked`, never by naming it in a comparison (GCC folds `&f != nullptr` to true for a function template).
//
// Builds the backend: the database split, packed and uploaded; fills stats.where, narrow_bits and the setup times.
template <template <class> class Policy, class Narrow>
__attribute__((weak)) std::unique_ptr<DeviceBackend<ParamsOf<Policy>>> make_device_backend(
    const engine::SequencesView& db, int alphabet_size, const ScoreConfig<ParamsOf<Policy>>& config, ScoreStats& stats);
// The CUDA devices the process sees (0 on any error); creating the current device's context.
template <int = 0>
__attribute__((weak)) int cuda_device_count();
template <int = 0>
__attribute__((weak)) bool cuda_start_device();

// The address of a (weak) function as the linker resolved it: null where no unit defined it.
template <class F>
F* linked(F* function) {
  F* volatile resolved = function;
  return resolved;
}

}  // namespace detail
}  // namespace cudp
