// One run's search and outputs (run.hpp).
#include "run.hpp"

#include <unistd.h>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <cudp/hmmer/null_model.hpp>
#include <cudp/hmmer/plan7_pipeline.hpp>
#include <cudp/hmmer/plan7_profile.hpp>
#include <cudp/engine/sequences.hpp>
#include <cudp/io/error.hpp>
#include <cudp/io/output_files.hpp>
#include <cudp/io/shards.hpp>
#include <cudp/host/host_cores.hpp>
#include <cudp/host/parallel_for.hpp>

#include "hit_transfer.hpp"
#include "kit/gpu_choice.hpp"
#include "report.hpp"
#include "search.hpp"
#include "stage_times.hpp"

#ifndef CUDP_VERSION
#define CUDP_VERSION "unknown"
#endif

namespace hmmsearch {
namespace {

struct CpuTimes {
  double user = 0, system = 0;
};

CpuTimes cpu_times() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return {static_cast<double>(usage.ru_utime.tv_sec) + 1e-6 * static_cast<double>(usage.ru_utime.tv_usec),
          static_cast<double>(usage.ru_stime.tv_sec) + 1e-6 * static_cast<double>(usage.ru_stime.tv_usec)};
}

const std::optional<cudp::hmmer::HmmCutoff>& cutoff_of(const cudp::hmmer::HmmModel& m, const std::string& kind) {
  return kind == "GA" ? m.gathering : kind == "NC" ? m.noise : m.trusted;
}

Hit to_report_hit(cudp::hmmer::Plan7SequenceHit&& h, const cudp::io::SequenceSet& db) {
  Hit r;
  static_cast<cudp::hmmer::Plan7SequenceHit&>(r) = std::move(h);
  r.name = db.names[r.target];
  r.description = db.descriptions[r.target];
  r.length = db.length(r.target);
  return r;
}

// The searcher's database split across `devices`, a part of about equal residues each, copied side by side; the
// host workers shared out.
void start_parts(Searcher& searcher, const std::vector<int>& devices) {
  const int n = static_cast<int>(devices.size());
  searcher.parts.resize(devices.size());
  cudp::host::each_on_own_thread(devices.size(), [&](std::size_t p) {
    GpuPart& part = searcher.parts[p];
    const auto [first, last] = cudp::io::shard_bounds(searcher.db.offsets, static_cast<int>(p), n);
    part.first = first;
    part.db = cudp::io::copy_sequences(searcher.db, first, last);
    part.threads = searcher.threads / n + (static_cast<int>(p) < searcher.threads % n ? 1 : 0);
  });
}

// Every part's filters on its GPU, uploaded side by side.
void upload_parts(Searcher& searcher, const std::vector<int>& devices) {
  cudp::host::each_on_own_thread(devices.size(), [&](std::size_t p) {
    searcher.parts[p].device = std::make_unique<DeviceFilters>(cudp::engine::view_of(searcher.parts[p].db), devices[p]);
  });
}

// A database streamed through the GPU goes through it once for the MSV filter of a group of models, not once per
// model (the later filters read only the few targets that pass it): the group's MSV results, [GPU part][model].
// Each model's results are those of the targets that may pass its MSV filter (FilterSurvivors), 12 bytes each,
// all of them under --max; a group holds at most 1 GiB of them, and 16 models.
using MsvPass = std::vector<std::vector<cudp::hmmer::FilterSurvivors>>;

MsvPass msv_pass(const Searcher& searcher, const std::vector<MsvRequest>& requests);

// Whether the database is on the GPU(s), and whole there (a streamed one has one pass in flight at a time).
bool on_gpu(const Searcher& searcher) { return searcher.device != nullptr || !searcher.parts.empty(); }
bool streamed(const Searcher& searcher) {
  if (searcher.device) return searcher.device->streamed();
  return std::any_of(searcher.parts.begin(), searcher.parts.end(),
                     [](const GpuPart& part) { return part.device->streamed(); });
}

std::size_t models_per_pass(const Searcher& searcher) {
  if (!streamed(searcher)) return 1;
  std::size_t most_targets = searcher.device ? searcher.db.size() : 0;
  for (const GpuPart& part : searcher.parts) most_targets = std::max(most_targets, part.db.size());
  const std::size_t bytes =
      std::max<std::size_t>(1, most_targets * (sizeof(cudp::hmmer::FilterResult) + sizeof(std::uint32_t)));
  return std::clamp<std::size_t>((std::size_t{1} << 30) / bytes, 1, 16);
}

MsvRequest msv_request(const cudp::hmmer::Plan7Pipeline& pipeline) {
  return {&pipeline.msv_profile(), pipeline.msv_test()};
}

MsvPass msv_pass(const Searcher& searcher,
                 const std::vector<std::shared_ptr<const cudp::hmmer::Plan7Pipeline>>& group) {
  std::vector<MsvRequest> requests;
  for (const auto& pipeline : group) requests.push_back(msv_request(*pipeline));
  return msv_pass(searcher, requests);
}
MsvPass msv_pass(const Searcher& searcher, const std::vector<MsvRequest>& requests) {
  MsvPass pass(std::max<std::size_t>(1, searcher.parts.size()));
  if (searcher.parts.empty()) {
    pass[0] = searcher.device->msv(requests);
    return pass;
  }
  cudp::host::each_on_own_thread(searcher.parts.size(), [&](std::size_t p) { pass[p] = searcher.parts[p].device->msv(requests); });
  return pass;
}

// Hits with their place in the whole database (under mpirun, past the shards before this process's), and the
// counts of every part, from the outcomes of the searcher's GPU parts (or of its one device or host search).
std::vector<Hit> merge_outcomes(const Searcher& searcher, std::vector<SearchOutcome>& outcomes,
                                cudp::hmmer::Plan7PipelineCounts& counts) {
  std::vector<Hit> hits;
  counts = {};
  for (std::size_t p = 0; p < outcomes.size(); ++p) {
    const cudp::io::SequenceSet& db = searcher.parts.empty() ? searcher.db : searcher.parts[p].db;
    const std::size_t first = searcher.parts.empty() ? 0 : searcher.parts[p].first;
    for (auto& h : outcomes[p].hits) {
      hits.push_back(to_report_hit(std::move(h), db));
      hits.back().target += searcher.first + first;  // the place in the whole database orders ties, as in one process
    }
    counts.merge(outcomes[p].counts);
  }
  return hits;
}

// One model against the searcher's database: on the host, on its GPU, or on every GPU's part side by side, with
// its MSV results from `pass` (model `slot` of its group) when given; `counts` are this process's.
std::vector<Hit> search_database(const cudp::hmmer::Plan7Pipeline& pipeline, const Searcher& searcher,
                                 std::atomic<std::uint64_t>* progress, cudp::hmmer::Plan7PipelineCounts& counts,
                                 const MsvPass* pass, std::size_t slot) {
  const auto msv_of = [&](std::size_t part) { return pass != nullptr ? &(*pass)[part][slot] : nullptr; };
  std::vector<SearchOutcome> outcomes(std::max<std::size_t>(1, searcher.parts.size()));
  if (searcher.parts.empty()) {
    outcomes[0] = searcher.device ? search_with_device(pipeline, searcher.db, *searcher.device, searcher.threads,
                                                       progress, false, msv_of(0))
                                  : search_on_host(pipeline, searcher.db, searcher.threads, progress);
  } else {
    cudp::host::each_on_own_thread(searcher.parts.size(), [&](std::size_t p) {
      const GpuPart& part = searcher.parts[p];
      outcomes[p] = search_with_device(pipeline, part.db, *part.device, part.threads, progress, false, msv_of(p));
    });
  }
  return merge_outcomes(searcher, outcomes, counts);
}

// search_database on the GPU(s) in two halves (search.hpp): the filters of every part, then the later stages.
std::vector<FilteredSearchPtr> filter_database(const cudp::hmmer::Plan7Pipeline& pipeline, const Searcher& searcher,
                                               std::atomic<std::uint64_t>* progress, const MsvPass& pass) {
  std::vector<FilteredSearchPtr> filtered(std::max<std::size_t>(1, searcher.parts.size()));
  if (searcher.parts.empty()) {
    filtered[0] = filter_with_device(pipeline, searcher.db, *searcher.device, searcher.threads, progress, &pass[0][0]);
  } else {
    cudp::host::each_on_own_thread(searcher.parts.size(), [&](std::size_t p) {
      const GpuPart& part = searcher.parts[p];
      filtered[p] = filter_with_device(pipeline, part.db, *part.device, part.threads, progress, &pass[p][0]);
    });
  }
  return filtered;
}
std::vector<Hit> finish_database(const cudp::hmmer::Plan7Pipeline& pipeline, const Searcher& searcher,
                                 std::vector<FilteredSearchPtr>& filtered, cudp::hmmer::Plan7PipelineCounts& counts) {
  std::vector<SearchOutcome> outcomes(filtered.size());
  if (searcher.parts.empty()) {
    outcomes[0] = finish_with_device(pipeline, searcher.db, *searcher.device, *filtered[0]);
  } else {
    cudp::host::each_on_own_thread(searcher.parts.size(), [&](std::size_t p) {
      const GpuPart& part = searcher.parts[p];
      outcomes[p] = finish_with_device(pipeline, part.db, *part.device, *filtered[p]);
    });
  }
  filtered.clear();
  return merge_outcomes(searcher, outcomes, counts);
}

// A line on standard error, redrawn four times a second while a model is searched: only when it is a terminal.
class Progress {
 public:
  Progress(bool enabled, std::size_t models, std::size_t targets)
      : enabled_(enabled), models_(models), targets_(targets) {}
  ~Progress() { stop(); }

