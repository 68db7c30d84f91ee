#pragma once
// cudp-hmmsearch's reporting: HMMER 3.3.2 hmmsearch's thresholds, hit ranking and output formats, apart from the
// search itself so that they can be tested on made-up hits.
//
// What each piece reproduces (HMMER source file, function):
//   Thresholds, target_reportable ...    p7_pipeline.c  p7_pli_TargetReportable / DomainReportable / ...Includable
//   rank_hits                            p7_pipeline.c  which hits enter the top hits list and their sort key;
//                                        p7_tophits.c   p7_tophits_SortBySortkey (hit_sorter_by_sortkey)
//   apply_thresholds                     p7_tophits.c   p7_tophits_Threshold (domZ, the h74 duplicate workaround)
//   write_header                         hmmsearch.c    output_header (the "# option: value" lines)
//   write_query                          hmmsearch.c    the per-query block; p7_tophits_Targets, p7_tophits_Domains,
//                                        p7_pipeline.c  p7_pli_Statistics
//   write_alignment                      p7_alidisplay.c p7_alidisplay_Print (a domain's alignment display)
//   write_stockholm                      p7_tophits.c   p7_tophits_Alignment (-A), through p7_alidisplay_Backconvert,
//                                        p7_tracealign.c p7_tracealign_Seqs; Easel's Stockholm writer
//   write_tblout / write_domtblout       p7_tophits.c   p7_tophits_TabularTargets / p7_tophits_TabularDomains
//   write_tabular_tail                   p7_tophits.c   p7_tophits_TabularTail
// Numbers are printed with the same printf conversions from values of the same types, so that rounding agrees.
#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <cudp/hmmer/plan7_alignment.hpp>
#include <cudp/hmmer/plan7_hits.hpp>
#include <cudp/host/parallel_for.hpp>

