#pragma once
// cudp-phylo's command line (GNU syntax after the command word, kit/command_line.hpp), checked.
#include <algorithm>
#include <optional>
#include <string>

#include "kit/command_line.hpp"

namespace phylo_app {

using cudp::apps::check_choice;
using cudp::apps::OptionValue;
using cudp::apps::usage_error;

inline const char* kUsage =
    "usage: cudp-phylo evaluate --alignment A --tree T.nwk --model M [options]\n"
    "\n"
    "The log-likelihood of a tree by Felsenstein's pruning: as given (branch lengths and model parameters fixed), or\n"
    "with branch lengths and the model's unset parameters optimised on the tree's topology (--optimize).\n"
    "\n"
    "  --alignment FILE    aligned sequences: FASTA, relaxed PHYLIP (sequential or interleaved) or NEXUS (a DATA or\n"
    "                      CHARACTERS block); plain or .gz\n"
    "  --tree FILE         the tree in Newick (the first tree of the file); its tips name the alignment's taxa\n"
    "  --model M           as IQ-TREE writes it: JC, F81, K80{kappa}, HKY{kappa}, TN93{ag,ct}, SYM{5 rates},\n"
    "                      GTR{ac,ag,at,cg,ct} (g-t is 1) for DNA; Poisson, LG, WAG, JTT for protein;\n"
    "                      GY{omega,kappa} (GY94, universal code) for codons; then +F (frequencies counted from\n"
    "                      the data), +FQ (equal), +F{a,c,g,t} (given), +FO (counted, then fitted by --optimize),\n"
    "                      +F1X4 or +F3X4 (codons, from nucleotide frequencies), +G[k][{alpha}] (discrete gamma,\n"
    "                      k categories, default 4, mean rates), +I[{p}] (invariable sites). Default frequencies:\n"
    "                      LG, WAG, JTT their own, GY counted. Left-out values take defaults: kappa 2, omega 1,\n"
    "                      rates 1, alpha 1, p 0\n"
    "  --data D            dna, protein, codon (DNA read three columns at a time; a codon with a gap or ambiguity\n"
    "                      code is unknown) or auto (default: codon for a codon model, else the NEXUS datatype,\n"
    "                      else guessed from the letters)\n"
    "  --precision P       double (default) or single\n"
    "  --backend B         auto (default: the GPU when there is one), cuda or host\n"
    "  --threads N         host threads (default 0: all cores)\n"
    "  --optimize WHAT     branches, model, or branches,model: maximise the likelihood over the branch lengths\n"
    "                      (Newton-Raphson) and over the parameters the model string leaves unset (Brent), as\n"
    "                      iqtree -te does; a root of two branches is removed first (the tree is unrooted)\n"
    "  --tree-out FILE     the tree with optimised branch lengths, in Newick\n"
    "  --site-lh FILE      per-site log-likelihoods, in the format CONSEL and IQ-TREE's -wsl use\n"
    "  --out FILE          the report to FILE instead of standard output (nothing is written on error)\n"
    "  --version           the version and what this build has\n"
    "  -h, --help          this text\n"
    "\n"
    "--alignment or --tree may be '-', standard input. The output files are checked before any work.\n"
    "\n"
    "See docs/phylo.md.\n";

struct Options {
  std::string alignment, tree, model, data = "auto", precision = "double", backend = "auto", site_lh, out, tree_out;
  int threads = 0;
  bool optimize_branches = false, optimize_model = false;
};

// The options, checked; nullopt for --help.
inline std::optional<Options> parse_args(int argc, const char* const* argv) {
  Options o;
  if (argc < 2) usage_error("give a command: evaluate");
  const std::string command = argv[1];
  if (command == "--help" || command == "-h") return std::nullopt;
  if (command != "evaluate") usage_error("unknown command '" + command + "' (known: evaluate)");
  cudp::apps::OptionBindings options;
  options.word("--alignment", o.alignment).word("--tree", o.tree).word("--model", o.model).word("--data", o.data);
  options.word("--precision", o.precision).word("--backend", o.backend).integer("--threads", o.threads);
  options.word("--site-lh", o.site_lh).word("--tree-out", o.tree_out).word("--out", o.out);
  options.bind("--optimize", OptionValue::word, [&o](const std::string&, const std::string& list) {
    for (std::size_t start = 0; start <= list.size();) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      const std::string item = list.substr(start, comma - start);
      if (item == "branches") o.optimize_branches = true;
      else if (item == "model") o.optimize_model = true;
      else usage_error("--optimize takes branches, model or both (branches,model), not '" + item + "'");
      start = comma + 1;
    }
  });
  if (!options.parse(argc, argv, 2, cudp::apps::refuse_operands(""))) return std::nullopt;
  if (o.alignment.empty()) usage_error("--alignment is required");
  if (o.tree.empty()) usage_error("--tree is required");
  if (o.model.empty()) usage_error("--model is required");
  if (o.alignment == "-" && o.tree == "-") usage_error("--alignment and --tree cannot both be standard input ('-')");
  check_choice("--data", o.data, {"auto", "dna", "protein", "codon"});
  check_choice("--precision", o.precision, {"double", "single"});
  check_choice("--backend", o.backend, {"auto", "cuda", "host"});
  if (o.threads < 0) usage_error("--threads must be >= 0");
  if (!o.tree_out.empty() && !o.optimize_branches) usage_error("--tree-out needs --optimize branches");
  return o;
}

}  // namespace phylo_app
