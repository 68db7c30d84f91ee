#pragma once
// The score table of one progressive step, as ClustalW 2.1 builds it: the series member chosen by the mean percent
// identity between the two profiles (and, for Gonnet, the shorter profile's length), expanded from its triangle
// into a 32 x 32 table indexed by residue code, scaled to integers, shifted so that no entry is negative unless the
// negative-matrix option is on, with zero scores against gaps. The step's gap costs need the table's mean
// mismatch score (before the shift) and the series' scale, so those come with it.
#include <array>
#include <cstdint>
#include <string_view>

#include "clustal_alphabet.hpp"
#include "clustal_matrix_file.hpp"
#include "clustal_matrix_tables.hpp"
#include "clustal_parameters.hpp"

namespace cudp::msa {

struct ProfileMatrix {
  std::array<std::array<int, clustal_table_size>, clustal_table_size> score{};
  int average_mismatch = 0;  // minus the mean off-diagonal entry, before the shift to non-negative values
  float scale = 1.0f;        // multiplies the gap opening cost
};

namespace detail {

// Places triangle `values` (over the letters whose codes `codes` gives, `int_scale` times each entry) into the
// table by residue code, and computes the mean mismatch; ClustalW's loops run over the first 25 letters, taking a
// value for each pair of residue letters in turn (matrix files store theirs so: clustal_matrix_file.hpp).
inline ProfileMatrix expand_clustal_triangle(const std::int16_t* values, const TriangleCodes& codes, int int_scale,
                                             bool negative) {
  ProfileMatrix m;
  const auto& code_of = codes.code;
  std::size_t next = 0;
  int diagonal = 0;
  for (int i = 0; i <= clustal_max_residue; ++i) {
    const int ti = code_of[i];
    for (int j = 0; j <= i; ++j) {
      const int tj = code_of[j];
      if (ti < 0 || tj < 0) continue;
      const int v = values[next++] * int_scale;
      m.score[ti][tj] = v;
      m.score[tj][ti] = v;
      if (ti == tj) ++diagonal;
    }
  }
  const int kinds = diagonal - 1;  // ClustalW's count, one short of the letters
  int off_diagonal = 0;
  for (int i = 0; i <= clustal_max_residue; ++i)
    for (int j = 0; j < i; ++j) off_diagonal += m.score[i][j];
  m.average_mismatch = -static_cast<int>(off_diagonal / (static_cast<float>(kinds * kinds - kinds) / 2));
  // The minimum leaves out column 0 but starts from the (0,0) entry, as ClustalW's does.
  int lowest = m.score[0][0];
  for (int i = 0; i <= clustal_max_residue; ++i)
    for (int j = 1; j <= i; ++j)
      if (m.score[i][j] < lowest) lowest = m.score[i][j];
  if (!negative && lowest < 0) {
    for (int i = 0; i <= clustal_max_residue; ++i) {
      const int ti = code_of[i];
      if (ti < 0) continue;
      for (int j = 0; j <= clustal_max_residue; ++j) {
        const int tj = code_of[j];
        if (tj >= 0) m.score[ti][tj] -= lowest;
      }
    }
  }
  for (int i = 0; i < clustal_gap_new; ++i) {
    m.score[i][clustal_gap_new] = m.score[clustal_gap_new][i] = 0;
    m.score[i][clustal_gap_old] = m.score[clustal_gap_old][i] = 0;
  }
  m.score[clustal_gap_new][clustal_gap_new] = m.score[clustal_gap_old][clustal_gap_old] = 0;
  m.score[clustal_gap_new][clustal_gap_old] = m.score[clustal_gap_old][clustal_gap_new] = 0;
  return m;
}

template <std::size_t N>
ProfileMatrix expand_clustal_triangle(const std::array<std::int16_t, N>& values, std::string_view order,
                                      int int_scale, bool negative) {
  return expand_clustal_triangle(values.data(), triangle_codes(order), int_scale, negative);
}

inline ProfileMatrix dna_profile_matrix(const ClustalParameters& p) {
  ProfileMatrix m = p.dna_matrix == DnaMatrix::iub
                        ? expand_clustal_triangle(tables::iub, tables::nucleotide_order, 100, p.negative_matrix)
                        : expand_clustal_triangle(tables::clustalv_dna, tables::nucleotide_order, 100,
                                                  p.negative_matrix);
  m.scale = p.dna_matrix == DnaMatrix::iub ? 1.0f : 0.66f;
  // Transitions (A-G, C-T, C-U) score a fixed share of an A-A match, whatever the table says.
  const int transition = static_cast<int>(p.transition_weight * m.score[0][0]);
  const int a = clustal_code('A'), g = clustal_code('G'), c = clustal_code('C');
  const int t = clustal_code('T'), u = clustal_code('U');
  m.score[a][g] = m.score[g][a] = transition;
  m.score[c][t] = m.score[t][c] = transition;
  m.score[c][u] = m.score[u][c] = transition;
  return m;
}

}  // namespace detail

// `percent_identity`: the mean identity between the profiles' sequences (ClustalW's similarity matrix, not a
// distance); `min_length`: the shorter profile's mean residue count; `distance_tree`: false when the guide tree had
// no branch lengths, which pins each series to one member.
inline ProfileMatrix profile_matrix(const ClustalParameters& p, double percent_identity, int min_length,
                                   bool distance_tree = true) {
  if (p.dna) return detail::dna_profile_matrix(p);
  const bool fixed = p.negative_matrix || !distance_tree;
  const double pcid = percent_identity;
  const std::string_view order = tables::protein_order;
  auto make = [&](const auto& table, int int_scale, float scale) {
    ProfileMatrix m = detail::expand_clustal_triangle(table, order, int_scale, p.negative_matrix);
    m.scale = scale;
    return m;
  };
  switch (p.protein_series) {
    case ProteinSeries::blosum:
      if (fixed) return make(tables::blosum40, 100, 0.75f);
      if (pcid > 80.0) return make(tables::blosum80, 100, 0.75f);
      if (pcid > 60.0) return make(tables::blosum62_series, 100, 0.75f);
      if (pcid > 40.0) return make(tables::blosum45, 100, 0.75f);
      if (pcid > 30.0) return make(tables::blosum45, 100, 0.5f);
      if (pcid > 20.0) return make(tables::blosum45, 100, 0.6f);
      return make(tables::blosum30, 100, 0.6f);
    case ProteinSeries::pam:
      if (fixed) return make(tables::pam120, 100, 0.75f);
      if (pcid > 80.0) return make(tables::pam20, 100, 0.75f);
      if (pcid > 60.0) return make(tables::pam60, 100, 0.75f);
      if (pcid > 40.0) return make(tables::pam120, 100, 0.75f);
      return make(tables::pam350, 100, 0.75f);
    case ProteinSeries::gonnet: {
      // Gonnet tables are ten times finer, so they are scaled by 10 where the others take 100.
      const float half = 0.75f / 2.0f;
      if (fixed) return make(tables::gonnet250, 10, half);
      if (pcid > 35.0) return make(tables::gonnet80, 10, half / 2.0f);
      if (pcid > 25.0) return min_length < 100 ? make(tables::gonnet250, 10, half) : make(tables::gonnet120, 10, half);
      return min_length < 100 ? make(tables::gonnet350, 10, half) : make(tables::gonnet160, 10, half);
    }
    case ProteinSeries::identity:
      return make(tables::identity, 100, 0.75f);
    case ProteinSeries::user: {
      // A matrix file: its one matrix whatever the divergence, or a series' member by percent identity.
      const SeriesChoice chosen = choose_series_member(p.user_matrix, pcid);
      ProfileMatrix m = detail::expand_clustal_triangle(chosen.matrix->values.data(), chosen.matrix->codes, 100,
                                                        p.negative_matrix);
      m.scale = chosen.scale;
      return m;
    }
  }
  return make(tables::gonnet250, 10, 0.375f);
}

}  // namespace cudp::msa
