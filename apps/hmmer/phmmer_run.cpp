// cudp-phmmer's run (tools.hpp): each query sequence made into a profile as phmmer makes it
// (cudp/hmmer/single_sequence_model.hpp), then searched with cudp-hmmsearch's pipeline, backends and outputs; what
// differs from hmmsearch's outputs is phmmer's (phmmer_options.hpp). --connect runs it in cudp-hmmsearch's daemon.
#include <algorithm>
#include <cstdio>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include <cudp/hmmer/single_sequence_model.hpp>
#include <cudp/io/error.hpp>
#include <cudp/io/fasta.hpp>

#include "daemon_protocol.hpp"
#include "database.hpp"
#include "host_filters.hpp"
#include "queries.hpp"
#include "run.hpp"
#include "tools.hpp"

namespace phmmer {

namespace {

// The model builder's calibration on the run's host threads, its MSV and Viterbi filters those of the host search in
// the CPU's widest vectors where the program has them (host_filters_vector.cpp): the same answers as the library's
// SSE2 words, in fewer instructions. The calibration's sequences of one filter are consecutive.
cudp::hmmer::SingleSequenceOptions builder_options(const cudp::hmmer::SingleSequenceOptions& model, int threads) {
  cudp::hmmer::SingleSequenceOptions o = model;
  o.threads = std::max(1, threads);
#if defined(CUDP_HAS_HOST_VECTOR) && CUDP_HAS_SSE_LANES
  using Ids = std::vector<std::uint32_t>;
  const auto part = [](const cudp::engine::SequencesView& db, const Ids& ids) {
    return cudp::engine::SequencesView{db.residues, db.offsets + ids.front(), ids.size()};
  };
  o.filters.msv = [part](const cudp::hmmer::MsvFilterProfile& p, const cudp::engine::SequencesView& db, const Ids& ids,
                         int t) -> std::optional<std::vector<cudp::hmmer::FilterResult>> {
    if (ids.empty() || ids.back() - ids.front() + 1 != ids.size()) return std::nullopt;
    hmmsearch::HostFilters filters(part(db, ids), t);
    return hmmsearch::vector_msv(filters, p);
  };
  o.filters.viterbi = [part](const cudp::hmmer::ViterbiFilterProfile& p, const cudp::engine::SequencesView& db,
                             const Ids& ids, int t) -> std::optional<std::vector<cudp::hmmer::FilterResult>> {
    if (ids.empty() || ids.back() - ids.front() + 1 != ids.size()) return std::nullopt;
    hmmsearch::HostFilters filters(part(db, ids), t);
    Ids local(ids.size());
    for (std::uint32_t n = 0; n < local.size(); ++n) local[n] = n;
    return hmmsearch::vector_viterbi(filters, p, local);
  };
#endif
  return o;
}

}  // namespace

int run(const Options& p, const cudp::apps::ToolContext& tool, int argc, const char* const* argv) {
  const cudp::apps::MpiWorld& world = tool.world;
  const hmmsearch::Options& o = p.search;
  if (world.size() > 1 && o.connect) throw hmmsearch::UsageError("--connect runs as one process, not under mpirun");
  // mpirun hands standard input to the first process alone.
  if (world.size() > 1 && (o.hmm_file == "-" || o.seq_file == "-"))
    throw hmmsearch::UsageError("under mpirun <seqfile> and <seqdb> are files, not standard input ('-')");
  if (o.connect) {
    // The daemon parses the same command line; only the query file's text travels with it.
    hmmsearch::check_outputs_writable(o);
    const std::vector<std::string> words(argv + 1, argv + argc);
    return hmmsearch::run_in_daemon("cudp-phmmer", "phmmer", o, *o.connect, hmmsearch::current_dir(),
                                    hmmsearch::read_input_text(o.hmm_file, "query sequences"), words);
  }
  const bool progress = cudp::apps::show_progress(world);
  const int threads = hmmsearch::host_threads(o);
  std::future<std::vector<int>> cuda_started =
      hmmsearch::start_cuda_unless_host(o.backend, o.gpus, world.rank_on_node(), world.size());
  if (world.root()) hmmsearch::check_outputs_writable(o);  // the first process writes them, on its file system
  // Either input may be standard input, as in phmmer; both cannot. Unlike phmmer, several queries may come with
  // the database on standard input: it is read whole before the search.
  if (o.hmm_file == "-" && o.seq_file == "-")
    throw hmmsearch::UsageError("<seqfile> and <seqdb> cannot both be standard input ('-')");
  const std::string query_text = hmmsearch::read_input_text(o.hmm_file, "query sequences");
  // Every process builds every query's model (they are small); each searches its shard of the database.
  const std::vector<cudp::hmmer::HmmModel> models =
      build_query_models(query_text, o.hmm_file == "-" ? std::string("standard input") : o.hmm_file,
                         builder_options(p.model, threads));

  cudp::io::DatabasePart part;  // under mpirun, this process's shard of the database
  const cudp::io::SequenceSet db = hmmsearch::load_database(o.seq_file, cudp::hmmer::plan7_amino(), o.hmm_file,
                                                            std::max(1, threads), world.rank(), world.size(), &part);
  hmmsearch::Searcher searcher = hmmsearch::start_searcher(o.backend, db, threads, cuda_started);
  searcher.world = &world;
  searcher.first = part.first;
  if (!tool.errors.all_well()) return 1;  // a process could not load its shard or start its backend
  hmmsearch::RunOutputs outputs = hmmsearch::search_models(o, models, searcher, hmmsearch::current_dir(), progress);
  if (!world.root()) return 0;
  to_phmmer_outputs(p, models, searcher.description, outputs);
  hmmsearch::write_run_outputs(o, outputs);
  return 0;
}

}  // namespace phmmer
