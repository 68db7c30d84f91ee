#pragma once
// The server side of the resident-database daemons (daemon.hpp; the wire format is daemon_protocol.hpp), shared by
// cudp-hmmsearch's (sequence databases, for hmmsearch and phmmer searches) and cudp-hmmscan's (profile databases).
//
// Each connection is read on a thread of its own, against a deadline, so that a silent, slow or broken client
// holds only its own thread; a complete request is checked there too (its options, its database, its query file),
// so that a bad one is answered at once and costs the others nothing. The searches then queue and one worker runs
// them in arrival order, each with the whole backend (the GPU's filters and all --cpu host threads: two searches at
// once would only interleave on them); a search whose client has gone away in the meantime is skipped.
#include <sys/stat.h>
#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "run.hpp"

namespace hmmsearch {

using DaemonReply = std::vector<std::string>;
DaemonReply search_succeeded(RunOutputs out);
DaemonReply search_failed(const std::string& message);

// A request checked and ready to run: the search, which the worker runs when its turn comes.
using DaemonSearch = std::function<DaemonReply()>;
// Checks a request of one program (the whole request, its protocol string already checked) and returns its search;
// throws UsageError or another exception, whose message goes back to the client, for a request that fails before
// its search.
using DaemonProgram = std::function<DaemonSearch(const std::vector<std::string>& request)>;

// A file the daemon loaded, and the state it was in then, to tell whether a client's name still means it.
struct LoadedFile {
  std::string path;       // as given on the daemon's command line
  std::string canonical;  // its realpath
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  timespec modified{};
};

// Throws InputError when path cannot be opened.
LoadedFile identify_loaded_file(const std::string& path);

// The index in `files` of the file that a client's `name` (relative names resolved in client_dir) names, matched by
// canonical path, so that "db", "./db", "/abs/db" and a symbolic link to it all find it. Throws InputError for a
// name that is none of them ("database X is not loaded in the daemon at S; it holds: ...") or one that has changed
// since it was loaded.
std::size_t find_loaded_file(const std::vector<LoadedFile>& files, const std::string& name,
                             const std::string& client_dir, const std::string& socket_path);

// Makes way for a daemon on path: removes a socket file that a daemon left behind, but refuses to take over a live
// one or to remove anything that is not a socket. Called before the databases are loaded, so that a bad path or a
// live daemon fails early.
void clear_socket_path(const std::string& path);

// Listens on socket_path (mode 0600), prints "<log_name>: ready on <socket_path>" and serves the requests of the
// programs given (by the name a request carries) until SIGTERM or SIGINT; then answers the connections still open
// with an error, lets the running search finish, removes the socket file and returns. CUDP_DAEMON_REQUEST_TIMEOUT
// (seconds, default 60) bounds the time a client may take to send its request.
void serve_requests(const std::string& socket_path, const std::map<std::string, DaemonProgram>& programs,
                    const std::string& log_name);

}  // namespace hmmsearch
