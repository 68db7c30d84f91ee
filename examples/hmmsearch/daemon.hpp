#pragma once
// cudp-hmmsearch with a resident database, as HMMER's hmmpgmd keeps one: a one-shot run spends most of a
// single-model search starting CUDA (a few tenths of a second, and as much again tearing it down at exit) and
// reading the database, so a daemon does both once and serves every later search from memory and the GPU.
//
// The daemon listens on a Unix socket that only its user may open (mode 0600). A client (--connect) sends its
// command line, its working directory and the text of its model file; the daemon answers with the exit status, the
// error message if any, and the output texts, which the client writes itself, all or nothing, as a one-shot run
// would. A client never starts CUDA.
#include <string>

#include "options.hpp"

namespace hmmsearch {

// --daemon <socket> <seqdb>: loads the database (a cudp-makedb file), starts the backend, then answers requests one
// at a time until SIGTERM or SIGINT; the socket file is removed on the way out. Returns the exit status.
int serve(const Options& o);

// --connect <socket>: runs the search in the daemon and writes its outputs. `current_dir` resolves the client's
// relative paths in the daemon. Returns the exit status the search would have had in a one-shot run.
int search_in_daemon(const Options& o, const std::string& current_dir);

}  // namespace hmmsearch
