// cudp-hmmscan's run (tools.hpp): each model over all the query sequences, several models at once, the hits regrouped
// by sequence into hmmscan's outputs; --daemon and --connect through scan_daemon.cpp.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <future>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <cudp/hmmer/hmm_file.hpp>
#include <cudp/hmmer/null_model.hpp>
#include <cudp/hmmer/plan7_pipeline.hpp>
#include <cudp/io/error.hpp>
#include <cudp/host/parallel_for.hpp>

#include "database.hpp"
#include "device_filters.hpp"
#include "options.hpp"
#include "kit/tool.hpp"
#include "report.hpp"
#include "run.hpp"
#include "stage_times.hpp"
#include "search.hpp"
#include "scan_daemon.hpp"
#include "scan_options.hpp"
#include "tools.hpp"

#ifndef CUDP_VERSION
#define CUDP_VERSION "unknown"
#endif

namespace hmmscan {
namespace {

using hmmsearch::current_dir;
using hmmsearch::now_ctime;

const std::optional<cudp::hmmer::HmmCutoff>& cutoff_of(const cudp::hmmer::HmmModel& m, const std::string& kind) {
  return kind == "GA" ? m.gathering : kind == "NC" ? m.noise : m.trusted;
}

// How many models are searched at once. One model's filter kernels over a proteome's few thousand sequences are
// too small to fill a GPU, and most of its host work (domain definition of its few hits) is too small to share out
// over all cores; several models side by side fill both. Two host threads per model, at most eight models a GPU
// (eight sets of device filters and streams); CUDP_SCAN_MODELS_AT_ONCE overrides it for benchmarks.
int models_at_once(std::size_t models, int threads, int gpus) {
  int n = threads <= 0 ? 1 : std::clamp(threads / 2, 1, 8 * std::max(1, gpus));
  if (const char* env = std::getenv("CUDP_SCAN_MODELS_AT_ONCE")) n = std::max(1, std::atoi(env));
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(n), std::max<std::size_t>(1, models)));
}

// What the model-major search leaves for one query sequence.
struct QueryHits {
  std::vector<hmmsearch::Hit> candidates;  // in model order; target is the model's index
  std::array<std::uint64_t, 4> passed{};   // models past MSV, bias, Viterbi, Forward
};

