#pragma once
// Substitution matrices from files, read as ClustalW 2.1 reads them (-MATRIX=file, -PWMATRIX=file): NCBI/BLAST
// layout, a header line whose letters name the columns, then one row per letter and one more (BLAST's '*' row:
// ClustalW wants exactly one row more than letters), each starting with its letter or not; whole numbers, or
// decimals (a row whose first value has a '.' is read times 10, each value truncated towards zero). Lines starting
// with '#' and blank lines before the header are skipped; a line starting with '#' or '!' after it ends the matrix.
// Only the lower triangle is read (column i of row r for i <= r).
//
// ClustalW keeps a row's values for every column whose letter is a residue to it, whatever the row's own letter, and
// later takes them back row by row for the residue rows only. A letter it does not know (J in NCBI's BLOSUM62) thus
// shifts the rows after it: the next row gets its values, and so on. This reader keeps ClustalW's storage, so the
// tables built from it (clustal_matrices.hpp, clustal_pairwise_matrices.hpp) are clustalw's; `unknown_letters`
// says when that happened.
//
// A series file (-MATRIX only) starts with a CLUSTAL_SERIES line and lists "MATRIX low high file" lines: the first
// member whose percent-identity range holds a step's mean identity scores it (the first member when none does).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../io/error.hpp"
#include "clustal_alphabet.hpp"

namespace cudp::msa {

// The residue code of each of a triangle's letters (its order), -1 where ClustalW knows no such residue or past
// the last letter; ClustalW looks at the first 25 letters only.
struct TriangleCodes {
  int code[clustal_max_residue + 1];
};

inline TriangleCodes triangle_codes(std::string_view letters) {
  TriangleCodes t{};
  for (int i = 0; i <= clustal_max_residue; ++i) {
    t.code[i] = -1;
    if (i >= static_cast<int>(letters.size())) continue;
    // Upper case only: ClustalW compares the file's letters with its residue string as they are.
    const std::size_t at = clustal_residue_letters.find(letters[static_cast<std::size_t>(i)]);
    if (at != std::string_view::npos) t.code[i] = static_cast<int>(at);
  }
  return t;
}

// A matrix as ClustalW stores one read from a file.
struct ClustalTriangle {
  std::string name;                    // the file it was read from
  std::string letters;                 // the header's letters, in order
  std::string unknown_letters;         // those ClustalW does not know (each shifts the rows after it)
  std::vector<std::int16_t> values;    // the lower triangle in ClustalW's storage order
  TriangleCodes codes{};
};

// -MATRIX=file: one matrix, or a series chosen by percent identity.
struct ClustalMatrixSeries {
  struct Member {
    int low = 0;   // percent identity, inclusive
    int high = 100;
    ClustalTriangle matrix;
  };
  std::vector<Member> members;
  bool series = false;  // members come from a CLUSTAL_SERIES file (else one member, the matrix itself)
};

namespace detail {

inline bool clustal_comment_line(std::string_view line) {
  if (!line.empty() && line[0] == '#') return true;
  for (const char c : line)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') return false;
  return true;
}

inline std::vector<std::string_view> clustal_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t' || line[at] == '\r')) ++at;
    const std::size_t start = at;
    while (at < line.size() && line[at] != ' ' && line[at] != '\t' && line[at] != '\r') ++at;
    if (at > start) fields.push_back(line.substr(start, at - start));
  }
  return fields;
}

inline bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// Lines with their numbers (1-based), the newline removed.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (at_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', at_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(at_, end - at_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    at_ = end + 1;
    ++number_;
    return true;
  }
  std::size_t number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  std::size_t number_ = 0;
};

}  // namespace detail

