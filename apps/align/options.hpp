#pragma once
// cudp-align's command line. Usage errors are std::invalid_argument (exit status 2); the checks that need the
// sequences (alphabet, matrix, lengths) are made once they are read.
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kit/command_line.hpp"

namespace align_app {

inline const char* kUsage =
    "usage: cudp-align --query Q.fa --target T.fa [options]\n"
    "\n"
    "Optimal pairwise alignments with affine gaps (Gotoh), printed in full; O(m + n) memory per pair.\n"
    "A gap of length k costs OPEN + k*EXTEND (BLAST's convention; EMBOSS -gapopen OPEN+EXTEND -gapextend EXTEND).\n"
    "\n"
    "  --query FILE        query sequences: FASTA, plain or .gz; a pipe, or '-' for standard input, will do\n"
    "  --target FILE       target sequences: FASTA, plain or .gz; '-' for one of the two\n"
    "  --mode M            global (default: both sequences end to end), local (Smith-Waterman) or semiglobal\n"
    "                      (end gaps free in both sequences, as needle's default)\n"
    "  --pairs P           one-to-one (default): the i-th query with the i-th target (the counts must match);\n"
    "                      all: every query with every target\n"
    "  --alphabet A        protein, dna or auto (default: guessed from the first sequences of both files; said on\n"
    "                      standard error when the guess is uncertain)\n"
    "  --matrix NAME|FILE  protein: BLOSUM45, BLOSUM50, BLOSUM62 (default), BLOSUM80, PAM250; DNA: NUC.4.4 (alias\n"
    "                      EDNAFULL, every IUPAC code); or an NCBI-format matrix file\n"
    "  --match N           DNA without a matrix: score of identical bases, > 0 (default 2)\n"
    "  --mismatch N        DNA without a matrix: score of any other pair, <= 0 (default -3)\n"
    "  --gap-open N        gap open cost, >= 0 (default: protein 11, DNA 5)\n"
    "  --gap-extend N      gap extension cost, > 0 (default: protein 1, DNA 2)\n"
    "  --format F          pair (default: EMBOSS's pair format), sam, tabular (BLAST -outfmt 6 columns, then\n"
    "                      score and CIGAR) or score (query, target, score; global scores skip the\n"
    "                      alignments: every cell computed once)\n"
    "  --backend B         auto (default: the GPU when there is one), cuda or host\n"
    "  --threads N         host threads, >= 0 (default 0: all cores)\n"
    "  --version           the version and what this build has\n"
    "  --out FILE          write the output to FILE instead of standard output (nothing is written on error)\n"
    "  -h, --help          this text\n"
    "\n"
    "Defaults for DNA follow blastn: match 2, mismatch -3, gap open 5, extend 2. See docs/align.md.\n";

struct Options {
  std::string query, target, mode = "global", pairs = "one-to-one", alphabet = "auto", matrix, format = "pair",
                             backend = "auto", out;
  std::optional<int> match, mismatch, gap_open, gap_extend;
  int threads = 0;
  std::vector<std::string> args;  // the command line after the program name, for the output headers
};

// Costs and scores are kept far below the 32-bit range, so that no sum of a few of them can wrap.
inline constexpr int kMaxMagnitude = 1000000;

using cudp::apps::check_choice;
using cudp::apps::OptionValue;
using cudp::apps::usage_error;

// An integer option, also kept within kMaxMagnitude.
inline int parse_int(const std::string& flag, const std::string& text) {
  const int v = cudp::apps::parse_int(flag, text);
  if (v < -kMaxMagnitude || v > kMaxMagnitude)
    usage_error(flag + " " + text + " is out of range (at most " + std::to_string(kMaxMagnitude) + " in magnitude)");
  return v;
}

// nullopt for --help.
inline std::optional<Options> parse_args(int argc, const char* const* argv) {
  Options o;
  for (int a = 1; a < argc; ++a) o.args.emplace_back(argv[a]);
  cudp::apps::OptionBindings options;
  const auto bounded = [](std::optional<int>& field) {
    return [&field](const std::string& flag, const std::string& value) { field = parse_int(flag, value); };
  };
  options.word("--query", o.query).word("--target", o.target).word("--mode", o.mode).word("--pairs", o.pairs);
  options.word("--alphabet", o.alphabet).word("--matrix", o.matrix).word("--format", o.format);
  options.word("--backend", o.backend).word("--out", o.out);
  for (const auto& [flag, field] : {std::pair{"--match", &o.match}, std::pair{"--mismatch", &o.mismatch},
                                    std::pair{"--gap-open", &o.gap_open}, std::pair{"--gap-extend", &o.gap_extend}})
    options.bind(flag, OptionValue::number, bounded(*field));
  options.bind("--threads", OptionValue::number,
               [&o](const std::string& flag, const std::string& value) { o.threads = parse_int(flag, value); });
  if (!options.parse(argc, argv, 1, cudp::apps::refuse_operands("the inputs are given with --query and --target")))
    return std::nullopt;
  if (o.query.empty()) usage_error("--query is required");
  if (o.target.empty()) usage_error("--target is required");
  if (o.query == "-" && o.target == "-") usage_error("--query and --target cannot both be standard input ('-')");
  check_choice("--mode", o.mode, {"global", "local", "semiglobal"});
  check_choice("--pairs", o.pairs, {"one-to-one", "all"});
  check_choice("--alphabet", o.alphabet, {"protein", "dna", "auto"});
  check_choice("--format", o.format, {"pair", "sam", "tabular", "score"});
  check_choice("--backend", o.backend, {"auto", "host", "cuda"});
  if (o.gap_open && *o.gap_open < 0) usage_error("--gap-open must be >= 0, got " + std::to_string(*o.gap_open));
  if (o.gap_extend && *o.gap_extend <= 0) usage_error("--gap-extend must be > 0, got " + std::to_string(*o.gap_extend));
  if (o.match && *o.match <= 0) usage_error("--match must be > 0, got " + std::to_string(*o.match));
  if (o.mismatch && *o.mismatch > 0)
    usage_error("--mismatch is a score and must be <= 0 (e.g. -3), got " + std::to_string(*o.mismatch));
  if ((o.match || o.mismatch) && !o.matrix.empty()) usage_error("--match/--mismatch and --matrix exclude each other");
  if ((o.match || o.mismatch) && o.alphabet == "protein")
    usage_error("--match/--mismatch score DNA; protein needs a --matrix");
  if (o.threads < 0) usage_error("--threads must be >= 0 (0: all cores), got " + std::to_string(o.threads));
  return o;
}

}  // namespace align_app
