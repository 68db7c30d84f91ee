#pragma once
// cudp-hmmsearch with resident databases, as HMMER's hmmpgmd keeps them: a one-shot run spends most of a
// single-model search starting CUDA (a few tenths of a second, and as much again tearing it down at exit) and
// reading the database, so a daemon does both once and serves every later search from memory and the GPU.
//
// The daemon holds one or more sequence databases (cudp-makedb files) and listens on a Unix socket that only its
// user may open (mode 0600). Its clients are cudp-hmmsearch --connect and cudp-phmmer --connect, any number at once.
// A client sends the protocol version, its program, its working directory, the text of its query file (models, or
// phmmer's query sequences) and its command line (daemon_protocol.hpp has the wire format, "request 3"); the daemon
// answers with the exit status, the error message if any, and the output texts, which the client writes itself, all
// or nothing, as a one-shot run would. A client never starts CUDA. How the daemon serves several clients (a thread
// per connection, one queue of searches) is daemon_server.hpp's; cudp-hmmscan's daemon of profile databases
// (apps/hmmer/scan_daemon.hpp) is the same server with another program.
#include <string>

#include "options.hpp"

namespace hmmsearch {

// --daemon <socket> <seqdb>...: loads each database (a cudp-makedb file) and starts the backend for it, then serves
// requests until SIGTERM or SIGINT; the socket file is removed on the way out. Returns the exit status.
int serve(const Options& o);

// --connect <socket>: runs the search in the daemon and writes its outputs. `current_dir` resolves the client's
// relative paths in the daemon. Returns the exit status the search would have had in a one-shot run.
int search_in_daemon(const Options& o, const std::string& current_dir);

}  // namespace hmmsearch