  void start(std::size_t model, const std::string& name) {
    if (!enabled_) return;
    stop();
    done = 0;
    model_ = model;
    name_ = name;
    running_ = true;
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      do draw();
      while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return !running_; }));
    });
  }
  void stop() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      running_ = false;
    }
    wake_.notify_all();
    thread_.join();
    draw();
  }
  void finish() {
    stop();
    if (enabled_) std::fprintf(stderr, "\n");
  }

  std::atomic<std::uint64_t> done{0};

 private:
  void draw() {
    std::fprintf(stderr, "\rcudp-hmmsearch: model %zu/%zu %-24.24s %llu/%zu targets", model_ + 1, models_,
                 name_.c_str(), static_cast<unsigned long long>(done.load()), targets_);
  }

  bool enabled_;
  std::size_t models_, targets_, model_ = 0;
  std::string name_;
  bool running_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace

std::string now_ctime() {
  const std::time_t t = std::time(nullptr);
  char buf[64];
  return ctime_r(&t, buf) != nullptr ? std::string(buf) : std::string("[unknown]\n");
}

std::string current_dir() {
  std::vector<char> buf(4096);
  return getcwd(buf.data(), buf.size()) != nullptr ? std::string(buf.data()) : std::string();
}

// Every model must be calibrated (STATS lines give the E-values), share the first model's alphabet, and have the
// cutoffs that --cut_ga/nc/tc ask for.
void check_models(const std::vector<cudp::hmmer::HmmModel>& models, const std::string& cut) {
  using cudp::io::format_error;
  for (const auto& m : models) {
    if (!m.stats) {
      throw cudp::io::InputError(format_error(m.source, m.line,
                                              "model '" + m.name + "' has no STATS LOCAL lines (E-values need them; "
                                              "build the model with hmmbuild, which calibrates it)"));
    }
    if (m.alphabet != models.front().alphabet) {
      throw cudp::io::InputError(format_error(
          m.source, m.line,
          "model '" + m.name + "' is " + cudp::hmmer::alphabet_name(m.alphabet) + " but the first model ('" +
              models.front().name + "') is " + cudp::hmmer::alphabet_name(models.front().alphabet) +
              "; all models of a file must share one alphabet"));
    }
    if (!cut.empty() && !cutoff_of(m, cut)) {
      throw cudp::io::InputError(format_error(m.source, m.line,
                                              "model '" + m.name + "' has no " + cut + " line: " + cut +
                                                  " bit thresholds unavailable for --cut_" + lower(cut)));
    }
  }
}

