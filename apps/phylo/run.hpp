#pragma once
// cudp-phylo evaluate: options in, the report and files out (run.cpp says how); the exit status.
#include "kit/tool.hpp"
#include "options.hpp"

namespace phylo_app {

int run(const Options& o, const cudp::apps::ToolContext& tool);

}  // namespace phylo_app
