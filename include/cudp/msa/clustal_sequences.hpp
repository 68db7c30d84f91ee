#pragma once
// Sequences as ClustalW 2.1 holds them: residue codes (clustal_alphabet.hpp), gaps already in the input included.
//
// Reading follows ClustalW's Pearson (FASTA) parser, whose quirks decide which residues exist at all: a header line
// starts with '>', the name is its first word after any spaces (at most 150 characters); in sequence lines every
// character that is a letter of the residue string, in either case, is kept upper-cased, '-' is kept as a gap, and
// everything else (digits, blanks, '*', '.', 'J') is dropped without a word. A record left with no residue is an
// error, as in ClustalW.
//
// Protein or DNA: ClustalW decides from the second sequence of the file alone (a file of one sequence is protein):
// DNA when at least 85% of its non-gap characters are A, C, G, T, U or N.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../io/error.hpp"
#include "../io/fasta.hpp"
#include "clustal_alphabet.hpp"

namespace cudp::msa {

struct ClustalSequences {
  std::vector<std::string> names;
  std::vector<std::vector<int>> residues;  // codes, gaps included
  bool dna = false;

  std::size_t size() const { return names.size(); }
};

// ClustalW's 85% rule on one encoded sequence.
inline bool clustal_looks_like_dna(const std::vector<int>& codes) {
  int residues = 0;
  int bases = 0;
  for (const int code : codes) {
    if (!clustal_is_residue(code)) continue;
    ++residues;
    const char c = clustal_letter(code);
    if (c == 'A' || c == 'C' || c == 'G' || c == 'T' || c == 'U' || c == 'N') ++bases;
  }
  if (residues == 0 || bases == 0) return false;
  // ClustalW compares a float ratio with the double 0.85.
  return static_cast<double>(static_cast<float>(bases) / static_cast<float>(residues)) >= 0.85;
}

// The sequence type ClustalW settles on for a whole file.
inline bool clustal_file_is_dna(const ClustalSequences& sequences) {
  return sequences.residues.size() > 1 && clustal_looks_like_dna(sequences.residues[1]);
}

// Parses Pearson/FASTA text as ClustalW does (see the file comment); `source` names the input in errors.
inline ClustalSequences parse_clustal_fasta(std::string_view text, const std::string& source) {
  constexpr std::size_t max_name = 150;
  ClustalSequences result;
  std::size_t pos = 0;
  std::size_t line_number = 0;
  std::size_t record_line = 0;
  bool in_record = false;
  const auto finish = [&] {
    if (!in_record) return;
    if (result.residues.back().empty()) {
      throw io::InputError(source + ":" + std::to_string(record_line) + ": sequence '" + result.names.back() +
                           "' has no residues");
    }
  };
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && line.front() == '>') {
      finish();
      std::string_view name = line.substr(1, max_name);
      while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
      const std::size_t blank = name.find_first_of(" \t");
      if (blank != std::string_view::npos) name = name.substr(0, blank);
      result.names.emplace_back(name);
      result.residues.emplace_back();
      record_line = line_number;
      in_record = true;
      continue;
    }
    if (!in_record) continue;  // text before the first header is not sequence
    for (const char c : line) {
      const int code = clustal_code(c);
      if (code >= 0) result.residues.back().push_back(code);
    }
  }
  finish();
  if (result.names.empty()) throw io::InputError(source + ": no sequence found");
  result.dna = clustal_file_is_dna(result);
  return result;
}

// Reads a FASTA file (plain or gzip-compressed) as ClustalW does.
inline ClustalSequences read_clustal_fasta(const std::string& path) {
  return parse_clustal_fasta(io::read_file_text(path), path);
}

}  // namespace cudp::msa