namespace hmmsearch {

using cudp::hmmer::evalue;

constexpr double kLog2R = 1.44269504088896341;  // 1/ln 2: nats to bits (Easel's eslCONST_LOG2R)
constexpr int kTextWidth = 120;                  // hmmsearch's default --textw

// printf appended to a string.
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
inline void appendf(std::string& out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (n > 0) {
    const std::size_t old = out.size();
    out.resize(old + static_cast<std::size_t>(n) + 1);
    std::vsnprintf(&out[old], static_cast<std::size_t>(n) + 1, format, args);
    out.resize(old + static_cast<std::size_t>(n));
  }
  va_end(args);
}

// Reporting and inclusion thresholds (hmmsearch -E/-T, --domE/--domT, --incE/--incT, --incdomE/--incdomT) and the
// search space sizes (-Z, --domZ; unset: the number of targets, and the number of reported targets).
struct Thresholds {
  bool by_E = true;
  double E = 10.0, T = 0.0;
  bool dom_by_E = true;
  double domE = 10.0, domT = 0.0;
  bool inc_by_E = true;
  double incE = 0.01, incT = 0.0;
  bool incdom_by_E = true;
  double incdomE = 0.01, incdomT = 0.0;
  std::optional<double> Z, domZ;
};

// --cut_ga/nc/tc: every threshold from the model's cutoff line (sequence score for reporting and inclusion of
// sequences, domain score for domains), as p7_pli_NewModelThresholds sets them.
inline Thresholds model_cutoff_thresholds(Thresholds t, float sequence, float domain) {
  t.by_E = t.dom_by_E = t.inc_by_E = t.incdom_by_E = false;
  t.T = t.incT = static_cast<double>(sequence);
  t.domT = t.incdomT = static_cast<double>(domain);
  return t;
}

inline bool target_reportable(const Thresholds& t, double Z, float bits, double lnP) {
  return t.by_E ? evalue(lnP, Z) <= t.E : bits >= t.T;
}
inline bool target_includable(const Thresholds& t, double Z, float bits, double lnP) {
  return t.inc_by_E ? evalue(lnP, Z) <= t.incE : bits >= t.incT;
}
inline bool domain_reportable(const Thresholds& t, double domZ, float bits, double lnP) {
  return t.dom_by_E ? evalue(lnP, domZ) <= t.domE : bits >= t.domT;
}
inline bool domain_includable(const Thresholds& t, double domZ, float bits, double lnP) {
  return t.incdom_by_E ? evalue(lnP, domZ) <= t.incdomE : bits >= t.incdomT;
}

// One domain of a hit, as hmmsearch reports it.
using Domain = cudp::hmmer::Plan7DomainHit;

// One target sequence that came through the pipeline with at least one domain: the pipeline's scores (target is
// the index in the database, the order in which the targets were searched) and what the report adds to them.
struct Hit : cudp::hmmer::Plan7SequenceHit {
  std::string name, accession, description;
  std::uint32_t length = 0;
  // hmmscan (QueryReport::scan): the hit is a model, length its M, and these its RF and CS annotation by node.
  std::string reference, structure;
  // Set by rank_hits / apply_thresholds.
  double sortkey = 0;
  int best_domain = 0;
  bool reported = false, included = false;
  int n_reported = 0, n_included = 0;
};

// The numbers of p7_pli_Statistics.
struct PipelineCounts {
  std::uint64_t models = 1, nodes = 0, targets = 0, residues = 0;
  std::uint64_t passed_msv = 0, passed_bias = 0, passed_viterbi = 0, passed_forward = 0;
};

struct QueryReport {
  std::string name, accession, description;  // of the model (hmmscan: of the query sequence)
  int M = 0;                                 // hmmscan: the query sequence's length
  // hmmscan's roles: the query is a sequence, the hits are models (counts.models of them, the search space).
  bool scan = false;
  std::vector<Hit> hits;  // the top hits list, ranked (rank_hits), thresholded (apply_thresholds)
  PipelineCounts counts;
  double F1 = 0.02, F2 = 1e-3, F3 = 1e-5;  // as the pipeline used them (--max sets them to 1)
  double Z = 0, domZ = 0;
  bool Z_from_option = false, domZ_from_option = false;
  double cpu_user = 0, cpu_system = 0, elapsed = 0;  // seconds
  int text_width = kTextWidth;   // --textw; 0 for --notextw (descriptions never cut)
  bool show_accessions = false;  // --acc: a hit's accession, when it has one, instead of its name
  bool show_alignments = false;  // not --noali: each reported domain's alignment (Domain::alignment) is printed
  // The model's RF and CS annotation by node, at [k] for k = 1..M; empty when the model has none.
  std::string reference, structure;
};

inline const std::string& shown_name(const QueryReport& q, const Hit& h) {
  return q.show_accessions && !h.accession.empty() ? h.accession : h.name;
}

// hmmsearch's order for two hits (or domains) with equal sort keys and names, from the alignment of their first
// domain. It was written for nhmmer's two strands: an alignment whose start is not below its end counts as a
// reverse-strand one and goes after the forward ones. hmmsearch has only forward alignments, but a one-residue
// alignment (start == end) falls on the reverse side, so it sorts after every longer one. Then by start; a full tie
// is false both ways, and the callers keep the earlier one first, as glibc's merge-sorting qsort does.
inline bool before_on_tie(int a_from, int a_to, int b_from, int b_to) {
  const bool a_forward = a_from < a_to, b_forward = b_from < b_to;
  if (a_forward != b_forward) return a_forward;
  return a_from < b_from;
}

// The hits that enter hmmsearch's top hits list, in its order. p7_Pipeline adds a hit only when it is reportable
// with the search space counted so far (the targets searched up to and including this one, in a serial run; -Z
// when set), so a few hits that end up unreported still sit in the list and widen its name columns. The sort key
// is -lnP when inclusion goes by E-value, the score otherwise; ties go by name, then by the first domain's
// alignment (before_on_tie), then by database order.
inline std::vector<Hit> rank_hits(std::vector<Hit> candidates, const Thresholds& t) {
  std::vector<Hit> list;
  list.reserve(candidates.size());
  for (Hit& h : candidates) {
    if (h.domains.empty()) continue;
    const double Z_so_far = t.Z ? *t.Z : static_cast<double>(h.target + 1);
    if (!target_reportable(t, Z_so_far, h.bits, h.lnP)) continue;
    h.sortkey = t.inc_by_E ? -h.lnP : static_cast<double>(h.bits);
    h.best_domain = 0;
    for (std::size_t d = 1; d < h.domains.size(); ++d)
      if (h.domains[d].bits > h.domains[static_cast<std::size_t>(h.best_domain)].bits) h.best_domain = static_cast<int>(d);
    list.push_back(std::move(h));
  }
  std::sort(list.begin(), list.end(), [](const Hit& a, const Hit& b) {
    if (a.sortkey != b.sortkey) return a.sortkey > b.sortkey;
    if (const int c = a.name.compare(b.name); c != 0) return c < 0;
    const Domain& da = a.domains[0];
    const Domain& db = b.domains[0];
    if (before_on_tie(da.ali_from, da.ali_to, db.ali_from, db.ali_to)) return true;
    if (before_on_tie(db.ali_from, db.ali_to, da.ali_from, da.ali_to)) return false;
    return a.target < b.target;
  });
  return list;
}

// HMMER bug h74: two envelopes with the same alignment show only the better scoring one.
inline void drop_duplicate_domains(Hit& h) {
  if (h.overlaps == 0) return;
  for (std::size_t a = 0; a < h.domains.size(); ++a)
    for (std::size_t b = a + 1; b < h.domains.size(); ++b) {
      Domain& da = h.domains[a];
      Domain& db = h.domains[b];
      if (da.ali_from != db.ali_from || da.ali_to != db.ali_to) continue;
      Domain& removed = da.bits >= db.bits ? db : da;
      if (removed.reported) { removed.reported = false; --h.n_reported; }
      if (removed.included) { removed.included = false; --h.n_included; }
    }
}

// p7_tophits_Threshold: flags reported and included hits, sets domZ (unless --domZ) to the number of reported
// hits, then flags the domains of reported hits; a domain is included only in an included hit.
inline void apply_thresholds(QueryReport& q, const Thresholds& t) {
  q.Z_from_option = t.Z.has_value();
  q.Z = t.Z ? *t.Z : static_cast<double>(q.scan ? q.counts.models : q.counts.targets);
  std::uint64_t reported = 0;
  for (Hit& h : q.hits) {
    h.reported = target_reportable(t, q.Z, h.bits, h.lnP);
    h.included = h.reported && target_includable(t, q.Z, h.bits, h.lnP);
    reported += h.reported;
  }
  q.domZ_from_option = t.domZ.has_value();
  q.domZ = t.domZ ? *t.domZ : static_cast<double>(reported);
  for (Hit& h : q.hits) {
    h.n_reported = h.n_included = 0;
    for (Domain& d : h.domains) {
      d.reported = h.reported && domain_reportable(t, q.domZ, d.bits, d.lnP);
      d.included = h.included && domain_includable(t, q.domZ, d.bits, d.lnP);
      h.n_reported += d.reported;
      h.n_included += d.included;
    }
    drop_duplicate_domains(h);
  }
}

// hmmscan with --cut_ga/nc/tc: each model's cutoffs decide, as the hit leaves the pipeline (the model is not kept
// for p7_tophits_Threshold), whether the hit is reported and included (the same score) and which of its domains
// are. `domT[m]` is model m's domain cutoff (a hit's target is its model's index); the hits must have passed their
// own sequence cutoffs. hmmscan 3.3.2 flags no more domains afterwards (checked against it: the pipeline's
// thresholds as the last model left them are not applied to the other models' domains).
inline void apply_scan_cutoffs(QueryReport& q, const std::optional<double>& Z, const std::optional<double>& domZ,
                               const std::vector<double>& domT) {
  q.Z_from_option = Z.has_value();
  q.Z = Z ? *Z : static_cast<double>(q.counts.models);
  for (Hit& h : q.hits) h.reported = h.included = true;
  q.domZ_from_option = domZ.has_value();
  q.domZ = domZ ? *domZ : static_cast<double>(q.hits.size());
  for (Hit& h : q.hits) {
    h.n_reported = h.n_included = 0;
    for (Domain& d : h.domains) {
      const double bits = static_cast<double>(d.bits);
      d.reported = d.included = bits >= domT[h.target];
      h.n_reported += d.reported;
      h.n_included += d.included;
    }
    drop_duplicate_domains(h);
  }
}

inline std::size_t max_name_length(const std::vector<Hit>& hits) {
  std::size_t n = 0;
  for (const Hit& h : hits) n = std::max(n, h.name.size());
  return n;
}
inline std::size_t max_accession_length(const std::vector<Hit>& hits) {
  std::size_t n = 0;
  for (const Hit& h : hits) n = std::max(n, h.accession.size());
  return n;
}

// ---- main text output ----------------------------------------------------------------------------------------

// What the header echoes of the command line: set fields are the options given.
struct HeaderSettings {
  std::string program = "cudp-hmmsearch";
  bool scan = false;  // hmmscan's header: sequences against a profile database, "profile" thresholds
  std::string version_line;  // second banner line, after "# "
  std::string hmm_file, seq_file;
  std::optional<std::string> output, alignment_file, tblout, domtblout, pfamtblout;
  bool acc = false, noali = false, notextw = false;
  std::optional<int> textw;
  std::optional<double> E, T, domE, domT, incE, incT, incdomE, incdomT;
  std::string cut;  // "GA", "NC", "TC" for --cut_ga/nc/tc
  bool max = false;
  std::optional<double> F1, F2, F3;
  bool nobias = false, nonull2 = false;
  std::optional<double> Z, domZ;
  std::optional<std::uint32_t> seed;
  std::optional<std::string> tformat;
  std::optional<int> cpu;
  std::string backend;  // "host, 16 threads", "CUDA: NVIDIA H100 ..."
};

inline void write_header(std::string& out, const HeaderSettings& s) {
  appendf(out, "# %s :: %s\n", s.program.c_str(),
          s.scan ? "search sequence(s) against a profile database" : "search profile(s) against a sequence database");
  appendf(out, "# %s\n", s.version_line.c_str());
  out += "# - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n";
  if (s.scan) {
    appendf(out, "# query sequence file:             %s\n", s.seq_file.c_str());
    appendf(out, "# target HMM database:             %s\n", s.hmm_file.c_str());
  } else {
    appendf(out, "# query HMM file:                  %s\n", s.hmm_file.c_str());
    appendf(out, "# target sequence database:        %s\n", s.seq_file.c_str());
  }
  if (s.output) appendf(out, "# output directed to file:         %s\n", s.output->c_str());
  if (s.alignment_file) appendf(out, "# MSA of all hits saved to file:   %s\n", s.alignment_file->c_str());
  if (s.tblout) appendf(out, "# per-seq hits tabular output:     %s\n", s.tblout->c_str());
  if (s.domtblout) appendf(out, "# per-dom hits tabular output:     %s\n", s.domtblout->c_str());
  if (s.pfamtblout) appendf(out, "# pfam-style tabular hit output:   %s\n", s.pfamtblout->c_str());
  if (s.acc) out += "# prefer accessions over names:    yes\n";
  if (s.noali) out += "# show alignments in output:       no\n";
  if (s.notextw) out += "# max ASCII text line length:      unlimited\n";
  if (s.textw) appendf(out, "# max ASCII text line length:      %d\n", *s.textw);
  // What the first-level thresholds apply to: the targets, sequences or (hmmscan) profiles.
  const std::string reporting = std::string(s.scan ? "profile" : "sequence") + " reporting threshold:";
  const std::string inclusion = std::string(s.scan ? "profile" : "sequence") + " inclusion threshold:";
  if (s.E) appendf(out, "# %-33sE-value <= %g\n", reporting.c_str(), *s.E);
  if (s.T) appendf(out, "# %-33sscore >= %g\n", reporting.c_str(), *s.T);
  if (s.domE) appendf(out, "# domain reporting threshold:      E-value <= %g\n", *s.domE);
  if (s.domT) appendf(out, "# domain reporting threshold:      score >= %g\n", *s.domT);
  if (s.incE) appendf(out, "# %-33sE-value <= %g\n", inclusion.c_str(), *s.incE);
  if (s.incT) appendf(out, "# %-33sscore >= %g\n", inclusion.c_str(), *s.incT);
  if (s.incdomE) appendf(out, "# domain inclusion threshold:      E-value <= %g\n", *s.incdomE);
  if (s.incdomT) appendf(out, "# domain inclusion threshold:      score >= %g\n", *s.incdomT);
  if (!s.cut.empty()) appendf(out, "# model-specific thresholding:     %s cutoffs\n", s.cut.c_str());
  if (s.max) out += "# Max sensitivity mode:            on [all heuristic filters off]\n";
  if (s.F1) appendf(out, "# MSV filter P threshold:       <= %g\n", *s.F1);
  if (s.F2) appendf(out, "# Vit filter P threshold:       <= %g\n", *s.F2);
  if (s.F3) appendf(out, "# Fwd filter P threshold:       <= %g\n", *s.F3);
  if (s.nobias) out += "# biased composition HMM filter:   off\n";
  if (s.nonull2) out += "# null2 bias corrections:          off\n";
  if (s.Z) appendf(out, "# sequence search space set to:    %.0f\n", *s.Z);
  if (s.domZ) appendf(out, "# domain search space set to:      %.0f\n", *s.domZ);
  if (s.seed) appendf(out, "# random number seed set to:       %u\n", static_cast<unsigned>(*s.seed));
  if (s.tformat && s.scan) appendf(out, "# input seqfile format asserted:   %s\n", s.tformat->c_str());
  if (s.tformat && !s.scan) appendf(out, "# targ <seqfile> format asserted:  %s\n", s.tformat->c_str());
  if (s.cpu) appendf(out, "# number of worker threads:        %d\n", *s.cpu);
  if (!s.backend.empty()) appendf(out, "# cudp backend:                    %s\n", s.backend.c_str());
  out += "# - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n\n";
}

// p7_tophits_Targets: "Scores for complete sequences".
inline void write_targets(std::string& out, const QueryReport& q) {
  std::size_t longest = 0;
  for (const Hit& h : q.hits) longest = std::max(longest, shown_name(q, h).size());
  const int namew = static_cast<int>(std::max<std::size_t>(8, longest));
  const int descw = std::max(32, q.text_width - namew - 61);
  appendf(out, "Scores for complete sequence%s (score includes all domains):\n", q.scan ? "" : "s");
  appendf(out, "  %22s  %22s  %8s\n", " --- full sequence ---", " --- best 1 domain ---", "-#dom-");
  appendf(out, "  %9s %6s %5s  %9s %6s %5s  %5s %2s  %-*s %s\n", "E-value", " score", " bias", "E-value", " score",
          " bias", "  exp", "N", namew, q.scan ? "Model" : "Sequence", "Description");
  appendf(out, "  %9s %6s %5s  %9s %6s %5s  %5s %2s  %-*s %s\n", "-------", "------", "-----", "-------", "------",
          "-----", " ----", "--", namew, "--------", "-----------");
  bool printed_inclusion_line = false;
  std::size_t reported = 0;
  for (const Hit& h : q.hits) {
    if (!h.reported) continue;
    ++reported;
    if (!h.included && !printed_inclusion_line) {
      out += "  ------ inclusion threshold ------\n";
      printed_inclusion_line = true;
    }
    const Domain& d = h.domains[static_cast<std::size_t>(h.best_domain)];
    appendf(out, "%c %9.2g %6.1f %5.1f  %9.2g %6.1f %5.1f  %5.1f %2d  %-*s ", ' ', evalue(h.lnP, q.Z),
            static_cast<double>(h.bits), static_cast<double>(h.pre_bits - h.bits), evalue(d.lnP, q.Z),
            static_cast<double>(d.bits), static_cast<double>(d.bias_bits), static_cast<double>(h.expected_domains),
            h.n_reported, namew, shown_name(q, h).c_str());
    if (q.text_width > 0)
      appendf(out, " %-.*s\n", descw, h.description.c_str());
    else
      appendf(out, " %s\n", h.description.c_str());
  }
  if (reported == 0) out += "\n   [No hits detected that satisfy reporting thresholds]\n";
}

// Decimal digits of a coordinate, as p7_alidisplay_Print counts them.
inline int coordinate_width(long n) {
  int w = n < 0 ? 1 : 0;
  for (; n != 0; n /= 10) ++w;
  return w;
}

// A display row of RF or CS annotation: the node's character at match and delete columns, '.' at inserts.
inline std::string annotation_row(const std::string& by_node, const std::string& model_row, int hmm_from) {
  std::string row(model_row.size(), '.');
  int k = hmm_from;
  for (std::size_t z = 0; z < model_row.size(); ++z)
    if (model_row[z] != '.') row[z] = by_node[static_cast<std::size_t>(k++)];
  return row;
}

// p7_alidisplay_Print: blocks of at most `linewidth` characters a line (0: a single block) but at least 40 alignment
// columns, names right-aligned to the longer one, every coordinate to the widest of the four ends.
inline void write_alignment(std::string& out, const cudp::hmmer::Plan7AlignmentDisplay& a, const std::string& hmm_name,
                            const std::string& seq_name, int hmm_from, int hmm_to, long sq_from, long sq_to,
                            int linewidth, const std::string& reference, const std::string& structure) {
  const int n = static_cast<int>(a.model.size());
  const int namew = static_cast<int>(std::max(hmm_name.size(), seq_name.size()));
  const int coordw = std::max(std::max(coordinate_width(hmm_from), coordinate_width(hmm_to)),
                              std::max(coordinate_width(sq_from), coordinate_width(sq_to)));
  int aliw = linewidth > 0 ? linewidth - namew - 2 * coordw - 5 : n;
  if (aliw < n && aliw < 40) aliw = 40;
  const std::string rf = reference.empty() ? std::string() : annotation_row(reference, a.model, hmm_from);
  const std::string cs = structure.empty() ? std::string() : annotation_row(structure, a.model, hmm_from);
  // Reverse-strand coordinates (nhmmer's) run down; an alignment of one residue takes that branch too, to no effect.
  const bool forward = sq_from < sq_to;
  int k1 = hmm_from;
  long i1 = sq_from;
  for (int pos = 0; pos < n; pos += aliw) {
    if (pos > 0) out += "\n";
    const int w = std::min(aliw, n - pos);
    int nk = 0, ni = 0;
    for (int z = pos; z < pos + w; ++z) {
      nk += a.model[static_cast<std::size_t>(z)] != '.';
      ni += a.target[static_cast<std::size_t>(z)] != '-';
    }
    const int k2 = k1 + nk - 1;
    const long i2 = forward ? i1 + ni - 1 : i1 - ni + 1;
    auto block = [&](const std::string& row) { return row.substr(static_cast<std::size_t>(pos), w); };
    if (!cs.empty()) appendf(out, "  %*s %s CS\n", namew + coordw + 1, "", block(cs).c_str());
    if (!rf.empty()) appendf(out, "  %*s %s RF\n", namew + coordw + 1, "", block(rf).c_str());
    appendf(out, "  %*s %*d %s %-*d\n", namew, hmm_name.c_str(), coordw, k1, block(a.model).c_str(), coordw, k2);
    appendf(out, "  %*s %s\n", namew + coordw + 1, " ", block(a.match).c_str());
    if (ni > 0)
      appendf(out, "  %*s %*ld %s %-*ld\n", namew, seq_name.c_str(), coordw, i1, block(a.target).c_str(), coordw, i2);
    else
      appendf(out, "  %*s %*s %s %*s\n", namew, seq_name.c_str(), coordw, "-", block(a.target).c_str(), coordw, "-");
    appendf(out, "  %*s %s PP\n", namew + coordw + 1, "", block(a.posterior).c_str());
    k1 += nk;
    i1 = forward ? i1 + ni : i1 - ni;
  }
}

// p7_tophits_Domains: each reported hit's domain table, and with alignments each reported domain's display.
// One reported hit's part of write_domains: its domain table and, when shown, its domains' alignments.
inline void write_hit_domains(std::string& out, const QueryReport& q, const Hit& h) {
  const std::string& name = shown_name(q, h);
  const int descw = std::max(32, q.text_width - static_cast<int>(name.size()) - 5);
  // The ends that get ']': the model's last node and the sequence's last residue, on either side.
  const int M = q.scan ? static_cast<int>(h.length) : q.M;
  const int L = q.scan ? q.M : static_cast<int>(h.length);
  if (q.text_width > 0)
    appendf(out, ">> %s  %-.*s\n", name.c_str(), descw, h.description.c_str());
  else
    appendf(out, ">> %s  %s\n", name.c_str(), h.description.c_str());
  if (h.n_reported == 0) {
    out += "   [No individual domains that satisfy reporting thresholds (although complete target did)]\n\n";
    return;
  }
  appendf(out, " %3s   %6s %5s %9s %9s %7s %7s %2s %7s %7s %2s %7s %7s %2s %4s\n", "#", "score", "bias", "c-Evalue",
          "i-Evalue", "hmmfrom", "hmm to", "  ", "alifrom", "ali to", "  ", "envfrom", "env to", "  ", "acc");
  appendf(out, " %3s   %6s %5s %9s %9s %7s %7s %2s %7s %7s %2s %7s %7s %2s %4s\n", "---", "------", "-----",
          "---------", "---------", "-------", "-------", "  ", "-------", "-------", "  ", "-------", "-------", "  ",
          "----");
  int nd = 0;
  for (const Domain& d : h.domains) {
    if (!d.reported) continue;
    ++nd;
    appendf(out, " %3d %c %6.1f %5.1f %9.2g %9.2g %7d %7d %c%c %7d %7d %c%c %7d %7d %c%c %4.2f\n", nd,
            d.included ? '!' : '?', static_cast<double>(d.bits), static_cast<double>(d.bias_bits),
            evalue(d.lnP, q.domZ), evalue(d.lnP, q.Z), d.hmm_from, d.hmm_to, d.hmm_from == 1 ? '[' : '.',
            d.hmm_to == M ? ']' : '.', d.ali_from, d.ali_to, d.ali_from == 1 ? '[' : '.', d.ali_to == L ? ']' : '.',
            d.env_from, d.env_to, d.env_from == 1 ? '[' : '.', d.env_to == L ? ']' : '.',
            static_cast<double>(d.mean_posterior));
  }
  if (!q.show_alignments) {
    out += "\n";
    return;
  }
  out += "\n  Alignments for each domain:\n";
  const std::string& query_name = q.show_accessions && !q.accession.empty() ? q.accession : q.name;
  const std::string& hmm_name = q.scan ? name : query_name;
  const std::string& seq_name = q.scan ? query_name : name;
  nd = 0;
  for (const Domain& d : h.domains) {
    if (!d.reported) continue;
    appendf(out, "  == domain %d  score: %.1f bits;  conditional E-value: %.2g\n", ++nd, static_cast<double>(d.bits),
            evalue(d.lnP, q.domZ));
    if (d.alignment)
      write_alignment(out, *d.alignment, hmm_name, seq_name, d.hmm_from, d.hmm_to, d.ali_from, d.ali_to,
                      q.text_width, q.scan ? h.reference : q.reference, q.scan ? h.structure : q.structure);
    out += "\n";
  }
}

inline void write_domains(std::string& out, const QueryReport& q) {
  appendf(out, "Domain annotation for each %s%s:\n", q.scan ? "model" : "sequence",
          q.show_alignments ? " (and alignments)" : "");
  std::vector<const Hit*> reported;
  for (const Hit& h : q.hits)
    if (h.reported) reported.push_back(&h);
  // Hundreds of hits with their alignments take a thread about 10 ms, a twentieth of a daemon's search of a
  // 260-node model: past a few dozen, the hits are written side by side and joined in order.
  constexpr std::size_t kSideBySide = 32;
  if (reported.size() < kSideBySide) {
    for (const Hit* h : reported) write_hit_domains(out, q, *h);
  } else {
    std::vector<std::string> parts(reported.size());
    cudp::host::parallel_for(
        reported.size(), 0, [] { return 0; },
        [&](int, std::size_t i) { write_hit_domains(parts[i], q, *reported[i]); });
    for (const std::string& part : parts) out += part;
  }
  if (reported.empty()) out += "\n   [No targets detected that satisfy reporting thresholds]\n";
}

// esl_stopwatch_Display's time format: [Nd]hh:mm:ss.ss
inline std::string clock_time(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  const int days = static_cast<int>(seconds / 86400.0);
  seconds -= days * 86400.0;
  const int hours = static_cast<int>(seconds / 3600.0);
  seconds -= hours * 3600.0;
  const int minutes = static_cast<int>(seconds / 60.0);
  seconds -= minutes * 60.0;
  std::string text;
  if (days > 0) appendf(text, "%dd", days);
  appendf(text, "%02d:%02d:%05.2f", hours, minutes, seconds);
  return text;
}

// p7_pli_Statistics for a search pipeline (hmmsearch).
inline void write_statistics(std::string& out, const QueryReport& q) {
  const auto& c = q.counts;
  // The filters' fractions are of the targets: sequences for hmmsearch, models for hmmscan.
  const double n = static_cast<double>(q.scan ? c.models : c.targets);
  out += "Internal pipeline statistics summary:\n";
  out += "-------------------------------------\n";
  if (q.scan) {
    appendf(out, "Query sequence(s):           %15llu  (%llu residues searched)\n",
            static_cast<unsigned long long>(c.targets), static_cast<unsigned long long>(c.residues));
    appendf(out, "Target model(s):             %15llu  (%llu nodes)\n", static_cast<unsigned long long>(c.models),
            static_cast<unsigned long long>(c.nodes));
  } else {
    appendf(out, "Query model(s):              %15llu  (%llu nodes)\n", static_cast<unsigned long long>(c.models),
            static_cast<unsigned long long>(c.nodes));
    appendf(out, "Target sequences:            %15llu  (%llu residues searched)\n",
            static_cast<unsigned long long>(c.targets), static_cast<unsigned long long>(c.residues));
  }
  const auto filter_line = [&](const char* label, std::uint64_t passed, double F) {
    appendf(out, "%-29s%15llu  (%.6g); expected %.1f (%.6g)\n", label, static_cast<unsigned long long>(passed),
            static_cast<double>(passed) / n, F * n, F);
  };
  filter_line("Passed MSV filter:", c.passed_msv, q.F1);
  filter_line("Passed bias filter:", c.passed_bias, q.F1);
  filter_line("Passed Vit filter:", c.passed_viterbi, q.F2);
  filter_line("Passed Fwd filter:", c.passed_forward, q.F3);
  appendf(out, "Initial search space (Z):    %15.0f  %s\n", q.Z,
          q.Z_from_option ? "[as set by --Z on cmdline]" : "[actual number of targets]");
  appendf(out, "Domain search space  (domZ): %15.0f  %s\n", q.domZ,
          q.domZ_from_option ? "[as set by --domZ on cmdline]" : "[number of targets reported over threshold]");
  appendf(out, "# CPU time: %.2fu %.2fs %s Elapsed: %s\n", q.cpu_user, q.cpu_system,
          clock_time(q.cpu_user + q.cpu_system).c_str(), clock_time(q.elapsed).c_str());
  appendf(out, "# Mc/sec: %.2f\n", static_cast<double>(c.residues) * static_cast<double>(c.nodes) / (q.elapsed * 1.0e6));
}

// One query's block of the main output, from "Query:" to "//".
inline void write_query(std::string& out, const QueryReport& q) {
  appendf(out, "Query:       %s  [%s=%d]\n", q.name.c_str(), q.scan ? "L" : "M", q.M);
  if (!q.accession.empty()) appendf(out, "Accession:   %s\n", q.accession.c_str());
  if (!q.description.empty()) appendf(out, "Description: %s\n", q.description.c_str());
  write_targets(out, q);
  out += "\n\n";
  write_domains(out, q);
  out += "\n\n";
  write_statistics(out, q);
  out += "//\n";
}

// ---- -A: multiple alignment of the included domains ----------------------------------------------------------

// p7_tophits_Alignment as hmmsearch -A writes it: the included domains of the included hits in rank order, each
// display turned back into a trace, aligned with a column for every consensus node (p7_tracealign_Seqs with
// p7_ALL_CONSENSUS_COLS) and written by Easel's Stockholm writer: blocks of 200 columns, or one block with
// `one_block` (hmmsearch --notextw writes Pfam format). `author` is the #=GF AU line. Returns the number of
// sequences; writes nothing when there are none.
inline int write_stockholm(std::string& out, const QueryReport& q, bool one_block, const std::string& author) {
  using cudp::hmmer::decode_posterior;
  using cudp::hmmer::encode_posterior;
  struct Row {
    std::string name, accession, description;
    const cudp::hmmer::Plan7AlignmentDisplay* display;
    int hmm_from;
  };
  std::vector<Row> rows;
  for (const Hit& h : q.hits) {
    if (!h.included) continue;
    for (const Domain& d : h.domains) {
      if (!d.included || !d.alignment) continue;
      rows.push_back(Row{h.name + "/" + std::to_string(d.ali_from) + "-" + std::to_string(d.ali_to), h.accession,
                         "[subseq from] " + (h.description.empty() ? h.name : h.description), d.alignment.get(),
                         d.hmm_from});
    }
  }
  if (rows.empty()) return 0;
  const int M = q.M;

  // Insert columns after node k: the most any row inserts there (an insert belongs to the node before it).
  std::vector<int> inserts(static_cast<std::size_t>(M) + 1, 0), matmap(static_cast<std::size_t>(M) + 1, 0);
  std::vector<int> count(static_cast<std::size_t>(M) + 1);
  for (const Row& r : rows) {
    std::fill(count.begin(), count.end(), 0);
    int k = r.hmm_from - 1;
    for (char c : r.display->model) {
      if (c == '.') {
        ++count[static_cast<std::size_t>(k)];
      } else {
        ++k;
      }
    }
    for (std::size_t k2 = 0; k2 < inserts.size(); ++k2) inserts[k2] = std::max(inserts[k2], count[k2]);
  }
  int alen = inserts[0];
  for (int k = 1; k <= M; ++k) {
    matmap[static_cast<std::size_t>(k)] = alen + 1;  // 1-based column of node k
    alen += 1 + inserts[static_cast<std::size_t>(k)];
  }

  // What Easel reads as a residue or a gap among the characters of a display.
  auto is_gap = [](char c) { return c == '-' || c == '.' || c == '_'; };
  auto is_residue = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };

  // The aligned rows (inserts lower case, '.' for their gaps; '-' for gaps in consensus columns) and their PP rows;
  // PP_cons averages the decoded codes of the match states in each column.
  std::vector<std::string> aseq(rows.size(), std::string(static_cast<std::size_t>(alen), '.'));
  std::vector<std::string> pp(rows.size(), std::string(static_cast<std::size_t>(alen), '.'));
  std::vector<double> total(static_cast<std::size_t>(alen), 0.0);
  std::vector<int> matches(static_cast<std::size_t>(alen), 0);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string& a = aseq[r];
    for (int k = 1; k <= M; ++k) a[static_cast<std::size_t>(matmap[static_cast<std::size_t>(k)] - 1)] = '-';
    const cudp::hmmer::Plan7AlignmentDisplay& d = *rows[r].display;
    int k = rows[r].hmm_from;
    std::size_t apos = 0;
    for (std::size_t z = 0; z < d.model.size(); ++z) {
      if (d.model[z] == '.') {
        a[apos] = d.target[z];
        pp[r][apos] = d.posterior[z];
        ++apos;
        continue;
      }
      const auto column = static_cast<std::size_t>(matmap[static_cast<std::size_t>(k)] - 1);
      if (is_residue(d.target[z])) {  // else a delete
        a[column] = d.target[z];
        pp[r][column] = d.posterior[z];
        total[column] += static_cast<double>(decode_posterior(d.posterior[z]));
        matches[column] += 1;
      }
      apos = column + 1;
      ++k;
    }
  }

  // Inserts of more than one column: the first half of a row's residues left-justified, the rest right-justified
  // (rejustify_insertions_text).
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string& a = aseq[r];
    std::string& p = pp[r];
    for (int k = 0; k < M; ++k) {
      if (inserts[static_cast<std::size_t>(k)] <= 1) continue;
      const int first = matmap[static_cast<std::size_t>(k)];  // 0-based first insert column after node k
      const int last = matmap[static_cast<std::size_t>(k) + 1] - 2;
      int nins = 0;
      for (int apos = first; apos <= last; ++apos) nins += is_residue(a[static_cast<std::size_t>(apos)]);
      nins = k == 0 ? 0 : nins / 2;
      int opos = last, npos = last;
      while (opos >= first + nins) {
        if (is_gap(a[static_cast<std::size_t>(opos)])) {
          --opos;
        } else {
          a[static_cast<std::size_t>(npos)] = a[static_cast<std::size_t>(opos)];
          p[static_cast<std::size_t>(npos)] = p[static_cast<std::size_t>(opos)];
          --npos;
          --opos;
        }
      }
      for (; npos >= first + nins; --npos) a[static_cast<std::size_t>(npos)] = p[static_cast<std::size_t>(npos)] = '.';
    }
  }
  std::string pp_cons(static_cast<std::size_t>(alen), '.'), rf(static_cast<std::size_t>(alen), '.');
  for (int k = 1; k <= M; ++k) rf[static_cast<std::size_t>(matmap[static_cast<std::size_t>(k)] - 1)] = 'x';
  for (std::size_t c = 0; c < pp_cons.size(); ++c)
    if (matches[c] > 0) pp_cons[c] = encode_posterior(static_cast<float>(total[c] / static_cast<double>(matches[c])));

  // Easel's writer: names must be unique, or every row gets a "<index>|" prefix.
  std::vector<std::string> sorted;
  for (const Row& r : rows) sorted.push_back(r.name);
  std::sort(sorted.begin(), sorted.end());
  const bool prefixed = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  int uniqw = 0;
  if (prefixed) {
    for (std::size_t n = rows.size(); n > 0; n /= 10) ++uniqw;
    ++uniqw;  // with the '|'
  }
  int maxname = 0;
  for (const Row& r : rows) maxname = std::max(maxname, static_cast<int>(r.name.size()));
  const int margin = std::max(std::max(uniqw + maxname + 1, 7 + 6), uniqw + maxname + 2 + 7);
  auto name_field = [&](std::size_t i, int width) {
    std::string f;
    if (prefixed) appendf(f, "%0*d|", uniqw - 1, static_cast<int>(i));
    appendf(f, "%-*s", width, rows[i].name.c_str());
    return f;
  };
  out += "# STOCKHOLM 1.0\n";
  if (prefixed) out += "# WARNING: seq names have been made unique by adding a prefix of \"<seq#>|\"\n";
  appendf(out, "#=GF %-2s %s\n", "ID", q.name.c_str());
  if (!q.accession.empty()) appendf(out, "#=GF %-2s %s\n", "AC", q.accession.c_str());
  if (!q.description.empty()) appendf(out, "#=GF %-2s %s\n", "DE", q.description.c_str());
  appendf(out, "#=GF %-2s %s\n\n", "AU", author.c_str());
  bool any_accession = false;
  for (const Row& r : rows) any_accession |= !r.accession.empty();
  if (any_accession) {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (!rows[i].accession.empty())
        appendf(out, "#=GS %s AC %s\n", name_field(i, maxname).c_str(), rows[i].accession.c_str());
    out += "\n";
  }
  for (std::size_t i = 0; i < rows.size(); ++i)
    appendf(out, "#=GS %s DE %s\n", name_field(i, maxname).c_str(), rows[i].description.c_str());
  out += "\n";
  const int cpl = one_block ? alen : 200;
  for (int pos = 0; pos < alen; pos += cpl) {
    if (pos > 0) out += "\n";
    const auto from = static_cast<std::size_t>(pos);
    const auto w = static_cast<std::size_t>(std::min(cpl, alen - pos));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      appendf(out, "%s %s\n", name_field(i, margin - uniqw - 1).c_str(), aseq[i].substr(from, w).c_str());
      appendf(out, "#=GR %s %-*s %s\n", name_field(i, maxname).c_str(), margin - maxname - uniqw - 7, "PP",
              pp[i].substr(from, w).c_str());
    }
    appendf(out, "#=GC %-*s %s\n", margin - 6, "PP_cons", pp_cons.substr(from, w).c_str());
    appendf(out, "#=GC %-*s %s\n", margin - 6, "RF", rf.substr(from, w).c_str());
  }
  out += "//\n";
  return static_cast<int>(rows.size());
}