int host_threads(const Options& o) {
  return o.cpu ? *o.cpu : cudp::host::usable_cores();
}

std::future<std::vector<int>> start_cuda_unless_host(const std::string& backend, int gpus, int process_on_node,
                                                     int processes) {
  if (backend == "host") return {};
  return std::async(std::launch::async, start_cuda, gpus, process_on_node, processes);
}

void check_outputs_writable(const Options& o) {
  cudp::io::check_writable(o.output);
  cudp::io::check_writable(o.alignment_file);
  cudp::io::check_writable(o.tblout);
  cudp::io::check_writable(o.domtblout);
  cudp::io::check_writable(o.pfamtblout);
}

Searcher start_searcher(const std::string& backend, const cudp::io::SequenceSet& db, int threads,
                        std::future<std::vector<int>>& cuda_started, GpuUse use) {
  StageTimes& times = StageTimes::global();
  auto t = StageTimes::clock::now();
  const std::vector<int> devices = cuda_started.valid() ? cuda_started.get() : std::vector<int>{};
  t = times.add("wait for CUDA", t);
  const bool cuda_ready = !devices.empty();
  bool use_cuda = backend == "cuda" || (backend == "auto" && cuda_ready);
  if (use_cuda && !cuda_ready)
    throw std::runtime_error("--backend cuda: no CUDA device found (or this build has no CUDA backend)");
  if (backend == "auto" && !cuda_ready) cudp::apps::note_host_fallback();
  Searcher searcher{db, nullptr, threads, {}, {}};
  const int workers = std::max(1, threads);
  std::string no_room;
  if (use_cuda && devices.size() > 1 && use == GpuUse::kSplitDatabase) {
    start_parts(searcher, devices);
    for (std::size_t p = 0; p < devices.size() && no_room.empty(); ++p)
      if (!device_fits(cudp::engine::view_of(searcher.parts[p].db), no_room, devices[p]))
        no_room = "GPU " + std::to_string(devices[p]) + ": " + no_room;
  } else if (use_cuda) {
    for (std::size_t g = 0; g < devices.size() && no_room.empty(); ++g)
      if (!device_fits(cudp::engine::view_of(db), no_room, devices[g]) && devices.size() > 1)
        no_room = "GPU " + std::to_string(devices[g]) + ": " + no_room;
  }
  if (use_cuda && !no_room.empty()) {
    if (backend == "cuda") throw std::runtime_error("--backend cuda: " + no_room);
    cudp::apps::note(no_room + ": searching on the host");
    use_cuda = false;
    searcher.parts.clear();
  }
  const std::string host_threads = std::to_string(workers) + (workers > 1 ? " host threads" : " host thread");
  if (use_cuda && !searcher.parts.empty()) {
    upload_parts(searcher, devices);
    searcher.description = "CUDA filters on " + std::to_string(devices.size()) + " x " +
                           searcher.parts.front().device->device_name() +
                           (streamed(searcher) ? " (database streamed in batches)" : "") + ", " + host_threads;
  } else if (use_cuda) {
    searcher.device = std::make_unique<DeviceFilters>(cudp::engine::view_of(db), devices.front());
    if (devices.size() > 1) searcher.gpus = devices;
    searcher.description = "CUDA filters on " +
                           (devices.size() > 1 ? std::to_string(devices.size()) + " x " : std::string()) +
                           searcher.device->device_name() +
                           (streamed(searcher) ? " (database streamed in batches)" : "") + ", " + host_threads;
  } else {
    searcher.description = "host, " + std::to_string(workers) + (workers > 1 ? " threads" : " thread");
  }
  times.add("start backend", t);
  return searcher;
}

