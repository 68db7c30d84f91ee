// The daemons' server side (daemon_server.hpp).
#include "daemon_server.hpp"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <cudp/io/error.hpp>

#include "daemon_protocol.hpp"
#include "stage_times.hpp"

namespace hmmsearch {
namespace {

// A client sends its whole request right after connecting, so one that is still sending after this long is stuck
// or not a client. CUDP_DAEMON_REQUEST_TIMEOUT (seconds) overrides it, for tests of that case.
constexpr int kRequestTimeoutSeconds = 60;
// Connections being read or waiting for their search at once; more are told to come back later, so that a flood
// of clients cannot exhaust the daemon's threads.
constexpr int kMaxConnections = 256;

int request_timeout_seconds() {
  const char* text = std::getenv("CUDP_DAEMON_REQUEST_TIMEOUT");
  const int seconds = text != nullptr ? std::atoi(text) : 0;
  return seconds > 0 ? seconds : kRequestTimeoutSeconds;
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
  if (bound != 0 || listen(fd, 128) != 0) {
    const int error = bound != 0 ? bind_error : errno;
    close(fd);
    throw std::runtime_error(path + ": cannot listen: " + std::strerror(error));
  }
  return fd;
}

// A signal may land on any of the daemon's threads, so the handler only writes to a pipe that the accept loop
// polls (write() is async-signal-safe; the loop cannot miss it the way it could miss a flag set on another thread).
int stop_pipe[2] = {-1, -1};
extern "C" void request_stop(int) {
  const int saved = errno;
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = write(stop_pipe[1], &byte, 1);
  errno = saved;
}

void install_stop_handlers() {
  if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  struct sigaction action {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // the pipe, not EINTR, wakes the loop; other threads' reads need not retry
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

std::string canonical_path(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : std::string();
}

// The searches in arrival order, run one at a time by one worker: the backend (the GPU's filters and the host's
// thread pool) serves one search with all it has, so running two at once would only interleave them.
class Server {
 public:
  Server(const std::string& socket_path, const std::map<std::string, DaemonProgram>& programs,
         const std::string& log_name)
      : socket_path_(socket_path),
        programs_(programs),
        log_name_(log_name),
        timeout_seconds_(request_timeout_seconds()),
        worker_([this] { work(); }) {}

  // Takes over fd; false when the daemon has too many connections already (the caller answers and closes it).
  bool admit(int fd) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (connections_ >= kMaxConnections) return false;
    try {
      std::thread([this, fd] { serve_connection(fd); }).detach();
    } catch (const std::system_error&) {  // no thread to be had: the same answer as too many clients
      return false;
    }
    ++connections_;
    reading_.insert(fd);
    return true;
  }

  // Stops reading requests, answers the queued ones with an error, lets the running search finish, and returns
  // when every connection is closed.
  void stop() {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
    for (int fd : reading_) shutdown(fd, SHUT_RD);  // wakes their reads; the "stopping" answer can still go out
    changed_.notify_all();
    lock.unlock();
    worker_.join();
    lock.lock();
    changed_.wait(lock, [this] { return connections_ == 0; });
  }

 private:
  struct Job {
    int fd;
    DaemonSearch run;
    std::promise<DaemonReply> reply;
  };

  void work() {
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) {
        for (Job* job : queue_) job->reply.set_value(search_failed("the daemon on " + socket_path_ + " is stopping"));
        queue_.clear();
        return;
      }
      Job* job = queue_.front();
      queue_.pop_front();
      lock.unlock();
      if (gone(job->fd)) {
        job->reply.set_value(search_failed("the client has gone away"));
        continue;
      }
      DaemonReply reply;
      try {
        reply = job->run();
      } catch (const UsageError& e) {
        reply = search_failed(std::string(e.what()) + " (see --help)");
      } catch (const std::exception& e) {
        reply = search_failed(e.what());
      }
      job->reply.set_value(std::move(reply));
      StageTimes::global().print(log_name_.c_str());
      StageTimes::global().reset();
    }
  }

