#pragma once
// cudp-align's output formats: EMBOSS pair (as needle and water print it), SAM, BLAST-style tabular, and plain
// scores. Each writer takes one aligned pair; nothing here aligns or reads files, so the formats are tested on
// hand-made alignments (tests/apps/align_report_test.cpp).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <cudp/align/alignment.hpp>
#include <cudp/bio/alphabet.hpp>
#include <cudp/bio/karlin_altschul.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/recurrences/gotoh.hpp>

#include "kit/blast_numbers.hpp"

namespace align_app {

using cudp::align::Alignment;
using cudp::align::EditOp;
using cudp::align::EditRun;
using cudp::recurrences::AlignMode;
using cudp::recurrences::GapCosts;

struct Sequence {
  std::string name;
  const std::uint8_t* codes = nullptr;
  int length = 0;
};

// What every record of a run shares.
struct ReportContext {
  const cudp::bio::Alphabet* alphabet = nullptr;
  const cudp::io::SubstitutionMatrix* matrix = nullptr;
  std::string matrix_name;  // as printed: the built-in's name, the file's path, or "match/mismatch +2/-3"
  GapCosts gaps;
  AlignMode mode = AlignMode::Global;
};

inline std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// ---------------------------------------------------------------------------------------------------------------
// EMBOSS pair

// The report's opening block, once per output. EMBOSS also prints a run date; it is left out so that outputs can
// be compared byte for byte.
inline std::string pair_report_header(const std::vector<std::string>& args, const std::string& report_file) {
  std::string s = "########################################\n# Program: cudp-align\n# Commandline: cudp-align\n";
  for (std::size_t a = 0; a < args.size(); ++a) {
    // One option per line, with its value, as EMBOSS lists its qualifiers.
    std::string line = args[a];
    if (args[a].size() > 2 && args[a].compare(0, 2, "--") == 0 && a + 1 < args.size() &&
        !(args[a + 1].size() > 2 && args[a + 1].compare(0, 2, "--") == 0))
      line += " " + args[++a];
    s += "#    " + line + "\n";
  }
  s += "# Align_format: pair\n# Report_file: " + report_file + "\n";
  s += "# Gap costs: a gap of length k costs Gap_penalty + k * Extend_penalty (BLAST's convention; EMBOSS's\n"
       "#   -gapopen is Gap_penalty + Extend_penalty, its -gapextend Extend_penalty)\n";
  s += "########################################\n";
  return s;
}

inline std::string pair_report_footer() {
  return "#---------------------------------------\n#---------------------------------------\n";
}

struct PairColumns {
  std::string top, middle, bottom;  // query row, match line, target row
  int query_offset = 0, target_offset = 0;  // residues before the first column
  int identities = 0, similarities = 0, gaps = 0;
};

// The columns pair prints: for local alignments the aligned region (water); otherwise both sequences whole, the
// unaligned ends of a semi-global alignment shown against end gaps (needle).
inline PairColumns pair_columns(const ReportContext& ctx, const Sequence& q, const Sequence& t, const Alignment& a) {
  std::vector<EditRun> runs;
  PairColumns c;
  if (ctx.mode == AlignMode::Local) {
    runs = a.edits;
    c.query_offset = a.query_begin;
    c.target_offset = a.target_begin;
  } else {
    cudp::align::append(runs, EditOp::Insertion, a.query_begin);
    cudp::align::append(runs, EditOp::Deletion, a.target_begin);
    for (const EditRun& r : a.edits) cudp::align::append(runs, r.op, r.length);
    cudp::align::append(runs, EditOp::Insertion, q.length - a.query_end);
    cudp::align::append(runs, EditOp::Deletion, t.length - a.target_end);
  }
  int i = c.query_offset, j = c.target_offset;
  for (const EditRun& r : runs) {
    for (int k = 0; k < r.length; ++k) {
      if (r.op == EditOp::Insertion) {
        c.top += ctx.alphabet->decode(q.codes[i++]);
        c.middle += ' ';
        c.bottom += '-';
        ++c.gaps;
      } else if (r.op == EditOp::Deletion) {
        c.top += '-';
        c.middle += ' ';
        c.bottom += ctx.alphabet->decode(t.codes[j++]);
        ++c.gaps;
      } else {
        const std::uint8_t qc = q.codes[i++], tc = t.codes[j++];
        c.top += ctx.alphabet->decode(qc);
        c.bottom += ctx.alphabet->decode(tc);
        // EMBOSS's marks: a pair scoring above 0 is '|' when identical, ':' otherwise; a pair scoring 0 or less is
        // '.', or ' ' when identical (N against N in NUC.4.4). Similarity counts the pairs scoring above 0.
        const bool same = qc == tc, positive = (*ctx.matrix)(tc, qc) > 0;
        c.middle += positive ? (same ? '|' : ':') : (same ? ' ' : '.');
        c.identities += same;
        c.similarities += positive;
      }
    }
  }
  return c;
}

inline void write_pair(std::ostream& out, const ReportContext& ctx, const Sequence& q, const Sequence& t,
                       const Alignment& a) {
  const PairColumns c = pair_columns(ctx, q, t, a);
  const int length = static_cast<int>(c.top.size());
  const auto percent = [&](int n) { return format("%4.1f", length ? 100.0 * n / length : 0.0); };
  char line[256];
  out << "#=======================================\n#\n# Aligned_sequences: 2\n# 1: " << q.name << "\n# 2: " << t.name
      << "\n# Matrix: " << ctx.matrix_name << "\n# Gap_penalty: " << format("%.1f", ctx.gaps.open)
      << "\n# Extend_penalty: " << format("%.1f", ctx.gaps.extend) << "\n#\n# Length: " << length << "\n";
  std::snprintf(line, sizeof line, "# Identity: %7d/%d (%s%%)\n", c.identities, length, percent(c.identities).c_str());
  out << line;
  std::snprintf(line, sizeof line, "# Similarity: %5d/%d (%s%%)\n", c.similarities, length,
                percent(c.similarities).c_str());
  out << line;
  std::snprintf(line, sizeof line, "# Gaps: %11d/%d (%s%%)\n", c.gaps, length, percent(c.gaps).c_str());
  out << line;
  out << "# Score: " << format("%.1f", static_cast<double>(a.score)) << "\n# \n#\n#=======================================\n\n";

  // Blocks of 50 columns. A row's start is the position of its first residue; a row of gaps only shows the last
  // residue printed before it (0 before any), as its end does.
  constexpr int width = 50;
  int done_q = c.query_offset, done_t = c.target_offset;
  const auto row = [&](const std::string& name, const std::string& text, int& done) {
    const int residues = static_cast<int>(std::count_if(text.begin(), text.end(), [](char ch) { return ch != '-'; }));
    const int start = residues ? done + 1 : done;
    done += residues;
    std::snprintf(line, sizeof line, "%-13.13s %6d ", name.c_str(), start);
    out << line << text;
    std::snprintf(line, sizeof line, " %6d\n", done);
    out << line;
  };
  for (int b = 0; b < length; b += width) {
    const int w = std::min(width, length - b);
    row(q.name, c.top.substr(b, w), done_q);
    out << std::string(21, ' ') << c.middle.substr(b, w) << "\n";
    row(t.name, c.bottom.substr(b, w), done_t);
    out << "\n";
  }
  out << "\n";
}

// ---------------------------------------------------------------------------------------------------------------
// SAM

inline void write_sam_header(std::ostream& out, const std::vector<Sequence>& targets,
                             const std::vector<std::string>& args) {
  out << "@HD\tVN:1.6\tSO:unsorted\n";
  for (const Sequence& t : targets) out << "@SQ\tSN:" << t.name << "\tLN:" << t.length << "\n";
  out << "@PG\tID:cudp-align\tPN:cudp-align\tCL:cudp-align";
  for (const std::string& a : args) out << ' ' << a;
  out << "\n";
}

struct CigarOp {
  char op;  // = X I D S
  int length;
};

struct SamAlignment {
  bool mapped = false;
  int pos = 0;                 // 1-based position of the first target residue the CIGAR covers
  std::vector<CigarOp> cigar;  // with S runs for unaligned query ends
  int edit_distance = 0;       // NM: mismatches, inserted and deleted residues
};

// Target residues against gaps at either end of the alignment (global and semi-global modes) would make a CIGAR
// start or end with D; they are left out and POS moved instead, so that the CIGAR begins and ends on the query.
// Query residues outside the alignment are soft-clipped.
inline SamAlignment sam_alignment(const Sequence& q, const Alignment& a) {
  SamAlignment s;
  std::size_t first = 0, last = a.edits.size();
  int pos = a.target_begin;
  while (first < last && a.edits[first].op == EditOp::Deletion) pos += a.edits[first++].length;
  while (last > first && a.edits[last - 1].op == EditOp::Deletion) --last;
  for (std::size_t r = first; r < last; ++r)
    s.mapped |= a.edits[r].op == EditOp::Match || a.edits[r].op == EditOp::Mismatch;
  if (!s.mapped) return s;
  s.pos = pos + 1;
  if (a.query_begin > 0) s.cigar.push_back({'S', a.query_begin});
  for (std::size_t r = first; r < last; ++r) {
    s.cigar.push_back({static_cast<char>(a.edits[r].op), a.edits[r].length});
    if (a.edits[r].op != EditOp::Match) s.edit_distance += a.edits[r].length;
  }
  if (a.query_end < q.length) s.cigar.push_back({'S', q.length - a.query_end});
  return s;
}

// secondary: this query has a better (or earlier equal) record against another target (flag 256).
inline void write_sam(std::ostream& out, const ReportContext& ctx, const Sequence& q, const Sequence& t,
                      const Alignment& a, bool secondary) {
  const SamAlignment s = sam_alignment(q, a);
  std::string seq(static_cast<std::size_t>(q.length), ' ');
  for (int i = 0; i < q.length; ++i) seq[static_cast<std::size_t>(i)] = ctx.alphabet->decode(q.codes[i]);
  if (!s.mapped) {
    out << q.name << "\t4\t*\t0\t0\t*\t*\t0\t0\t" << seq << "\t*\tAS:i:" << a.score << "\n";
    return;
  }
  std::string cigar;
  cigar.reserve(s.cigar.size() * 4);
  for (const CigarOp& r : s.cigar) cudp::align::append_cigar_op(cigar, r.length, r.op);
  out << q.name << '\t' << (secondary ? 256 : 0) << '\t' << t.name << '\t' << s.pos << "\t255\t" << cigar
      << "\t*\t0\t0\t" << seq << "\t*\tAS:i:" << a.score << "\tNM:i:" << s.edit_distance << "\n";
}

// ---------------------------------------------------------------------------------------------------------------
// Tabular (BLAST -outfmt 6, then score and CIGAR)

using cudp::apps::blast_bits;
using cudp::apps::blast_evalue;

// ka: gapped Karlin-Altschul parameters of the matrix and gap costs, for local alignments; the E-value is that of
// this one comparison (search space query length x target length).
inline void write_tabular(std::ostream& out, const ReportContext& ctx, const Sequence& q, const Sequence& t,
                          const Alignment& a, const std::optional<cudp::bio::KarlinAltschul>& ka) {
  const auto c = cudp::align::counts_of(a, q.codes, q.length, t.codes, t.length, *ctx.matrix);
  std::string evalue = "-", bits = "-";
  if (ka && ctx.mode == AlignMode::Local) {
    evalue = blast_evalue(cudp::bio::evalue(static_cast<int>(a.score), static_cast<std::uint64_t>(q.length),
                                            static_cast<std::uint64_t>(t.length), *ka));
    bits = blast_bits(cudp::bio::bit_score(static_cast<int>(a.score), *ka));
  }
  const bool empty = a.edits.empty();
  const std::string cigar = empty ? "*" : cudp::align::cigar(a);
  out << q.name << '\t' << t.name << '\t' << format("%.3f", c.length ? 100.0 * c.identities / c.length : 0.0) << '\t'
      << c.length << '\t' << c.mismatches << '\t' << c.gap_opens << '\t' << (empty ? 0 : a.query_begin + 1) << '\t'
      << (empty ? 0 : a.query_end) << '\t' << (empty ? 0 : a.target_begin + 1) << '\t' << (empty ? 0 : a.target_end)
      << '\t' << evalue << '\t' << bits << '\t' << a.score << '\t' << cigar << "\n";
}

inline void write_score(std::ostream& out, const Sequence& q, const Sequence& t, const Alignment& a) {
  out << q.name << '\t' << t.name << '\t' << a.score << "\n";
}

}  // namespace align_app