QueryReport displayed_report(const Options& o) {
  QueryReport report;
  report.text_width = o.notextw ? 0 : o.textw ? *o.textw : kTextWidth;
  report.show_accessions = o.acc;
  report.show_alignments = !o.noali;
  return report;
}

HeaderSettings header_settings(const Options& o, const std::string& backend) {
  HeaderSettings header;
  header.version_line = std::string("cudp ") + CUDP_VERSION +
                        "; pipeline, scores and formats of HMMER 3.3.2 (Nov 2020); http://hmmer.org/";
  header.hmm_file = o.hmm_file;
  header.seq_file = o.seq_file;
  header.output = o.output;
  header.alignment_file = o.alignment_file;
  header.tblout = o.tblout;
  header.domtblout = o.domtblout;
  header.pfamtblout = o.pfamtblout;
  header.acc = o.acc;
  header.noali = o.noali;
  header.notextw = o.notextw;
  header.textw = o.textw;
  header.E = o.E;
  header.T = o.T;
  header.domE = o.domE;
  header.domT = o.domT;
  header.incE = o.incE;
  header.incT = o.incT;
  header.incdomE = o.incdomE;
  header.incdomT = o.incdomT;
  header.cut = o.cut;
  header.max = o.max;
  header.F1 = o.F1;
  header.F2 = o.F2;
  header.F3 = o.F3;
  header.nobias = o.nobias;
  header.nonull2 = o.nonull2;
  header.Z = o.Z;
  header.domZ = o.domZ;
  header.seed = o.seed;
  header.tformat = o.tformat;
  header.cpu = o.cpu;
  header.backend = backend;
  return header;
}

