#pragma once
// cudp-hmmsearch's command line: hmmsearch 3.3.2's options, value ranges and incompatibilities, plus --backend.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kit/command_line.hpp"
#include "kit/gpu_choice.hpp"
#include "report.hpp"

namespace hmmsearch {

inline const char* usage_text() {
  return "Usage: cudp-hmmsearch [options] <hmmfile> <seqdb>\n"
         "       cudp-hmmsearch --daemon <socket> [--cpu <n>] [--backend <s>] [--gpus <s>] <seqdb> [<seqdb>...]\n"
         "       cudp-hmmsearch --connect <socket> [options] <hmmfile> <seqdb>\n"
         "\n"
         "Searches every profile of <hmmfile> (HMMER3 text format, plain or .gz) against every sequence of <seqdb>\n"
         "(FASTA, plain or .gz, or a cudp-makedb database), with HMMER 3.3.2 hmmsearch's pipeline, scores,\n"
         "thresholds and output formats. Either file may be '-', standard input (uncompressed).\n"
         "\n"
         "Basic options:\n"
         "  -h, --help       : show this help\n"
         "  --version        : the version and what this build has\n"
         "\n"
         "Options directing output:\n"
         "  -o <f>           : direct output to file <f>, not stdout\n"
         "  -A <f>           : save multiple alignment of all hits to file <f>\n"
         "  --tblout <f>     : save parseable table of per-sequence hits to file <f>\n"
         "  --domtblout <f>  : save parseable table of per-domain hits to file <f>\n"
         "  --pfamtblout <f> : save table of hits and domains to file, in Pfam format <f>\n"
         "  --acc            : prefer accessions over names in output\n"
         "  --noali          : don't output alignments, so output is smaller\n"
         "  --notextw        : unlimit ASCII text output line width\n"
         "  --textw <n>      : set max width of ASCII text output lines  [120]  (n>=120)\n"
         "\n"
         "Options controlling reporting thresholds:\n"
         "  -E <x>     : report sequences <= this E-value threshold in output  [10.0]  (x>0)\n"
         "  -T <x>     : report sequences >= this score threshold in output\n"
         "  --domE <x> : report domains <= this E-value threshold in output  [10.0]  (x>0)\n"
         "  --domT <x> : report domains >= this score cutoff in output\n"
         "\n"
         "Options controlling inclusion (significance) thresholds:\n"
         "  --incE <x>    : consider sequences <= this E-value threshold as significant  [0.01]  (x>0)\n"
         "  --incT <x>    : consider sequences >= this score threshold as significant\n"
         "  --incdomE <x> : consider domains <= this E-value threshold as significant  [0.01]  (x>0)\n"
         "  --incdomT <x> : consider domains >= this score threshold as significant\n"
         "\n"
         "Options controlling model-specific thresholding:\n"
         "  --cut_ga : use profile's GA gathering cutoffs to set all thresholding\n"
         "  --cut_nc : use profile's NC noise cutoffs to set all thresholding\n"
         "  --cut_tc : use profile's TC trusted cutoffs to set all thresholding\n"
         "\n"
         "Options controlling acceleration heuristics:\n"
         "  --max    : Turn all heuristic filters off (less speed, more power)\n"
         "  --F1 <x> : Stage 1 (MSV) threshold: promote hits w/ P <= F1  [0.02]  (x>=0)\n"
         "  --F2 <x> : Stage 2 (Vit) threshold: promote hits w/ P <= F2  [1e-3]  (x>=0)\n"
         "  --F3 <x> : Stage 3 (Fwd) threshold: promote hits w/ P <= F3  [1e-5]  (x>=0)\n"
         "  --nobias : turn off composition bias filter\n"
         "\n"
         "Other expert options:\n"
         "  --nonull2     : turn off biased composition score corrections\n"
         "  -Z <x>        : set # of comparisons done, for E-value calculation  (x>0)\n"
         "  --domZ <x>    : set # of significant seqs, for domain E-value calculation  (x>0)\n"
         "  --seed <n>    : set RNG seed to <n> (domain definition's sampled tracebacks)  [42]  (n>=1)\n"
         "  --tformat <s> : assert target <seqfile> is in format <s>: only fasta (a cudp-makedb file is recognised anyway)\n"
         "  --cpu <n>     : number of host threads  [all cores]  (n>=0; 0 runs on the calling thread only)\n"
         "  --backend <s> : auto, cuda or host  [auto]: auto uses the GPU filters when a CUDA device is present\n"
         "  --gpus <s>    : number of GPUs, or all: the database is split across them and the host threads shared out\n"
         "                  [all that CUDA_VISIBLE_DEVICES lets through; one per process under mpirun]\n"
         "\n"
         "Resident database (a search costs no start-up: no CUDA context, no database read):\n"
         "  --daemon <s>  : load each <seqdb> (cudp-makedb databases) and its GPU copy once, then serve searches\n"
         "                  (cudp-hmmsearch's and cudp-phmmer's, from any number of clients) on the local socket <s>\n"
         "                  until SIGTERM or SIGINT\n"
         "  --connect <s> : run this search in the daemon listening on <s>; <seqdb> must be one of its databases.\n"
         "                  Output files are written here, exactly as a one-shot run writes them\n";
}

struct Options {
  std::string hmm_file, seq_file;
  std::optional<std::string> output, alignment_file, tblout, domtblout, pfamtblout;  // -o, -A, ...
  bool acc = false, noali = false, notextw = false;
  std::optional<int> textw;
  std::optional<double> E, T, domE, domT, incE, incT, incdomE, incdomT, Z, domZ, F1, F2, F3;
  bool max = false, nobias = false, nonull2 = false;
  std::string cut;  // "GA", "NC" or "TC" for --cut_ga/--cut_nc/--cut_tc; empty otherwise
  std::optional<int> cpu;
  std::optional<std::uint32_t> seed;
  std::optional<std::string> tformat;
  std::string backend = "auto";
  int gpus = cudp::apps::kGpusUnset;  // --gpus: a number, kGpusAll, or unset (gpu_choice.hpp)
  std::optional<std::string> daemon;   // --daemon: the socket to serve on (hmm_file is then empty)
  std::vector<std::string> databases;  // --daemon: every <seqdb> it serves (seq_file is the first)
  std::optional<std::string> connect;  // --connect: the socket of the daemon that runs this search
  // The options given (full names, values as typed) in hmmsearch's table order, as its esl_opt_SpoofCmdline()
  // writes them on the tables' "Option settings" line.
  std::vector<std::string> given;