// Every model against the searcher's query sequences: their reports, tblout, domtblout and pfamtblout sections, in
// query order, without the run's header and trailers (frame adds them). `first_query`: the place of the first of
// them among all the run's queries (under mpirun, a process scans a shard of them), which only the tables' column
// header, written before the run's first query, depends on.
hmmsearch::RunOutputs scan_queries(const Options& p, const std::vector<cudp::hmmer::HmmModel>& models,
                                   const hmmsearch::Searcher& searcher, std::size_t first_query) {
  using clock = std::chrono::steady_clock;
  const hmmsearch::Options& o = p.search;
  const cudp::io::SequenceSet& queries = searcher.db;
  const auto wall0 = clock::now();
  const std::clock_t cpu0 = std::clock();

  const cudp::hmmer::Plan7PipelineOptions pipeline_options = hmmsearch::plan7_pipeline_options(o);
  const cudp::hmmer::NullModel null_model =
      cudp::hmmer::default_null_model(cudp::hmmer::plan7_alphabet_of(models.front().alphabet));

  // Every model over every query sequence, several models at once (see models_at_once); then the hits and filter
  // passes regrouped by sequence, in model order whatever order the models finished in.
  const int gpus = static_cast<int>(std::max<std::size_t>(1, searcher.gpus.size()));
  const int at_once = models_at_once(models.size(), searcher.threads, gpus);
  const int threads_each = searcher.threads <= 0 ? 0 : std::max(1, searcher.threads / at_once);
  std::vector<hmmsearch::SearchOutcome> outcomes(models.size());
  std::vector<cudp::hmmer::Plan7PipelineOptions> used(models.size());
  std::atomic<std::size_t> workers_started{0};
  cudp::host::parallel_for(
      models.size(), at_once,
      [&]() -> std::unique_ptr<hmmsearch::DeviceFilters> {
        // The first worker takes the searcher's filters; each other one makes its own on its own thread, so that
        // its kernels go to its own stream (the filters are built with per-thread default streams), on the GPUs in
        // turn: every GPU holds the query sequences, and the models go to whichever worker is free.
        if (!searcher.device) return nullptr;
        const std::size_t k = workers_started++;
        if (k == 0) return nullptr;
        const int device = searcher.gpus.empty() ? -1 : searcher.gpus[k % searcher.gpus.size()];
        return std::make_unique<hmmsearch::DeviceFilters>(cudp::engine::view_of(queries), device);
      },
      [&](std::unique_ptr<hmmsearch::DeviceFilters>& own, std::size_t m) {
        const cudp::hmmer::Plan7Pipeline pipeline(models[m], null_model, pipeline_options);
        used[m] = pipeline.options();
        hmmsearch::DeviceFilters* filters = own ? own.get() : searcher.device.get();
        outcomes[m] = filters ? hmmsearch::search_with_device(pipeline, queries, *filters, threads_each, nullptr, true)
                              : hmmsearch::search_on_host(pipeline, queries, threads_each, nullptr, true);
      });

  std::vector<QueryHits> per_query(queries.size());
  double F[3] = {0.02, 1e-3, 1e-5};
  std::uint64_t nodes = 0;
  for (std::size_t m = 0; m < models.size(); ++m) {
    const cudp::hmmer::HmmModel& model = models[m];
    nodes += static_cast<std::uint64_t>(model.length);
    F[0] = used[m].F1;
    F[1] = used[m].F2;
    F[2] = used[m].F3;
    hmmsearch::SearchOutcome& outcome = outcomes[m];
    for (std::size_t q = 0; q < queries.size() && q < outcome.passed.size(); ++q) {
      for (int k = 0; k < 4; ++k) per_query[q].passed[k] += outcome.passed[q][k];
    }
    for (auto& h : outcome.hits) {
      hmmsearch::Hit r;
      const std::size_t q = h.target;
      static_cast<cudp::hmmer::Plan7SequenceHit&>(r) = std::move(h);
      r.target = m;
      r.name = model.name;
      r.accession = model.accession;
      r.description = model.description;
      r.length = static_cast<std::uint32_t>(model.length);
      r.reference = model.reference;
      r.structure = model.consensus_structure;
      per_query[q].candidates.push_back(std::move(r));
    }
    outcome = hmmsearch::SearchOutcome{};
  }
  // The run's times, shared out over the queries by their lengths (the work is done model by model).
  const double elapsed = std::chrono::duration<double>(clock::now() - wall0).count();
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  const double residues = static_cast<double>(std::max<std::uint64_t>(1, queries.total_residues()));

  const hmmsearch::Thresholds thresholds = o.thresholds();
  std::vector<double> domain_cutoffs(models.size(), 0.0);
  if (!o.cut.empty())
    for (std::size_t m = 0; m < models.size(); ++m)
      domain_cutoffs[m] = static_cast<double>(cutoff_of(models[m], o.cut)->domain);

  hmmsearch::RunOutputs out;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    QueryHits& qh = per_query[q];
    hmmsearch::QueryReport report = hmmsearch::displayed_report(o);
    report.scan = true;
    report.name = queries.names[q];
    report.description = queries.descriptions[q];
    report.M = static_cast<int>(queries.length(q));
    report.F1 = F[0];
    report.F2 = F[1];
    report.F3 = F[2];
    report.counts.models = models.size();
    report.counts.nodes = nodes;
    report.counts.targets = 1;
    report.counts.residues = queries.length(q);
    report.counts.passed_msv = qh.passed[0];
    report.counts.passed_bias = qh.passed[1];
    report.counts.passed_viterbi = qh.passed[2];
    report.counts.passed_forward = qh.passed[3];
    bool inc_by_E = thresholds.inc_by_E;
    if (o.cut.empty()) {
      report.hits = hmmsearch::rank_hits(std::move(qh.candidates), thresholds);
      hmmsearch::apply_thresholds(report, thresholds);
    } else {
      // Each hit enters the list on its own model's sequence cutoff; ranked by score.
      std::vector<hmmsearch::Hit> entered;
      for (hmmsearch::Hit& h : qh.candidates)
        if (static_cast<double>(h.bits) >= static_cast<double>(cutoff_of(models[h.target], o.cut)->sequence))
          entered.push_back(std::move(h));
      const double lowest = -std::numeric_limits<double>::infinity();
      const hmmsearch::Thresholds by_score = hmmsearch::model_cutoff_thresholds(thresholds, 0.0f, 0.0f);
      hmmsearch::Thresholds entry = by_score;
      entry.T = lowest;
      report.hits = hmmsearch::rank_hits(std::move(entered), entry);
      inc_by_E = false;
      hmmsearch::apply_scan_cutoffs(report, o.Z, o.domZ, domain_cutoffs);
    }
    const double share = static_cast<double>(queries.length(q)) / residues;
    report.cpu_user = cpu * share;
    report.elapsed = elapsed * share;
    hmmsearch::write_query(out.text, report);
    if (o.tblout) hmmsearch::write_tblout(out.tbl, report, first_query + q == 0);
    if (o.domtblout) hmmsearch::write_domtblout(out.domtbl, report, first_query + q == 0);
    if (o.pfamtblout) hmmsearch::write_pfamtblout(out.pfamtbl, report, inc_by_E);
  }
  return out;
}

