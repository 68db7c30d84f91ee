#pragma once
// The settings of ClustalW 2.1's progressive stage, with its defaults. Protein and DNA keep separate gap costs, as
// ClustalW does; the floats are floats because ClustalW's arithmetic on them is float and the integer costs it
// derives depend on that rounding.
#include <string>

#include "clustal_matrix_file.hpp"

namespace cudp::msa {

enum class ProteinSeries { gonnet, blosum, pam, identity, user };
enum class DnaMatrix { iub, clustalw };
enum class OutputOrder { aligned, input };

struct ClustalParameters {
  bool dna = false;
  float protein_gap_open = 10.0f;    // -GAPOPEN on protein
  float protein_gap_extend = 0.2f;   // -GAPEXT on protein
  float dna_gap_open = 15.0f;        // -GAPOPEN on DNA
  float dna_gap_extend = 6.66f;      // -GAPEXT on DNA
  ProteinSeries protein_series = ProteinSeries::gonnet;  // -MATRIX
  ClustalMatrixSeries user_matrix;                       // -MATRIX=file: protein_series is user
  DnaMatrix dna_matrix = DnaMatrix::iub;                 // -DNAMATRIX
  float transition_weight = 0.5f;   // -TRANSWEIGHT: a purine-purine or pyrimidine-pyrimidine pair's share of a match
  bool negative_matrix = false;      // -NEGATIVE: keep the matrix's negative values, fixed gap costs
  int divergence_cutoff = 30;        // -MAXDIV: sequences at most this % identical to all others are delayed
  int gap_distance = 4;              // -GAPDIST: positions near an existing gap that get a higher opening cost
  std::string hydrophilic_residues = "GPSNDQEKR";  // -HGAPRESIDUES
  bool no_hydrophilic_gaps = false;  // -NOHGAP
  bool no_residue_gaps = false;      // -NOPGAP
  bool no_variable_gaps = true;      // variable-zone penalties for two-sequence profiles (off in ClustalW 2.1)
  bool end_gap_penalties = false;    // end gaps cost like inner gaps (-ENDGAPS does not set it in ClustalW 2.1)
  bool use_end_gaps = false;         // count end gaps as gaps in a profile's gap columns
  bool no_weights = false;           // equal sequence weights instead of the guide tree's
  OutputOrder output_order = OutputOrder::aligned;  // -OUTORDER

  float gap_open() const { return dna ? dna_gap_open : protein_gap_open; }
  float gap_extend() const { return dna ? dna_gap_extend : protein_gap_extend; }
};

}  // namespace cudp::msa
