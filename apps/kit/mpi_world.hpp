#pragma once
/// \file
/// The processes of one search started by mpirun (Open MPI, MPICH): each searches its shard of the database and the
/// first (rank 0) merges the hits and writes the outputs. A program started without mpirun, or built without MPI
/// (CUDP_HAS_MPI unset), is a world of one and never calls MPI, so a plain run pays nothing for it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <cudp/host/host_cores.hpp>

#if CUDP_HAS_MPI
#include <mpi.h>
#endif

namespace cudp::apps {

/// The size of the world mpirun (or another launcher) says this process belongs to; 1 when none started it.
inline int launched_world_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && std::atoi(value) > 0) return std::atoi(value);
  }
  return 1;
}

/// Processes of the run failed: on the first process, each one's error ("rank R: ..."); elsewhere none.
struct ProcessesFailed : std::runtime_error {
  /// The failures, one message a process.
  explicit ProcessesFailed(std::vector<std::string> errors)
      : std::runtime_error("processes of the run failed"), failures(std::move(errors)) {}
  std::vector<std::string> failures;  ///< "rank R: message" for each process that failed
};

/// The processes of the run: MPI's world where mpirun started several, else a world of one that never calls MPI.
class MpiWorld {
 public:
  MpiWorld() = default;  // a world of one
  /// A build without MPI started as several processes refuses (each would search the whole database and write the
  /// whole output).
  MpiWorld(int& argc, char**& argv) {
#if CUDP_HAS_MPI
    if (launched_world_size() > 1) {
      int provided = 0;
      MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
      active_ = true;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
      MPI_Comm_size(MPI_COMM_WORLD, &size_);
      MPI_Comm node;
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
      MPI_Comm_rank(node, &rank_on_node_);
      MPI_Comm_free(&node);
    }
#else
    (void)argc;
    (void)argv;
    if (launched_world_size() > 1)
      throw std::runtime_error("built without MPI, this program cannot run as several processes");
#endif
  }
  ~MpiWorld() {
#if CUDP_HAS_MPI
    if (active_) MPI_Finalize();
#endif
  }
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  /// \name Ranks
  //@{
  /// This process's rank, the number of processes, and whether this is the first (rank 0, which writes the
  /// outputs).
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  //@}
  /// This process's place among those on its node (which of the node's GPUs it takes).
  int rank_on_node() const { return rank_on_node_; }

