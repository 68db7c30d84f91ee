// The daemon's wire format and its client (daemon_protocol.hpp).
#include "daemon_protocol.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "run.hpp"

namespace hmmsearch {
namespace {

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

// Waits with poll() rather than SO_RCVTIMEO so that the deadline bounds the whole message, not each read: a peer
// that trickles a byte a minute cannot hold a daemon thread for ever.
void receive_bytes(int fd, void* data, std::size_t size, std::int64_t deadline_ms) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    if (deadline_ms > 0) {
      const std::int64_t left = deadline_ms - steady_ms();
      if (left <= 0) throw ConnectionError("timed out");
      pollfd waiting{fd, POLLIN, 0};
      const int ready = poll(&waiting, 1, static_cast<int>(std::min<std::int64_t>(left, 1 << 30)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) throw ConnectionError(std::string("poll: ") + std::strerror(errno));
      if (ready == 0) throw ConnectionError("timed out");
    }
    const ssize_t n = recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) throw ConnectionError("the other side closed the connection");
    if (n < 0) throw ConnectionError(std::string("recv: ") + std::strerror(errno));
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

}  // namespace

Socket::~Socket() {
  if (fd_ >= 0) close(fd_);
}

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void send_strings(int fd, const std::vector<std::string>& strings) {
  const std::uint64_t count = strings.size();
  send_bytes(fd, &count, sizeof count);
  for (const std::string& s : strings) {
    const std::uint64_t size = s.size();
    send_bytes(fd, &size, sizeof size);
    send_bytes(fd, s.data(), s.size());
  }
}

std::vector<std::string> receive_strings(int fd, std::int64_t deadline_ms) {
  std::uint64_t count = 0;
  receive_bytes(fd, &count, sizeof count, deadline_ms);
  if (count > kMaxStrings) throw ConnectionError("malformed message (" + std::to_string(count) + " parts)");
  std::vector<std::string> strings(count);
  for (std::size_t i = 0; i < strings.size(); ++i) {
    std::uint64_t size = 0;
    receive_bytes(fd, &size, sizeof size, deadline_ms);
    // Checked before the rest is awaited, so that garbage is answered at once.
    if (size > (i == 0 ? kMaxProtocolBytes : kMaxStringBytes))
      throw ConnectionError("malformed message (a part of " + std::to_string(size) + " bytes)");
    // Grown as the bytes come rather than allocated on the peer's word, so that a size announced and never sent
    // costs nothing.
    constexpr std::uint64_t kChunk = std::uint64_t{16} << 20;
    for (std::uint64_t done = 0; done < size;) {
      const std::uint64_t n = std::min(kChunk, size - done);
      strings[i].resize(done + n);
      receive_bytes(fd, strings[i].data() + done, n, deadline_ms);
      done += n;
    }
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

int run_in_daemon(const char* name, const std::string& program, const Options& o, const std::string& socket_path,
                  const std::string& current_dir, std::string input_text, const std::vector<std::string>& words) {
  const int fd = connect_to(socket_path);
  if (fd < 0)
    throw std::runtime_error("no daemon on " + socket_path + " (" + std::strerror(errno) + "); start one with: " +
                             (program == "hmmscan" ? "cudp-hmmscan --daemon " + socket_path + " <hmmdb>..."
                                                   : "cudp-hmmsearch --daemon " + socket_path + " <seqdb>..."));
  const Socket daemon(fd);
  std::vector<std::string> request{kDaemonProtocol, program, current_dir, std::move(input_text)};
  request.insert(request.end(), words.begin(), words.end());
  std::vector<std::string> reply;
  try {
    send_strings(daemon.fd(), request);
    request.clear();
    request.shrink_to_fit();
    reply = receive_strings(daemon.fd());
  } catch (const ConnectionError& e) {
    throw std::runtime_error("the daemon on " + socket_path + " did not answer: " + e.what());
  }
  if (reply.size() < 2 || (reply[0] == "0" && reply.size() != 7))
    throw std::runtime_error("the daemon on " + socket_path + " sent a malformed reply");
  if (reply[0] != "0") {
    std::fprintf(stderr, "%s: %s\n", name, reply[1].c_str());
    return 1;
  }
  write_run_outputs(o, RunOutputs{std::move(reply[2]), std::move(reply[3]), std::move(reply[4]), std::move(reply[5]),
                                  std::move(reply[6])});
  return 0;
}

}  // namespace hmmsearch
