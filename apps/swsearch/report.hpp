#pragma once
// cudp-swsearch's output formats: a hit as a TSV, BLAST tabular or text line (with its alignment where asked), and
// the whole report with the text format's summary.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cudp/align/alignment.hpp>

#include "kit/ranked_records.hpp"
#include "options.hpp"

namespace swsearch {

struct Inputs;
struct RunSummary;

// A reported hit: a query, a target of this process's database and their local alignment.
struct Hit {
  std::size_t query, target;
  cudp::align::Alignment alignment;
};

// The hit's text in the chosen format.
std::string format_hit(const Options& o, const Inputs& in, const Hit& hit);

// The header, every query's hits and, in the text format, the run's summary.
std::string report_text(const Options& o, const Inputs& in, const std::vector<cudp::apps::RankedRecord>& records,
                        const RunSummary& summary);

}  // namespace swsearch
