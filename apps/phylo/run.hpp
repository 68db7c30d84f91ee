#pragma once
// cudp-phylo evaluate: options in, the report and files out (run.cpp says how); the exit status.
#include "options.hpp"

namespace phylo_app {

int run(const Options& o, bool progress);

}  // namespace phylo_app
