// The resident-database daemon and its client (daemon.hpp).
#include "daemon.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

#include <cudp/hmmer/plan7_profile.hpp>
#include <cudp/io/database_file.hpp>
#include <cudp/io/error.hpp>
#include <cudp/io/fasta.hpp>
#include <cudp/hmmer/hmm_file.hpp>

#include "database.hpp"
#include "device_filters.hpp"
#include "run.hpp"
#include "stage_times.hpp"

namespace hmmsearch {
namespace {

// The first string of every request; a daemon of another version answers a mismatch with an error.
constexpr const char* kProtocol = "cudp-hmmsearch request 2";
constexpr std::uint64_t kMaxStrings = 1u << 16;
constexpr std::uint64_t kMaxStringBytes = std::uint64_t{1} << 32;
// A client sends its whole request right after connecting, so a silent one is stuck or not a client.
constexpr int kRequestTimeoutSeconds = 60;

// A broken connection or a malformed message; the daemon logs it and goes on serving.
struct ConnectionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

void send_bytes(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ConnectionError(std::string("send: ") + std::strerror(errno));
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

void receive_bytes(int fd, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) throw ConnectionError("the other side closed the connection");
    if (n < 0)
      throw ConnectionError(errno == EAGAIN || errno == EWOULDBLOCK ? std::string("timed out")
                                                                     : std::string("recv: ") + std::strerror(errno));
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

// A message is a count, then each string as its length and bytes (host byte order: both ends are on this machine).
void send_strings(int fd, const std::vector<std::string>& strings) {
  const std::uint64_t count = strings.size();
  send_bytes(fd, &count, sizeof count);
  for (const std::string& s : strings) {
    const std::uint64_t size = s.size();
    send_bytes(fd, &size, sizeof size);
    send_bytes(fd, s.data(), s.size());
  }
}

std::vector<std::string> receive_strings(int fd) {
  std::uint64_t count = 0;
  receive_bytes(fd, &count, sizeof count);
  if (count > kMaxStrings) throw ConnectionError("malformed message (" + std::to_string(count) + " parts)");
  std::vector<std::string> strings(count);
  for (std::string& s : strings) {
    std::uint64_t size = 0;
    receive_bytes(fd, &size, sizeof size);
    if (size > kMaxStringBytes) throw ConnectionError("malformed message (a part of " + std::to_string(size) + " bytes)");
    s.resize(size);
    receive_bytes(fd, s.data(), size);
  }
  return strings;
}

sockaddr_un socket_address(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof address.sun_path)
    throw UsageError("socket path '" + path + "' must have 1 to " + std::to_string(sizeof address.sun_path - 1) +
                     " characters");
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

// -1 with errno set when nothing listens there.
int connect_to(const std::string& path) {
  const sockaddr_un address = socket_address(path);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    const int error = errno;
    close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

// Makes way for a daemon on path: removes a socket file that a daemon left behind, but refuses to take over a live
// one or to remove anything that is not a socket.
void clear_socket_path(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return;
  if (!S_ISSOCK(st.st_mode)) throw std::runtime_error(path + ": exists and is not a socket; not replacing it");
  const int live = connect_to(path);
  if (live >= 0) {
    close(live);
    throw std::runtime_error(path + ": a daemon is already listening there");
  }
  unlink(path.c_str());
}

int listen_on(const std::string& path) {
  const sockaddr_un address = socket_address(path);
  clear_socket_path(path);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  const mode_t old_mask = umask(0177);  // the socket file is the access control: rw for this user only
  const int bound = bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const int bind_error = errno;
  umask(old_mask);
  if (bound != 0 || listen(fd, 64) != 0) {
    const int error = bound != 0 ? bind_error : errno;
    close(fd);
    throw std::runtime_error(path + ": cannot listen: " + std::strerror(error));
  }
  return fd;
}

volatile sig_atomic_t stop_requested = 0;
extern "C" void request_stop(int) { stop_requested = 1; }

// No SA_RESTART, so that a signal interrupts accept() and the daemon leaves at once when idle.
void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

// Which file a path names and the state it was loaded in, to tell whether a client means the daemon's database.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  timespec modified{};
};

bool identify(const std::string& path, FileIdentity& id) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return false;
  id = {st.st_dev, st.st_ino, st.st_size, st.st_mtim};
  return true;
}

struct Daemon {
  std::string socket_path, db_path;
  FileIdentity db_identity;
  cudp::hmmer::HmmAlphabet alphabet;
  const Searcher& searcher;
};

void check_database(const Daemon& daemon, const Options& o, const std::string& client_dir) {
  namespace fs = std::filesystem;
  fs::path path(o.seq_file);
  if (path.is_relative()) path = fs::path(client_dir) / path;
  FileIdentity id;
  if (!identify(path.string(), id))
    throw cudp::io::InputError(cudp::io::format_error(o.seq_file, std::string("cannot open: ") + std::strerror(errno)));
  if (id.device != daemon.db_identity.device || id.inode != daemon.db_identity.inode)
    throw cudp::io::InputError(cudp::io::format_error(
        o.seq_file, "is not the database of the daemon on " + daemon.socket_path + ", which serves " + daemon.db_path +
                        " (start a daemon for this database, or search it without --connect)"));
  if (id.size != daemon.db_identity.size || id.modified.tv_sec != daemon.db_identity.modified.tv_sec ||
      id.modified.tv_nsec != daemon.db_identity.modified.tv_nsec)
    throw cudp::io::InputError(cudp::io::format_error(
        o.seq_file, "has changed since the daemon on " + daemon.socket_path + " loaded it; restart the daemon"));
}

// One request: the search's exit status, its error message, and the five output texts.
std::vector<std::string> answer(const Daemon& daemon, const std::vector<std::string>& request) {
  if (request.size() < 3 || request[0] != kProtocol)
    return {"1", "the daemon on " + daemon.socket_path + " speaks another protocol: is it another cudp version?"};
  const std::string& client_dir = request[1];
  const std::string& model_text = request[2];
  std::vector<const char*> argv{"cudp-hmmsearch"};
  for (std::size_t i = 3; i < request.size(); ++i) argv.push_back(request[i].c_str());
  try {
    const auto parsed = parse_options(static_cast<int>(argv.size()), argv.data());
    if (!parsed || !parsed->connect) return {"1", "malformed request: not a search"};
    const Options& o = *parsed;
    check_database(daemon, o, client_dir);
    const std::string source = o.hmm_file == "-" ? "standard input" : o.hmm_file;
    const std::vector<cudp::hmmer::HmmModel> models = cudp::hmmer::parse_hmm(model_text, source);
    check_models(models, o.cut);
    if (models.front().alphabet != daemon.alphabet)
      throw cudp::io::InputError(cudp::io::format_error(
          source, models.front().line,
          "model '" + models.front().name + "' is " + cudp::hmmer::alphabet_name(models.front().alphabet) +
              " but the daemon's database " + daemon.db_path + " was loaded for " +
              cudp::hmmer::alphabet_name(daemon.alphabet) + " models"));
    RunOutputs out = search_models(o, models, daemon.searcher, client_dir, false);
    return {"0",
            "",
            std::move(out.text),
            std::move(out.tbl),
            std::move(out.domtbl),
            std::move(out.pfamtbl),
            std::move(out.alignment)};
  } catch (const UsageError& e) {
    return {"1", std::string(e.what()) + " (see --help)"};
  } catch (const std::exception& e) {
    return {"1", e.what()};
  }
}

void serve_connection(const Daemon& daemon, int fd) {
  const auto started = std::chrono::steady_clock::now();
  const timeval timeout{kRequestTimeoutSeconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  // A connection closed before it sends anything is a probe (another daemon checking whether this one is live).
  char first = 0;
  if (recv(fd, &first, 1, MSG_PEEK) == 0) return;
  try {
    const std::vector<std::string> request = receive_strings(fd);
    const std::vector<std::string> reply = answer(daemon, request);
    send_strings(fd, reply);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::string words;
    for (std::size_t i = 3; i < request.size(); ++i) words += " " + request[i];
    std::fprintf(stderr, "cudp-hmmsearch daemon: %.3f s, status %s:%s%s%s\n", seconds, reply[0].c_str(), words.c_str(),
                 reply[1].empty() ? "" : ": ", reply[1].c_str());
    StageTimes::global().print("cudp-hmmsearch");
    StageTimes::global().reset();
  } catch (const std::exception& e) {  // a broken connection, or no memory for a request: the next one may do
    std::fprintf(stderr, "cudp-hmmsearch daemon: a client's request failed: %s\n", e.what());
  }
}

}  // namespace

int serve(const Options& o) {
  const std::string& db_path = o.seq_file;
  FileIdentity db_identity;
  if (db_path != "-" && !identify(db_path, db_identity))
    throw cudp::io::InputError(cudp::io::format_error(db_path, std::string("cannot open: ") + std::strerror(errno)));
  if (db_path == "-" || !cudp::io::is_database_file(db_path))
    throw UsageError("--daemon serves a database packed by cudp-makedb; " +
                     (db_path == "-" ? std::string("standard input") : db_path) +
                     " is not one (pack it first: cudp-makedb " + db_path + " DB.cudpdb)");
  clear_socket_path(*o.daemon);  // a bad path or a live daemon fails before the database is read
  const int threads = host_threads(o);
  std::future<bool> cuda_started = start_cuda_unless_host(o.backend);

  const cudp::hmmer::HmmAlphabet alphabet =
      packed_database_kind(db_path) == 1 ? cudp::hmmer::HmmAlphabet::Dna : cudp::hmmer::HmmAlphabet::Amino;
  const cudp::io::SequenceSet db =
      load_database(db_path, cudp::hmmer::plan7_alphabet_of(alphabet), "the daemon's clients", std::max(1, threads));
  Searcher searcher = start_searcher(o.backend, db, threads, cuda_started);

  install_stop_handlers();
  const Socket listener(listen_on(*o.daemon));
  const Daemon daemon{*o.daemon, db_path, db_identity, alphabet, searcher};
  std::fprintf(stderr, "cudp-hmmsearch daemon: serving %s (%zu sequences, %s models; %s) on %s\n", db_path.c_str(),
               db.size(), cudp::hmmer::alphabet_name(alphabet), searcher.description.c_str(), o.daemon->c_str());
  while (!stop_requested) {
    const int fd = accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno != EINTR && errno != ECONNABORTED)
        std::fprintf(stderr, "cudp-hmmsearch daemon: accept: %s\n", std::strerror(errno));
      continue;
    }
    const Socket client(fd);
    serve_connection(daemon, client.fd());
  }
  unlink(o.daemon->c_str());
  std::fprintf(stderr, "cudp-hmmsearch daemon: stopped\n");
  return 0;
}

