#pragma once
// Digital alphabets in the layout HMMER's Easel library uses, so that residue codes, degenerate codes and their
// scores line up with HMMER's profiles:
//   amino: ACDEFGHIKLMNPQRSTVWY  -  BJZOUX  *  ~     (K = 20 canonical residues, Kp = 29 codes)
//   DNA:   ACGT  -  RYMKSWHBVDN  *  ~                (K = 4, Kp = 18; RNA is the same with U for T)
// Code K is the gap, Kp-3 the "any residue" code (X or N), Kp-2 the not-a-residue '*', Kp-1 missing data '~'.
//
// bio/alphabet.hpp orders protein codes like the NCBI matrix files and folds U, O, J into X; a Plan7 profile needs
// this order instead, and keeps U (scored as C), O (scored as K) and J (I or L) apart, as HMMER does.
#include <array>
#include <cstdint>

#include "../bio/alphabet.hpp"

namespace cudp::hmmer {

struct Plan7Alphabet {
  bio::AlphabetKind kind;
  const char* name;
  const char* symbols;  // symbols[code], Kp of them
  int K;                // canonical residues
  int Kp;               // all codes
  // degenerate[code] has bit x set when the code may stand for canonical residue x.
  std::array<std::uint32_t, 32> degenerate;
  // The view the FASTA reader takes: every residue letter in either case, with the synonyms Easel accepts, maps to
  // its code. Easel's sequence reader also takes '.' and '_' as the gap code and '~' as missing data, which score
  // like '*' (never in a match state); '-' it refuses, so it stays unmapped (-1) here too.
  bio::Alphabet sequence_alphabet;

  int gap() const { return K; }
  int any() const { return Kp - 3; }
  int nonresidue() const { return Kp - 2; }
  int missing() const { return Kp - 1; }
  // Canonical residues and degenerate codes: what a profile can score.
  bool is_residue(int code) const { return code < K || (code > K && code < Kp - 2); }
};

namespace detail {

constexpr std::uint32_t residue_mask(const char* symbols, const char* residues) {
  std::uint32_t mask = 0;
  for (int i = 0; residues[i] != '\0'; ++i) mask |= 1u << bio::detail::index_of(symbols, residues[i]);
  return mask;
}

// degeneracies: pairs of (code letter, residues it stands for); canonical residues stand for themselves and the
// "any" code for all of them.
constexpr std::array<std::uint32_t, 32> make_degeneracies(const char* symbols, int K, int Kp,
                                                          const char* const* degeneracies, int count) {
  std::array<std::uint32_t, 32> table{};
  for (int x = 0; x < K; ++x) table[x] = 1u << x;
  table[Kp - 3] = (1u << K) - 1u;
  for (int i = 0; i < count; ++i) {
    table[bio::detail::index_of(symbols, degeneracies[i][0])] = residue_mask(symbols, degeneracies[i] + 1);
  }
  return table;
}

// symbols[code] for every code except the gap symbol '-'; '.' and '_' for the gap code; synonyms[i] is read as
// synonym_targets[i].
constexpr std::array<std::int8_t, 256> make_plan7_code_table(const char* symbols, int K, int Kp, const char* synonyms,
                                                             const char* synonym_targets) {
  std::array<std::int8_t, 256> table{};
  for (auto& entry : table) entry = -1;
  for (int code = 0; code < Kp; ++code) {
    if (code == K) continue;
    table[static_cast<unsigned char>(symbols[code])] = static_cast<std::int8_t>(code);
    table[static_cast<unsigned char>(bio::detail::ascii_lower(symbols[code]))] = static_cast<std::int8_t>(code);
  }
  table[static_cast<unsigned char>('.')] = static_cast<std::int8_t>(K);
  table[static_cast<unsigned char>('_')] = static_cast<std::int8_t>(K);
  for (int i = 0; synonyms[i] != '\0'; ++i) {
    const auto code = static_cast<std::int8_t>(bio::detail::index_of(symbols, synonym_targets[i]));
    table[static_cast<unsigned char>(synonyms[i])] = code;
    table[static_cast<unsigned char>(bio::detail::ascii_lower(synonyms[i]))] = code;
  }
  return table;
}

inline constexpr const char* amino_degeneracies[] = {"BND", "JIL", "ZQE", "UC", "OK"};
inline constexpr const char* dna_degeneracies[] = {"RAG", "YCT", "MAC", "KGT", "SCG",
                                                   "WAT", "HACT", "BCGT", "VACG", "DAGT"};
inline constexpr const char* rna_degeneracies[] = {"RAG", "YCU", "MAC", "KGU", "SCG",
                                                   "WAU", "HACU", "BCGU", "VACG", "DAGU"};

}  // namespace detail

inline const Plan7Alphabet& plan7_amino() {
  static constexpr const char* symbols = "ACDEFGHIKLMNPQRSTVWY-BJZOUX*~";
  static constexpr Plan7Alphabet alphabet{
      bio::AlphabetKind::Protein,
      "amino",
      symbols,
      20,
      29,
      detail::make_degeneracies(symbols, 20, 29, detail::amino_degeneracies, 5),
      bio::Alphabet{bio::AlphabetKind::Protein, "amino (HMMER order)", symbols, 29,
                    detail::make_plan7_code_table(symbols, 20, 29, "", "")}};
  return alphabet;
}

// Easel also reads U as T, X as N and I (inosine) as A in DNA.
inline const Plan7Alphabet& plan7_dna() {
  static constexpr const char* symbols = "ACGT-RYMKSWHBVDN*~";
  static constexpr Plan7Alphabet alphabet{
      bio::AlphabetKind::Dna,
      "DNA",
      symbols,
      4,
      18,
      detail::make_degeneracies(symbols, 4, 18, detail::dna_degeneracies, 10),
      bio::Alphabet{bio::AlphabetKind::Dna, "DNA (HMMER order)", symbols, 18,
                    detail::make_plan7_code_table(symbols, 4, 18, "UXI", "TNA")}};
  return alphabet;
}

inline const Plan7Alphabet& plan7_rna() {
  static constexpr const char* symbols = "ACGU-RYMKSWHBVDN*~";
  static constexpr Plan7Alphabet alphabet{
      bio::AlphabetKind::Dna,
      "RNA",
      symbols,
      4,
      18,
      detail::make_degeneracies(symbols, 4, 18, detail::rna_degeneracies, 10),
      bio::Alphabet{bio::AlphabetKind::Dna, "RNA (HMMER order)", symbols, 18,
                    detail::make_plan7_code_table(symbols, 4, 18, "TXI", "UNA")}};
  return alphabet;
}

}  // namespace cudp::hmmer
