// cudp-phmmer: HMMER 3.3.2 phmmer on cudp: each protein sequence of <seqfile> made into a profile HMM as phmmer makes
// it (cudp/hmmer/single_sequence_model.hpp), then searched against <seqdb> with cudp-hmmsearch's pipeline, backends
// and output formats; what differs from hmmsearch's outputs (the header, "Query: name [L=n]", the program's name) is
// phmmer's.
#include "hmmer/tools.hpp"
#include "kit/tool.hpp"

int main(int argc, char** argv) {
  // Usage errors exit with status 1, as HMMER's do.
  return cudp::apps::run_tool(argc, argv, {"cudp-phmmer", 1}, phmmer::parse_options, phmmer::usage_text(),
                              [&](const phmmer::Options& options, const cudp::apps::ToolContext& tool) {
                                return phmmer::run(options, tool, argc, argv);
                              });
}
