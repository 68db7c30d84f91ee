// cudp-phylo: the log-likelihood of a tree under a substitution model (Felsenstein's pruning), on the GPU or the
// host, with the numbers IQ-TREE, RAxML and PhyML print for the same fixed parameters.
#include <cstdio>

#include "kit/tool.hpp"
#include "options.hpp"
#include "run.hpp"

int main(int argc, char** argv) {
  return cudp::apps::run_tool(argc, argv, {"cudp-phylo"}, [&](const cudp::apps::ToolContext& tool) {
    const std::optional<phylo_app::Options> options = phylo_app::parse_args(argc, argv);
    if (!options) {
      std::fputs(phylo_app::kUsage, stdout);
      return 0;
    }
    return phylo_app::run(*options, cudp::apps::show_progress(tool.world));
  });
}
