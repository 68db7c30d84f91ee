// cudp-msa's command line: the modern options and clustalw 2.1's flags, read in the order given (a later setting
// of the same thing wins), then checked.
#include "options.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "kit/command_line.hpp"

namespace msa_app {

using cudp::apps::check_choice;
using cudp::apps::OptionValue;
using cudp::apps::parse_int;
using cudp::apps::usage_error;

const char* const kUsage =
    "usage: cudp-msa IN.fa [-o OUT] [options]\n"
    "       cudp-msa -INFILE=IN.fa [-ALIGN] [clustalw flags]   (clustalw 2.1's command line)\n"
    "\n"
    "ClustalW 2.1's multiple alignment: pairwise distances (full alignments, or k-tuples with --quicktree), a guide\n"
    "tree (neighbour-joining, or UPGMA), then the progressive profile alignment; the .aln and .dnd are clustalw's,\n"
    "byte for byte. IN.fa is FASTA, plain or gzip-compressed; '-' is standard input.\n"
    "\n"
    "Input and output:\n"
    "  -o, --out FILE          the alignment (default: standard output; with clustalw flags, IN.aln as clustalw)\n"
    "  --format F              clustal (default), fasta, phylip, nexus, msf (GCG), pir or gde\n"
    "  --type T                auto (default: clustalw's guess from the second sequence), protein or dna\n"
    "  --guidetree-out FILE    write the guide tree (.dnd) to FILE\n"
    "  --usetree FILE          align on this guide tree (.dnd) instead of making one (no pairwise stage)\n"
    "  --output-order O        aligned (default: as the sequences join the alignment) or input\n"
    "  --range M,N             write columns M to N only\n"
    "  --seqnos                residue numbers at the ends of CLUSTAL lines\n"
    "  --seqno-range           names as name/start-end\n"
    "  --case C                lower (default) or upper: GDE's letters\n"
    "  --quiet                 no progress on standard error (shown only on a terminal anyway)\n"
    "Guide tree:\n"
    "  --quicktree             k-tuple distances instead of full pairwise alignments\n"
    "  --upgma                 UPGMA instead of neighbour-joining\n"
    "  --pw-matrix M           full pairwise protein matrix: gonnet (default), blosum, pam, id, or a matrix file\n"
    "  --pw-dna-matrix M       full pairwise DNA matrix: iub (default), clustalw (a file: read, then unused, as\n"
    "                          clustalw 2.1 does)\n"
    "  --pw-gap-open F         full pairwise gap opening (protein 10, DNA 15)\n"
    "  --pw-gap-extend F       full pairwise gap extension (protein 0.1, DNA 6.66)\n"
    "  --ktuple N              k-tuple size (protein 1, DNA 2)\n"
    "  --window N              diagonals searched either side (protein 5, DNA 4)\n"
    "  --topdiags N            best diagonals kept (protein 5, DNA 4)\n"
    "  --pairgap N             k-tuple gap penalty (protein 3, DNA 5)\n"
    "  --score S               percent (default) or absolute k-tuple scores\n"
    "Progressive alignment:\n"
    "  --matrix M              protein matrix series: gonnet (default), blosum, pam, id, or a matrix file (NCBI\n"
    "                          layout, or a CLUSTAL_SERIES of them by percent identity)\n"
    "  --dna-matrix M          iub (default) or clustalw (a file: read, then unused, as clustalw 2.1 does)\n"
    "  --gap-open F            gap opening (protein 10, DNA 15)\n"
    "  --gap-extend F          gap extension (protein 0.2, DNA 6.66)\n"
    "  --gap-distance N        gap separation distance (4)\n"
    "  --maxdiv N              delay sequences at most N % identical to all others (30)\n"
    "  --transition-weight F   DNA transitions' share of a match (0.5)\n"
    "  --hgap-residues S       hydrophilic residues (GPSNDQEKR)\n"
    "  --no-hgap               no hydrophilic gap penalties\n"
    "  --no-pgap               no residue-specific gap penalties\n"
    "  --variable-gaps         variable-zone gap penalties (what clustalw 2.1's -NOVGAP does)\n"
    "  --end-gaps              clustalw's -ENDGAPS\n"
    "  --no-weights            equal sequence weights\n"
    "  --negative              keep the matrix's negative values\n"
    "Running:\n"
    "  --threads N             host threads (default 0: all cores); the output does not depend on it\n"
    "  --backend B             auto (default), host or cuda: where the full pairwise alignments run (auto: the GPU\n"
    "                          for large sets); k-tuples and the progressive stage run on the host\n"
    "  --version               the version and what this build has\n"
    "  -h, --help              this text\n"
    "\n"
    "clustalw's flags (-NAME or /NAME, any case, values after '='): -INFILE= -ALIGN -OUTFILE= -OUTPUT= -OUTORDER=\n"
    "-NEWTREE= -USETREE= -QUICKTREE -CLUSTERING=NJ|UPGMA -TYPE= -QUIET -MATRIX= -DNAMATRIX= -GAPOPEN= -GAPEXT=\n"
    "-GAPDIST= -MAXDIV= -ENDGAPS -NOWEIGHTS -NOPGAP -NOHGAP -NOVGAP -HGAPRESIDUES= -TRANSWEIGHT= -NEGATIVE\n"
    "-PWMATRIX= -PWDNAMATRIX= -PWGAPOPEN= -PWGAPEXT= -KTUPLE= -WINDOW= -TOPDIAGS= -PAIRGAP= -SCORE= -CASE=\n"
    "-SEQNOS= -SEQNO_RANGE= -RANGE= -HELP. With any of them, the outputs default to clustalw's: IN.aln (or\n"
    ".fasta, .phy, .nxs, .msf, .pir, .gde) and IN.dnd beside IN.fa (no .dnd with -USETREE; only the .dnd with\n"
    "-NEWTREE= and no -ALIGN). Outputs are checked before any work and written whole or not at all.\n"
    "\n"
    "See docs/msa.md.\n";

namespace {

constexpr Format kFormats[] = {{"clustal", "aln"}, {"fasta", "fasta"}, {"phylip", "phy"}, {"nexus", "nxs"},
                               {"msf", "msf"},     {"pir", "pir"},     {"gde", "gde"}};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

float parse_float(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const float v = std::strtof(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(v))
    usage_error(flag + " expects a number, got '" + text + "'");
  if (v < 0) usage_error(flag + " must be >= 0, got '" + text + "'");
  return v;
}

int parse_count(const std::string& flag, const std::string& text) {
  const int v = parse_int(flag, text);
  if (v < 0) usage_error(flag + " must be >= 0, got '" + text + "'");
  return v;
}

// clustalw's match of an option's value against its choices (findMatch): the first character at which exactly one
// choice agrees picks it, so any prefix that tells them apart will do.
std::string clustalw_choice(const std::string& flag, const std::string& value,
                            const std::vector<std::string>& choices) {
  const std::string v = lower(value);
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::size_t count = 0, match = 0;
    for (std::size_t j = 0; j < choices.size(); ++j)
      if (i < choices[j].size() && v[i] == choices[j][i]) {
        match = j;
        ++count;
      }
    if (count == 0) break;
    if (count == 1) return choices[match];
  }
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  usage_error(flag + " must be one of " + list + ", got '" + value + "'");
}

const std::vector<std::string> kProteinMatrices = {"gonnet", "blosum", "pam", "id"};
const std::vector<std::string> kDnaMatrices = {"iub", "clustalw"};

// A matrix as clustalw takes one: a built-in name in any case (lower-cased here), else the value is a matrix
// file's path, kept as given.
std::string matrix_choice(const std::string& value, const std::vector<std::string>& names) {
  const std::string v = lower(value);
  for (const auto& n : names)
    if (v == n) return n;
  return value;
}

// -RANGE=m,n as clustalw reads it ("%d%[ :,-]%d": two numbers apart by blanks, ':', ',' or '-').
void parse_range(const std::string& flag, const std::string& value, Options& o) {
  char* end = nullptr;
  const long from = std::strtol(value.c_str(), &end, 10);
  const char* p = end;
  while (*p == ' ' || *p == ':' || *p == ',' || *p == '-') ++p;
  char* last = nullptr;
  const long to = p == end ? 0 : std::strtol(p, &last, 10);
  if (end == value.c_str() || p == end || last == p)
    usage_error(flag + " expects two column numbers, as m,n or m:n, got '" + value + "'");
  o.range_from = static_cast<int>(from);
  o.range_to = static_cast<int>(to);
}


// clustalw's flags that cudp-msa does not take, with why.
const char* unsupported_clustalw_flag(const std::string& name) {
  static const std::vector<std::string> other_modes = {
      "tree",      "bootstrap", "profile",   "profile1",   "profile2",  "sequences", "convert", "interactive",
      "batch",     "iteration", "numiter",   "newtree1",   "newtree2",  "usetree1",  "usetree2", "options",
      "seed",      "kimura",    "tossgaps",  "bootlabels", "outputtree", "pim",      "stats"};
  for (const auto& n : other_modes)
    if (name == n) return "cudp-msa makes multiple alignments only (no trees from alignments, profiles or conversions)";
  static const std::vector<std::string> others = {
      "nosecstr1",  "nosecstr2",   "secstrout",   "helixgap",   "strandgap", "loopgap",
      "terminalgap", "helixendin",  "helixendout", "strandendin", "strandendout", "maxseqlen", "debug"};
  for (const auto& n : others)
    if (name == n) return "not supported by cudp-msa";
  return nullptr;
}

// The names of clustalw's flags cudp-msa takes (lower case).
const std::vector<std::string> kClustalwFlags = {
    "infile",   "align",       "outfile",  "output",   "outorder",     "newtree",     "usetree",    "quicktree",
    "clustering", "type",      "quiet",    "matrix",   "dnamatrix",    "gapopen",     "gapext",     "gapdist",
    "maxdiv",   "endgaps",     "noweights", "nopgap",  "nohgap",       "novgap",      "hgapresidues", "transweight",
    "negative", "pwmatrix",    "pwdnamatrix", "pwgapopen", "pwgapext", "ktuple",      "window",     "topdiags",
    "pairgap",  "score",       "case",     "seqnos",   "seqno_range",  "range",       "help",       "check",
    "fullhelp"};

bool known_clustalw_name(const std::string& name) {
  for (const auto& n : kClustalwFlags)
    if (n == name) return true;
  return unsupported_clustalw_flag(name) != nullptr;
}

// Whether `word` is a clustalw flag: '-' and a name of two letters or more ("-o" and "-h" are the modern ones), or
// '/' and a name clustalw knows (else it is a path).
bool is_clustalw_word(const std::string& word) {
  if (word.size() < 2 || (word[0] != '-' && word[0] != '/') || word[1] == '-') return false;
  if (word[0] == '-') return word.size() > 2 && std::isalpha(static_cast<unsigned char>(word[1]));
  return known_clustalw_name(lower(word.substr(1, word.find('=') - 1)));
}

// Applies clustalw flag `word`; true when it asks for help.
bool apply_clustalw_flag(const std::string& word, Options& o) {
  const std::size_t eq = word.find('=');
  const std::string name = lower(word.substr(1, eq == std::string::npos ? std::string::npos : eq - 1));
  const std::string value = eq == std::string::npos ? "" : word.substr(eq + 1);
  const std::string flag = "-" + name;
  if (const char* why = unsupported_clustalw_flag(name)) usage_error("clustalw's -" + name + ": " + why);
  static const std::vector<std::string> no_value = {"align",  "quicktree", "quiet",  "endgaps", "noweights",
                                                    "nopgap", "nohgap",    "novgap", "negative", "help",
                                                    "check",  "fullhelp"};
  bool takes_none = false;
  for (const auto& n : no_value) takes_none = takes_none || n == name;
  if (!takes_none && value.empty()) usage_error("parameter required for " + flag);
  if (takes_none && eq != std::string::npos) usage_error(flag + " takes no value, got '" + value + "'");
  o.clustalw_style = true;
  if (name == "help" || name == "check" || name == "fullhelp") return true;
  if (name == "infile") {
    if (!o.input.empty()) usage_error("-infile: the input is already given ('" + o.input + "')");
    o.input = value;
  } else if (name == "align") {
    o.align_flag = true;
  } else if (name == "outfile") {
    o.out = value;
  } else if (name == "output") {
    const std::string f = clustalw_choice(flag, value, {"gcg", "gde", "pir", "phylip", "nexus", "fasta", "clustal"});
    o.format = f == "gcg" ? "msf" : f;
  } else if (name == "outorder") {
    o.output_order = clustalw_choice(flag, value, {"input", "aligned"});
  } else if (name == "newtree") {
    o.guide_tree_out = value;
  } else if (name == "usetree") {
    o.use_tree = value;
  } else if (name == "quicktree") {
    o.quicktree = true;
  } else if (name == "clustering") {
    o.upgma = clustalw_choice(flag, value, {"nj", "upgma"}) == "upgma";
  } else if (name == "type") {
    o.type = clustalw_choice(flag, value, {"protein", "dna"});
  } else if (name == "quiet") {
    o.quiet = true;
  } else if (name == "matrix") {
    o.matrix = matrix_choice(value, kProteinMatrices);
  } else if (name == "dnamatrix") {
    o.dna_matrix = matrix_choice(value, kDnaMatrices);
  } else if (name == "pwmatrix") {
    o.pw_matrix = matrix_choice(value, kProteinMatrices);
  } else if (name == "pwdnamatrix") {
    o.pw_dna_matrix = matrix_choice(value, kDnaMatrices);
  } else if (name == "gapopen") {
    o.gap_open = parse_float(flag, value);
  } else if (name == "gapext") {
    o.gap_extend = parse_float(flag, value);
  } else if (name == "pwgapopen") {
    o.pw_gap_open = parse_float(flag, value);
  } else if (name == "pwgapext") {
    o.pw_gap_extend = parse_float(flag, value);
  } else if (name == "transweight") {
    o.transition_weight = parse_float(flag, value);
  } else if (name == "gapdist") {
    o.gap_distance = parse_count(flag, value);
  } else if (name == "maxdiv") {
    o.maxdiv = parse_count(flag, value);
  } else if (name == "ktuple") {
    o.ktuple = parse_count(flag, value);
  } else if (name == "window") {
    o.window = parse_count(flag, value);
  } else if (name == "topdiags") {
    o.topdiags = parse_count(flag, value);
  } else if (name == "pairgap") {
    o.pairgap = parse_count(flag, value);
  } else if (name == "score") {
    o.score_absolute = clustalw_choice(flag, value, {"percent", "absolute"}) == "absolute";
  } else if (name == "hgapresidues") {
    o.hgap_residues = value;
  } else if (name == "endgaps") {
    o.end_gaps = true;
  } else if (name == "noweights") {
    o.no_weights = true;
  } else if (name == "nopgap") {
    o.no_pgap = true;
  } else if (name == "nohgap") {
    o.no_hgap = true;
  } else if (name == "novgap") {
    o.variable_gaps = true;
  } else if (name == "negative") {
    o.negative = true;
  } else if (name == "case") {
    o.upper_case = clustalw_choice(flag, value, {"lower", "upper"}) == "upper";
  } else if (name == "seqnos") {
    o.sequence_numbers = clustalw_choice(flag, value, {"off", "on"}) == "on";
  } else if (name == "seqno_range") {
    o.sequence_ranges = clustalw_choice(flag, value, {"off", "on"}) == "on";
  } else if (name == "range") {
    parse_range(flag, value, o);
  } else {
    usage_error("unknown option " + word);
  }
  return false;
}

// The modern options that take a value: the word after one is its value, whatever it looks like.
const std::vector<std::string> kValueOptions = {
    "-o",          "--out",       "--format",   "--type",      "--guidetree-out", "--usetree",
    "--output-order", "--pw-matrix", "--pw-dna-matrix", "--pw-gap-open", "--pw-gap-extend", "--ktuple",
    "--window",    "--topdiags",  "--pairgap",  "--score",     "--matrix",        "--dna-matrix",
    "--gap-open",  "--gap-extend", "--gap-distance", "--maxdiv", "--transition-weight", "--hgap-residues",
    "--threads",   "--backend",   "--case",     "--range"};

}  // namespace

