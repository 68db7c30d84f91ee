#pragma once
// The score table of ClustalW 2.1's pairwise stage (-PWMATRIX, -PWDNAMATRIX) and the numbers its gap costs are made
// from. The tables are those of clustal_matrix_tables.hpp, spread over residue codes; Gonnet scores are multiplied by
// 10, every other table by 100 (the gap penalties are in the same units). Unlike the profile stage's tables, these
// keep their negative scores.
//
// The DNA tables get ClustalW's "transition" weight, a share of the A/A score, written into the cells with code
// indices (0,4), (2,11) and (2,12): the pairwise stage indexes residue codes where the transitions A/G and C/T would
// need the nucleotide order, so what it really changes is A/E, C/M and C/N, and A/G keeps the table's score. Byte
// equality with clustalw needs the quirk (C against N is common in DNA).
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "clustal_alphabet.hpp"
#include "clustal_matrices.hpp"
#include "clustal_matrix_tables.hpp"

namespace cudp::msa {

// A 32 x 32 table indexed by residue codes; rows and columns of gaps and unknown letters are 0.
using ClustalTable = std::array<std::array<int, clustal_table_size>, clustal_table_size>;

enum class PairwiseProteinMatrix { gonnet, blosum, pam, identity, user };
enum class PairwiseDnaMatrix { iub, clustalw };

struct PairwiseScoring {
  ClustalTable table{};
  int int_scale = 100;           // table units per unit of a gap penalty
  int average_mismatch = 0;      // scales the protein gap opening
  float gap_open_scale = 1.0f;   // DNA tables only
  float gap_extend_scale = 1.0f;
};

namespace detail {

// Spreads a triangle over `order` onto residue codes, each score times `scale`.
template <std::size_t N>
ClustalTable spread_triangle(const std::array<std::int16_t, N>& triangle, std::string_view order, int scale) {
  if (N != order.size() * (order.size() + 1) / 2) throw std::logic_error("spread_triangle: triangle and order differ");
  ClustalTable table{};
  std::size_t at = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto ci = static_cast<std::size_t>(clustal_code(order[i]));
    for (std::size_t j = 0; j <= i; ++j) {
      const auto cj = static_cast<std::size_t>(clustal_code(order[j]));
      table[ci][cj] = table[cj][ci] = triangle[at++] * scale;
    }
  }
  return table;
}

// Minus the mean off-diagonal score, in ClustalW's arithmetic: the mean is taken over (R*R - R)/2 pairs where R is
// one less than the letters of the order (sic), in float, and truncated towards zero.
inline int average_mismatch(const ClustalTable& table, std::size_t order_size) {
  const int r = static_cast<int>(order_size) - 1;
  int off_diagonal = 0;
  for (std::size_t i = 0; i <= static_cast<std::size_t>(clustal_max_residue); ++i) {
    for (std::size_t j = 0; j < i; ++j) off_diagonal += table[i][j];
  }
  return -static_cast<int>(static_cast<float>(off_diagonal) / (static_cast<float>(r * r - r) / 2));
}

}  // namespace detail

inline PairwiseScoring pairwise_scoring(PairwiseProteinMatrix matrix) {
  PairwiseScoring s;
  const std::string_view order = tables::protein_order;
  switch (matrix) {
    case PairwiseProteinMatrix::gonnet:
      s.int_scale = 10;
      s.table = detail::spread_triangle(tables::gonnet250, order, s.int_scale);
      break;
    case PairwiseProteinMatrix::blosum:
      s.table = detail::spread_triangle(tables::blosum30, order, s.int_scale);
      break;
    case PairwiseProteinMatrix::pam:
      s.table = detail::spread_triangle(tables::pam350, order, s.int_scale);
      break;
    case PairwiseProteinMatrix::identity:
      s.table = detail::spread_triangle(tables::identity, order, s.int_scale);
      break;
    case PairwiseProteinMatrix::user:
      throw std::logic_error("pairwise_scoring: a matrix file's scoring needs the matrix read");
  }
  s.average_mismatch = detail::average_mismatch(s.table, order.size());
  return s;
}

// A matrix file's table (-PWMATRIX=file), made as ClustalW makes the profile stage's, its negative scores kept.
inline PairwiseScoring pairwise_scoring(const ClustalTriangle& matrix) {
  PairwiseScoring s;
  const ProfileMatrix m = detail::expand_clustal_triangle(matrix.values.data(), matrix.codes, s.int_scale, true);
  s.table = m.score;
  s.average_mismatch = m.average_mismatch;
  return s;
}

inline PairwiseScoring pairwise_scoring(PairwiseDnaMatrix matrix, float transition_weight = 0.5f) {
  PairwiseScoring s;
  const std::string_view order = tables::nucleotide_order;
  if (matrix == PairwiseDnaMatrix::iub) {
    s.table = detail::spread_triangle(tables::iub, order, s.int_scale);
  } else {
    s.table = detail::spread_triangle(tables::clustalv_dna, order, s.int_scale);
    s.gap_open_scale = 0.6667f;
    s.gap_extend_scale = 0.751f;
  }
  s.average_mismatch = detail::average_mismatch(s.table, order.size());
  const int transition = static_cast<int>(transition_weight * static_cast<float>(s.table[0][0]));
  for (const auto& [a, b] : {std::pair<std::size_t, std::size_t>{0, 4}, {2, 11}, {2, 12}}) {
    s.table[a][b] = s.table[b][a] = transition;
  }
  return s;
}

}  // namespace cudp::msa
