// cudp-phmmer: HMMER 3.3.2 phmmer on cudp: each protein sequence of <seqfile> made into a profile HMM as phmmer makes
// it (cudp/hmmer/single_sequence_model.hpp), then searched against <seqdb> with cudp-hmmsearch's pipeline, backends
// and output formats; what differs from hmmsearch's outputs (the header, "Query: name [L=n]", the program's name) is
// phmmer's.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cudp/hmmer/single_sequence_model.hpp>
#include <cudp/io/error.hpp>
#include <cudp/io/fasta.hpp>
#include <exception>
#include <future>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "../hmmsearch/database.hpp"
#include "../hmmsearch/options.hpp"
#include "../hmmsearch/run.hpp"
#include "phmmer_options.hpp"

namespace {

std::string current_dir() {
  std::vector<char> buf(4096);
  return getcwd(buf.data(), buf.size()) != nullptr ? std::string(buf.data()) : std::string();
}

struct Query {
  std::string name, description;
  std::vector<std::uint8_t> codes;
};

std::vector<Query> read_queries(const std::string& path) {
  const cudp::hmmer::Plan7Alphabet& alphabet = cudp::hmmer::plan7_amino();
  const cudp::io::SequenceSet set =
      cudp::io::read_fasta(path, alphabet.sequence_alphabet, cudp::io::FastaHeaders::easel);
  std::vector<Query> queries;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (set.length(i) == 0) throw cudp::io::InputError(path + ": query '" + set.names[i] + "' has no residues");
    queries.push_back({set.names[i], set.descriptions[i], {set.data(i), set.data(i) + set.length(i)}});
  }
  if (queries.empty()) throw cudp::io::InputError(path + ": no query sequence found");
  return queries;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto parsed = phmmer::parse_options(argc, argv);
    if (!parsed) {
      std::fputs(phmmer::usage_text(), stdout);
      return 0;
    }
    const phmmer::Options& p = *parsed;
    const hmmsearch::Options& o = p.search;
    const bool progress = isatty(STDERR_FILENO) != 0;
    const int threads = hmmsearch::host_threads(o);
    std::future<bool> cuda_started = hmmsearch::start_cuda_unless_host(o.backend);
    hmmsearch::check_outputs_writable(o);
    if (o.hmm_file == "-" || o.seq_file == "-")
      throw hmmsearch::UsageError("cudp-phmmer reads <seqfile> and <seqdb> from files, not standard input");

    // The queries' models, all built before the search: the same builder (and generator) for every query, as
    // phmmer's, reseeded before each calibration.
    const std::vector<Query> queries = read_queries(o.hmm_file);
    cudp::hmmer::SingleSequenceBuilder builder(p.model);
    std::vector<cudp::hmmer::HmmModel> models;
    models.reserve(queries.size());
    for (const Query& q : queries) {
      cudp::hmmer::HmmModel m = builder.build(q.name, q.codes.data(), q.codes.size());
      m.description = q.description;
      m.source = o.hmm_file;
      models.push_back(std::move(m));
    }

    const cudp::io::SequenceSet db =
        hmmsearch::load_database(o.seq_file, cudp::hmmer::plan7_amino(), o.hmm_file, std::max(1, threads));
    const hmmsearch::Searcher searcher = hmmsearch::start_searcher(o.backend, db, threads, cuda_started);
    hmmsearch::RunOutputs outputs = hmmsearch::search_models(o, models, searcher, current_dir(), progress);
    phmmer::to_phmmer_outputs(p, models, searcher.description, outputs);
    hmmsearch::write_run_outputs(o, outputs);
    return 0;
  } catch (const hmmsearch::UsageError& e) {
    std::fprintf(stderr, "cudp-phmmer: %s (see --help)\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudp-phmmer: %s\n", e.what());
    return 1;
  }
}
