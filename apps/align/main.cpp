// cudp-align: optimal pairwise alignments (affine gaps; global, local or semi-global), printed in full.
#include <cstdio>

#include <cudp/host/keep_freed_memory.hpp>

#include "kit/tool.hpp"
#include "options.hpp"
#include "run.hpp"

int main(int argc, char** argv) {
  cudp::host::keep_freed_memory();
  return cudp::apps::run_tool(argc, argv, {"cudp-align"}, [&](const cudp::apps::ToolContext& tool) {
    const std::optional<align_app::Options> options = align_app::parse_args(argc, argv);
    if (!options) {
      std::fputs(align_app::kUsage, stdout);
      return 0;
    }
    return align_app::run(*options, tool);
  });
}
