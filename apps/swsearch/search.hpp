#pragma once
// cudp-swsearch's run, stage by stage: the inputs read (this process's shard of the database under mpirun), every
// query scored against the database (scoring.cpp: the front door, on the GPU or the host), each query's best hits
// aligned and formatted, the processes' hits merged, the report written.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <cudp/bio/karlin_altschul.hpp>
#include <cudp/io/database_file.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/scorer.hpp>

#include "backend.hpp"
#include "kit/ranked_records.hpp"
#include "kit/tool.hpp"
#include "options.hpp"

namespace swsearch {

struct Inputs {
  cudp::io::SubstitutionMatrix matrix;
  cudp::io::SequenceSet queries, db;
  cudp::io::DatabasePart part;  // under mpirun, this process's shard of the database
  std::optional<cudp::bio::KarlinAltschul> ka;  // the published gapped parameters, when the costs have them
  int threads = 1;
};

// Reads the matrix, the queries and (this process's shard of) the database.
Inputs load_inputs(const Options& o, const cudp::apps::MpiWorld& world);

// Each query's best hits (score down, then database order), aligned, checked against their scores and formatted as
// --format asks; grouped by query, their order the place in the whole database.
std::vector<cudp::apps::RankedRecord> hit_records(const Options& o, const Inputs& in, const ScoreTable& table);

// What the text format's summary says of a run, gathered from every process.
struct RunSummary {
  std::string where;  // the backend
  int processes = 1;
  int narrow_bits = 0;
  std::uint64_t cells = 0, rescored_pairs = 0;
  double read_seconds = 0, start_seconds = 0, score_seconds = 0, report_seconds = 0;
  double setup_seconds = 0, prepare_seconds = 0, sort_seconds = 0, pack_seconds = 0, upload_seconds = 0;
  double kernel_seconds = 0;
  bool cuda = false;
};

// The merged hits in the chosen format (with the text format's summary), to standard output or --out.
void write_report(const Options& o, const Inputs& in, const std::vector<cudp::apps::RankedRecord>& records,
                  const RunSummary& summary);

// The whole run; the exit status.
int run(const Options& o, const cudp::apps::ToolContext& tool);

}  // namespace swsearch