  // A client closes its end only once it has its reply, or when it was killed or gave up.
  static bool gone(int fd) {
    pollfd p{fd, POLLRDHUP, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
  }

  DaemonReply queue_and_wait(int fd, DaemonSearch run) {
    Job job{fd, std::move(run), {}};
    std::future<DaemonReply> reply = job.reply.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return search_failed("the daemon on " + socket_path_ + " is stopping");
      queue_.push_back(&job);
      changed_.notify_all();
    }
    return reply.get();
  }

  DaemonReply answer(int fd, const std::vector<std::string>& request, std::string& words) {
    if (request.empty() || request[0] != kDaemonProtocol)
      return search_failed("the daemon on " + socket_path_ + " speaks another protocol (" + kDaemonProtocol +
                           "): is the client of another cudp version?");
    if (request.size() < 4) return search_failed("malformed request: " + std::to_string(request.size()) + " parts");
    words = request[1] + ":";
    for (std::size_t i = 4; i < request.size(); ++i) words += " " + request[i];
    const auto program = programs_.find(request[1]);
    if (program == programs_.end()) {
      std::string served;
      for (const auto& [name, prepare] : programs_) served += (served.empty() ? "" : ", ") + name;
      return search_failed("the daemon on " + socket_path_ + " runs no " + request[1] + " searches, only " + served +
                           (request[1] == "hmmscan" ? " (profile databases are served by cudp-hmmscan --daemon)"
                                                    : " (sequence databases are served by cudp-hmmsearch --daemon)"));
    }
    try {
      return queue_and_wait(fd, program->second(request));
    } catch (const UsageError& e) {
      return search_failed(std::string(e.what()) + " (see --help)");
    } catch (const std::exception& e) {
      return search_failed(e.what());
    }
  }

