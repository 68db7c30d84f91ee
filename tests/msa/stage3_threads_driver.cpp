// Times the progressive stage on a given number of host threads: reads sequences (FASTA) and a guide tree (.dnd),
// prints the CLUSTAL .aln on standard output and the stage's time on standard error, so that runs on 1, 2 or more
// threads can be compared byte for byte (and with clustal_stage3_driver's or cudp-msa's .aln). Options: a few of
// ClustalW's (-MAXDIV=n -ENDGAPS -NOWEIGHTS -NOHGAP -NOPGAP -NOVGAP -NEGATIVE -MATRIX=gonnet|blosum|pam|id).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cudp/msa/clustal_output.hpp"
#include "cudp/msa/clustal_sequences.hpp"
#include "cudp/msa/progressive_alignment.hpp"
#include "cudp/msa/rooted_guide_tree.hpp"

int main(int argc, char** argv) {
  using namespace cudp::msa;
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s SEQUENCES.fa TREE.dnd THREADS [options]\n", argv[0]);
    return 2;
  }
  try {
    const ClustalSequences records = read_clustal_fasta(argv[1]);
    ClustalParameters p;
    p.dna = records.dna;
    for (int a = 4; a < argc; ++a) {
      const std::string option = argv[a];
      if (option.rfind("-MAXDIV=", 0) == 0) {
        p.divergence_cutoff = std::atoi(option.c_str() + 8);
      } else if (option == "-ENDGAPS") {
        p.use_end_gaps = false;
      } else if (option == "-NOWEIGHTS") {
        p.no_weights = true;
      } else if (option == "-NOHGAP") {
        p.no_hydrophilic_gaps = true;
      } else if (option == "-NOPGAP") {
        p.no_residue_gaps = true;
      } else if (option == "-NOVGAP") {
        p.no_variable_gaps = false;
      } else if (option == "-NEGATIVE") {
        p.negative_matrix = true;
      } else if (option.rfind("-MATRIX=", 0) == 0) {
        const std::string m = option.substr(8);
        p.protein_series = m == "blosum" ? ProteinSeries::blosum
                           : m == "pam"  ? ProteinSeries::pam
                           : m == "id"   ? ProteinSeries::identity
                                         : ProteinSeries::gonnet;
      } else {
        std::fprintf(stderr, "unknown option %s\n", option.c_str());
        return 2;
      }
    }
    std::ifstream in(argv[2], std::ios::binary);
    if (!in) throw std::runtime_error(std::string("cannot open ") + argv[2]);
    std::ostringstream dnd;
    dnd << in.rdbuf();
    const RootedGuideTree tree = read_clustal_guide_tree(dnd.str(), records.names, argv[2]);
    const auto steps = progressive_steps(tree);
    const auto weights = sequence_weights(tree, p.no_weights);
    const auto similarity = tree_similarities(tree);
    const auto start = std::chrono::steady_clock::now();
    const MultipleAlignment alignment = progressive_align(records.residues, steps, weights, similarity, p,
                                                          tree.has_distances, std::atoi(argv[3]));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "progressive_align %.4f s on %s threads\n", seconds, argv[3]);
    std::cout << clustal_aln_text(records.names, alignment, p.dna);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
