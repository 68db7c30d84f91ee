#pragma once
// The wire format of the resident-database daemon (daemon.hpp) and the client side of it, shared by every program
// that can run its search in a daemon (cudp-hmmsearch, cudp-phmmer, cudp-hmmscan), so that the clients need not
// link the server.
//
// A message is a count, then each string as its length and bytes; counts and lengths are 64-bit in host byte order,
// as both ends are on this machine. A request is
//   [0] kDaemonProtocol, [1] the program ("hmmsearch", "phmmer" or "hmmscan"), [2] the client's working directory,
//   [3] the text of its query file (models for hmmsearch, sequences for phmmer and hmmscan), [4...] its
//   command-line words (as its parser reads them, --connect included);
// a reply is
//   [0] the exit status ("0" or "1"), [1] the error message (empty on success),
//   and on success [2] the main output, [3] --tblout, [4] --domtblout, [5] --pfamtblout, [6] -A's alignments.
// The client keeps its end open until the reply has come: a connection closed before then is a client that has
// gone away, whose search the daemon skips.
#include <sys/un.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "options.hpp"

namespace hmmsearch {

// The first string of every request. Request 2 was the one-database, one-client daemon of cudp-hmmsearch only.
inline constexpr const char* kDaemonProtocol = "cudp daemon request 3";
// A longer first string is not a cudp client's: the daemon answers it at once instead of reading on.
inline constexpr std::uint64_t kMaxProtocolBytes = 64;
inline constexpr std::uint64_t kMaxStrings = 1u << 16;
inline constexpr std::uint64_t kMaxStringBytes = std::uint64_t{1} << 32;

// A broken connection, a malformed message or a silent peer.
struct ConnectionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Owns a file descriptor.
class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket();
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// `deadline_ms` is a steady-clock time in milliseconds (steady_ms()) after which a read fails; 0: no deadline.
std::int64_t steady_ms();
void send_strings(int fd, const std::vector<std::string>& strings);
std::vector<std::string> receive_strings(int fd, std::int64_t deadline_ms = 0);

// The Unix socket address of `path`; UsageError for a path that cannot be a socket's.
sockaddr_un socket_address(const std::string& path);
// -1 with errno set when nothing listens there; UsageError for a path that cannot be a socket's.
int connect_to(const std::string& path);

// Sends a request to the daemon on `socket_path` and writes the outputs of its reply as a one-shot run would
// (o's -o, -A and table files, or standard output); `input_text` is the query file's text, `words` the command line
// that the daemon's parser for `program` reads. Prints the daemon's error message after "<name>: " and returns 1 when
// the search failed there.
int run_in_daemon(const char* name, const std::string& program, const Options& o, const std::string& socket_path,
                  const std::string& current_dir, std::string input_text, const std::vector<std::string>& words);

}  // namespace hmmsearch