// One matrix from the text of file `name`; errors (cudp::io::InputError) name the file and line.
inline ClustalTriangle parse_clustal_matrix(std::string_view text, const std::string& name) {
  using io::format_error;
  using io::InputError;
  detail::LineReader lines(text);
  std::string_view line;
  ClustalTriangle m;
  m.name = name;
  bool header = false;
  while (lines.next(line)) {
    if (detail::clustal_comment_line(line)) continue;
    if (line.substr(0, 14) == "CLUSTAL_SERIES")
      throw InputError(format_error(name, lines.number(), "a single matrix expected, not a CLUSTAL_SERIES"));
    for (const char c : line)
      if (detail::is_letter(c)) m.letters += c;
    header = true;
    break;
  }
  if (!header) throw InputError(format_error(name, "no header line naming the matrix's letters"));
  if (m.letters.empty()) throw InputError(format_error(name, lines.number(), "no letters in the header line"));
  if (m.letters.size() > static_cast<std::size_t>(clustal_table_size))
    throw InputError(format_error(name, lines.number(), "more than 32 letters"));
  const std::size_t letters = m.letters.size();
  std::vector<bool> known(letters + 1, false);
  std::size_t residues = 0;
  for (std::size_t i = 0; i < letters; ++i) {
    known[i] = clustal_residue_letters.find(m.letters[i]) != std::string_view::npos;
    residues += known[i];
    if (!known[i]) m.unknown_letters += m.letters[i];
  }
  m.codes = triangle_codes(m.letters);
  // ClustalW divides by the count of diagonal cells less one (pairs of equal codes among the first 25 letters).
  int diagonal = 0;
  for (int i = 0; i <= clustal_max_residue; ++i)
    for (int j = 0; j <= i; ++j) diagonal += m.codes.code[i] >= 0 && m.codes.code[i] == m.codes.code[j];
  if (diagonal < 3)
    throw InputError(format_error(name, lines.number(), "fewer than 3 of its first 25 letters are residues"));

  std::size_t rows = 0;
  while (lines.next(line)) {
    if (line.empty()) continue;
    if (line[0] == '#' || line[0] == '!') break;
    const std::vector<std::string_view> fields = detail::clustal_fields(line);
    if (rows == letters + 1)
      throw InputError(format_error(name, lines.number(), "more rows than the header's " +
                                                              std::to_string(letters) + " letters and one"));
    const std::size_t first = !fields.empty() && detail::is_letter(fields[0][0]) ? 1 : 0;
    std::size_t wanted = 0;  // values up to the row's last residue column
    for (std::size_t i = 0; i <= rows; ++i)
      if (known[i]) wanted = i + 1;
    if (fields.size() < residues || fields.size() < first + wanted)
      throw InputError(format_error(name, lines.number(), "row " + std::to_string(rows + 1) + " has " +
                                                              std::to_string(fields.size() - first) + " values, " +
                                                              std::to_string(std::max(wanted, residues)) +
                                                              " wanted"));
    const float scale = fields[first].find('.') != std::string_view::npos ? 10.0f : 1.0f;
    for (std::size_t i = 0; i <= rows; ++i) {
      if (!known[i]) continue;
      const std::string value(fields[first + i]);
      const double v = std::strtod(value.c_str(), nullptr) * scale;  // atof's: 0 where no number starts
      if (!(v > -32768.0 && v < 32768.0))
        throw InputError(format_error(name, lines.number(), "value '" + value + "' out of range"));
      m.values.push_back(static_cast<std::int16_t>(v));
    }
    ++rows;
  }
  if (rows != letters + 1)
    throw InputError(format_error(name, lines.number(),
                                  std::to_string(rows) + " rows; ClustalW wants one more than the header's " +
                                      std::to_string(letters) + " letters (BLAST's '*' row)"));
  return m;
}

// A text file's contents, or an InputError naming it.
inline std::string read_clustal_matrix_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io::InputError(io::format_error(path, "cannot open the matrix file"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw io::InputError(io::format_error(path, "cannot read the matrix file"));
  return text.str();
}

inline ClustalTriangle read_clustal_matrix(const std::string& path) {
  return parse_clustal_matrix(read_clustal_matrix_text(path), path);
}

// -MATRIX=path: a series file (its matrices' paths as ClustalW opens them: as written, from the working directory)
// or one matrix.
inline ClustalMatrixSeries read_clustal_matrix_series(const std::string& path) {
  using io::format_error;
  using io::InputError;
  const std::string text = read_clustal_matrix_text(path);
  ClustalMatrixSeries s;
  detail::LineReader lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (detail::clustal_comment_line(line)) continue;
    s.series = line.substr(0, 14) == "CLUSTAL_SERIES";
    break;
  }
  if (!s.series) {
    s.members.push_back({0, 100, parse_clustal_matrix(text, path)});
    return s;
  }
  constexpr std::size_t most = 10;  // ClustalW's MAXMAT: later members are left out
  while (s.members.size() < most && lines.next(line)) {
    if (detail::clustal_comment_line(line) || line.substr(0, 6) != "MATRIX") continue;
    const std::string rest(line.substr(6));
    int low = 0, high = 0;
    char file[4096];
    if (std::sscanf(rest.c_str(), "%d %d %4095s", &low, &high, file) != 3 || low < 0 || low > 100 || high < 0 ||
        high > 100)
      throw InputError(format_error(path, lines.number(), "expected 'MATRIX low high file' with low and high in 0..100"));
    if (high <= low)
      throw InputError(format_error(path, lines.number(), "the lower limit is not below the upper (" +
                                                              std::to_string(low) + "-" + std::to_string(high) + ")"));
    s.members.push_back({low, high, read_clustal_matrix(file)});
  }
  if (s.members.empty()) throw InputError(format_error(path, "a CLUSTAL_SERIES without MATRIX lines"));
  return s;
}

// The member that scores a step of mean identity `percent_identity`, and the gap-opening scale ClustalW gives it
// (0.5 at the member's lower limit to 1 at its upper).
struct SeriesChoice {
  const ClustalTriangle* matrix = nullptr;
  float scale = 0.75f;
  bool in_range = true;  // false: no member's range held the identity (ClustalW warns and takes the first)
};

inline SeriesChoice choose_series_member(const ClustalMatrixSeries& s, double percent_identity) {
  if (s.members.empty()) throw std::logic_error("choose_series_member: no matrix read");
  if (!s.series) return {&s.members.front().matrix, 0.75f, true};
  std::size_t j = 0;
  bool found = false;
  for (std::size_t i = 0; i < s.members.size(); ++i) {
    if (percent_identity >= s.members[i].low && percent_identity <= s.members[i].high) {
      j = i;
      found = true;
      break;
    }
  }
  const auto& m = s.members[j];
  const float scale = static_cast<float>(0.5 + (percent_identity - m.low) / ((m.high - m.low) * 2.0));
  return {&m.matrix, scale, found};
}

}  // namespace cudp::msa
