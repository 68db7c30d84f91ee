// cudp-phmmer: HMMER 3.3.2 phmmer on cudp: each protein sequence of <seqfile> made into a profile HMM as phmmer makes
// it (cudp/hmmer/single_sequence_model.hpp), then searched against <seqdb> with cudp-hmmsearch's pipeline, backends
// and output formats; what differs from hmmsearch's outputs (the header, "Query: name [L=n]", the program's name) is
// phmmer's.
#include <cstdio>

#include "hmmer/tools.hpp"
#include "kit/tool.hpp"

int main(int argc, char** argv) {
  // Usage errors exit with status 1, as HMMER's do.
  return cudp::apps::run_tool(argc, argv, {"cudp-phmmer", 1}, [&](const cudp::apps::ToolContext& tool) {
    const auto options = phmmer::parse_options(argc, argv);
    if (!options) {
      std::fputs(phmmer::usage_text(), stdout);
      return 0;
    }
    return phmmer::run(*options, tool, argc, argv);
  });
}