// The main output's line after a query's "//" with -A: how many domains went into the alignment file.
inline void write_alignment_note(std::string& out, int sequences, const std::string& path) {
  if (sequences > 0)
    appendf(out, "# Alignment of %d hits satisfying inclusion thresholds saved to: %s\n", sequences, path.c_str());
  else
    out += "# No hits satisfy inclusion thresholds; no alignment saved\n";
}

// ---- tabular outputs -----------------------------------------------------------------------------------------

inline void write_tblout(std::string& out, const QueryReport& q, bool header) {
  const int qnamew = static_cast<int>(std::max<std::size_t>(20, q.name.size()));
  const int tnamew = static_cast<int>(std::max<std::size_t>(20, max_name_length(q.hits)));
  const int qaccw = static_cast<int>(q.accession.empty() ? 10 : std::max<std::size_t>(10, q.accession.size()));
  const int taccw = static_cast<int>(std::max<std::size_t>(10, max_accession_length(q.hits)));
  if (header) {
    appendf(out, "#%*s %22s %22s %33s\n", tnamew + qnamew + taccw + qaccw + 2, "", "--- full sequence ----",
            "--- best 1 domain ----", "--- domain number estimation ----");
    appendf(out, "#%-*s %-*s %-*s %-*s %9s %6s %5s %9s %6s %5s %5s %3s %3s %3s %3s %3s %3s %3s %s\n", tnamew - 1,
            " target name", taccw, "accession", qnamew, "query name", qaccw, "accession", "  E-value", " score",
            " bias", "  E-value", " score", " bias", "exp", "reg", "clu", " ov", "env", "dom", "rep", "inc",
            "description of target");
    appendf(out, "#%*s %*s %*s %*s %9s %6s %5s %9s %6s %5s %5s %3s %3s %3s %3s %3s %3s %3s %s\n", tnamew - 1,
            "-------------------", taccw, "----------", qnamew, "--------------------", qaccw, "----------",
            "---------", "------", "-----", "---------", "------", "-----", "---", "---", "---", "---", "---", "---",
            "---", "---", "---------------------");
  }
  for (const Hit& h : q.hits) {
    if (!h.reported) continue;
    const Domain& d = h.domains[static_cast<std::size_t>(h.best_domain)];
    appendf(out, "%-*s %-*s %-*s %-*s %9.2g %6.1f %5.1f %9.2g %6.1f %5.1f %5.1f %3d %3d %3d %3d %3d %3d %3d %s\n",
            tnamew, h.name.c_str(), taccw, h.accession.empty() ? "-" : h.accession.c_str(), qnamew, q.name.c_str(),
            qaccw, q.accession.empty() ? "-" : q.accession.c_str(), evalue(h.lnP, q.Z), static_cast<double>(h.bits),
            static_cast<double>(h.pre_bits - h.bits), evalue(d.lnP, q.Z), static_cast<double>(d.bits),
            static_cast<double>(d.bias_bits), static_cast<double>(h.expected_domains), h.regions, h.clustered,
            h.overlaps, h.envelopes, static_cast<int>(h.domains.size()), h.n_reported, h.n_included,
            h.description.empty() ? "-" : h.description.c_str());
  }
}

