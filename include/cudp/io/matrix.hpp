#pragma once
// Substitution matrices in the NCBI text format: '#' comment lines, a header line of column letters, then one row
// per letter: the row letter followed by one integer score per column.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "../bio/alphabet.hpp"
#include "builtin_matrices.hpp"
#include "error.hpp"

namespace cudp::io {

struct SubstitutionMatrix {
  std::string name;
  const bio::Alphabet* alphabet = nullptr;
  int size = 0;
  std::vector<int> scores;  // size * size, row-major by code

  int operator()(std::uint8_t a, std::uint8_t b) const {
    return scores[static_cast<std::size_t>(a) * static_cast<std::size_t>(size) + b];
  }
  int max_score() const { return *std::max_element(scores.begin(), scores.end()); }
  int min_score() const { return *std::min_element(scores.begin(), scores.end()); }
};

namespace detail {

inline std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  while (true) {
    pos = line.find_first_not_of(" \t\r", pos);
    if (pos == std::string_view::npos) break;
    const std::size_t end = std::min(line.find_first_of(" \t\r", pos), line.size());
    words.push_back(line.substr(pos, end - pos));
    pos = end;
  }
  return words;
}

// The code a row or column letter stands for, or -1 for a letter that is only an alias in this alphabet (J, U, O
// for protein): its scores are those of the letter it maps to, which the file gives separately, so the alias row
// or column is skipped rather than allowed to overwrite them.
inline int matrix_letter_code(std::string_view word, const bio::Alphabet& alphabet, const std::string& source,
                              std::uint64_t line) {
  if (word.size() != 1) {
    throw InputError(format_error(source, line, "expected a single letter, found '" + std::string(word) + "'"));
  }
  const int code = alphabet.encode(word[0]);
  if (code < 0) {
    throw InputError(format_error(source, line, quote_byte(word[0]) + " is not a " + alphabet.name + " letter"));
  }
  const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(word[0])));
  return alphabet.letters[code] == upper ? code : -1;
}

}  // namespace detail

// Letters of the alphabet that the file leaves out score the file's minimum against everything: absent data should
// never make an alignment look better than the worst substitution the matrix knows.
inline SubstitutionMatrix parse_matrix(std::string_view text, const std::string& source_name,
                                       const bio::Alphabet& alphabet) {
  const auto size = static_cast<std::size_t>(alphabet.size);
  std::vector<int> column_codes;  // code of each column, -1 for skipped aliases
  bool have_header = false;
  std::vector<int> file_scores(size * size);
  std::vector<bool> row_seen(size, false);
  std::vector<bool> column_seen(size, false);
  std::size_t rows = 0;
  int file_min = std::numeric_limits<int>::max();

  std::uint64_t line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    const auto words = detail::split_words(line);
    if (words.empty() || words[0][0] == '#') continue;

    if (!have_header) {
      have_header = true;
      for (const auto word : words) {
        const int code = detail::matrix_letter_code(word, alphabet, source_name, line_number);
        if (code >= 0) {
          if (column_seen[static_cast<std::size_t>(code)]) {
            throw InputError(
                format_error(source_name, line_number, "column " + quote_byte(word[0]) + " appears twice"));
          }
          column_seen[static_cast<std::size_t>(code)] = true;
        }
        column_codes.push_back(code);
      }
      continue;
    }

    const int row = detail::matrix_letter_code(words[0], alphabet, source_name, line_number);
    const std::string row_label = quote_byte(words[0][0]);
    if (words.size() - 1 != column_codes.size()) {
      throw InputError(format_error(source_name, line_number,
                                    "row " + row_label + " has " + std::to_string(words.size() - 1) +
                                        " scores but the header has " + std::to_string(column_codes.size()) +
                                        " columns"));
    }
    if (row >= 0) {
      const auto r = static_cast<std::size_t>(row);
      if (row_seen[r]) throw InputError(format_error(source_name, line_number, "row " + row_label + " appears twice"));
      if (!column_seen[r]) {
        throw InputError(format_error(source_name, line_number, "row " + row_label + " has no column in the header"));
      }
      row_seen[r] = true;
    }
    ++rows;
    for (std::size_t j = 0; j < column_codes.size(); ++j) {
      const std::string_view word = words[j + 1];
      int score = 0;
      const auto [end_of_number, error] = std::from_chars(word.data(), word.data() + word.size(), score);
      if (error != std::errc() || end_of_number != word.data() + word.size()) {
        throw InputError(format_error(source_name, line_number,
                                      "row " + row_label + ": '" + std::string(word) + "' is not an integer score"));
      }
      file_min = std::min(file_min, score);
      if (row >= 0 && column_codes[j] >= 0) {
        file_scores[static_cast<std::size_t>(row) * size + static_cast<std::size_t>(column_codes[j])] = score;
      }
    }
  }

  if (!have_header) throw InputError(format_error(source_name, "no matrix found"));
  if (rows != column_codes.size()) {
    throw InputError(format_error(source_name, "the matrix has " + std::to_string(rows) + " rows but " +
                                                   std::to_string(column_codes.size()) + " columns"));
  }

  SubstitutionMatrix matrix{source_name, &alphabet, alphabet.size, std::move(file_scores)};
  for (std::size_t a = 0; a < size; ++a) {
    for (std::size_t b = 0; b < size; ++b) {
      if (!row_seen[a] || !column_seen[b]) matrix.scores[a * size + b] = file_min;
    }
  }
  return matrix;
}

inline std::vector<std::string> builtin_matrix_names() {
  std::vector<std::string> names;
  for (const auto& builtin : builtin::matrices) names.emplace_back(builtin.name);
  return names;
}

// A built-in name (case-insensitive) wins over a file of the same name in the working directory. A built-in matrix
// is refused for the other kind of alphabet (BLOSUM62 for DNA, NUC.4.4 for protein).
inline SubstitutionMatrix load_matrix(const std::string& name_or_path, const bio::Alphabet& alphabet) {
  for (const auto& builtin : builtin::matrices) {
    const std::string_view name = builtin.name;
    const bool same =
        name.size() == name_or_path.size() &&
        std::equal(name.begin(), name.end(), name_or_path.begin(), [](char a, char b) {
          return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
        });
    if (!same) continue;
    if (alphabet.kind != builtin.kind) {
      const bool protein = builtin.kind == bio::AlphabetKind::Protein;
      throw InputError(format_error(builtin.name, std::string("this built-in matrix scores ") +
                                                      (protein ? "protein" : "DNA") + ", not " +
                                                      (protein ? alphabet.name : "protein") + " sequences"));
    }
    return parse_matrix(builtin.text, builtin.name, alphabet);
  }

  std::ifstream file(name_or_path, std::ios::binary);
  if (!file) {
    const int open_error = errno;
    std::string names;  // those that score this alphabet: a protein tool has no use for the DNA ones
    for (const auto& builtin : builtin::matrices)
      if (builtin.kind == alphabet.kind) names += std::string(names.empty() ? "" : ", ") + builtin.name;
    throw InputError(format_error(name_or_path, std::string("not a built-in ") + alphabet.name + " matrix (" + names +
                                                    ") and cannot open it as a file: " + std::strerror(open_error)));
  }
  const std::string text{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  if (file.bad()) throw InputError(format_error(name_or_path, "cannot read: " + std::string(std::strerror(errno))));
  return parse_matrix(text, name_or_path, alphabet);
}

}  // namespace cudp::io
