#pragma once
// cudp-msa's run: options in, the alignment and guide tree out (run.cpp says how); the exit status.
#include "kit/tool.hpp"
#include "options.hpp"

namespace msa_app {

int run(const Options& o, const cudp::apps::ToolContext& tool);

}  // namespace msa_app
