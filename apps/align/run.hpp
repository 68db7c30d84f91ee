#pragma once
// cudp-align's run: options in, the exit status out (run.cpp says how).
#include "kit/tool.hpp"
#include "options.hpp"

namespace align_app {

int run(const Options& o, const cudp::apps::ToolContext& tool);

}  // namespace align_app
