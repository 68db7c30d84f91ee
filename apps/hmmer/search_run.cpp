// cudp-hmmsearch's run (tools.hpp): every profile of the HMM file against this process's shard of the database,
// or, with --daemon, a resident database serving searches (daemon.hpp), or, with --connect, this search run in one.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <iostream>
#include <string>
#include <vector>

#include <cudp/hmmer/hmm_file.hpp>
#include <cudp/io/error.hpp>
#include <cudp/io/shards.hpp>

#include "daemon.hpp"
#include "database.hpp"
#include "device_filters.hpp"
#include "run.hpp"
#include "stage_times.hpp"
#include "tools.hpp"

namespace hmmsearch {

int run(const Options& o, const cudp::apps::ToolContext& tool) {
  using clock = std::chrono::steady_clock;
  const cudp::apps::MpiWorld& world = tool.world;
  if (world.size() > 1 && (o.daemon || o.connect))
    throw UsageError("--daemon and --connect run as one process, not under mpirun");
  // mpirun hands standard input to the first process alone.
  if (world.size() > 1 && (o.hmm_file == "-" || o.seq_file == "-"))
    throw UsageError("under mpirun <hmmfile> and <seqdb> are files, not standard input ('-')");
  if (o.daemon) return serve(o);
  if (o.connect) return search_in_daemon(o, current_dir());

  StageTimes& times = StageTimes::global();
  auto t = StageTimes::clock::now();
  const auto main_start = t;
  const bool progress = cudp::apps::show_progress(world);
  const int threads = host_threads(o);
  std::future<std::vector<int>> cuda_started =
      start_cuda_unless_host(o.backend, o.gpus, world.rank_on_node(), world.size());
  if (world.root()) check_outputs_writable(o);  // the first process writes them, on its file system

  // Inputs, all read and checked before anything is searched or written.
  if (o.hmm_file == "-" && o.seq_file == "-")
    throw UsageError("<hmmfile> and <seqdb> cannot both be standard input ('-')");
  std::vector<cudp::hmmer::HmmModel> models;
  if (o.hmm_file == "-") {
    if (looks_gzipped(std::cin.peek())) throw gzip_on_standard_input("models");
    cudp::hmmer::HmmReader reader(std::cin, "standard input");
    for (cudp::hmmer::HmmModel m; reader.next(m);) models.push_back(std::move(m));
    if (models.empty()) throw cudp::io::InputError("standard input: no HMMER3 profile found");
  } else {
    models = cudp::hmmer::read_hmm_file(o.hmm_file);
  }
  check_models(models, o.cut);
  t = times.add("read models", t);
  const auto& alphabet = cudp::hmmer::plan7_alphabet_of(models.front().alphabet);
  if (progress) std::fprintf(stderr, "cudp-hmmsearch: reading %s\n", o.seq_file.c_str());
  cudp::io::DatabasePart part;  // under mpirun, this process's shard of the database
  const cudp::io::SequenceSet db =
      load_database(o.seq_file, alphabet, o.hmm_file, std::max(1, threads), world.rank(), world.size(), &part);
  times.add("read database", t);

  Searcher searcher = start_searcher(o.backend, db, threads, cuda_started);
  searcher.world = &world;
  searcher.first = part.first;
  if (!tool.errors.all_well()) return 1;  // a process could not load its shard or start its backend
  const RunOutputs outputs = search_models(o, models, searcher, current_dir(), progress);
  if (!world.root()) return 0;
  t = StageTimes::clock::now();
  write_run_outputs(o, outputs);
  times.add("write outputs", t);
  times.print("cudp-hmmsearch");
  if (times.enabled() && searcher.device)
    std::fprintf(stderr, "cudp-hmmsearch: of which in filter kernels %9.4f s\n", searcher.device->kernel_seconds());
  for (std::size_t p = 0; times.enabled() && p < searcher.parts.size(); ++p)
    std::fprintf(stderr, "cudp-hmmsearch: of which in filter kernels on GPU part %zu %9.4f s\n", p,
                 searcher.parts[p].device->kernel_seconds());
  // The rest of a run's wall time is the process's start and exit (loading and tearing down CUDA).
  if (times.enabled())
    std::fprintf(stderr, "cudp-hmmsearch: in main %9.4f s\n",
                 std::chrono::duration<double>(clock::now() - main_start).count());
  return 0;
}

}  // namespace hmmsearch
