#pragma once
// The universal (standard) genetic code and the numbering of the 61 sense codons that the codon model's matrices
// use: codons in the order AAA, AAC, AAG, AAT, ACA, ... TTT (nucleotides ACGT, first position slowest) with the
// three stop codons TAA, TAG and TGA left out, as IQ-TREE and PAML number them.
#include <array>
#include <string>
#include <string_view>

namespace cudp::phylo::genetic_code {

inline constexpr int codons = 64;
inline constexpr int sense_codons = 61;
inline constexpr std::string_view nucleotides = "ACGT";

// The amino acid of codon 16 n1 + 4 n2 + n3 (n in ACGT order); '*' marks a stop codon.
inline constexpr std::string_view universal = "KNKNTTTTRSRSIIMIQHQHPPPPRRRRLLLLEDEDAAAAGGGGVVVV*Y*YSSSS*CWCLFLF";

inline constexpr bool is_stop(int codon) { return universal[static_cast<std::size_t>(codon)] == '*'; }
inline constexpr int nucleotide(int codon, int position) { return (codon >> (2 * (2 - position))) & 3; }

// Sense codon number (0..60) of each of the 64 codons, -1 for a stop codon; and the reverse.
inline constexpr std::array<int, codons> sense_of_codon = [] {
  std::array<int, codons> out{};
  int next = 0;
  for (int c = 0; c < codons; ++c) out[static_cast<std::size_t>(c)] = is_stop(c) ? -1 : next++;
  return out;
}();
inline constexpr std::array<int, sense_codons> codon_of_sense = [] {
  std::array<int, sense_codons> out{};
  for (int c = 0; c < codons; ++c)
    if (!is_stop(c)) out[static_cast<std::size_t>(sense_of_codon[static_cast<std::size_t>(c)])] = c;
  return out;
}();

inline std::string codon_name(int codon) {
  std::string name(3, ' ');
  for (int p = 0; p < 3; ++p)
    name[static_cast<std::size_t>(p)] = nucleotides[static_cast<std::size_t>(nucleotide(codon, p))];
  return name;
}

inline char amino_acid_of_sense(int sense) {
  return universal[static_cast<std::size_t>(codon_of_sense[static_cast<std::size_t>(sense)])];
}

}  // namespace cudp::phylo::genetic_code
