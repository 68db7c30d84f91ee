// cudp-swsearch: Smith-Waterman (affine gaps) search of protein queries against a protein database.
#include <cstdio>

#include "kit/tool.hpp"
#include "options.hpp"
#include "search.hpp"

int main(int argc, char** argv) {
  return cudp::apps::run_tool(argc, argv, {"cudp-swsearch"}, [&](const cudp::apps::ToolContext& tool) {
    const std::optional<swsearch::Options> options = swsearch::parse_options(argc, argv);
    if (!options) {
      std::fputs(swsearch::usage_text(), stdout);
      return 0;
    }
    return swsearch::run(*options, tool);
  });
}