cudp::hmmer::Plan7PipelineOptions plan7_pipeline_options(const Options& o) {
  cudp::hmmer::Plan7PipelineOptions pipeline;
  if (o.F1) pipeline.F1 = *o.F1;
  if (o.F2) pipeline.F2 = *o.F2;
  if (o.F3) pipeline.F3 = *o.F3;
  pipeline.bias_filter = !o.nobias;
  pipeline.null2 = !o.nonull2;
  pipeline.max = o.max;
  if (o.seed) pipeline.seed = *o.seed;
  // Alignment displays cost a traceback copy per domain: only for output that shows them.
  pipeline.alignments = !o.noali || o.alignment_file.has_value();
  return pipeline;
}

namespace {

// A model's search, whose later stages may still run; under mpirun an error stops every process at the model's
// report, otherwise it is rethrown there.
struct Searched {
  std::size_t m = 0;
  std::shared_ptr<const cudp::hmmer::Plan7Pipeline> pipeline;
  std::vector<Hit> candidates;
  cudp::hmmer::Plan7PipelineCounts counts;
  std::exception_ptr failure;
  std::future<void> later;  // the later stages, when they run beside the next model's filters
};

// A search's later stages, waited for; what they threw becomes the search's failure.
void wait_for_later_stages(Searched& searched) {
  if (!searched.later.valid()) return;
  try {
    searched.later.get();
  } catch (...) {
    searched.failure = std::current_exception();
  }
}

// A model's failure rethrown, or under mpirun every process's hits and counts on the first (false on the others,
// which report nothing); a failure in any process stops them all there.
bool gather_model_results(const cudp::apps::MpiWorld& world, Searched& searched) {
  if (world.size() == 1) {
    if (searched.failure) std::rethrow_exception(searched.failure);
    return true;
  }
  std::string error;
  if (searched.failure) {
    try {
      std::rethrow_exception(searched.failure);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  std::vector<std::string> failures;
  if (!world.all_well(error, failures)) throw cudp::apps::ProcessesFailed(failures);
  std::string mine;
  put_results(mine, searched.candidates, searched.counts);
  const std::vector<std::string> parts = world.gather(mine);
  if (!world.root()) return false;
  searched.candidates.clear();
  searched.counts = {};
  for (const std::string& part : parts) get_results(part, searched.candidates, searched.counts);
  return true;
}

// A model's report as far as the model, the options and the pipeline's counts say (not its hits or times).
QueryReport model_report(const Options& o, const cudp::hmmer::HmmModel& model,
                         const cudp::hmmer::Plan7PipelineOptions& pipeline, const cudp::hmmer::Plan7PipelineCounts& counts) {
  QueryReport report = displayed_report(o);
  report.name = model.name;
  report.accession = model.accession;
  report.description = model.description;
  report.M = model.length;
  report.reference = model.reference;
  report.structure = model.consensus_structure;
  report.F1 = pipeline.F1;
  report.F2 = pipeline.F2;
  report.F3 = pipeline.F3;
  report.counts.models = 1;
  report.counts.nodes = static_cast<std::uint64_t>(model.length);
  report.counts.targets = counts.targets;
  report.counts.residues = counts.residues;
  report.counts.passed_msv = counts.passed_msv;
  report.counts.passed_bias = counts.passed_bias;
  report.counts.passed_viterbi = counts.passed_viterbi;
  report.counts.passed_forward = counts.passed_forward;
  return report;
}

// A model's sections of every output; `first`: the run's first model, whose tables get the column headers.
void write_model_outputs(const Options& o, const QueryReport& report, bool first, bool inc_by_E, RunOutputs& out) {
  write_query(out.text, report);
  if (o.alignment_file) {
    // hmmsearch writes Pfam format (one block) with --notextw.
    const int n = write_stockholm(out.alignment, report, o.notextw,
                                  std::string("cudp-hmmsearch (cudp ") + CUDP_VERSION + "; HMMER 3.3.2 formats)");
    write_alignment_note(out.text, n, *o.alignment_file);
  }
  if (o.tblout) write_tblout(out.tbl, report, first);
  if (o.domtblout) write_domtblout(out.domtbl, report, first);
  if (o.pfamtblout) write_pfamtblout(out.pfamtbl, report, inc_by_E);
}

// The tables' trailers: program, files, command line, directory and date, as hmmsearch writes them.
void write_tabular_tails(const Options& o, const std::string& current_dir, RunOutputs& out) {
  TabularTail tail;
  tail.program = "cudp-hmmsearch";
  tail.version = std::string(CUDP_VERSION) + " (cudp; HMMER 3.3.2 formats)";
  tail.hmm_file = o.hmm_file;
  tail.seq_file = o.seq_file;
  tail.command_line = "cudp-hmmsearch ";
  for (const auto& word : o.given) tail.command_line += word + " ";
  tail.command_line += o.hmm_file + " " + o.seq_file + " ";
  tail.current_dir = current_dir;
  tail.date = now_ctime();
  if (o.tblout) write_tabular_tail(out.tbl, tail);
  if (o.domtblout) write_tabular_tail(out.domtbl, tail);
  if (o.pfamtblout) write_tabular_tail(out.pfamtbl, tail);
}

}  // namespace

RunOutputs search_models(const Options& o, const std::vector<cudp::hmmer::HmmModel>& models, const Searcher& searcher,
                         const std::string& current_dir, bool progress) {
  using clock = std::chrono::steady_clock;
  StageTimes& times = StageTimes::global();
  auto t = StageTimes::clock::now();
  const cudp::io::SequenceSet& db = searcher.db;
  const cudp::apps::MpiWorld one_process;
  const cudp::apps::MpiWorld& world = searcher.world != nullptr ? *searcher.world : one_process;
  const Thresholds thresholds = o.thresholds();
  const cudp::hmmer::NullModel null_model =
      cudp::hmmer::default_null_model(cudp::hmmer::plan7_alphabet_of(models.front().alphabet));

  const HeaderSettings header = header_settings(o, searcher.description);

  RunOutputs out;
  write_header(out.text, header);

  const cudp::hmmer::Plan7PipelineOptions pipeline_options = plan7_pipeline_options(o);

  Progress display(progress, models.size(), db.size());
  // Models go in groups that share a pass of a streamed database (one model a group when it is resident); the
  // first model of a group carries the pass in its times.
  const std::size_t group_size = models_per_pass(searcher);
  std::vector<std::shared_ptr<const cudp::hmmer::Plan7Pipeline>> group;
  MsvPass pass;
  // With the database resident on the GPU(s), the next model's MSV filter runs while this model's later stages do
  // (other filters, mostly the host's work), so that every model but the first starts with its MSV results; and a
  // model's later stages (Forward, domains: host workers, the GPU's parsers and envelopes) run while the next
  // model's bias and Viterbi filters do, so that neither half waits for the other on several GPUs, whose MSV
  // kernels are short.
  const bool msv_ahead = on_gpu(searcher) && !streamed(searcher) && models.size() > 1;
  std::shared_ptr<const cudp::hmmer::Plan7Pipeline> next_pipeline;  // outlives next_pass, which reads it
  std::future<MsvPass> next_pass;

  // Each model's times run from the previous model's report to its own: with models overlapping, their sum is
  // the run's.
  auto reported_at = clock::now();
  CpuTimes cpu_reported = cpu_times();
  const auto report_model = [&](Searched& searched) {
    wait_for_later_stages(searched);
    if (!gather_model_results(world, searched)) return;  // the first process reports
    t = StageTimes::clock::now();
    const auto& model = models[searched.m];
    Thresholds model_thresholds = thresholds;
    if (!o.cut.empty()) {
      const cudp::hmmer::HmmCutoff& c = *cutoff_of(model, o.cut);
      model_thresholds = model_cutoff_thresholds(thresholds, c.sequence, c.domain);
    }
    QueryReport report = model_report(o, model, searched.pipeline->options(), searched.counts);
    report.hits = rank_hits(std::move(searched.candidates), model_thresholds);
    apply_thresholds(report, model_thresholds);

    const CpuTimes cpu = cpu_times();
    const auto now = clock::now();
    report.cpu_user = cpu.user - cpu_reported.user;
    report.cpu_system = cpu.system - cpu_reported.system;
    report.elapsed = std::chrono::duration<double>(now - reported_at).count();
    cpu_reported = cpu;
    reported_at = now;
    write_model_outputs(o, report, searched.m == 0, model_thresholds.inc_by_E, out);
    t = times.add("rank + format", t);
  };

  std::unique_ptr<Searched> previous;  // its later stages run beside this model's filters
  for (std::size_t m = 0; m < models.size(); ++m) {
    const auto& model = models[m];
    display.start(m, model.name);

    const std::size_t slot = m % group_size;
    if (slot == 0) {
      group.clear();
      pass.clear();
      if (next_pipeline) group.push_back(std::move(next_pipeline));
      for (std::size_t k = m + group.size(); k < std::min(models.size(), m + group_size); ++k)
        group.push_back(std::make_shared<const cudp::hmmer::Plan7Pipeline>(models[k], null_model, pipeline_options));
    }
    auto searched = std::make_unique<Searched>();
    searched->m = m;
    searched->pipeline = group[slot];
    const cudp::hmmer::Plan7Pipeline& pipeline = *group[slot];
    t = times.add("configure profiles", t);
    std::vector<FilteredSearchPtr> filtered;
    try {
      if (group.size() > 1 && slot == 0) {
        pass = msv_pass(searcher, group);
        t = times.add("msv filter, models at once", t);
      } else if (msv_ahead) {
        pass = next_pass.valid() ? next_pass.get() : msv_pass(searcher, group);
        t = times.add("msv filter, waited for", t);
        if (m + 1 < models.size()) {
          next_pipeline =
              std::make_shared<const cudp::hmmer::Plan7Pipeline>(models[m + 1], null_model, pipeline_options);
          next_pass = std::async(std::launch::async, [&searcher, request = msv_request(*next_pipeline)] {
            return msv_pass(searcher, std::vector<MsvRequest>{request});
          });
        }
      }
      if (msv_ahead)
        filtered = filter_database(pipeline, searcher, &display.done, pass);
      else
        searched->candidates = search_database(pipeline, searcher, &display.done, searched->counts,
                                               pass.empty() ? nullptr : &pass, slot);
    } catch (...) {
      searched->failure = std::current_exception();
    }
    display.stop();
    if (!msv_ahead) {
      report_model(*searched);
      continue;
    }
    // The previous model's later stages end before this model's start: they share the device's parsers.
    if (previous) wait_for_later_stages(*previous);
    if (!searched->failure) {
      Searched* s = searched.get();
      searched->later = std::async(std::launch::async, [s, &searcher, filtered = std::move(filtered)]() mutable {
        s->candidates = finish_database(*s->pipeline, searcher, filtered, s->counts);
      });
    }
    if (previous) report_model(*previous);
    if (searched->failure && world.size() == 1) std::rethrow_exception(searched->failure);
    previous = std::move(searched);
  }
  if (previous) report_model(*previous);
  display.finish();
  out.text += "[ok]\n";

  write_tabular_tails(o, current_dir, out);

  return out;
}

void write_run_outputs(const Options& o, const RunOutputs& out) {
  std::vector<std::pair<std::string, const std::string*>> files;
  if (o.output) files.emplace_back(*o.output, &out.text);
  if (o.alignment_file) files.emplace_back(*o.alignment_file, &out.alignment);
  if (o.tblout) files.emplace_back(*o.tblout, &out.tbl);
  if (o.domtblout) files.emplace_back(*o.domtblout, &out.domtbl);
  if (o.pfamtblout) files.emplace_back(*o.pfamtblout, &out.pfamtbl);
  // With every output on one stream, the main output comes first and the tables after it, as hmmsearch prints them.
  cudp::io::write_outputs(files, o.output ? nullptr : &out.text);
}

}  // namespace hmmsearch
