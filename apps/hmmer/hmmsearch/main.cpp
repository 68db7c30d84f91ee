// cudp-hmmsearch: HMMER 3.3.2 hmmsearch on cudp: every profile of an HMM file against every sequence of a database,
// with hmmsearch's pipeline, scores, thresholds and output formats (main text output, --tblout, --domtblout).
// With --daemon it keeps a database resident and serves searches that clients send with --connect (daemon.hpp).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <future>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <cudp/io/error.hpp>
#include <cudp/hmmer/hmm_file.hpp>
#include <cudp/io/shards.hpp>

#include "hmmer/daemon.hpp"
#include "hmmer/database.hpp"
#include "hmmer/device_filters.hpp"
#include "kit/mpi_world.hpp"
#include "hmmer/options.hpp"
#include "hmmer/run.hpp"
#include "hmmer/stage_times.hpp"

namespace {

std::string current_dir() {
  std::vector<char> buf(4096);
  return getcwd(buf.data(), buf.size()) != nullptr ? std::string(buf.data()) : std::string();
}

}  // namespace

int main(int argc, char** argv) {
  using clock = std::chrono::steady_clock;
  std::optional<cudp::apps::MpiWorld> world_holder;
  if (!cudp::apps::start_world(world_holder, argc, argv, "cudp-hmmsearch")) return 1;
  const cudp::apps::MpiWorld& world = *world_holder;
  cudp::apps::ProcessErrors errors(world, "cudp-hmmsearch");
  try {
    const auto parsed = hmmsearch::parse_options(argc, argv);
    if (!parsed) {
      std::fputs(hmmsearch::usage_text(), stdout);
      return 0;
    }
    const hmmsearch::Options& o = *parsed;
    if (world.size() > 1 && (o.daemon || o.connect))
      throw hmmsearch::UsageError("--daemon and --connect run as one process, not under mpirun");
    // mpirun hands standard input to the first process alone.
    if (world.size() > 1 && (o.hmm_file == "-" || o.seq_file == "-"))
      throw hmmsearch::UsageError("under mpirun <hmmfile> and <seqdb> are files, not standard input ('-')");
    if (o.daemon) return hmmsearch::serve(o);
    if (o.connect) return hmmsearch::search_in_daemon(o, current_dir());

    hmmsearch::StageTimes& times = hmmsearch::StageTimes::global();
    auto t = hmmsearch::StageTimes::clock::now();
    const auto main_start = t;
    const bool progress = isatty(STDERR_FILENO) != 0 && world.root();
    const int threads = hmmsearch::host_threads(o);
    std::future<std::vector<int>> cuda_started =
        hmmsearch::start_cuda_unless_host(o.backend, o.gpus, world.rank_on_node(), world.size());
    if (world.root()) hmmsearch::check_outputs_writable(o);  // the first process writes them, on its file system

    // Inputs, all read and checked before anything is searched or written.
    if (o.hmm_file == "-" && o.seq_file == "-")
      throw hmmsearch::UsageError("<hmmfile> and <seqdb> cannot both be standard input ('-')");
    std::vector<cudp::hmmer::HmmModel> models;
    if (o.hmm_file == "-") {
      if (hmmsearch::looks_gzipped(std::cin.peek())) throw hmmsearch::gzip_on_standard_input("models");
      cudp::hmmer::HmmReader reader(std::cin, "standard input");
      for (cudp::hmmer::HmmModel m; reader.next(m);) models.push_back(std::move(m));
      if (models.empty()) throw cudp::io::InputError("standard input: no HMMER3 profile found");
    } else {
      models = cudp::hmmer::read_hmm_file(o.hmm_file);
    }
    hmmsearch::check_models(models, o.cut);
    t = times.add("read models", t);
    const auto& alphabet = cudp::hmmer::plan7_alphabet_of(models.front().alphabet);
    if (progress) std::fprintf(stderr, "cudp-hmmsearch: reading %s\n", o.seq_file.c_str());
    cudp::io::DatabasePart part;  // under mpirun, this process's shard of the database
    const cudp::io::SequenceSet db = hmmsearch::load_database(o.seq_file, alphabet, o.hmm_file, std::max(1, threads),
                                                              world.rank(), world.size(), &part);
    times.add("read database", t);

    hmmsearch::Searcher searcher = hmmsearch::start_searcher(o.backend, db, threads, cuda_started);
    searcher.world = &world;
    searcher.first = part.first;
    if (!errors.all_well()) return 1;  // a process could not load its shard or start its backend
    const hmmsearch::RunOutputs outputs = hmmsearch::search_models(o, models, searcher, current_dir(), progress);
    if (!world.root()) return 0;
    t = hmmsearch::StageTimes::clock::now();
    hmmsearch::write_run_outputs(o, outputs);
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
  } catch (const hmmsearch::UsageError& e) {
    // hmmsearch's status for a usage error too; the message goes to standard error, where hmmsearch's goes to
    // standard output (among its results, with -o unset).
    return errors.fail(std::string(e.what()) + " (see --help)", 1);
  } catch (const cudp::apps::ProcessesFailed& e) {
    errors.print(e.failures);  // a model's search failed in a process: the first prints what each said
    return 1;
  } catch (const std::exception& e) {
    return errors.fail(e.what(), 1);
  }
}
