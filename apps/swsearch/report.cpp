#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <cudp/bio/alphabet.hpp>

#include "kit/blast_numbers.hpp"
#include "search.hpp"

namespace swsearch {
namespace {

// A hit's alignment as BLAST shows one: 60 columns a block, the query above, the target below, and between them the
// residue where both agree, '+' where they score above 0.
template <class Matrix>
std::string pairwise_text(const cudp::align::Alignment& a, const std::uint8_t* query, const std::uint8_t* target,
                          const Matrix& matrix, const cudp::bio::Alphabet& alphabet, const cudp::align::AlignmentCounts& c) {
  std::string top, middle, bottom;
  int q = a.query_begin, t = a.target_begin;
  for (const cudp::align::EditRun& run : a.edits)
    for (int k = 0; k < run.length; ++k) {
      const bool takes_query = run.op != cudp::align::EditOp::Deletion;
      const bool takes_target = run.op != cudp::align::EditOp::Insertion;
      top += takes_query ? alphabet.decode(query[q]) : '-';
      bottom += takes_target ? alphabet.decode(target[t]) : '-';
      middle += !(takes_query && takes_target) ? ' '
                : query[q] == target[t]        ? alphabet.decode(query[q])
                : matrix(target[t], query[q]) > 0 ? '+'
                                                  : ' ';
      q += takes_query;
      t += takes_target;
    }
  std::ostringstream out;
  char line[128];
  std::snprintf(line, sizeof line, "    Identities = %d/%d, Positives = %d/%d, Gaps = %d/%d\n", c.identities, c.length,
                c.positives, c.length, c.gaps, c.length);
  out << line;
  int qpos = a.query_begin, tpos = a.target_begin;
  for (std::size_t from = 0; from < top.size(); from += 60) {
    const std::string qs = top.substr(from, 60), ms = middle.substr(from, 60), ts = bottom.substr(from, 60);
    const int qn = static_cast<int>(qs.size() - std::count(qs.begin(), qs.end(), '-'));
    const int tn = static_cast<int>(ts.size() - std::count(ts.begin(), ts.end(), '-'));
    std::snprintf(line, sizeof line, "    Query  %-6d ", qpos + 1);
    out << '\n' << line << qs << ' ' << qpos + qn << '\n' << "                  " << ms << '\n';
    std::snprintf(line, sizeof line, "    Sbjct  %-6d ", tpos + 1);
    out << line << ts << ' ' << tpos + tn << '\n';
    qpos += qn;
    tpos += tn;
  }
  return out.str();
}

std::string format_evalue(double e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, e < 1e-3 || e >= 1e5 ? "%.2e" : "%.3g", e);
  return buf;
}

}  // namespace

