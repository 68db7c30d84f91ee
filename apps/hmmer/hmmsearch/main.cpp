// cudp-hmmsearch: HMMER 3.3.2 hmmsearch on cudp: every profile of an HMM file against every sequence of a database,
// with hmmsearch's pipeline, scores, thresholds and output formats (main text output, --tblout, --domtblout).
// With --daemon it keeps a database resident and serves searches that clients send with --connect (daemon.hpp).
#include "hmmer/tools.hpp"
#include "kit/tool.hpp"

int main(int argc, char** argv) {
  // Usage errors exit with status 1, as HMMER's do.
  return cudp::apps::run_tool(argc, argv, {"cudp-hmmsearch", 1}, hmmsearch::parse_options, hmmsearch::usage_text(),
                              hmmsearch::run);
}
