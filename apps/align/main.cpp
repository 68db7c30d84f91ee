// cudp-align: optimal pairwise alignments (affine gaps; global, local or semi-global), printed in full.
#include <cudp/host/keep_freed_memory.hpp>

#include "kit/tool.hpp"
#include "options.hpp"
#include "run.hpp"

int main(int argc, char** argv) {
  cudp::host::keep_freed_memory();
  return cudp::apps::run_tool(argc, argv, {"cudp-align"}, align_app::parse_args, align_app::kUsage, align_app::run);
}