std::string format_hit(const Options& o, const Inputs& in, const Hit& hit) {
  const cudp::io::SequenceSet &queries = in.queries, &db = in.db;
  const std::size_t q = hit.query, t = hit.target;
  const cudp::align::Alignment& a = hit.alignment;
  const std::int32_t score = static_cast<std::int32_t>(a.score);  // the search's score (hit_records checks it)
  const bool empty = a.edits.empty();
  // 1-based inclusive coordinates; all 0 for an empty alignment.
  const long qs = empty ? 0 : a.query_begin + 1, qe = empty ? 0 : a.query_end;
  const long ts = empty ? 0 : a.target_begin + 1, te = empty ? 0 : a.target_end;
  const auto counts = cudp::align::counts_of(a, queries.data(q), static_cast<int>(queries.length(q)), db.data(t),
                                             static_cast<int>(db.length(t)), in.matrix);
  char pident[16];
  std::snprintf(pident, sizeof pident, "%.3f", counts.length ? 100.0 * counts.identities / counts.length : 0.0);
  // The TSV and text formats print one decimal and %.3g; tabular rounds as BLAST+ does.
  std::string bits = "-", evalue = "-", blast_bits = "-", blast_evalue = "-";
  if (in.ka) {
    const double bit_score = cudp::bio::bit_score(score, *in.ka);
    const double e_value = cudp::bio::evalue(score, queries.length(q), in.part.residues, *in.ka);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", bit_score);
    bits = buf;
    evalue = format_evalue(e_value);
    blast_bits = cudp::apps::blast_bits(bit_score);
    blast_evalue = cudp::apps::blast_evalue(e_value);
  }
  const std::string cigar = o.alignments ? "\t" + (empty ? std::string("*") : cudp::align::cigar(a)) : "";
  std::ostringstream out;
  if (o.format == "tsv") {
    out << queries.names[q] << '\t' << db.names[t] << '\t' << score << '\t' << bits << '\t' << evalue << '\t' << qs
        << '\t' << qe << '\t' << ts << '\t' << te << '\t' << pident << '\t' << counts.length << '\t'
        << counts.mismatches << '\t' << counts.gap_opens << cigar << '\n';
  } else if (o.format == "tabular") {
    out << queries.names[q] << '\t' << db.names[t] << '\t' << pident << '\t' << counts.length << '\t'
        << counts.mismatches << '\t' << counts.gap_opens << '\t' << qs << '\t' << qe << '\t' << ts << '\t' << te
        << '\t' << blast_evalue << '\t' << blast_bits << cigar << '\n';
  } else {
    char line[160];
    std::snprintf(line, sizeof line, "  %5d  %6s  %11s  %5ld-%-7ld  %5ld-%-7ld  ", score, bits.c_str(),
                  evalue.c_str(), qs, qe, ts, te);
    out << line << db.names[t] << '\n';
    if (o.alignments && !empty)
      out << pairwise_text(a, queries.data(q), db.data(t), in.matrix, cudp::bio::protein(), counts) << '\n';
  }
  return out.str();
}

std::string report_text(const Options& o, const Inputs& in, const std::vector<cudp::apps::RankedRecord>& records,
                        const RunSummary& summary) {
  const cudp::io::SequenceSet& queries = in.queries;
  std::ostringstream out;
  if (o.format == "tsv")
    out << "#query\ttarget\tscore\tbits\tevalue\tqstart\tqend\ttstart\ttend\tpident\tlength\tmismatch\tgapopen"
        << (o.alignments ? "\tcigar\n" : "\n");
  std::size_t next_record = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    if (o.format == "text")
      out << "Query: " << queries.names[q] << " (" << queries.length(q) << " aa)\n"
          << "  score    bits      E-value  q-range        t-range        target\n";
    for (; next_record < records.size() && records[next_record].group == q; ++next_record)
      out << records[next_record].text;
    if (o.format == "text") out << '\n';
  }
  if (o.format != "text") return out.str();
  const double cells = static_cast<double>(summary.cells);
  out << "# backend: " << summary.where
      << (summary.processes > 1 ? " (" + std::to_string(summary.processes) + " processes)" : "") << "\n"
      << "# matrix " << in.matrix.name << ", gap open " << o.gap_open << ", extend " << o.gap_extend << "\n"
      << "# queries " << queries.size() << ", database " << in.part.sequences << " sequences, " << in.part.residues
      << " residues\n"
      << "# cells " << summary.cells << "; rescored after " << summary.narrow_bits
      << "-bit overflow: " << summary.rescored_pairs << " (query, target) pairs\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "# time: read %.3f s, ", summary.read_seconds);
  out << buf;
  if (summary.cuda) {
    std::snprintf(buf, sizeof buf, "CUDA started %.3f s after it, ", summary.start_seconds);
    out << buf;
  }
  std::snprintf(buf, sizeof buf, "score %.3f s, report %.3f s; %.1f GCUPS (scoring wall time)", summary.score_seconds,
                summary.report_seconds, cells / summary.score_seconds / 1e9);
  out << buf;
  if (summary.kernel_seconds > 0) {
    std::snprintf(buf, sizeof buf,
                  ", %.1f GCUPS (kernels); database packed and uploaded in %.3f s (scorer prepared %.3f, sorted "
                  "%.3f, packed %.3f, uploaded %.3f)",
                  cells / summary.kernel_seconds / 1e9, summary.setup_seconds, summary.prepare_seconds,
                  summary.sort_seconds, summary.pack_seconds, summary.upload_seconds);
    out << buf;
  }
  out << "\n";
  return out.str();
}

}  // namespace swsearch