  // The thresholds for every model, or for none of them with --cut_ga/nc/tc (see thresholds_for_model).
  Thresholds thresholds() const {
    Thresholds t;
    if (E) t.E = *E;
    if (T) { t.T = *T; t.by_E = false; }
    if (domE) t.domE = *domE;
    if (domT) { t.domT = *domT; t.dom_by_E = false; }
    if (incE) t.incE = *incE;
    if (incT) { t.incT = *incT; t.inc_by_E = false; }
    if (incdomE) t.incdomE = *incdomE;
    if (incdomT) { t.incdomT = *incdomT; t.incdom_by_E = false; }
    t.Z = Z;
    t.domZ = domZ;
    return t;
  }
};

// Command-line mistakes: the message names the option and the value; the tools exit with status 1, as hmmsearch does.
using UsageError = cudp::apps::UsageError;

// The options, in hmmsearch 3.3.2's table order (which its tables' "Option settings" line follows), then cudp's own,
// in Easel's syntax (kit/command_line.hpp): unique prefixes of the long names are taken over this whole list, as
// esl_getopts does over hmmsearch's. Reals and integers may be negative; strings may not start with '-'.
inline const cudp::apps::OptionTable& option_table() {
  using V = cudp::apps::OptionValue;
  static const cudp::apps::OptionTable table(
      cudp::apps::OptionSyntax::easel,
      {{"-h", V::none},          {"-o", V::word},           {"-A", V::word},        {"--tblout", V::word},
       {"--domtblout", V::word}, {"--pfamtblout", V::word}, {"--acc", V::none},     {"--noali", V::none},
       {"--notextw", V::none},   {"--textw", V::number},    {"-E", V::number},      {"-T", V::number},
       {"--domE", V::number},    {"--domT", V::number},     {"--incE", V::number},  {"--incT", V::number},
       {"--incdomE", V::number}, {"--incdomT", V::number},  {"--cut_ga", V::none},  {"--cut_nc", V::none},
       {"--cut_tc", V::none},    {"--max", V::none},        {"--F1", V::number},    {"--F2", V::number},
       {"--F3", V::number},      {"--nobias", V::none},     {"--nonull2", V::none}, {"-Z", V::number},
       {"--domZ", V::number},    {"--seed", V::number},     {"--tformat", V::word}, {"--cpu", V::number},
       {"--help", V::none},      {"--backend", V::word},    {"--gpus", V::word},    {"--daemon", V::word},
       {"--connect", V::word}});
  return table;
}

// Whether the option `word` names ("--opt", a unique prefix of it, or "-X") takes a value.
inline bool takes_value(const std::string& word) {
  const cudp::apps::OptionTable& table = option_table();
  return table[table.find(word)].value != cudp::apps::OptionValue::none;
}

// esl_str_IsReal: all of the text converts by strtod (inf, nan, hex and overflow to inf included), blanks after.
inline double parse_real(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const bool converted = end != text.c_str();
  while (*end == ' ' || (*end >= '\t' && *end <= '\r')) ++end;
  if (!converted || *end != '\0') throw UsageError("option " + flag + " expects a real number, got '" + text + "'");
  return v;
}

// esl_str_IsInteger, then the value hmmsearch uses: glibc's atoi(), strtol() cut to int (so 2^32 + 42 is 42).
inline long long parse_easel_int(const std::string& flag, const std::string& text, const char* range) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  const bool converted = end != text.c_str();
  while (*end == ' ' || (*end >= '\t' && *end <= '\r')) ++end;
  if (!converted || *end != '\0')
    throw UsageError("option " + flag + " expects an integer " + range + ", got '" + text + "'");
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<unsigned long>(v)));
}

