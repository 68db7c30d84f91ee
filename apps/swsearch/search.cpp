#include "search.hpp"

#include <algorithm>
#include <cstdio>
#include <future>
#include <numeric>
#include <stdexcept>

#include <cudp/align/linear_space.hpp>
#include <cudp/bio/alphabet.hpp>
#include <cudp/host/host_cores.hpp>
#include <cudp/host/parallel_for.hpp>
#include <cudp/io/output_files.hpp>

#include "kit/input_files.hpp"
#include "report.hpp"

namespace swsearch {

Inputs load_inputs(const Options& o, const cudp::apps::MpiWorld& world) {
  const auto& alphabet = cudp::bio::protein();
  Inputs in{cudp::io::load_matrix(o.matrix, alphabet), {}, {}, {}, {}, 1};
  in.threads = o.threads > 0 ? o.threads : cudp::host::usable_cores();
  // '-' is standard input, as ssearch36 and BLAST take it for the query; each input is opened and read once.
  // Under mpirun each process reads its shard of the database: a packed one reads that part of the file alone.
  const auto load = [&](const std::string& path, const cudp::io::DatabaseReadOptions& options) {
    const cudp::apps::InputFile input = cudp::apps::input_file(path);
    return cudp::io::load_sequences(input.path, alphabet, options, input.name);
  };
  in.queries = load(o.query, {});
  cudp::io::DatabaseReadOptions db_options{in.threads};
  db_options.shard = world.rank();
  db_options.shards = world.size();
  db_options.part = &in.part;
  in.db = load(o.db, db_options);
  in.ka = cudp::bio::gapped_parameters(in.matrix.name, o.gap_open, o.gap_extend);
  return in;
}

std::vector<cudp::apps::RankedRecord> hit_records(const Options& o, const Inputs& in, const ScoreTable& table) {
  const cudp::io::SequenceSet &queries = in.queries, &db = in.db;
  // The top hits of every query, highest score first (ties in database order, so the output is deterministic);
  // their alignments come from the linear-space aligner (a forward and a reverse pass for the ends, then the box
  // between), run for all hits on all cores.
  std::vector<std::vector<std::size_t>> best(queries.size());  // per query, on all cores
  cudp::host::parallel_for(
      queries.size(), in.threads, [] { return 0; },
      [&](int, std::size_t q) {
        const auto& scores = table[q];
        std::vector<std::size_t> order(db.size());
        std::iota(order.begin(), order.end(), 0);
        const std::size_t k = std::min<std::size_t>(o.top, order.size());
        std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](std::size_t a, std::size_t b) {
          return scores[a] != scores[b] ? scores[a] > scores[b] : a < b;
        });
        order.resize(k);
        best[q] = std::move(order);
      });
  std::vector<Hit> hits;
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (const std::size_t t : best[q]) hits.push_back({q, t, {}});
  const cudp::recurrences::GapCosts gaps{o.gap_open, o.gap_extend};
  cudp::align::LinearSpaceOptions one_thread;  // the hits are the parallel items
  one_thread.threads = 1;
  cudp::host::parallel_for(
      hits.size(), o.threads, [] { return 0; },
      [&](int, std::size_t h) {
        Hit& hit = hits[h];
        hit.alignment = cudp::align::align_linear_space(
            cudp::recurrences::AlignMode::Local, queries.data(hit.query), static_cast<int>(queries.length(hit.query)),
            db.data(hit.target), static_cast<int>(db.length(hit.target)), in.matrix, gaps, one_thread);
      });

  std::vector<cudp::apps::RankedRecord> records;
  for (const Hit& hit : hits) {
    const std::int32_t score = table[hit.query][hit.target];
    if (hit.alignment.score != score)
      throw std::logic_error("internal error: aligning target " + db.names[hit.target] + " gave " +
                             std::to_string(hit.alignment.score) + ", the search " + std::to_string(score));
    records.push_back({hit.query, score, in.part.first + hit.target, format_hit(o, in, hit)});
  }
  return records;
}

