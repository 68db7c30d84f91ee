#pragma once
// cudp-phmmer's command line and outputs. phmmer 3.3.2's options are hmmsearch's (parsed by cudp-hmmsearch's
// parser, apps/hmmer/options.hpp) plus the single-sequence score system and calibration ones, taken off
// here first; its outputs are cudp-hmmsearch's with phmmer's header, "Query: name [L=n]" lines and program name.
#include <cstdio>
#include <cstdlib>
#include <cudp/hmmer/hmm_file.hpp>
#include <cudp/hmmer/single_sequence_model.hpp>
#include <optional>
#include <string>
#include <vector>

#include "options.hpp"
#include "report.hpp"
#include "run.hpp"

namespace phmmer {

inline const char* usage_text() {
  return "Usage: cudp-phmmer [options] <seqfile> <seqdb>\n"
         "       cudp-phmmer --connect <socket> [options] <seqfile> <seqdb>\n"
         "\n"
         "Searches each protein sequence of <seqfile> (FASTA) against every sequence of <seqdb> (FASTA, plain or .gz,\n"
         "or a cudp-makedb database) as HMMER 3.3.2 phmmer does: the query is made into a profile HMM with a\n"
         "substitution matrix and gap probabilities, calibrated, and searched with hmmsearch's pipeline.\n"
         "\n"
         "Options of phmmer's not in cudp-hmmsearch --help:\n"
         "  --popen <x>   : gap open probability  [0.02]  (0<=x<0.5)\n"
         "  --pextend <x> : gap extend probability  [0.4]  (0<=x<1)\n"
         "  --mx <s>      : substitution score matrix choice (of some built-in matrices)  [BLOSUM62]\n"
         "                  (PAM30, PAM70, PAM120, PAM240, BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, BLOSUM90)\n"
         "  --EmL <n> : length of sequences for MSV Gumbel mu fit  [200]  (n>0)\n"
         "  --EmN <n> : number of sequences for MSV Gumbel mu fit  [200]  (n>0)\n"
         "  --EvL <n> : length of sequences for Viterbi Gumbel mu fit  [200]  (n>0)\n"
         "  --EvN <n> : number of sequences for Viterbi Gumbel mu fit  [200]  (n>0)\n"
         "  --EfL <n> : length of sequences for Forward exp tail tau fit  [100]  (n>0)\n"
         "  --EfN <n> : number of sequences for Forward exp tail tau fit  [200]  (n>0)\n"
         "  --Eft <x> : tail mass for Forward exponential tail tau fit  [0.04]  (0<x<1)\n"
         "  --qformat <s> : assert query <seqfile> is in format <s>: only fasta\n"
         "The other options, -o, -A, --tblout, --domtblout, --pfamtblout, --acc, --noali, --notextw, --textw, -E, -T,\n"
         "--domE, --domT, --incE, --incT, --incdomE, --incdomT, --max, --F1, --F2, --F3, --nobias, --nonull2, -Z, "
         "--domZ,\n"
         "--seed (also the calibration's seed), --tformat, --cpu, --backend and --gpus, are cudp-hmmsearch's (and phmmer's).\n"
         "  --connect <s> : run this search in the daemon listening on <s> (started by cudp-hmmsearch --daemon),\n"
         "                  which must hold <seqdb>; output files are written here, exactly as a one-shot run writes\n"
         "                  them\n"
         "Either <seqfile> or <seqdb> may be '-', standard input (with --connect, <seqfile> only).\n"
         "Not supported: --mxfile, --seed 0.\n";
}

struct Options {
  hmmsearch::Options search;  // hmm_file is the query sequence file
  cudp::hmmer::SingleSequenceOptions model;
  // Set only for the options given, for the header (in phmmer's order).
  std::optional<double> popen, pextend, Eft;
  std::optional<std::string> mx, qformat;
  std::optional<int> EmL, EmN, EvL, EvN, EfL, EfN;
  std::vector<std::string> given;  // every option word as typed, for the tables' "Option settings" line
};

namespace phmmer_text {

inline int positive_int(const std::string& flag, const std::string& value) {
  const long long v = hmmsearch::parse_easel_int(flag, value, "n > 0");
  if (v <= 0) throw hmmsearch::UsageError("option " + flag + " must be > 0, got " + value);
  return static_cast<int>(v);
}

}  // namespace phmmer_text

// nullopt for -h/--help.
inline std::optional<Options> parse_options(int argc, const char* const* argv) {
  Options p;
  std::vector<const char*> rest = {argv[0]};
  const std::vector<std::string> own = {"--popen", "--pextend", "--mx",  "--mxfile", "--EmL", "--EmN",
                                        "--EvN",   "--EvL",     "--EfL", "--EfN",    "--Eft", "--qformat"};
  int a = 1;
  for (; a < argc; ++a) {
    const std::string word = argv[a];
    if (word.size() < 2 || word[0] != '-' || word == "--") break;
    const std::size_t eq = word.find('=');
    const std::string flag = word.substr(0, eq);
    bool mine = false;
    for (const std::string& name : own) mine |= flag == name;
    for (const char* refused : {"--cut_ga", "--cut_nc", "--cut_tc", "--daemon"})
      if (flag == refused) throw hmmsearch::UsageError("unknown option " + flag);
    p.given.push_back(word);
    if (!mine) {
      rest.push_back(argv[a]);
      // A value in the next word goes to the hmmsearch parser with its option.
      const bool takes_value = word[1] == '-' ? eq == std::string::npos && hmmsearch::takes_value(flag)
                                              : word.size() == 2 && hmmsearch::takes_value(word);
      if (takes_value && a + 1 < argc) {
        rest.push_back(argv[++a]);
        p.given.emplace_back(argv[a]);
      }
      continue;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = word.substr(eq + 1);
    } else {
      if (a + 1 >= argc) throw hmmsearch::UsageError("option " + flag + " needs a value");
      value = argv[++a];
      p.given.push_back(value);
    }
    if (flag == "--popen") {
      const double v = hmmsearch::parse_real(flag, value);
      if (!(v >= 0 && v < 0.5)) throw hmmsearch::UsageError("option --popen must be in [0, 0.5), got " + value);
      p.popen = p.model.popen = v;
    } else if (flag == "--pextend") {
      const double v = hmmsearch::parse_real(flag, value);
      if (!(v >= 0 && v < 1)) throw hmmsearch::UsageError("option --pextend must be in [0, 1), got " + value);
      p.pextend = p.model.pextend = v;
    } else if (flag == "--mx") {
      if (!cudp::hmmer::find_easel_protein_matrix(value))
        throw hmmsearch::UsageError("no matrix named " + value + " is available as a built-in");
      p.mx = p.model.matrix = value;
    } else if (flag == "--mxfile") {
      throw hmmsearch::UsageError("option --mxfile is not supported; use --mx with a built-in matrix");
    } else if (flag == "--Eft") {
      const double v = hmmsearch::parse_real(flag, value);
      if (!(v > 0 && v < 1)) throw hmmsearch::UsageError("option --Eft must be in (0, 1), got " + value);
      p.Eft = p.model.calibration.Eft = v;
    } else if (flag == "--qformat") {
      if (hmmsearch::lower(value) != "fasta")
        throw hmmsearch::UsageError("option --qformat: only fasta is supported, got '" + value + "'");
      p.qformat = value;
    } else {
      const int v = phmmer_text::positive_int(flag, value);
      if (flag == "--EmL") p.EmL = p.model.calibration.EmL = v;
      if (flag == "--EmN") p.EmN = p.model.calibration.EmN = v;
      if (flag == "--EvL") p.EvL = p.model.calibration.EvL = v;
      if (flag == "--EvN") p.EvN = p.model.calibration.EvN = v;
      if (flag == "--EfL") p.EfL = p.model.calibration.EfL = v;
      if (flag == "--EfN") p.EfN = p.model.calibration.EfN = v;
    }
  }
  for (; a < argc; ++a) rest.push_back(argv[a]);
  const auto search =
      hmmsearch::parse_command_line(static_cast<int>(rest.size()), rest.data(), {"<seqfile>", "<seqdb>", 2});
  if (!search) return std::nullopt;
  p.search = *search;
  if (p.search.seed) p.model.calibration.seed = *p.search.seed;
  return p;
}

namespace phmmer_text {

inline bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

// phmmer's header from cudp-hmmsearch's: phmmer's banner and labels, and its own options' lines where phmmer puts
// them (score system after the output options, calibration after the filter options, the query format before the
// target's).
inline std::string phmmer_header(const Options& p, const std::string& hmmsearch_header) {
  std::vector<std::string> lines = split_lines(hmmsearch_header);
  std::vector<std::string> out;
  std::vector<std::string> score, calibration, query_format;
  if (p.popen) hmmsearch::appendf(score.emplace_back(), "# gap open probability:            %f", *p.popen);
  if (p.pextend) hmmsearch::appendf(score.emplace_back(), "# gap extend probability:          %f", *p.pextend);
  if (p.mx) hmmsearch::appendf(score.emplace_back(), "# subst score matrix (built-in):   %s", p.mx->c_str());
  if (p.EmL) hmmsearch::appendf(calibration.emplace_back(), "# seq length, MSV Gumbel mu fit:   %d", *p.EmL);
  if (p.EmN) hmmsearch::appendf(calibration.emplace_back(), "# seq number, MSV Gumbel mu fit:   %d", *p.EmN);
  if (p.EvL) hmmsearch::appendf(calibration.emplace_back(), "# seq length, Vit Gumbel mu fit:   %d", *p.EvL);
  if (p.EvN) hmmsearch::appendf(calibration.emplace_back(), "# seq number, Vit Gumbel mu fit:   %d", *p.EvN);
  if (p.EfL) hmmsearch::appendf(calibration.emplace_back(), "# seq length, Fwd exp tau fit:     %d", *p.EfL);
  if (p.EfN) hmmsearch::appendf(calibration.emplace_back(), "# seq number, Fwd exp tau fit:     %d", *p.EfN);
  if (p.Eft) hmmsearch::appendf(calibration.emplace_back(), "# tail mass for Fwd exp tau fit:   %f", *p.Eft);
  if (p.qformat)
    hmmsearch::appendf(query_format.emplace_back(), "# query <seqfile> format asserted: %s", p.qformat->c_str());
  // The first line of each group that comes after the inserted lines.
  const char* after_score[] = {"# sequence reporting",
                               "# domain reporting",
                               "# sequence inclusion",
                               "# domain inclusion",
                               "# Max sensitivity",
                               "# MSV filter",
                               "# Vit filter",
                               "# Fwd filter",
                               "# biased composition",
                               "# null2",
                               "# sequence search",
                               "# domain search",
                               "# random number",
                               "# targ ",
                               "# number of worker",
                               "# cudp backend",
                               "# - - -"};
  const char* after_calibration[] = {"# sequence search",  "# domain search", "# random number", "# targ ",
                                     "# number of worker", "# cudp backend",  "# - - -"};
  const char* after_query_format[] = {"# targ ", "# number of worker", "# cudp backend", "# - - -"};
  auto flush_before = [&](const std::string& line, std::vector<std::string>& group, const auto& markers) {
    if (group.empty()) return;
    for (const char* m : markers) {
      if (starts_with(line, m)) {
        out.insert(out.end(), group.begin(), group.end());
        group.clear();
        return;
      }
    }
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    if (i == 0) {
      out.emplace_back("# cudp-phmmer :: search a protein sequence against a protein database");
      continue;
    }
    if (i > 2) {
      flush_before(line, score, after_score);
      flush_before(line, calibration, after_calibration);
      flush_before(line, query_format, after_query_format);
    }
    if (starts_with(line, "# query HMM file:")) {
      line = "# query sequence file:             " +
             line.substr(std::string("# query HMM file:                  ").size());
    } else if (starts_with(line, "# MSA of all hits saved to file:   ")) {
      line = "# MSA of hits saved to file:       " + line.substr(35);
    } else if (starts_with(line, "# targ <seqfile> format asserted:  ")) {
      line = "# target <seqdb> format asserted:  " + line.substr(35);
    }
    out.push_back(line);
  }
  std::string text;
  for (const std::string& l : out) text += l + "\n";
  return text;
}

inline void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace phmmer_text

// cudp-hmmsearch's outputs of a search of `models` (the queries' models, in query order) made phmmer's.
inline void to_phmmer_outputs(const Options& p, const std::vector<cudp::hmmer::HmmModel>& models,
                              const std::string& backend, hmmsearch::RunOutputs& out) {
  (void)backend;
  std::string& text = out.text;
  const std::size_t end_of_header = text.find("\n\n");
  if (end_of_header != std::string::npos)
    text = phmmer_text::phmmer_header(p, text.substr(0, end_of_header + 1)) + text.substr(end_of_header + 1);
  std::size_t at = 0;
  for (const cudp::hmmer::HmmModel& m : models) {
    const std::string line = "Query:       " + m.name + "  [M=" + std::to_string(m.length) + "]\n";
    at = text.find(line, at);
    if (at == std::string::npos) break;
    text.replace(at, line.size(), "Query:       " + m.name + "  [L=" + std::to_string(m.length) + "]\n");
    at += line.size();
  }
  std::string settings = "# Option settings: cudp-phmmer ";
  for (const std::string& w : p.given) settings += w + " ";
  settings += p.search.hmm_file + " " + p.search.seq_file + " \n";
  for (std::string* table : {&out.tbl, &out.domtbl, &out.pfamtbl}) {
    phmmer_text::replace_all(*table, "# Program:         cudp-hmmsearch\n", "# Program:         cudp-phmmer\n");
    const std::size_t s = table->find("# Option settings: ");
    if (s != std::string::npos) table->replace(s, table->find('\n', s) + 1 - s, settings);
  }
  phmmer_text::replace_all(out.alignment, "#=GF AU cudp-hmmsearch (", "#=GF AU cudp-phmmer (");
}

}  // namespace phmmer