inline void write_domtblout(std::string& out, const QueryReport& q, bool header) {
  const int qnamew = static_cast<int>(std::max<std::size_t>(20, q.name.size()));
  const int tnamew = static_cast<int>(std::max<std::size_t>(20, max_name_length(q.hits)));
  const int qaccw = static_cast<int>(q.accession.empty() ? 10 : std::max<std::size_t>(10, q.accession.size()));
  const int taccw = static_cast<int>(std::max<std::size_t>(10, max_accession_length(q.hits)));
  if (header) {
    appendf(out, "#%*s %22s %40s %11s %11s %11s\n", tnamew + qnamew - 1 + 15 + taccw + qaccw, "",
            "--- full sequence ---", "-------------- this domain -------------", "hmm coord", "ali coord",
            "env coord");
    appendf(out,
            "#%-*s %-*s %5s %-*s %-*s %5s %9s %6s %5s %3s %3s %9s %9s %6s %5s %5s %5s %5s %5s %5s %5s %4s %s\n",
            tnamew - 1, " target name", taccw, "accession", "tlen", qnamew, "query name", qaccw, "accession", "qlen",
            "E-value", "score", "bias", "#", "of", "c-Evalue", "i-Evalue", "score", "bias", "from", "to", "from", "to",
            "from", "to", "acc", "description of target");
    appendf(out,
            "#%*s %*s %5s %*s %*s %5s %9s %6s %5s %3s %3s %9s %9s %6s %5s %5s %5s %5s %5s %5s %5s %4s %s\n",
            tnamew - 1, "-------------------", taccw, "----------", "-----", qnamew, "--------------------", qaccw,
            "----------", "-----", "---------", "------", "-----", "---", "---", "---------", "---------", "------",
            "-----", "-----", "-----", "-----", "-----", "-----", "-----", "----", "---------------------");
  }
  for (const Hit& h : q.hits) {
    if (!h.reported) continue;
    int nd = 0;
    for (const Domain& d : h.domains) {
      if (!d.reported) continue;
      ++nd;
      appendf(out,
              "%-*s %-*s %5d %-*s %-*s %5d %9.2g %6.1f %5.1f %3d %3d %9.2g %9.2g %6.1f %5.1f %5d %5d %5d %5d %5d %5d "
              "%4.2f %s\n",
              tnamew, h.name.c_str(), taccw, h.accession.empty() ? "-" : h.accession.c_str(),
              static_cast<int>(h.length), qnamew, q.name.c_str(), qaccw,
              q.accession.empty() ? "-" : q.accession.c_str(), q.M, evalue(h.lnP, q.Z),
              static_cast<double>(h.bits), static_cast<double>(h.pre_bits - h.bits), nd, h.n_reported,
              evalue(d.lnP, q.domZ), evalue(d.lnP, q.Z), static_cast<double>(d.bits),
              static_cast<double>(d.bias_bits), d.hmm_from, d.hmm_to, d.ali_from, d.ali_to, d.env_from, d.env_to,
              static_cast<double>(d.mean_posterior), h.description.empty() ? "-" : h.description.c_str());
    }
  }
}