int search_in_daemon(const Options& o, const std::string& current_dir) {
  check_outputs_writable(o);
  std::string model_text = o.hmm_file == "-" ? cudp::io::read_stream_text(stdin, "standard input")
                                             : cudp::io::read_file_text(o.hmm_file);
  if (o.hmm_file == "-" && !model_text.empty() && looks_gzipped(static_cast<unsigned char>(model_text[0])))
    throw gzip_on_standard_input("models");

  const int fd = connect_to(*o.connect);
  if (fd < 0)
    throw std::runtime_error("no daemon on " + *o.connect + " (" + std::strerror(errno) +
                             "); start one with: cudp-hmmsearch --daemon " + *o.connect + " <seqdb>");
  const Socket daemon(fd);
  std::vector<std::string> request{kProtocol, current_dir, std::move(model_text)};
  const std::vector<std::string> words = request_words(o);
  request.insert(request.end(), words.begin(), words.end());
  std::vector<std::string> reply;
  try {
    send_strings(daemon.fd(), request);
    reply = receive_strings(daemon.fd());
  } catch (const ConnectionError& e) {
    throw std::runtime_error("the daemon on " + *o.connect + " did not answer: " + e.what());
  }
  if (reply.size() < 2 || (reply[0] == "0" && reply.size() != 7))
    throw std::runtime_error("the daemon on " + *o.connect + " sent a malformed reply");
  if (reply[0] != "0") {
    std::fprintf(stderr, "cudp-hmmsearch: %s\n", reply[1].c_str());
    return 1;
  }
  write_run_outputs(o, RunOutputs{std::move(reply[2]), std::move(reply[3]), std::move(reply[4]), std::move(reply[5]),
                                  std::move(reply[6])});
  return 0;
}

}  // namespace hmmsearch
