// The resident-database daemon of cudp-hmmsearch and its clients (daemon.hpp).
#include "daemon.hpp"

#include <algorithm>
#include <cstdio>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cudp/hmmer/hmm_file.hpp>
#include <cudp/hmmer/plan7_profile.hpp>
#include <cudp/io/database_file.hpp>
#include <cudp/io/error.hpp>
#include <cudp/io/fasta.hpp>

#include "phmmer_options.hpp"
#include "queries.hpp"
#include "daemon_protocol.hpp"
#include "daemon_server.hpp"
#include "database.hpp"
#include "device_filters.hpp"
#include "run.hpp"

namespace hmmsearch {
namespace {

// One loaded database and the backend that searches it.
struct Database {
  LoadedFile file;
  cudp::hmmer::HmmAlphabet alphabet;
  cudp::io::SequenceSet sequences;
  std::unique_ptr<Searcher> searcher;
};

struct Daemon {
  std::string socket_path;
  std::vector<LoadedFile> files;  // the databases' files, in the order of `databases`
  std::vector<std::unique_ptr<Database>> databases;

  const Database& find(const std::string& seq_file, const std::string& client_dir) const {
    return *databases[find_loaded_file(files, seq_file, client_dir, socket_path)];
  }
};

std::vector<const char*> argv_of(const char* program, const std::vector<std::string>& request) {
  std::vector<const char*> argv{program};
  for (std::size_t i = 4; i < request.size(); ++i) argv.push_back(request[i].c_str());
  return argv;
}

void check_alphabet(const cudp::hmmer::HmmModel& first, const std::string& source, const Database& db) {
  if (first.alphabet != db.alphabet)
    throw cudp::io::InputError(cudp::io::format_error(
        source, first.line,
        "model '" + first.name + "' is " + cudp::hmmer::alphabet_name(first.alphabet) + " but the database " +
            db.file.path + " of the daemon was loaded for " + cudp::hmmer::alphabet_name(db.alphabet) + " models"));
}

DaemonSearch prepare_hmmsearch(const Daemon& daemon, const std::vector<std::string>& request) {
  const std::string& client_dir = request[2];
  const std::vector<const char*> argv = argv_of("cudp-hmmsearch", request);
  const auto parsed = parse_options(static_cast<int>(argv.size()), argv.data());
  if (!parsed || !parsed->connect) throw std::runtime_error("malformed request: not a search");
  auto o = std::make_shared<const Options>(*parsed);
  const Database& db = daemon.find(o->seq_file, client_dir);
  const std::string source = o->hmm_file == "-" ? "standard input" : o->hmm_file;
  auto models = std::make_shared<const std::vector<cudp::hmmer::HmmModel>>(cudp::hmmer::parse_hmm(request[3], source));
  check_models(*models, o->cut);
  check_alphabet(models->front(), source, db);
  return [o, models, &db, client_dir] {
    return search_succeeded(search_models(*o, *models, *db.searcher, client_dir, false));
  };
}

DaemonSearch prepare_phmmer(const Daemon& daemon, const std::vector<std::string>& request) {
  const std::string& client_dir = request[2];
  const std::vector<const char*> argv = argv_of("cudp-phmmer", request);
  const auto parsed = phmmer::parse_options(static_cast<int>(argv.size()), argv.data());
  if (!parsed || !parsed->search.connect) throw std::runtime_error("malformed request: not a search");
  auto p = std::make_shared<const phmmer::Options>(*parsed);
  const Options& o = p->search;
  const std::string source = o.hmm_file == "-" ? "standard input" : o.hmm_file;  // the client read it
  const Database& db = daemon.find(o.seq_file, client_dir);
  if (db.alphabet != cudp::hmmer::HmmAlphabet::Amino)
    throw cudp::io::InputError(cudp::io::format_error(
        o.seq_file, "the database holds DNA sequences but the models of " + source + " are amino models"));
  // Calibration is the costly part of building the models; it runs here, on the daemon's host workers.
  cudp::hmmer::SingleSequenceOptions building = p->model;
  building.threads = std::max(1, db.searcher->threads);
  auto models = std::make_shared<const std::vector<cudp::hmmer::HmmModel>>(
      phmmer::build_query_models(request[3], source, building));
  return [p, models, &db, client_dir] {
    RunOutputs out = search_models(p->search, *models, *db.searcher, client_dir, false);
    phmmer::to_phmmer_outputs(*p, *models, db.searcher->description, out);
    return search_succeeded(std::move(out));
  };
}

// An HMMER3 text file (a profile database, for cudp-hmmscan --daemon), plain only: a hint, not a check.
bool looks_like_profiles(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  char start[5] = {};
  return file && std::fread(start, 1, sizeof start, file.get()) == sizeof start &&
         std::string(start, sizeof start) == "HMMER";
}

}  // namespace

int serve(const Options& o) {
  auto daemon = std::make_unique<Daemon>();
  daemon->socket_path = *o.daemon;
  for (const std::string& path : o.databases) {
    if (path != "-") identify_loaded_file(path);  // "cannot open" before "not a database"
    if (path == "-" || !cudp::io::is_database_file(path)) {
      if (path != "-" && looks_like_profiles(path))
        throw UsageError("--daemon of cudp-hmmsearch serves sequence databases; " + path +
                         " holds profiles: serve it with cudp-hmmscan --daemon " + *o.daemon + " " + path);
      throw UsageError("--daemon serves databases packed by cudp-makedb; " +
                       (path == "-" ? std::string("standard input") : path) +
                       " is not one (pack it first: cudp-makedb " + path + " DB.cudpdb)");
    }
    LoadedFile file = identify_loaded_file(path);
    for (const LoadedFile& other : daemon->files)
      if (other.canonical == file.canonical)
        throw UsageError("--daemon: " + path + " is the same database as " + other.path);
    daemon->files.push_back(std::move(file));
  }
  clear_socket_path(daemon->socket_path);  // a bad path or a live daemon fails before the databases are read
  const int threads = host_threads(o);
  std::future<std::vector<int>> cuda_starting = start_cuda_unless_host(o.backend, o.gpus);
  std::optional<std::vector<int>> cuda_ready;

  for (const LoadedFile& file : daemon->files) {
    auto db = std::make_unique<Database>();
    db->file = file;
    db->alphabet =
        packed_database_kind(file.path) == 1 ? cudp::hmmer::HmmAlphabet::Dna : cudp::hmmer::HmmAlphabet::Amino;
    db->sequences = load_database(file.path, cudp::hmmer::plan7_alphabet_of(db->alphabet), "the daemon's clients",
                                  std::max(1, threads));
    // start_searcher takes the start_cuda() future, which gives its answer once.
    std::future<std::vector<int>> started;
    if (cuda_starting.valid() || cuda_ready) {
      if (!cuda_ready) cuda_ready = cuda_starting.get();
      std::promise<std::vector<int>> answer;
      answer.set_value(*cuda_ready);
      started = answer.get_future();
    }
    db->searcher = std::make_unique<Searcher>(start_searcher(o.backend, db->sequences, threads, started));
    std::fprintf(stderr, "cudp-hmmsearch daemon: serving %s (%zu sequences, %s models; %s) on %s\n", file.path.c_str(),
                 db->sequences.size(), cudp::hmmer::alphabet_name(db->alphabet), db->searcher->description.c_str(),
                 daemon->socket_path.c_str());
    daemon->databases.push_back(std::move(db));
  }

  const Daemon& served = *daemon;
  const std::map<std::string, DaemonProgram> programs{
      {"hmmsearch", [&served](const std::vector<std::string>& request) { return prepare_hmmsearch(served, request); }},
      {"phmmer", [&served](const std::vector<std::string>& request) { return prepare_phmmer(served, request); }}};
  serve_requests(daemon->socket_path, programs, "cudp-hmmsearch daemon");
  return 0;
}

int search_in_daemon(const Options& o, const std::string& current_dir) {
  check_outputs_writable(o);
  return run_in_daemon("cudp-hmmsearch", "hmmsearch", o, *o.connect, current_dir, read_input_text(o.hmm_file, "models"),
                       request_words(o));
}

}  // namespace hmmsearch
