#pragma once
// cudp-msa's command line, checked: the modern options (GNU syntax, kit/command_line.hpp) and clustalw 2.1's own
// flags (-NAME or /NAME, -NAME=VALUE, case-insensitive), which may be mixed. options.cpp has the parser.
#include <optional>
#include <string>

namespace msa_app {

extern const char* const kUsage;

// An output format: its --format name and the extension clustalw gives the file beside the input.
struct Format {
  const char* name;       // clustal, fasta, ...
  const char* extension;  // aln, fasta, ...
};

struct Options {
  std::string input;           // a path, or "-" for standard input
  std::string out;             // the alignment; empty: standard output (modern) or clustalw's name (clustalw style)
  std::string format = "clustal";
  std::string guide_tree_out;  // the guide tree (.dnd); empty: none (modern) or clustalw's name (clustalw style)
  std::string use_tree;        // a guide tree to align on instead of making one
  std::string type = "auto";   // auto, protein or dna
  std::string backend = "auto";
  int threads = 0;
  bool quicktree = false;
  bool upgma = false;
  bool clustalw_style = false;  // a clustalw flag was given: clustalw's output files by default
  bool quiet = false;
  bool align_flag = false;       // clustalw's -ALIGN
  bool guide_tree_only = false;  // clustalw's -NEWTREE without -ALIGN: the guide tree is made and written, no alignment

  // The alignment's settings; unset ones take ClustalW's defaults for the sequence type.
  std::optional<float> gap_open, gap_extend, pw_gap_open, pw_gap_extend, transition_weight;
  // Built-in names (lower case) or matrix files' paths.
  std::string matrix = "gonnet", dna_matrix = "iub", pw_matrix = "gonnet", pw_dna_matrix = "iub";
  int ktuple = 0, window = 0, topdiags = 0, pairgap = 0;  // 0: not given (clustalw's rules, clustal_ktuple.hpp)
  bool score_absolute = false;
  bool end_gaps = false, no_weights = false, no_pgap = false, no_hgap = false, variable_gaps = false;
  bool negative = false;
  std::optional<int> maxdiv, gap_distance;
  std::optional<std::string> hgap_residues;
  std::string output_order = "aligned";

  // What the output shows (alignment_output_options.hpp).
  bool upper_case = false;        // -CASE=UPPER (GDE only, as clustalw)
  bool sequence_numbers = false;  // -SEQNOS=ON: residue counts at the ends of CLUSTAL lines
  bool sequence_ranges = false;   // -SEQNO_RANGE=ON: names as name/start-end
  int range_from = -1, range_to = -1;  // -RANGE=m,n: the columns written; -1: all
};

// The options, checked; nullopt for --help (and clustalw's -HELP).
std::optional<Options> parse_args(int argc, const char* const* argv);

// Whether a matrix option's value names a built-in matrix of its kind (DNA for dna_matrix and pw_dna_matrix)
// rather than a file.
bool builtin_matrix(const std::string& matrix, bool dna);

// The output format named `name` (one of --format's).
Format format_named(const std::string& name);

// clustalw's name for an output beside `input`: the input up to its last '.' (after its last '/'), then `extension`.
std::string clustalw_output_name(const std::string& input, const std::string& extension);

}  // namespace msa_app
