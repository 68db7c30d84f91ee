// A test driver for the progressive stage: reads sequences (FASTA) and a guide tree (.dnd, as ClustalW writes it)
// and prints the CLUSTAL .aln that `clustalw -INFILE=x.fa -ALIGN -USETREE=x.dnd` would write, so that the oracle
// test can compare the two byte for byte. Options take ClustalW's spelling: -GAPOPEN=f -GAPEXT=f -GAPDIST=n
// -MAXDIV=n -MATRIX=gonnet|blosum|pam|id -DNAMATRIX=iub|clustalw -TRANSWEIGHT=f -HGAPRESIDUES=s -NOHGAP -NOPGAP
// -NOVGAP -NEGATIVE -ENDGAPS -NOWEIGHTS -OUTORDER=input|aligned -TYPE=protein|dna.
// With -CLUSTERING=NJ or -CLUSTERING=UPGMA (and optionally -QUICKTREE) the driver runs stages 1 and 2 itself, with
// their default settings, writes the guide tree to TREE.dnd and aligns as a plain clustalw run would: a UPGMA run
// takes its steps and weights from the UPGMA joins and its identities from the pairwise distances.
// Delayed sequences join a GrowingAlignment from the third aligned sequence on (cudp-msa: from
// growing_alignment_from), so that every set with delayed sequences compares that path with clustalw.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cudp/msa/clustal_distances.hpp"
#include "cudp/msa/clustal_output.hpp"
#include "cudp/msa/clustal_sequences.hpp"
#include "cudp/msa/guide_tree.hpp"
#include "cudp/msa/progressive_alignment.hpp"
#include "cudp/msa/rooted_guide_tree.hpp"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cudp::msa;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SEQUENCES.fa TREE.dnd [clustalw options]\n", argv[0]);
    return 2;
  }
  try {
    const ClustalSequences records = read_clustal_fasta(argv[1]);
    ClustalParameters p;
    p.dna = records.dna;
    std::vector<std::string> options(argv + 3, argv + argc);
    std::string clustering;  // empty: the guide tree is read from TREE.dnd
    bool quicktree = false;
    for (const std::string& option : options) {
      const std::string key = upper(option.substr(0, option.find('=')));
      if (key == "-TYPE") p.dna = upper(option.substr(option.find('=') + 1)) == "DNA";
    }
    for (const std::string& option : options) {
      const std::size_t eq = option.find('=');
      const std::string key = upper(option.substr(0, eq));
      const std::string value = eq == std::string::npos ? "" : option.substr(eq + 1);
      const std::string uvalue = upper(value);
      if (key == "-GAPOPEN") {
        (p.dna ? p.dna_gap_open : p.protein_gap_open) = std::strtof(value.c_str(), nullptr);
      } else if (key == "-GAPEXT") {
        (p.dna ? p.dna_gap_extend : p.protein_gap_extend) = std::strtof(value.c_str(), nullptr);
      } else if (key == "-GAPDIST") {
        p.gap_distance = std::atoi(value.c_str());
      } else if (key == "-MAXDIV") {
        p.divergence_cutoff = std::atoi(value.c_str());
      } else if (key == "-MATRIX") {
        p.protein_series = uvalue == "BLOSUM" ? ProteinSeries::blosum
                           : uvalue == "PAM"  ? ProteinSeries::pam
                           : uvalue == "ID"   ? ProteinSeries::identity
                                              : ProteinSeries::gonnet;
      } else if (key == "-DNAMATRIX") {
        p.dna_matrix = uvalue == "CLUSTALW" ? DnaMatrix::clustalw : DnaMatrix::iub;
      } else if (key == "-TRANSWEIGHT") {
        p.transition_weight = std::strtof(value.c_str(), nullptr);
      } else if (key == "-HGAPRESIDUES") {
        p.hydrophilic_residues = uvalue;
      } else if (key == "-NOHGAP") {
        p.no_hydrophilic_gaps = true;
      } else if (key == "-NOPGAP") {
        p.no_residue_gaps = true;
      } else if (key == "-NOVGAP") {
        p.no_variable_gaps = false;  // despite its name, ClustalW 2.1's -NOVGAP turns variable-zone penalties on
      } else if (key == "-NEGATIVE") {
        p.negative_matrix = true;
      } else if (key == "-ENDGAPS") {
        p.use_end_gaps = false;  // ClustalW 2.1's -ENDGAPS sets nothing else
      } else if (key == "-NOWEIGHTS") {
        p.no_weights = true;
      } else if (key == "-OUTORDER") {
        p.output_order = uvalue == "INPUT" ? OutputOrder::input : OutputOrder::aligned;
      } else if (key == "-CLUSTERING") {
        clustering = uvalue;
      } else if (key == "-QUICKTREE") {
        quicktree = true;
      } else if (key != "-TYPE") {
        std::fprintf(stderr, "unknown option %s\n", option.c_str());
        return 2;
      }
    }
    MultipleAlignment alignment;
    if (clustering == "UPGMA") {
      const auto settings = PairwiseDistanceSettings::defaults(p.dna, quicktree);
      const GuideTree guide = clustal_guide_tree(clustal_distances(records.residues, settings), records.names,
                                                 ClusterMethod::upgma);
      std::ofstream(argv[2], std::ios::binary) << guide.dnd;
      const std::size_t n = records.size();
      alignment = progressive_align(records.residues, progressive_steps(guide.upgma, n),
                                    upgma_sequence_weights(guide.upgma, n, p.no_weights),
                                    similarities_from_distances(guide.matrix_after), p, true, 1, 3);
    } else {
      if (!clustering.empty()) {
        const auto settings = PairwiseDistanceSettings::defaults(p.dna, quicktree);
        std::ofstream(argv[2], std::ios::binary)
            << clustal_guide_tree(clustal_distances(records.residues, settings), records.names).dnd;
      }
      const RootedGuideTree tree = read_clustal_guide_tree(slurp(argv[2]), records.names, argv[2]);
      alignment = progressive_align(records.residues, progressive_steps(tree), sequence_weights(tree, p.no_weights),
                                    tree_similarities(tree), p, tree.has_distances, 1, 3);
    }
    std::cout << clustal_aln_text(records.names, alignment, p.dna);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