void write_report(const Options& o, const Inputs& in, const std::vector<cudp::apps::RankedRecord>& records,
                  const RunSummary& summary) {
  const std::string text = report_text(o, in, records, summary);
  if (o.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    cudp::io::write_outputs({{o.out, &text}});  // all or nothing; /dev/null and pipes are written in place
  }
}

int run(const Options& o, const cudp::apps::ToolContext& tool) {
  using clock = std::chrono::steady_clock;
  const cudp::apps::MpiWorld& world = tool.world;
  // mpirun hands standard input to the first process alone.
  if (world.size() > 1 && (o.query == "-" || o.db == "-"))
    cudp::apps::usage_error("under mpirun the query and the database are files, not standard input ('-')");
  if (world.root() && !o.out.empty()) cudp::io::check_writable(o.out);  // before the search, which may take hours
  const auto t0 = clock::now();
  // Starting CUDA (the driver, the device's context) takes a few tenths of a second: do it while the inputs are
  // read.
  std::future<std::vector<int>> cuda_started;
  if (o.backend != "host")
    cuda_started = std::async(std::launch::async, start_cuda, o.gpus, world.rank_on_node(), world.size());
  const Inputs in = load_inputs(o, world);
  const auto t_read = clock::now();

  const std::vector<int> devices = cuda_started.valid() ? cuda_started.get() : std::vector<int>{};
  // Under mpirun the processes start their search together, once every one has read its shard and started CUDA:
  // a search started early shares the machine with the others' reading and CUDA starts.
  if (world.size() > 1 && !tool.errors.checkpoint()) return 1;
  const auto t_gpus = clock::now();  // CUDA's start, past what the reading hid: a cost of the program, not the search
  const bool use_cuda = o.backend == "cuda" || (o.backend == "auto" && !devices.empty());
  if (o.backend == "cuda" && devices.empty()) throw std::runtime_error("--backend cuda: no CUDA device found");
  if (o.backend == "auto" && devices.empty()) cudp::apps::note_host_fallback();
  cudp::ScoreStats stats;
  const ScoreTable table = score_all(cudp::engine::view_of(in.queries), cudp::engine::view_of(in.db), in.matrix,
                                     {o.gap_open, o.gap_extend}, use_cuda ? cudp::Backend::Device : cudp::Backend::Host,
                                     in.threads, stats, cudp::apps::show_progress(world), devices);
  const auto t_score = clock::now();
  std::vector<cudp::apps::RankedRecord> records = hit_records(o, in, table);

  // Every process got this far, or all stop here; then the first merges the hits and writes the outputs.
  if (!tool.errors.all_well()) return 1;
  records = cudp::apps::merge_ranked(world, std::move(records), static_cast<std::size_t>(o.top));
  RunSummary summary;
  summary.where = stats.where;
  summary.processes = world.size();
  summary.narrow_bits = stats.narrow_bits;
  summary.cuda = use_cuda;
  summary.cells = world.sum(stats.cascade.cells);
  summary.rescored_pairs = world.sum(stats.cascade.rescored_overflow);
  // Under mpirun the search takes as long as its slowest process.
  const auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  summary.score_seconds = world.max(secs(t_gpus, t_score));
  summary.start_seconds = world.max(secs(t_read, t_gpus));
  summary.setup_seconds = world.max(stats.setup_seconds);
  summary.prepare_seconds = world.max(stats.setup_phases.prepare);
  summary.sort_seconds = world.max(stats.setup_phases.sort);
  summary.pack_seconds = world.max(stats.setup_phases.pack);
  summary.upload_seconds = world.max(stats.setup_phases.upload);
  summary.kernel_seconds = world.max(stats.kernel_seconds);
  if (!world.root()) return 0;
  summary.read_seconds = secs(t0, t_read);
  summary.report_seconds = secs(t_score, clock::now());
  write_report(o, in, records, summary);
  return 0;
}

}  // namespace swsearch