  void serve_connection(int fd) {
    {
      const Socket client(fd);
      serve_request(fd);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --connections_;
    changed_.notify_all();
  }

  void serve_request(int fd) {
    const auto started = std::chrono::steady_clock::now();
    const std::int64_t deadline = steady_ms() + std::int64_t{timeout_seconds_} * 1000;
    // A client that stops reading its reply must not hold this thread, and with it the daemon's exit, for ever.
    const timeval send_timeout{timeout_seconds_, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
    std::vector<std::string> request;
    std::string failed_read;
    // A connection closed before it sends anything is a probe (another daemon checking whether this one is live).
    char first = 0;
    pollfd waiting{fd, POLLIN, 0};
    const bool probe = poll(&waiting, 1, timeout_seconds_ * 1000) > 0 && recv(fd, &first, 1, MSG_PEEK) == 0;
    if (!probe) {
      try {
        request = receive_strings(fd, deadline);
      } catch (const std::exception& e) {  // ConnectionError, or no memory for what the client announced
        failed_read = e.what();
      }
    }
    bool stopping = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      reading_.erase(fd);
      stopping = stopping_;
    }
    if (probe && !stopping) return;
    std::string words;
    const DaemonReply reply =
        stopping ? search_failed("the daemon on " + socket_path_ + " is stopping")
        : failed_read.empty()
            ? answer(fd, request, words)
            : search_failed("the daemon on " + socket_path_ + " could not read the request: " + failed_read);
    std::string sent;
    try {
      send_strings(fd, reply);
    } catch (const std::exception& e) {
      sent = std::string(" (the reply was not delivered: ") + e.what() + ")";
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(stderr, "%s: %.3f s, status %s: %s%s%s%s\n", log_name_.c_str(), seconds, reply[0].c_str(),
                 words.empty() ? "(no request)" : words.c_str(), reply[1].empty() ? "" : ": ", reply[1].c_str(),
                 sent.c_str());
  }

  const std::string socket_path_;
  const std::map<std::string, DaemonProgram>& programs_;
  const std::string log_name_;
  const int timeout_seconds_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job*> queue_;
  std::set<int> reading_;  // connections whose request is still coming: stop() cuts them off
  int connections_ = 0;
  bool stopping_ = false;
  std::thread worker_;  // last: it starts in the constructor and uses the members above
};

}  // namespace

DaemonReply search_succeeded(RunOutputs out) {
  return {"0",
          "",
          std::move(out.text),
          std::move(out.tbl),
          std::move(out.domtbl),
          std::move(out.pfamtbl),
          std::move(out.alignment)};
}

DaemonReply search_failed(const std::string& message) { return {"1", message}; }

LoadedFile identify_loaded_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    throw cudp::io::InputError(cudp::io::format_error(path, std::string("cannot open: ") + std::strerror(errno)));
  return {path, canonical_path(path), st.st_dev, st.st_ino, st.st_size, st.st_mtim};
}

std::size_t find_loaded_file(const std::vector<LoadedFile>& files, const std::string& name,
                             const std::string& client_dir, const std::string& socket_path) {
  namespace fs = std::filesystem;
  fs::path path(name);
  if (path.is_relative()) path = fs::path(client_dir) / path;
  const std::string canonical = canonical_path(path.string());
  if (canonical.empty())
    throw cudp::io::InputError(cudp::io::format_error(name, std::string("cannot open: ") + std::strerror(errno)));
  for (std::size_t i = 0; i < files.size(); ++i) {
    const LoadedFile& f = files[i];
    if (f.canonical != canonical) continue;
    struct stat st {};
    if (stat(canonical.c_str(), &st) != 0 || st.st_dev != f.device || st.st_ino != f.inode || st.st_size != f.size ||
        st.st_mtim.tv_sec != f.modified.tv_sec || st.st_mtim.tv_nsec != f.modified.tv_nsec)
      throw cudp::io::InputError(cudp::io::format_error(
          name, "has changed since the daemon on " + socket_path + " loaded it; restart the daemon"));
    return i;
  }
  std::string held;
  for (const LoadedFile& f : files) held += (held.empty() ? "" : ", ") + f.path;
  throw cudp::io::InputError("database " + name + " is not loaded in the daemon at " + socket_path +
                             "; it holds: " + held + " (start a daemon with it, or search it without --connect)");
}

void clear_socket_path(const std::string& path) {
  socket_address(path);  // a path too long fails here, not as "nothing listens"
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

void serve_requests(const std::string& socket_path, const std::map<std::string, DaemonProgram>& programs,
                    const std::string& log_name) {
  install_stop_handlers();
  auto listener = std::make_unique<Socket>(listen_on(socket_path));
  std::fprintf(stderr, "%s: ready on %s\n", log_name.c_str(), socket_path.c_str());
  Server server(socket_path, programs, log_name);
  for (;;) {
    pollfd waiting[2] = {{listener->fd(), POLLIN, 0}, {stop_pipe[0], POLLIN, 0}};
    if (poll(waiting, 2, -1) < 0) {
      if (errno == EINTR) continue;
      std::fprintf(stderr, "%s: poll: %s\n", log_name.c_str(), std::strerror(errno));
      break;
    }
    if (waiting[1].revents != 0) break;
    if (waiting[0].revents == 0) continue;
    const int fd = accept4(listener->fd(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN)
        std::fprintf(stderr, "%s: accept: %s\n", log_name.c_str(), std::strerror(errno));
      continue;
    }
    if (!server.admit(fd)) {
      const Socket refused(fd);
      const timeval brief{1, 0};
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &brief, sizeof brief);
      try {
        send_strings(fd, search_failed("the daemon on " + socket_path + " is busy (" + std::to_string(kMaxConnections) +
                                       " clients); try again later"));
      } catch (const std::exception&) {  // it has gone already
      }
    }
  }
  // No new client can connect from here on; the ones already connected get their answers or an error.
  unlink(socket_path.c_str());
  listener.reset();
  server.stop();
  std::fprintf(stderr, "%s: stopped\n", log_name.c_str());
}

}  // namespace hmmsearch