bool builtin_matrix(const std::string& matrix, bool dna) {
  for (const auto& n : dna ? kDnaMatrices : kProteinMatrices)
    if (matrix == n) return true;
  return false;
}

Format format_named(const std::string& name) {
  for (const Format& f : kFormats)
    if (name == f.name) return f;
  usage_error("unknown format '" + name + "'");
}

std::string clustalw_output_name(const std::string& input, const std::string& extension) {
  std::size_t i = input.size();
  while (i > 0 && input[i - 1] != '/' && input[i - 1] != '.') --i;
  const std::string stem = i > 0 && input[i - 1] == '.' ? input.substr(0, i) : input + ".";
  return stem + extension;
}

std::optional<Options> parse_args(int argc, const char* const* argv) {
  Options o;
  cudp::apps::OptionBindings modern;
  const auto real = [](std::optional<float>& target) {
    return [&target](const std::string& f, const std::string& v) { target = parse_float(f, v); };
  };
  const auto choice = [](std::string& target, std::vector<std::string> allowed) {
    return [&target, allowed](const std::string& f, const std::string& v) {
      check_choice(f, v, allowed);
      target = v;
    };
  };
  const auto matrix = [](std::string& target, const std::vector<std::string>& names) {
    return [&target, &names](const std::string&, const std::string& v) { target = matrix_choice(v, names); };
  };
  const auto count = [](int& target) {
    return [&target](const std::string& f, const std::string& v) { target = parse_count(f, v); };
  };
  const auto optional_count = [](std::optional<int>& target) {
    return [&target](const std::string& f, const std::string& v) { target = parse_count(f, v); };
  };
  using V = OptionValue;
  modern.word("-o", o.out).word("--out", o.out).word("--guidetree-out", o.guide_tree_out).word("--usetree", o.use_tree);
  modern.bind("--format", V::word, choice(o.format, {"clustal", "fasta", "phylip", "nexus", "msf", "pir", "gde"}));
  modern.bind("--type", V::word, choice(o.type, {"auto", "protein", "dna"}));
  modern.bind("--output-order", V::word, choice(o.output_order, {"aligned", "input"}));
  modern.flag("--quiet", o.quiet).flag("--quicktree", o.quicktree).flag("--upgma", o.upgma);
  modern.bind("--pw-matrix", V::word, matrix(o.pw_matrix, kProteinMatrices));
  modern.bind("--pw-dna-matrix", V::word, matrix(o.pw_dna_matrix, kDnaMatrices));
  modern.bind("--pw-gap-open", V::number, real(o.pw_gap_open));
  modern.bind("--pw-gap-extend", V::number, real(o.pw_gap_extend));
  modern.bind("--ktuple", V::number, count(o.ktuple)).bind("--window", V::number, count(o.window));
  modern.bind("--topdiags", V::number, count(o.topdiags)).bind("--pairgap", V::number, count(o.pairgap));
  modern.bind("--score", V::word, [&o](const std::string& f, const std::string& v) {
    check_choice(f, v, {"percent", "absolute"});
    o.score_absolute = v == "absolute";
  });
  modern.bind("--matrix", V::word, matrix(o.matrix, kProteinMatrices));
  modern.bind("--dna-matrix", V::word, matrix(o.dna_matrix, kDnaMatrices));
  modern.bind("--gap-open", V::number, real(o.gap_open)).bind("--gap-extend", V::number, real(o.gap_extend));
  modern.bind("--gap-distance", V::number, optional_count(o.gap_distance));
  modern.bind("--maxdiv", V::number, optional_count(o.maxdiv));
  modern.bind("--transition-weight", V::number, real(o.transition_weight));
  modern.bind("--hgap-residues", V::word,
              [&o](const std::string&, const std::string& v) { o.hgap_residues = v; });
  modern.flag("--no-hgap", o.no_hgap).flag("--no-pgap", o.no_pgap).flag("--variable-gaps", o.variable_gaps);
  modern.flag("--end-gaps", o.end_gaps).flag("--no-weights", o.no_weights).flag("--negative", o.negative);
  modern.integer("--threads", o.threads).word("--backend", o.backend);
  modern.bind("--case", V::word, [&o](const std::string& f, const std::string& v) {
    check_choice(f, v, {"lower", "upper"});
    o.upper_case = v == "upper";
  });
  modern.flag("--seqnos", o.sequence_numbers).flag("--seqno-range", o.sequence_ranges);
  modern.bind("--range", V::word, [&o](const std::string& f, const std::string& v) { parse_range(f, v, o); });

  std::vector<std::string> operands;
  const auto on_operand = [&operands](const std::string& w) { operands.push_back(w); };
  // Word by word, so that the two syntaxes mix and a later setting wins; a modern option goes to the kit's parser
  // with its value.
  for (int a = 1; a < argc; ++a) {
    const std::string word = argv[a];
    if (word == "--") {
      for (++a; a < argc; ++a) operands.emplace_back(argv[a]);
      break;
    }
    if (is_clustalw_word(word)) {
      if (apply_clustalw_flag(word, o)) return std::nullopt;
      continue;
    }
    std::vector<const char*> one = {argv[0], argv[a]};
    for (const auto& v : kValueOptions)
      if (word == v && a + 1 < argc) one.push_back(argv[++a]);
    if (!modern.parse(static_cast<int>(one.size()), one.data(), 1, on_operand)) return std::nullopt;
  }

  for (const std::string& w : operands) {
    if (!o.input.empty())
      usage_error("unexpected argument '" + w + "': the input is already given ('" + o.input + "')");
    o.input = w;
  }
  if (o.input.empty())
    usage_error("give the input sequences: cudp-msa IN.fa (FASTA, plain or gzip; '-' for standard input)");
  check_choice("--backend", o.backend, {"auto", "cuda", "host"});
  if (o.threads < 0) usage_error("--threads must be >= 0");
  if (o.maxdiv && *o.maxdiv > 100) usage_error("--maxdiv must be a percentage, 0 to 100");
  if (!o.use_tree.empty() && o.use_tree == o.input && o.input == "-")
    usage_error("the input and the guide tree cannot both be standard input ('-')");
  if (!o.use_tree.empty() && !o.guide_tree_out.empty())
    usage_error("--usetree and --guidetree-out: a guide tree given is not made, nor written");
  // clustalw makes only the guide tree when -NEWTREE comes without -ALIGN or -USETREE.
  o.guide_tree_only = o.clustalw_style && !o.guide_tree_out.empty() && !o.align_flag && o.use_tree.empty();
  return o;
}

}  // namespace msa_app
