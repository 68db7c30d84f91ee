// cudp-swsearch: Smith-Waterman (affine gaps) search of protein queries against a protein database.
#include "kit/tool.hpp"
#include "options.hpp"
#include "search.hpp"

int main(int argc, char** argv) {
  return cudp::apps::run_tool(argc, argv, {"cudp-swsearch"}, swsearch::parse_options, swsearch::usage_text(),
                              swsearch::run);
}