// p7_tophits_TabularXfam for protein searches (--pfamtblout): the reported sequences in rank order, then their
// reported domains ranked on their own (by -ln P, or by score with inclusion by score; ties by name, then by
// before_on_tie, then in hit order).
inline void write_pfamtblout(std::string& out, const QueryReport& q, bool inc_by_E) {
  const int tnamew = static_cast<int>(std::max<std::size_t>(20, max_name_length(q.hits)));
  out += "# Sequence scores\n# ---------------\n#\n";
  appendf(out, "# %-*s %6s %9s %3s %5s %5s    %s\n", tnamew - 1, "name", " bits", "  E-value", "n", "exp", " bias",
          "description");
  appendf(out, "# %*s %6s %9s %3s %5s %5s    %s\n", tnamew - 1, "-------------------", "------", "---------", "---",
          "-----", "-----", "---------------------");
  struct DomainRow {
    const Hit* hit;
    const Domain* domain;
    int ordinal;
    double sortkey;
  };
  std::vector<DomainRow> domains;
  for (const Hit& h : q.hits) {
    if (!h.reported) continue;
    appendf(out, "%-*s  %6.1f %9.2g %3d %5.1f %5.1f    %s\n", tnamew, h.name.c_str(), static_cast<double>(h.bits),
            evalue(h.lnP, q.Z), static_cast<int>(h.domains.size()), static_cast<double>(h.expected_domains),
            static_cast<double>(h.pre_bits - h.bits), h.description.empty() ? "-" : h.description.c_str());
    int ordinal = 0;
    for (const Domain& d : h.domains)
      if (d.reported) domains.push_back({&h, &d, ++ordinal, inc_by_E ? -d.lnP : static_cast<double>(d.bits)});
  }
  std::stable_sort(domains.begin(), domains.end(), [](const DomainRow& a, const DomainRow& b) {
    if (a.sortkey != b.sortkey) return a.sortkey > b.sortkey;
    if (const int c = a.hit->name.compare(b.hit->name); c != 0) return c < 0;
    return before_on_tie(a.domain->ali_from, a.domain->ali_to, b.domain->ali_from, b.domain->ali_to);
  });
  out += "\n# Domain scores\n# -------------\n#\n";
  appendf(out, "# %-*s %6s %9s %5s %5s %6s %6s %6s %6s %6s %6s     %s\n", tnamew - 1, " name", "bits", "E-value", "hit",
          "bias", "env-st", "env-en", "ali-st", "ali-en", "hmm-st", "hmm-en", "description");
  appendf(out, "# %*s %6s %9s %5s %5s %6s %6s %6s %6s %6s %6s      %s\n", tnamew - 1, "-------------------", "------",
          "---------", "-----", "-----", "------", "------", "------", "------", "------", "------",
          "---------------------");
  for (const DomainRow& r : domains) {
    const Domain& d = *r.domain;
    appendf(out, "%-*s  %6.1f %9.2g %5d %5.1f %6d %6d %6d %6d %6d %6d     %s\n", tnamew, r.hit->name.c_str(),
            static_cast<double>(d.bits), evalue(d.lnP, q.Z), r.ordinal, static_cast<double>(d.bias_bits),
            d.env_from, d.env_to, d.ali_from, d.ali_to, d.hmm_from, d.hmm_to,
            r.hit->description.empty() ? "-" : r.hit->description.c_str());
  }
}

struct TabularTail {
  std::string program, version, hmm_file, seq_file, command_line, current_dir, date;  // date as ctime() writes it
  std::string mode = "SEARCH";  // hmmscan: SCAN, in --tblout and --domtblout only
};

inline void write_tabular_tail(std::string& out, const TabularTail& t) {
  out += "#\n";
  appendf(out, "# Program:         %s\n", t.program.c_str());
  appendf(out, "# Version:         %s\n", t.version.c_str());
  appendf(out, "# Pipeline mode:   %s\n", t.mode.c_str());
  appendf(out, "# Query file:      %s\n", t.hmm_file.c_str());
  appendf(out, "# Target file:     %s\n", t.seq_file.c_str());
  appendf(out, "# Option settings: %s\n", t.command_line.c_str());
  appendf(out, "# Current dir:     %s\n", t.current_dir.empty() ? "[unknown]" : t.current_dir.c_str());
  appendf(out, "# Date:            %s", t.date.c_str());
  if (t.date.empty() || t.date.back() != '\n') out += "\n";
  out += "# [ok]\n";
}

}  // namespace hmmsearch