// The run's header before the queries' reports, "[ok]" and the tables' trailers after them.
void frame(const Options& p, const std::string& backend_description, hmmsearch::RunOutputs& out) {
  const hmmsearch::Options& o = p.search;
  std::string text;
  hmmsearch::HeaderSettings header = hmmsearch::header_settings(o, backend_description);
  header.program = "cudp-hmmscan";
  header.scan = true;
  hmmsearch::write_header(text, header);
  out.text = text + out.text + "[ok]\n";

  hmmsearch::TabularTail tail;
  tail.program = "cudp-hmmscan";
  tail.version = std::string(CUDP_VERSION) + " (cudp; HMMER 3.3.2 formats)";
  tail.hmm_file = o.seq_file;  // the tail's "Query file": hmmscan's queries are the sequences
  tail.seq_file = o.hmm_file;
  tail.command_line = "cudp-hmmscan ";
  for (const auto& word : p.given) tail.command_line += word + " ";
  tail.command_line += o.hmm_file + " " + o.seq_file + " ";
  tail.current_dir = current_dir();
  tail.date = now_ctime();
  // hmmscan 3.3.2 names the pipeline SCAN in its tables, but SEARCH in --pfamtblout.
  if (o.pfamtblout) hmmsearch::write_tabular_tail(out.pfamtbl, tail);
  tail.mode = "SCAN";
  if (o.tblout) hmmsearch::write_tabular_tail(out.tbl, tail);
  if (o.domtblout) hmmsearch::write_tabular_tail(out.domtbl, tail);
}

hmmsearch::RunOutputs scan(const Options& p, const std::vector<cudp::hmmer::HmmModel>& models,
                           const hmmsearch::Searcher& searcher) {
  hmmsearch::RunOutputs out = scan_queries(p, models, searcher, 0);
  frame(p, searcher.description, out);
  return out;
}

// Under mpirun: every process's sections, on the first in rank order, which is query order (the shards follow the
// file); empty elsewhere.
hmmsearch::RunOutputs gather_queries(const cudp::apps::MpiWorld& world, hmmsearch::RunOutputs mine) {
  if (world.size() == 1) return mine;
  hmmsearch::RunOutputs all;
  for (auto [part, whole] : {std::pair{&mine.text, &all.text}, std::pair{&mine.tbl, &all.tbl},
                             std::pair{&mine.domtbl, &all.domtbl}, std::pair{&mine.pfamtbl, &all.pfamtbl}}) {
    for (std::string& piece : world.gather(*part)) *whole += piece;
    part->clear();
  }
  return all;
}

}  // namespace

int run(const Options& p, const cudp::apps::ToolContext& tool, int argc, const char* const* argv) {
  const cudp::apps::MpiWorld& world = tool.world;
  const hmmsearch::Options& o = p.search;
  if (world.size() > 1 && (o.daemon || o.connect))
    throw hmmsearch::UsageError("--daemon and --connect run as one process, not under mpirun");
  // mpirun hands standard input to the first process alone.
  if (world.size() > 1 && o.seq_file == "-")
    throw hmmsearch::UsageError("under mpirun <seqfile> is a file, not standard input ('-')");
  if (o.daemon) return serve(p, scan);
  if (o.connect) return scan_in_daemon(p, argc, argv, current_dir());
  const int threads = hmmsearch::host_threads(o);
  std::future<std::vector<int>> cuda_started =
      hmmsearch::start_cuda_unless_host(o.backend, o.gpus, world.rank_on_node(), world.size());
  if (world.root()) hmmsearch::check_outputs_writable(o);  // the first process writes them, on its file system
  // As hmmscan: the sequences may come from standard input, the profile database may not.
  if (o.hmm_file == "-") throw hmmsearch::UsageError("<hmmdb> cannot be read from standard input");

  hmmsearch::StageTimes& times = hmmsearch::StageTimes::global();
  auto t = hmmsearch::StageTimes::clock::now();
  // Every process reads every model and scans its shard of the query sequences against them.
  std::vector<cudp::hmmer::HmmModel> models = cudp::hmmer::read_hmm_file(o.hmm_file);
  // hmmscan fails on a model without the cutoffs of --cut_ga/nc/tc only once the model passes a sequence's bias
  // filter, its output half written; here every model is checked before anything is searched.
  hmmsearch::check_models(models, o.cut);
  const auto& alphabet = cudp::hmmer::plan7_alphabet_of(models.front().alphabet);
  t = times.add("read models", t);
  cudp::io::DatabasePart part;  // under mpirun, this process's shard of the query sequences
  const cudp::io::SequenceSet queries = hmmsearch::load_database(o.seq_file, alphabet, o.hmm_file, std::max(1, threads),
                                                                 world.rank(), world.size(), &part, "query sequences");
  times.add("read sequences", t);
  const hmmsearch::Searcher searcher =
      hmmsearch::start_searcher(o.backend, queries, threads, cuda_started, hmmsearch::GpuUse::kShareWork);
  if (!tool.errors.all_well()) return 1;  // a process could not load its shard or start its backend
  t = hmmsearch::StageTimes::clock::now();
  hmmsearch::RunOutputs outputs = gather_queries(world, scan_queries(p, models, searcher, part.first));
  if (!world.root()) return 0;
  frame(p, searcher.description, outputs);
  t = times.add("all models (the stages above)", t);
  hmmsearch::write_run_outputs(o, outputs);
  times.add("write outputs", t);
  times.print("cudp-hmmscan");
  if (times.enabled() && searcher.device)
    std::fprintf(stderr, "cudp-hmmscan: of which in filter kernels %9.4f s\n", searcher.device->kernel_seconds());
  return 0;
}

}  // namespace hmmscan
