#pragma once
// Residue alphabets: the mapping between the letters of sequence files and the small integer codes that index
// substitution matrices and profile emissions.
#include <array>
#include <cstdint>

namespace cudp::bio {

enum class AlphabetKind { Protein, Dna };

struct Alphabet {
  AlphabetKind kind;
  const char* name;
  const char* letters;                        // letters[code] is the canonical letter of each code
  int size;                                   // number of codes
  std::array<std::int8_t, 256> code_of_byte;  // -1 where a byte is not a residue letter

  // A single table load, cheap enough to call on every residue of a database.
  int encode(char c) const { return code_of_byte[static_cast<unsigned char>(c)]; }
  char decode(std::uint8_t code) const { return letters[code]; }
};

namespace detail {

constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

constexpr int index_of(const char* letters, char c) {
  for (int i = 0; letters[i] != '\0'; ++i) {
    if (letters[i] == c) return i;
  }
  return -1;
}

}  // namespace detail

// The code_of_byte table of an Alphabet with these letters: each letter of `letters` (either case) maps to its
// index, each letter of `aliases` (either case) to the code of the letter at the same place in `alias_targets`
// (-1 if that is not one of `letters`), every other byte to -1. For an alphabet of one's own:
//   static constexpr Alphabet rna{AlphabetKind::Dna, "RNA", "ACGU", 4, make_code_table("ACGU", "T", "U")};
constexpr std::array<std::int8_t, 256> make_code_table(const char* letters, const char* aliases = "",
                                                       const char* alias_targets = "") {
  std::array<std::int8_t, 256> table{};
  for (auto& entry : table) entry = -1;
  for (int code = 0; letters[code] != '\0'; ++code) {
    table[static_cast<unsigned char>(letters[code])] = static_cast<std::int8_t>(code);
    table[static_cast<unsigned char>(detail::ascii_lower(letters[code]))] = static_cast<std::int8_t>(code);
  }
  for (int i = 0; aliases[i] != '\0'; ++i) {
    const auto code = static_cast<std::int8_t>(detail::index_of(letters, alias_targets[i]));
    table[static_cast<unsigned char>(aliases[i])] = code;
    table[static_cast<unsigned char>(detail::ascii_lower(aliases[i]))] = code;
  }
  return table;
}

// The 24 letters in the order of the NCBI BLOSUM/PAM matrix files, so that a code is also the matrix row index.
// U (selenocysteine), O (pyrrolysine) and J (I or L, from mass spectrometry) have no row in the classic matrices
// and no slot in this order; they are scored as the unknown residue X rather than rejected, because real databases
// (UniProt) contain them and refusing those sequences would be worse than scoring a few residues as unknown.
inline const Alphabet& protein() {
  static constexpr Alphabet alphabet{AlphabetKind::Protein, "protein", "ARNDCQEGHILKMFPSTWYVBZX*", 24,
                                     make_code_table("ARNDCQEGHILKMFPSTWYVBZX*", "UOJ", "XXX")};
  return alphabet;
}

// RNA's U is read as T so that RNA and DNA searches share one alphabet; every IUPAC ambiguity code becomes N.
inline const Alphabet& dna() {
  static constexpr Alphabet alphabet{AlphabetKind::Dna, "DNA", "ACGTN", 5,
                                     make_code_table("ACGTN", "URYKMSWBDHV", "TNNNNNNNNNN")};
  return alphabet;
}

// DNA with the IUPAC ambiguity codes kept apart, for matrices that score them (NUC.4.4): A C G T, then R (A/G),
// Y (C/T), K (G/T), M (A/C), S (C/G), W (A/T), B (not A), D (not C), H (not G), V (not T), N (any). RNA's U is read
// as T. The codes of A, C, G, T and N differ from dna()'s, so the two alphabets' encoded sequences do not mix.
inline const Alphabet& dna_iupac() {
  static constexpr Alphabet alphabet{AlphabetKind::Dna, "DNA", "ACGTRYKMSWBDHVN", 15,
                                     make_code_table("ACGTRYKMSWBDHVN", "U", "T")};
  return alphabet;
}

}  // namespace cudp::bio
