#pragma once
// Karlin-Altschul statistics for gapped local alignment scores: the published (lambda, K, H) triples that NCBI BLAST
// tabulates per substitution matrix and gap cost, plus bit scores and E-values computed from them.
//
// Gapped lambda and K have no closed form; they were estimated by simulation (Altschul, Bundschuh, Olsen & Hwa,
// NAR 29:351, 2001), so only the tabulated gap costs are supported and anything else returns std::nullopt rather
// than a guess. Gap costs follow the BLAST convention: a gap of length k costs open + k * extend.
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cudp::bio {

struct KarlinAltschul {
  double lambda;  // nats per raw score unit
  double K;
  double H;  // relative entropy, nats per aligned pair
};

namespace detail {

struct KarlinAltschulRow {
  int gap_open;
  int gap_extend;
  KarlinAltschul params;
};

struct KarlinAltschulTable {
  std::string_view matrix;
  KarlinAltschul ungapped;
  const KarlinAltschulRow* rows;
  std::size_t count;
};

// Values as published in NCBI BLAST's blast_stat.c (lambda, K, H columns).
inline constexpr KarlinAltschulRow blosum45_rows[] = {
    {13, 3, {0.207, 0.049, 0.14}},  {12, 3, {0.199, 0.039, 0.11}},  {11, 3, {0.190, 0.031, 0.095}},
    {10, 3, {0.179, 0.023, 0.075}}, {16, 2, {0.210, 0.051, 0.14}},  {15, 2, {0.203, 0.041, 0.12}},
    {14, 2, {0.195, 0.032, 0.10}},  {13, 2, {0.185, 0.024, 0.084}}, {12, 2, {0.171, 0.016, 0.061}},
    {19, 1, {0.205, 0.040, 0.11}},  {18, 1, {0.198, 0.032, 0.10}},  {17, 1, {0.189, 0.024, 0.079}},
    {16, 1, {0.176, 0.016, 0.063}},
};

inline constexpr KarlinAltschulRow blosum50_rows[] = {
    {13, 3, {0.212, 0.063, 0.19}},  {12, 3, {0.206, 0.055, 0.17}},  {11, 3, {0.197, 0.042, 0.14}},
    {10, 3, {0.186, 0.031, 0.11}},  {9, 3, {0.172, 0.022, 0.082}},  {16, 2, {0.215, 0.066, 0.20}},
    {15, 2, {0.210, 0.058, 0.17}},  {14, 2, {0.202, 0.045, 0.14}},  {13, 2, {0.193, 0.035, 0.12}},
    {12, 2, {0.181, 0.025, 0.095}}, {19, 1, {0.212, 0.057, 0.18}},  {18, 1, {0.207, 0.050, 0.15}},
    {17, 1, {0.198, 0.037, 0.12}},  {16, 1, {0.186, 0.025, 0.10}},  {15, 1, {0.171, 0.015, 0.063}},
};

inline constexpr KarlinAltschulRow blosum62_rows[] = {
    {11, 2, {0.297, 0.082, 0.27}},  {10, 2, {0.291, 0.075, 0.23}}, {9, 2, {0.279, 0.058, 0.19}},
    {8, 2, {0.264, 0.045, 0.15}},   {7, 2, {0.239, 0.027, 0.10}},  {6, 2, {0.201, 0.012, 0.061}},
    {13, 1, {0.292, 0.071, 0.23}},  {12, 1, {0.283, 0.059, 0.19}}, {11, 1, {0.267, 0.041, 0.14}},
    {10, 1, {0.243, 0.024, 0.10}},  {9, 1, {0.206, 0.010, 0.052}},
};

inline constexpr KarlinAltschulRow blosum80_rows[] = {
    {25, 2, {0.342, 0.17, 0.66}},  {13, 2, {0.336, 0.15, 0.57}},  {9, 2, {0.319, 0.11, 0.42}},
    {8, 2, {0.308, 0.090, 0.35}},  {7, 2, {0.293, 0.070, 0.27}},  {6, 2, {0.268, 0.045, 0.19}},
    {11, 1, {0.314, 0.095, 0.35}}, {10, 1, {0.299, 0.071, 0.27}}, {9, 1, {0.279, 0.048, 0.20}},
};

inline constexpr KarlinAltschulRow pam250_rows[] = {
    {15, 3, {0.205, 0.049, 0.13}},  {14, 3, {0.200, 0.043, 0.12}},  {13, 3, {0.194, 0.036, 0.10}},
    {12, 3, {0.186, 0.029, 0.085}}, {11, 3, {0.174, 0.020, 0.070}}, {17, 2, {0.204, 0.047, 0.12}},
    {16, 2, {0.198, 0.038, 0.11}},  {15, 2, {0.191, 0.031, 0.087}}, {14, 2, {0.182, 0.024, 0.073}},
    {13, 2, {0.171, 0.017, 0.059}}, {21, 1, {0.205, 0.045, 0.11}},  {20, 1, {0.199, 0.037, 0.10}},
    {19, 1, {0.192, 0.029, 0.083}}, {18, 1, {0.183, 0.021, 0.070}}, {17, 1, {0.171, 0.014, 0.052}},
};

template <std::size_t N>
constexpr KarlinAltschulTable make_table(std::string_view name, KarlinAltschul ungapped,
                                         const KarlinAltschulRow (&rows)[N]) {
  return {name, ungapped, rows, N};
}

inline constexpr KarlinAltschulTable karlin_altschul_tables[] = {
    make_table("BLOSUM45", {0.2291, 0.0924, 0.2514}, blosum45_rows),
    make_table("BLOSUM50", {0.2318, 0.112, 0.3362}, blosum50_rows),
    make_table("BLOSUM62", {0.3176, 0.134, 0.4012}, blosum62_rows),
    make_table("BLOSUM80", {0.3430, 0.177, 0.6568}, blosum80_rows),
    make_table("PAM250", {0.2252, 0.0868, 0.2223}, pam250_rows),
};

inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

inline const KarlinAltschulTable* find_karlin_altschul_table(std::string_view matrix_name) {
  for (const auto& t : karlin_altschul_tables) {
    if (iequals(t.matrix, matrix_name)) return &t;
  }
  return nullptr;
}

}  // namespace detail

// Gapped parameters for a matrix (case-insensitive: "blosum62", "PAM250") and gap cost; nullopt when the pair is
// not tabulated.
inline std::optional<KarlinAltschul> gapped_parameters(std::string_view matrix_name, int gap_open, int gap_extend) {
  const auto* table = detail::find_karlin_altschul_table(matrix_name);
  if (!table) return std::nullopt;
  for (std::size_t i = 0; i < table->count; ++i) {
    const auto& row = table->rows[i];
    if (row.gap_open == gap_open && row.gap_extend == gap_extend) return row.params;
  }
  return std::nullopt;
}

// Parameters for alignments without gaps. Unlike the gapped ones these follow from the matrix and the background
// frequencies (Robinson & Robinson) alone, so they bound the gapped values from above.
inline std::optional<KarlinAltschul> ungapped_parameters(std::string_view matrix_name) {
  const auto* table = detail::find_karlin_altschul_table(matrix_name);
  if (!table) return std::nullopt;
  return table->ungapped;
}

// Normalised score in bits: (lambda * S - ln K) / ln 2.
inline double bit_score(int raw_score, const KarlinAltschul& ka) {
  return (ka.lambda * static_cast<double>(raw_score) - std::log(ka.K)) / std::log(2.0);
}

// Expected number of chance hits scoring at least S when one query of length m is searched against a database of
// n residues in total: K * m * n * exp(-lambda * S). No edge-effect correction is applied: BLAST shrinks m and n by
// the expected alignment length first, so callers that want BLAST's exact figures pass effective lengths.
inline double evalue(int raw_score, std::uint64_t query_length, std::uint64_t database_residues,
                     const KarlinAltschul& ka) {
  return ka.K * static_cast<double>(query_length) * static_cast<double>(database_residues) *
         std::exp(-ka.lambda * static_cast<double>(raw_score));
}

}  // namespace cudp::bio
