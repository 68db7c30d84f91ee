#pragma once
// The Goldman-Yang (1994) codon model on the 61 sense codons of the universal code, and the codon frequencies made
// from nucleotide frequencies (F1X4, F3X4), as IQ-TREE computes them.
//   q_ij = pi_j x kappa (if i -> j is a transition) x omega (if it changes the amino acid), for codons that differ
//   at one position; 0 for codons that differ at two or three.
// SubstitutionModel then scales Q to one expected substitution (of a codon) per unit of branch length, which is
// IQ-TREE's scale too.
#include <array>
#include <cstddef>
#include <vector>

#include "genetic_code.hpp"
#include "site_patterns.hpp"

namespace cudp::phylo {

// The 61 x 61 exchangeabilities s_ij of GY94 (q_ij = s_ij pi_j), in sense-codon order.
inline std::vector<double> gy94_exchangeabilities(double omega, double kappa) {
  namespace gc = genetic_code;
  constexpr auto n = static_cast<std::size_t>(gc::sense_codons);
  std::vector<double> s(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const int a = gc::codon_of_sense[i], b = gc::codon_of_sense[j];
      int differences = 0;
      bool transition = false;
      for (int p = 0; p < 3; ++p) {
        const int x = gc::nucleotide(a, p), y = gc::nucleotide(b, p);
        if (x == y) continue;
        ++differences;
        transition = x + y == 2 || x + y == 4;  // A<->G (0, 2) or C<->T (1, 3) in ACGT order
      }
      if (differences != 1) continue;
      double rate = transition ? kappa : 1.0;
      if (gc::amino_acid_of_sense(static_cast<int>(i)) != gc::amino_acid_of_sense(static_cast<int>(j))) rate *= omega;
      s[i * n + j] = rate;
    }
  return s;
}

// Codon frequencies from the nucleotide frequencies at each codon position (F3X4) or pooled over the three (F1X4),
// counted from the sense codons of the data (unknown codons count for nothing), then normalised over the sense
// codons.
inline std::vector<double> codon_frequencies_from_nucleotides(const SitePatterns& data, bool per_position) {
  namespace gc = genetic_code;
  std::array<std::array<double, 4>, 3> count{};
  for (int t = 0; t < data.taxa; ++t)
    for (int p = 0; p < data.patterns; ++p) {
      const int code = data.code(t, p);
      if (code >= gc::sense_codons) continue;
      const int codon = gc::codon_of_sense[static_cast<std::size_t>(code)];
      for (int position = 0; position < 3; ++position)
        count[per_position ? static_cast<std::size_t>(position) : 0]
             [static_cast<std::size_t>(gc::nucleotide(codon, position))] += data.weights[static_cast<std::size_t>(p)];
    }
  if (!per_position) count[1] = count[2] = count[0];
  for (auto& position : count) {
    double total = 0;
    for (const double c : position) total += c;
    for (double& c : position) c = total > 0 ? c / total : 0.25;
  }
  std::vector<double> freq(static_cast<std::size_t>(gc::sense_codons));
  double total = 0;
  for (std::size_t s = 0; s < freq.size(); ++s) {
    const int codon = gc::codon_of_sense[s];
    freq[s] = 1;
    for (int position = 0; position < 3; ++position)
      freq[s] *= count[static_cast<std::size_t>(position)][static_cast<std::size_t>(gc::nucleotide(codon, position))];
    total += freq[s];
  }
  for (double& f : freq) f = total > 0 ? f / total : 1.0 / static_cast<double>(gc::sense_codons);
  return freq;
}

}  // namespace cudp::phylo