inline int parse_count(const std::string& flag, const std::string& text) {
  const long long v = parse_easel_int(flag, text, "n >= 0");
  // The cap is cudp's: more threads than that is a typo, not a machine.
  if (v < 0 || v > 1 << 20)
    throw UsageError("option " + flag + " expects an integer 0 <= n <= " + std::to_string(1 << 20) + ", got '" + text +
                     "'");
  return static_cast<int>(v);
}

inline std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

// hmmsearch's --seed 0 (an arbitrary seed, never reseeded) is not reproduced.
inline std::uint32_t parse_seed(const std::string& text) {
  const long long v = parse_easel_int("--seed", text, "n >= 1");
  if (v < 0) throw UsageError("option --seed expects an integer n >= 1 (as a C int), got '" + text + "'");
  if (v == 0)
    throw UsageError("option --seed " + text +
                     " (0 to HMMER: a one-time arbitrary seed) is not supported; give a seed n >= 1");
  return static_cast<std::uint32_t>(v);
}

// nullopt for -h/--help. As in hmmsearch (Easel's esl_getopts): options come first and each at most once; a long
// option may be any unique prefix of its name and take its value as "--opt value" or "--opt=value"; a one-letter
// option takes it as "-X value" or "-Xvalue"; "--" or the first word that does not start with '-' (or is "-") ends
// the options, and all the rest are files.
// What a tool calls its two operands in messages, and which of them a --connect client names as the daemon's
// database (a file the daemon holds, so never standard input).
struct Operands {
  const char* first = "<hmmfile>";
  const char* second = "<seqdb>";
  int daemon_database = 2;  ///< 1 or 2
};

