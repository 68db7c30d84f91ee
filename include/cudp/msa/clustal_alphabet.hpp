#pragma once
// ClustalW's residue codes. One code table serves proteins and nucleotides: a residue is its index in
// "ABCDEFGHIKLMNOPQRSTUVWXYZ", codes 0..24; the profile arithmetic also carries two gap codes, one for gaps the
// progressive alignment inserts and one for gaps that were already in the input, at the top of a 32-wide table.
// Matrices, profiles and the output all index by these codes, so they must match ClustalW's exactly.
#include <string>
#include <string_view>
#include <vector>

#include "../config.hpp"

namespace cudp::msa {

inline constexpr std::string_view clustal_residue_letters = "ABCDEFGHIKLMNOPQRSTUVWXYZ";
inline constexpr int clustal_max_residue = 24;          // highest residue code
inline constexpr int clustal_table_size = 32;           // rows and columns of a score table
inline constexpr int clustal_gap_new = 30;              // a gap inserted by the alignment
inline constexpr int clustal_gap_old = 31;              // a gap present in the input
inline constexpr int clustal_end_of_alignment = 127;    // past a sequence's end inside a profile

CUDP_HD bool clustal_is_residue(int code) { return code >= 0 && code <= clustal_max_residue; }

// The code of one input character, or -1 for a character ClustalW's readers drop (digits, '*', '.', spaces).
// Lower case reads as upper case; '-' is an input gap.
inline int clustal_code(char c) {
  if (c == '-') return clustal_gap_old;
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  const std::size_t at = clustal_residue_letters.find(c);
  return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

// A sequence's text as codes, dropping what ClustalW's readers drop.
inline std::vector<int> clustal_encode(std::string_view text) {
  std::vector<int> codes;
  codes.reserve(text.size());
  for (const char c : text) {
    const int code = clustal_code(c);
    if (code >= 0) codes.push_back(code);
  }
  return codes;
}

// The letter printed for a code: residues as their upper-case letter, anything else as '-'.
inline char clustal_letter(int code) {
  return clustal_is_residue(code) ? clustal_residue_letters[static_cast<std::size_t>(code)] : '-';
}

}  // namespace cudp::msa
