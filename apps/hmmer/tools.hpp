#pragma once
/// \file
/// The three HMMER tools' runs, each from its checked options to its exit status (the mains hand them to the kit's
/// run_tool): hmmsearch's (search_run.cpp), phmmer's (phmmer_run.cpp) and hmmscan's (scan_run.cpp).
#include "kit/tool.hpp"
#include "options.hpp"
#include "phmmer_options.hpp"
#include "scan_options.hpp"

namespace hmmsearch {
/// cudp-hmmsearch's run: a one-shot search, a daemon (--daemon) or a client (--connect).
int run(const Options& o, const cudp::apps::ToolContext& tool);
}  // namespace hmmsearch

namespace phmmer {
/// `argc`/`argv`: the command line, which --connect hands to the daemon.
int run(const Options& p, const cudp::apps::ToolContext& tool, int argc, const char* const* argv);
}  // namespace phmmer

namespace hmmscan {
/// `argc`/`argv`: the command line, which --connect hands to the daemon.
int run(const Options& p, const cudp::apps::ToolContext& tool, int argc, const char* const* argv);
}  // namespace hmmscan
