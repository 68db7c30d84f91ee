// cudp-msa: ClustalW 2.1's progressive multiple alignment (pairwise distances, guide tree, profile alignment), with
// the .aln and .dnd clustalw writes, byte for byte.
#include "kit/tool.hpp"
#include "options.hpp"
#include "run.hpp"

int main(int argc, char** argv) {
  return cudp::apps::run_tool(argc, argv, {"cudp-msa"}, msa_app::parse_args, msa_app::kUsage, msa_app::run);
}
