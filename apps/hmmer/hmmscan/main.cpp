// cudp-hmmscan: HMMER 3.3.2 hmmscan on cudp: every sequence of <seqfile> against every profile of <hmmdb>, with
// hmmscan's outputs. A (model, sequence) comparison is the same in hmmscan as in hmmsearch (the profile's length
// model set to the sequence's length, the same filters, scores and domains), so each model runs over all the query
// sequences with cudp-hmmsearch's pipeline and backends (the sequences are the searched "database", which keeps a
// GPU busy), and the hits are then regrouped by query sequence and reported with hmmscan's roles: the query is the
// sequence, the targets are the models, Z is the number of models.
#include "hmmer/tools.hpp"
#include "kit/tool.hpp"

int main(int argc, char** argv) {
  // Usage errors exit with status 1, as HMMER's do.
  return cudp::apps::run_tool(argc, argv, {"cudp-hmmscan", 1}, hmmscan::parse_options, hmmscan::usage_text(),
                              [&](const hmmscan::Options& options, const cudp::apps::ToolContext& tool) {
                                return hmmscan::run(options, tool, argc, argv);
                              });
}
