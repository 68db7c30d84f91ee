// cudp-hmmscan's daemon and client (scan_daemon.hpp).
#include "scan_daemon.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cudp/hmmer/plan7_alphabet.hpp>
#include <cudp/io/database_file.hpp>
#include <cudp/io/error.hpp>
#include <cudp/io/fasta.hpp>

#include "daemon_protocol.hpp"
#include "daemon_server.hpp"
#include "database.hpp"
#include "device_filters.hpp"

namespace hmmscan {
namespace {

using hmmsearch::UsageError;

struct ProfileDatabase {
  std::vector<cudp::hmmer::HmmModel> models;
  cudp::hmmer::HmmAlphabet alphabet;
};

struct Daemon {
  std::string socket_path, backend;
  int threads = 1;
  std::vector<int> cuda_devices;  // start_cuda's: none without CUDA
  std::vector<hmmsearch::LoadedFile> files;
  std::vector<std::unique_ptr<ProfileDatabase>> databases;  // in the order of `files`
};

// The query sequences from the text of the client's <seqfile>, with the checks that a one-shot run's reading makes
// (hmmsearch::load_database, which reads a file).
cudp::io::SequenceSet parse_queries(const std::string& text, const std::string& name,
                                    const cudp::hmmer::Plan7Alphabet& alphabet, const std::string& models) {
  cudp::io::SequenceSet set;
  try {
    set = cudp::io::parse_fasta(text.data(), text.size(), name, alphabet.sequence_alphabet,
                                cudp::io::FastaHeaders::easel);
  } catch (const cudp::io::InputError& e) {
    if (std::strstr(e.what(), "invalid residue") != nullptr)
      throw cudp::io::InputError(std::string(e.what()) + "; the models of " + models + " are " + alphabet.name +
                                 " models, so the database must hold " + alphabet.name + " sequences");
    throw;
  }
  if (alphabet.kind == cudp::bio::AlphabetKind::Protein && set.total_residues() >= 20 &&
      std::all_of(set.residues.begin(), set.residues.end(), [&alphabet](std::uint8_t r) {
        const char c = alphabet.symbols[r];
        return c == 'A' || c == 'C' || c == 'G' || c == 'T' || c == 'U' || c == 'N';
      }))
    throw cudp::io::InputError(cudp::io::format_error(
        name, "every residue is A, C, G, T, U or N: these are nucleotide sequences, but the models of " + models +
                  " are amino (protein) models"));
  hmmsearch::check_target_lengths(set, name);
  return set;
}

// scan() writes the daemon's directory on the tables' "Current dir" lines; a one-shot run writes the client's.
void set_current_dir(std::string& table, const std::string& dir) {
  const std::string label = "# Current dir:     ";
  const std::size_t at = table.rfind("\n" + label);
  if (at == std::string::npos) return;
  const std::size_t start = at + 1 + label.size();
  const std::size_t end = table.find('\n', start);
  table.replace(start, end == std::string::npos ? std::string::npos : end - start, dir.empty() ? "[unknown]" : dir);
}

hmmsearch::DaemonSearch prepare_scan(const Daemon& daemon, const ScanFunction& scan,
                                     const std::vector<std::string>& request) {
  const std::string& client_dir = request[2];
  std::vector<const char*> argv{"cudp-hmmscan"};
  for (std::size_t i = 4; i < request.size(); ++i) argv.push_back(request[i].c_str());
  const auto parsed = parse_options(static_cast<int>(argv.size()), argv.data());
  if (!parsed || !parsed->search.connect) throw std::runtime_error("malformed request: not a scan");
  auto p = std::make_shared<const Options>(*parsed);
  const hmmsearch::Options& o = p->search;
  const std::size_t found = hmmsearch::find_loaded_file(daemon.files, o.hmm_file, client_dir, daemon.socket_path);
  const ProfileDatabase& db = *daemon.databases[found];
  try {
    hmmsearch::check_models(db.models, o.cut);
  } catch (const cudp::io::InputError& e) {
    // The models name their file as the daemon was given it; a one-shot run's message names it as the client does.
    std::string message = e.what();
    const std::string loaded = daemon.files[found].path + ":";
    if (message.rfind(loaded, 0) == 0) message.replace(0, loaded.size(), o.hmm_file + ":");
    throw cudp::io::InputError(message);
  }
  auto queries = std::make_shared<const cudp::io::SequenceSet>(
      parse_queries(request[3], o.seq_file, cudp::hmmer::plan7_alphabet_of(db.alphabet), o.hmm_file));
  return [p, queries, &db, &daemon, &scan, client_dir] {
    std::promise<std::vector<int>> ready;
    ready.set_value(daemon.cuda_devices);
    std::future<std::vector<int>> cuda_started = ready.get_future();
    if (daemon.backend == "host") cuda_started = {};
    const hmmsearch::Searcher searcher =
        hmmsearch::start_searcher(daemon.backend, *queries, daemon.threads, cuda_started,
                                  hmmsearch::GpuUse::kShareWork);
    hmmsearch::RunOutputs out = scan(*p, db.models, searcher);
    set_current_dir(out.tbl, client_dir);
    set_current_dir(out.domtbl, client_dir);
    set_current_dir(out.pfamtbl, client_dir);
    return hmmsearch::search_succeeded(std::move(out));
  };
}

}  // namespace

int serve(const Options& p, const ScanFunction& scan) {
  const hmmsearch::Options& o = p.search;
  auto daemon = std::make_unique<Daemon>();
  daemon->socket_path = *o.daemon;
  daemon->backend = o.backend;
  for (const std::string& path : o.databases) {
    if (path == "-") throw UsageError("--daemon reads each <hmmdb> from a file, not standard input");
    hmmsearch::LoadedFile file = hmmsearch::identify_loaded_file(path);
    for (const hmmsearch::LoadedFile& other : daemon->files)
      if (other.canonical == file.canonical)
        throw UsageError("--daemon: " + path + " is the same database as " + other.path);
    daemon->files.push_back(std::move(file));
  }
  hmmsearch::clear_socket_path(daemon->socket_path);  // a bad path or a live daemon fails before anything is read
  daemon->threads = hmmsearch::host_threads(o);
  std::future<std::vector<int>> cuda_starting = hmmsearch::start_cuda_unless_host(o.backend, o.gpus);
  for (const hmmsearch::LoadedFile& file : daemon->files) {
    auto db = std::make_unique<ProfileDatabase>();
    db->models = cudp::hmmer::read_hmm_file(file.path, std::max(1, daemon->threads));
    hmmsearch::check_models(db->models, "");  // calibrated, one alphabet; --cut_* are checked per scan
    db->alphabet = db->models.front().alphabet;
    std::fprintf(stderr, "cudp-hmmscan daemon: serving %s (%zu %s models) on %s\n", file.path.c_str(),
                 db->models.size(), cudp::hmmer::alphabet_name(db->alphabet), daemon->socket_path.c_str());
    daemon->databases.push_back(std::move(db));
  }
  if (cuda_starting.valid()) daemon->cuda_devices = cuda_starting.get();
  if (o.backend == "cuda" && daemon->cuda_devices.empty())
    throw std::runtime_error("--backend cuda: no CUDA device found (or this build has no CUDA backend)");

  const Daemon& served = *daemon;
  const std::map<std::string, hmmsearch::DaemonProgram> programs{
      {"hmmscan",
       [&served, &scan](const std::vector<std::string>& request) { return prepare_scan(served, scan, request); }}};
  hmmsearch::serve_requests(daemon->socket_path, programs, "cudp-hmmscan daemon");
  return 0;
}

int scan_in_daemon(const Options& p, int argc, const char* const* argv, const std::string& current_dir) {
  const hmmsearch::Options& o = p.search;
  hmmsearch::check_outputs_writable(o);
  // The daemon gets the text of <seqfile> and parses it as FASTA. Read once, then looked at, so that a pipe or
  // standard input works (parse_options has refused '-' for <hmmdb>, the daemon's own file).
  std::string text = hmmsearch::read_input_text(o.seq_file, "query sequences");
  const std::string_view magic = cudp::io::database_magic();
  if (std::string_view(text).substr(0, magic.size()) == magic)
    throw UsageError("with --connect, <seqfile> must be FASTA; " + (o.seq_file == "-" ? "standard input" : o.seq_file) +
                     " is a cudp-makedb database (scan it without --connect)");
  const std::vector<std::string> words(argv + 1, argv + argc);
  return hmmsearch::run_in_daemon("cudp-hmmscan", "hmmscan", o, *o.connect, current_dir, std::move(text), words);
}

}  // namespace hmmscan