inline std::optional<Options> parse_command_line(int argc, const char* const* argv, const Operands& operands) {
  Options o;
  std::vector<std::string> files;
  std::string value;
  const auto positive = [&value](const std::string& flag, double v) {
    if (!(v > 0)) throw UsageError("option " + flag + " must be > 0, got " + value);
    return v;
  };
  const auto probability = [&value](const std::string& flag, double v) {
    if (v < 0) throw UsageError("option " + flag + " must be >= 0, got " + value);
    return v;
  };
  bool help = false;
  const cudp::apps::OptionTable& table = option_table();
  std::vector<std::vector<std::string>> settings(table.size());  // the words of each option given, for `given`
  std::vector<bool> seen(table.size());
  table.scan(argc, argv, 1, [&](const cudp::apps::OptionWord& w) {
    const std::string& flag = w.name;
    value = w.value;
    seen[w.index] = true;
    settings[w.index] = {flag};
    if (table[w.index].value != cudp::apps::OptionValue::none) settings[w.index].push_back(value);

    if (flag == "-h" || flag == "--help") help = true;
    else if (flag == "--noali") o.noali = true;
    else if (flag == "--acc") o.acc = true;
    else if (flag == "--notextw") o.notextw = true;
    else if (flag == "--max") o.max = true;
    else if (flag == "--nobias") o.nobias = true;
    else if (flag == "--nonull2") o.nonull2 = true;
    else if (flag == "--cut_ga" || flag == "--cut_nc" || flag == "--cut_tc") {
      const std::string kind = flag == "--cut_ga" ? "GA" : flag == "--cut_nc" ? "NC" : "TC";
      if (!o.cut.empty() && o.cut != kind)
        throw UsageError("options --cut_" + lower(o.cut) + " and " + flag + " cannot be combined");
      o.cut = kind;
    }
    else if (flag == "-A") o.alignment_file = value;
    else if (flag == "-o") o.output = value;
    else if (flag == "--tblout") o.tblout = value;
    else if (flag == "--domtblout") o.domtblout = value;
    else if (flag == "--pfamtblout") o.pfamtblout = value;
    else if (flag == "-E") o.E = positive(flag, parse_real(flag, value));
    else if (flag == "-T") o.T = parse_real(flag, value);
    else if (flag == "--domE") o.domE = positive(flag, parse_real(flag, value));
    else if (flag == "--domT") o.domT = parse_real(flag, value);
    else if (flag == "--incE") o.incE = positive(flag, parse_real(flag, value));
    else if (flag == "--incT") o.incT = parse_real(flag, value);
    else if (flag == "--incdomE") o.incdomE = positive(flag, parse_real(flag, value));
    else if (flag == "--incdomT") o.incdomT = parse_real(flag, value);
    else if (flag == "-Z") o.Z = positive(flag, parse_real(flag, value));
    else if (flag == "--domZ") o.domZ = positive(flag, parse_real(flag, value));
    else if (flag == "--F1") o.F1 = probability(flag, parse_real(flag, value));
    else if (flag == "--F2") o.F2 = probability(flag, parse_real(flag, value));
    else if (flag == "--F3") o.F3 = probability(flag, parse_real(flag, value));
    else if (flag == "--cpu") o.cpu = parse_count(flag, value);
    else if (flag == "--seed") o.seed = parse_seed(value);
    else if (flag == "--tformat") {
      if (lower(value) != "fasta")
        throw UsageError("option --tformat: only fasta is supported, got '" + value + "'");
      o.tformat = value;
    } else if (flag == "--textw") {
      const long long w = parse_easel_int(flag, value, "n >= 120");
      if (w < 120) throw UsageError("option --textw must be >= 120, got " + value);
      o.textw = static_cast<int>(w);
    }
    else if (flag == "--daemon") o.daemon = value;
    else if (flag == "--connect") o.connect = value;
    else if (flag == "--gpus") {
      if (value == "all") {
        o.gpus = cudp::apps::kGpusAll;
      } else if ((o.gpus = parse_count(flag, value)) < 1) {
        throw UsageError("option --gpus must be all or a number >= 1, got '" + value + "'");
      }
    } else if (flag == "--backend") {
      if (value != "auto" && value != "cuda" && value != "host")
        throw UsageError("option --backend must be auto, cuda or host, got '" + value + "'");
      o.backend = value;
    }
  }, [&](const std::string& word) { files.push_back(word); });
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i].name != std::string("-h") && table[i].name != std::string("--help"))
      o.given.insert(o.given.end(), settings[i].begin(), settings[i].end());
  // hmmsearch's incompatible pairs.
  const auto exclusive = [](bool a, bool b, const char* fa, const char* fb) {
    if (a && b) throw UsageError(std::string("options ") + fa + " and " + fb + " cannot be combined");
  };
  exclusive(o.E.has_value(), o.T.has_value(), "-E", "-T");
  exclusive(o.domE.has_value(), o.domT.has_value(), "--domE", "--domT");
  exclusive(o.incE.has_value(), o.incT.has_value(), "--incE", "--incT");
  exclusive(o.incdomE.has_value(), o.incdomT.has_value(), "--incdomE", "--incdomT");
  exclusive(o.max, o.F1.has_value(), "--max", "--F1");
  exclusive(o.max, o.F2.has_value(), "--max", "--F2");
  exclusive(o.max, o.F3.has_value(), "--max", "--F3");
  exclusive(o.max, o.nobias, "--max", "--nobias");
  exclusive(o.notextw, o.textw.has_value(), "--notextw", "--textw");
  if (!o.cut.empty()) {
    const std::string cut = "--cut_" + lower(o.cut);
    const std::pair<const char*, bool> thresholds[] = {
        {"-E", o.E.has_value()},         {"-T", o.T.has_value()},       {"--domE", o.domE.has_value()},
        {"--domT", o.domT.has_value()},   {"--incE", o.incE.has_value()}, {"--incT", o.incT.has_value()},
        {"--incdomE", o.incdomE.has_value()}, {"--incdomT", o.incdomT.has_value()}};
    for (const auto& [name, given] : thresholds) exclusive(given, true, name, cut.c_str());
  }
  // Like hmmsearch, -h answers only a command line whose options are all valid, and whatever its files.
  if (help) return std::nullopt;
  exclusive(o.daemon.has_value(), o.connect.has_value(), "--daemon", "--connect");
  if (o.daemon) {
    // The daemon holds the database and the backend; everything about a search comes with each client's request.
    for (std::size_t i = 0; i < o.given.size(); ++i) {
      const std::string& flag = o.given[i];
      if (flag == "--daemon" || flag == "--cpu" || flag == "--backend" || flag == "--gpus") {
        ++i;
        continue;
      }
      throw UsageError("option " + flag + " belongs to a search: give it to the client (--connect), not to --daemon");
    }
    const std::string served = operands.daemon_database == 1 ? operands.first : operands.second;
    if (files.empty())
      throw UsageError("--daemon expects one or more arguments, " + served + " [" + served + "...], got none");
    o.seq_file = files[0];
    o.databases = files;
    return o;
  }
  if (o.connect) {
    if (o.cpu) throw UsageError("option --cpu belongs to the daemon: give it when starting it (--daemon)");
    for (const char* flag : {"--backend", "--gpus"})
      if (seen[table.find(flag)])
        throw UsageError(std::string("option ") + flag + " belongs to the daemon: give it when starting it (--daemon)");
  }
  if (files.size() != 2) {
    // hmmsearch only says "Incorrect number of command line arguments"; the likely cause deserves its name.
    for (std::size_t i = 1; i < files.size(); ++i)
      if (files[i].size() > 1 && files[i][0] == '-')
        throw UsageError(std::string("options must come before ") + operands.first + " and " + operands.second +
                         ", got '" + files[i] + "' after '" + files[0] + "'");
    throw UsageError(std::string("expected two arguments, ") + operands.first + " and " + operands.second + ", got " +
                     std::to_string(files.size()));
  }
  if (o.connect && files[static_cast<std::size_t>(operands.daemon_database - 1)] == "-")
    throw UsageError(std::string("with --connect, ") +
                     (operands.daemon_database == 1 ? operands.first : operands.second) +
                     " is the daemon's database file, not standard input ('-')");
  o.hmm_file = files[0];
  o.seq_file = files[1];
  return o;
}

// hmmsearch's: <hmmfile> <seqdb>.
inline std::optional<Options> parse_options(int argc, const char* const* argv) {
  return parse_command_line(argc, argv, Operands{});
}

// Words for parse_options that give back the same search: each value glued to its option, so that none can pass
// for an option, and "--" before the files. A client sends these to the daemon.
inline std::vector<std::string> request_words(const Options& o) {
  std::vector<std::string> words;
  for (std::size_t i = 0; i < o.given.size(); ++i) {
    const std::string& flag = o.given[i];
    if (!takes_value(flag)) words.push_back(flag);
    else words.push_back(flag + (flag.size() == 2 ? "" : "=") + o.given[++i]);
  }
  words.emplace_back("--");
  words.push_back(o.hmm_file);
  words.push_back(o.seq_file);
  return words;
}

}  // namespace hmmsearch
