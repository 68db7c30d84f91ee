// cudp-phylo: the log-likelihood of a tree under a substitution model (Felsenstein's pruning), on the GPU or the
// host, with the numbers IQ-TREE, RAxML and PhyML print for the same fixed parameters.
#include "kit/tool.hpp"
#include "options.hpp"
#include "run.hpp"

int main(int argc, char** argv) {
  return cudp::apps::run_tool(argc, argv, {"cudp-phylo"}, phylo_app::parse_args, phylo_app::kUsage, phylo_app::run);
}
