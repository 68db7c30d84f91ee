#pragma once
/// \file
/// One cudp-hmmsearch run after its inputs are in memory: every model of the run against the database, formatted
/// into hmmsearch's outputs. Shared by a one-shot run (main) and a daemon serving its clients (daemon.hpp), so both
/// give the same bytes.
#include <future>
#include <memory>
#include <string>
#include <vector>

#include <cudp/hmmer/hmm_file.hpp>
#include <cudp/hmmer/plan7_pipeline.hpp>
#include <cudp/io/sequence_set.hpp>

#include "device_filters.hpp"
#include "kit/mpi_world.hpp"
#include "options.hpp"
#include "report.hpp"

namespace hmmsearch {

/// With several GPUs, the part of the database one of them searches: a run of targets of about equal residues
/// (cudp::io::shard_bounds), copied, the filters holding them, and its share of the host workers.
struct GpuPart {
  cudp::io::SequenceSet db;  ///< its targets, copied
  std::size_t first = 0;  ///< the place of its first target in the searcher's database
  std::unique_ptr<DeviceFilters> device;  ///< the GPU filters holding them
  int threads = 1;  ///< its share of the host workers
};

/// What a run searches with: the database, and the GPU filters that hold a copy of it (null: host only), or with
/// several GPUs a part of it on each.
struct Searcher {
  const cudp::io::SequenceSet& db;  ///< the database (under mpirun, this process's shard)
  std::unique_ptr<DeviceFilters> device;  ///< the GPU filters (null: host only)
  int threads = 1;  ///< host workers; 0 runs everything on the calling thread
  std::vector<GpuPart> parts;  ///< several GPUs (then `device` is null), searched side by side
  std::string description;  ///< for the output header: "CUDA filters on ..., 16 host threads"
  /// Under mpirun, `db` is this process's shard, whose first sequence is sequence `first` of the whole database;
  /// the first process merges every process's hits and counts, and only its outputs are the run's.
  const cudp::apps::MpiWorld* world = nullptr;
  std::size_t first = 0;  ///< the place of `db`'s first sequence in the whole database
  /// With GpuUse::kShareWork, the GPUs the caller shares its work out over (`device` is on the first); else empty.
  std::vector<int> gpus;
};

/// What a searcher does with several GPUs: split the database across them (cudp-hmmsearch, cudp-phmmer), or hold it
/// on the first and leave the others to the caller, which shares its work out over copies of the database on each
/// (cudp-hmmscan's models: its "database" is the query sequences, small beside the work).
enum class GpuUse { kSplitDatabase, kShareWork };

/// The backend that --backend asks for: auto takes the GPU when CUDA started and the database fits in the GPU memory
/// it may use (saying on stderr when it does not fit), cuda insists on it, host never uses it. For the GPU the
/// database is uploaded here, split across the GPUs when start_cuda chose several (or see GpuUse). `cuda_started` is
/// the start_cuda() future, invalid with --backend host.
Searcher start_searcher(const std::string& backend, const cudp::io::SequenceSet& db, int threads,
                        std::future<std::vector<int>>& cuda_started, GpuUse use = GpuUse::kSplitDatabase);

/// The texts of the output files, whole, for cudp::io::write_outputs (nothing is written before all are ready).
struct RunOutputs {
  /// \name Texts
  //@{
  /// The main output, --tblout, --domtblout and --pfamtblout.
  std::string text, tbl, domtbl, pfamtbl;
  //@}
  std::string alignment;  ///< -A: the Stockholm alignments of every query with included hits
};

/// --cpu, or all cores.
int host_threads(const Options& o);

/// Starting CUDA (the driver, the device's context) takes a few tenths of a second: start_cuda() on a thread of its
/// own, so that it runs while the inputs are read; an invalid future with --backend host. `gpus` is --gpus
/// (gpu_choice.hpp), for process `process_on_node` of a world of `processes`.
std::future<std::vector<int>> start_cuda_unless_host(const std::string& backend, int gpus = 1, int process_on_node = 0,
                                                     int processes = 1);

/// Fails early, before a long search, when -o, -A, --tblout, --domtblout or --pfamtblout cannot be created.
void check_outputs_writable(const Options& o);

/// Every model must be calibrated (STATS lines give the E-values), share the first model's alphabet, and have the
/// cutoffs that --cut_ga/nc/tc ask for.
void check_models(const std::vector<cudp::hmmer::HmmModel>& models, const std::string& cut);

/// \name Settings
//@{
/// The header's echo of the command line, the pipeline's settings, and a query's report with the display (text
/// width, accessions, alignments), that the options ask for.
HeaderSettings header_settings(const Options& o, const std::string& backend);
cudp::hmmer::Plan7PipelineOptions plan7_pipeline_options(const Options& o);
QueryReport displayed_report(const Options& o);
//@}

/// `current_dir` is the directory the run was started from, for the tabular outputs' last lines; `progress` draws
/// a progress line on standard error.
RunOutputs search_models(const Options& o, const std::vector<cudp::hmmer::HmmModel>& models, const Searcher& searcher,
                         const std::string& current_dir, bool progress);

/// Writes -o, -A, --tblout, --domtblout and --pfamtblout all or nothing, and the main output on stdout without -o.
void write_run_outputs(const Options& o, const RunOutputs& outputs);

/// \name Trailers
//@{
/// The time as ctime() writes it, and the working directory, for the tables' trailers.
std::string now_ctime();
std::string current_dir();
//@}

}  // namespace hmmsearch
