#pragma once
// cudp-hmmscan with resident profile databases: the daemon reads each <hmmdb> once (with the parallel reader of
// cudp/hmmer/hmm_file.hpp; a large one, Pfam, takes seconds to read where a proteome's scan takes less) and starts
// CUDA once, then serves the scans that clients send with --connect. The server, its protocol and its guarantees
// (several clients, one search at a time, bad clients answered alone) are cudp-hmmsearch's daemon's
// (apps/hmmer/daemon_server.hpp, daemon_protocol.hpp): the request names the program "hmmscan" and carries
// the text of the client's <seqfile>.
#include <functional>
#include <vector>

#include <cudp/hmmer/hmm_file.hpp>

#include "run.hpp"
#include "scan_options.hpp"

namespace hmmscan {

// One scan: every model against every sequence of the searcher's database (the query sequences), in hmmscan's
// outputs (main.cpp's scan()).
using ScanFunction = std::function<hmmsearch::RunOutputs(
    const Options& p, const std::vector<cudp::hmmer::HmmModel>& models, const hmmsearch::Searcher& searcher)>;

// --daemon <socket> <hmmdb>...: serves until SIGTERM or SIGINT. Returns the exit status.
int serve(const Options& p, const ScanFunction& scan);

// --connect <socket>: runs the scan in the daemon and writes its outputs. Returns the exit status the scan would
// have had in a one-shot run.
int scan_in_daemon(const Options& p, int argc, const char* const* argv, const std::string& current_dir);

}  // namespace hmmscan
