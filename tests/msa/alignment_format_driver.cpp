// A test driver for the alignment writers: reads an alignment (aligned FASTA, or a CLUSTAL .aln when its first line
// says CLUSTAL) and prints it in one of ClustalW 2.1's output formats, so that the oracle test can compare it with
// clustalw's own file byte for byte. Options take ClustalW's spelling: -OUTPUT=clustal|gcg|gde|pir|phylip|nexus|fasta
// -CASE=lower|upper -SEQNOS=on|off -SEQNO_RANGE=on|off -RANGE=m,n -OUTORDER=input|aligned -TYPE=protein|dna.
// As `clustalw -CONVERT` does, the rows are written in file order with weights 100. With -ALIGN the file holds
// unaligned sequences (FASTA), aligned as a plain `clustalw -ALIGN` run would (stages 1 to 3, default settings),
// whose order and final weights the output reports (-NOWEIGHTS as in clustalw).
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cudp/io/fasta.hpp"
#include "cudp/msa/alignment_formats.hpp"
#include "cudp/msa/clustal_distances.hpp"
#include "cudp/msa/clustal_sequences.hpp"
#include "cudp/msa/guide_tree.hpp"
#include "cudp/msa/progressive_alignment.hpp"
#include "cudp/msa/rooted_guide_tree.hpp"

namespace {

using namespace cudp::msa;

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// A CLUSTAL .aln: rows "name residues [count]" in blocks; lines starting with a blank are conservation marks.
ClustalSequences parse_aln(const std::string& text) {
  ClustalSequences result;
  std::size_t pos = text.find('\n');
  while (pos != std::string::npos && pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos + 1), text.size());
    std::string line = text.substr(pos + 1, end - pos - 1);
    pos = end;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.front() == ' ' || line.front() == '\t') continue;
    const std::size_t blank = line.find_first_of(" \t");
    const std::string name = line.substr(0, blank);
    const std::size_t start = line.find_first_not_of(" \t", blank);
    const std::size_t stop = line.find_first_of(" \t", start);
    const std::string residues = start == std::string::npos ? "" : line.substr(start, stop - start);
    std::size_t s = 0;
    while (s < result.names.size() && result.names[s] != name) ++s;
    if (s == result.names.size()) {
      result.names.push_back(name);
      result.residues.emplace_back();
    }
    for (const int code : clustal_encode(residues)) result.residues[s].push_back(code);
  }
  result.dna = clustal_file_is_dna(result);
  return result;
}

ClustalSequences read_alignment(const std::string& path) {
  const std::string text = cudp::io::read_file_text(path);
  if (text.rfind("CLUSTAL", 0) == 0) return parse_aln(text);
  return parse_clustal_fasta(text, path);
}

// Stages 1 to 3 with clustalw's defaults and an NJ guide tree.
MultipleAlignment align(const ClustalSequences& records, bool input_order, bool no_weights) {
  ClustalParameters p;
  p.no_weights = no_weights;
  p.dna = records.dna;
  p.output_order = input_order ? OutputOrder::input : OutputOrder::aligned;
  const auto settings = PairwiseDistanceSettings::defaults(p.dna, false);
  const std::string dnd = clustal_guide_tree(clustal_distances(records.residues, settings), records.names).dnd;
  const RootedGuideTree tree = read_clustal_guide_tree(dnd, records.names, "guide tree");
  return progressive_align(records.residues, progressive_steps(tree), sequence_weights(tree, p.no_weights),
                           tree_similarities(tree), p, tree.has_distances);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ALIGNMENT [clustalw output options] [-ALIGN]\n", argv[0]);
    return 2;
  }
  try {
    const ClustalSequences file = read_alignment(argv[1]);
    AlignmentOutputOptions options;
    options.dna = file.dna;
    AlignmentFormat format = AlignmentFormat::clustal;
    bool input_order = false;
    bool run_alignment = false;
    bool no_weights = false;
    for (int a = 2; a < argc; ++a) {
      const std::string option = argv[a];
      const std::size_t eq = option.find('=');
      const std::string key = upper(option.substr(0, eq));
      const std::string value = eq == std::string::npos ? "" : option.substr(eq + 1);
      const std::string uvalue = upper(value);
      if (key == "-OUTPUT") {
        format = alignment_format_from_name(value);
      } else if (key == "-CASE") {
        options.lower_case = uvalue == "LOWER";
      } else if (key == "-SEQNOS") {
        options.sequence_numbers = uvalue == "ON";
      } else if (key == "-SEQNO_RANGE") {
        options.sequence_ranges = uvalue == "ON";
      } else if (key == "-RANGE") {
        int from = -1, to = -1;
        char separator = 0;
        if (std::sscanf(value.c_str(), "%d%c%d", &from, &separator, &to) == 3) {
          options.range_from = from;
          options.range_to = to;
        }
      } else if (key == "-OUTORDER") {
        input_order = uvalue == "INPUT";
      } else if (key == "-TYPE") {
        options.dna = uvalue == "DNA";
      } else if (key == "-ALIGN") {
        run_alignment = true;
      } else if (key == "-NOWEIGHTS") {
        no_weights = true;
      } else {
        std::fprintf(stderr, "unknown option %s\n", option.c_str());
        return 2;
      }
    }

    MultipleAlignment alignment;
    if (run_alignment) {
      alignment = align(file, input_order, no_weights);
      options.weights = alignment.weights;
    } else {
      alignment.rows = file.residues;
      for (std::size_t s = 0; s < file.size(); ++s) alignment.order.push_back(static_cast<int>(s));
    }
    std::cout << alignment_text(format, file.names, alignment, options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