  /// Every process's `mine`, in rank order, on the root (empty elsewhere).
  std::vector<std::string> gather(const std::string& mine) const {
    if (size_ == 1) return {mine};
#if CUDP_HAS_MPI
    const unsigned long long length = mine.size();
    std::vector<unsigned long long> lengths(root() ? static_cast<std::size_t>(size_) : 0);
    MPI_Gather(&length, 1, MPI_UNSIGNED_LONG_LONG, lengths.data(), 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    std::vector<int> counts, displacements;
    std::string all;
    if (root()) {
      unsigned long long total = 0;
      for (const unsigned long long n : lengths) {
        if (n > static_cast<unsigned long long>(INT32_MAX) || total + n > static_cast<unsigned long long>(INT32_MAX))
          throw std::runtime_error("the hits of the processes exceed the 2 GiB one gather can carry");
        counts.push_back(static_cast<int>(n));
        displacements.push_back(static_cast<int>(total));
        total += n;
      }
      all.resize(total);
    }
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(), counts.data(), displacements.data(),
                MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> parts;
    for (std::size_t r = 0; r < counts.size(); ++r)
      parts.push_back(all.substr(static_cast<std::size_t>(displacements[r]), static_cast<std::size_t>(counts[r])));
    return parts;
#else
    return {mine};
#endif
  }

  /// Ends every process of the run with `status` (one that fails once the others may wait on it in a collective).
  void abort(int status) const {
#if CUDP_HAS_MPI
    if (active_) MPI_Abort(MPI_COMM_WORLD, status);
#else
    (void)status;
#endif
  }

  /// The sum over every process, on all of them.
  std::uint64_t sum(std::uint64_t mine) const {
#if CUDP_HAS_MPI
    if (size_ > 1) {
      unsigned long long total = 0, value = mine;
      MPI_Allreduce(&value, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      return total;
    }
#endif
    return mine;
  }

  /// The largest over every process, on all of them.
  double max(double mine) const {
#if CUDP_HAS_MPI
    if (size_ > 1) {
      double most = mine;
      MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      return most;
    }
#endif
    return mine;
  }

  /// Whether every process got this far without an error; on the root, `failures` gets each failed process's
  /// "rank R: message". Each process calls it with its own error ("" when none), so that one that failed (a bad
  /// shard, memory) stops them all at the same point instead of leaving the others waiting in a collective.
  bool all_well(const std::string& error, std::vector<std::string>& failures) const {
    const std::vector<std::string> errors = gather(error);
    failures.clear();
    // The same error everywhere (a bad option, a missing file) is said once.
    if (!errors.empty() && !errors[0].empty() && std::count(errors.begin(), errors.end(), errors[0]) == size_) {
      failures.push_back(errors[0]);
    } else {
      for (std::size_t r = 0; r < errors.size(); ++r)
        if (!errors[r].empty()) failures.push_back((size_ > 1 ? "rank " + std::to_string(r) + ": " : "") + errors[r]);
    }
    return sum(error.empty() ? 0 : 1) == 0;
  }

 private:
  int rank_ = 0, size_ = 1, rank_on_node_ = 0;
  bool active_ = false;
};

/// Starts `world` for `program`; false, after saying why on standard error, when it cannot (a build without MPI
/// started as several processes).
/// Open MPI binds each process to one core when it starts two or fewer: the host work of every process (reading,
/// alignments, the HMMER stages after the filters) would then take turns on that core, whatever --threads says. The
/// first process says so, with the options that lift it.
inline bool start_world(std::optional<MpiWorld>& world, int& argc, char**& argv, const char* program) {
  try {
    world.emplace(argc, argv);
    if (world->size() > 1 && world->root() && cudp::host::usable_cores() == 1 && std::thread::hardware_concurrency() > 1)
      std::fprintf(stderr,
                   "%s: mpirun bound this process to one core (its default for 2 processes or fewer); give them "
                   "more with mpirun --bind-to none, or --map-by slot:PE=N for N cores each\n",
                   program);
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return false;
  }
}

/// How a program run by several processes reports its errors: one met before the processes compare notes (all_well)
/// is reported by the first process, for every process that had one, while the others wait there; one met after it,
/// by the process that has it. A run of one process just prints its error.
class ProcessErrors {
 public:
  /// Errors of `program` (the prefix of every message) in `world`.
  ProcessErrors(const MpiWorld& world, std::string program) : world_(world), program_(std::move(program)) {}

  /// Whether every process got this far without an error (the first prints the others' errors when not).
  bool all_well() {
    std::vector<std::string> failures;
    const bool well = world_.all_well("", failures);
    compared_ = true;
    print(failures);
    return well;
  }

  /// A comparison before a stretch of work with no other collective in it (only a later checkpoint or all_well):
  /// an error met in that stretch still meets the other processes at the next comparison. True when every process
  /// got this far without an error; the first process prints the others' errors when not.
  bool checkpoint() {
    std::vector<std::string> failures;
    const bool well = world_.all_well("", failures);
    print(failures);
    return well;
  }

  /// This process's error, reported as the class says; returns `status` for main to return. After the comparison
  /// the other processes may be waiting for this one in a collective: the run is aborted.
  int fail(const std::string& message, int status) {
    std::vector<std::string> failures{message};
    if (!compared_ && world_.size() > 1) world_.all_well(message, failures);
    print(failures);
    if (compared_) world_.abort(status);
    return status;
  }

  /// Prints each failure as `program: failure` on standard error.
  void print(const std::vector<std::string>& failures) const {
    for (const std::string& failure : failures) std::fprintf(stderr, "%s: %s\n", program_.c_str(), failure.c_str());
  }

 private:
  const MpiWorld& world_;
  std::string program_;
  bool compared_ = false;
};

}  // namespace cudp::apps
