#pragma once
// What ClustalW 2.1's output options change in every alignment format it writes, and the pieces of layout the
// formats share: which columns are written (-RANGE), the "name/start-end" labels of -SEQNO_RANGE, and the name
// width and line width that follow from the longest name.
//
// The rows are written in `MultipleAlignment::order` (aligned or input order, -OUTORDER, is decided when the
// alignment is built). Columns are 1-based here, as in ClustalW's options.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "clustal_alphabet.hpp"
#include "progressive_alignment.hpp"

namespace cudp::msa {

struct AlignmentOutputOptions {
  bool dna = false;               // -TYPE: changes format tags (GCG "Type: N", PIR ">DL;", GDE '#', NEXUS DNA)
  bool lower_case = true;         // -CASE=LOWER|UPPER; ClustalW applies it to GDE output only
  bool sequence_numbers = false;  // -SEQNOS=ON: residue counts at the end of CLUSTAL lines
  bool sequence_ranges = false;   // -SEQNO_RANGE=ON: names become "name/start-end"
  int range_from = -1;            // -RANGE=m,n; -1: not given
  int range_to = -1;
  std::vector<int> weights;         // by sequence, scaled to about 1000 (sequence_weights.hpp); empty: 100 each
  std::vector<std::string> titles;  // by sequence, PIR's second header line; empty: blank lines
};

// The columns written, [first, last], 1-based. `length` is the longest row's.
struct OutputColumns {
  int first = 1;
  int last = 0;
  int count() const { return last - first + 1; }
};

namespace detail {

inline constexpr int page_width = 80;
inline constexpr int max_line_width = 60;
inline constexpr int min_name_width = 10;

inline int longest_row(const MultipleAlignment& alignment) {
  std::size_t length = 0;
  for (const auto& row : alignment.rows) length = std::max(length, row.size());
  return static_cast<int>(length);
}

// ClustalW's "longest name", never below 10 (no upper bound: GCG, NEXUS and the line widths of GDE, PIR and FASTA
// use it as it is; CLUSTAL caps it at 30 itself).
inline int longest_name(const std::vector<std::string>& names) {
  int longest = 0;
  for (const auto& name : names) longest = std::max(longest, static_cast<int>(name.size()));
  return names.empty() ? 0 : std::max(longest, min_name_width);
}

// Residues per line beside names of width `name_width`: what is left of the page, in tens, at most 60.
inline int line_width(int name_width) {
  int width = page_width - name_width;
  width -= width % 10;
  return width > max_line_width || width <= 0 ? max_line_width : width;
}

// The code at 1-based `column` of a row, or -1 past the row's end (where ClustalW stops reading a sequence).
inline int code_at(const std::vector<int>& row, int column) {
  return column >= 1 && column <= static_cast<int>(row.size()) ? row[static_cast<std::size_t>(column - 1)] : -1;
}

// Reads an optionally signed decimal as sscanf's %d would, advancing `text`; false if there are no digits.
inline bool scan_int(std::string_view& text, int& value) {
  std::size_t at = 0;
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  bool negative = false;
  if (at < text.size() && (text[at] == '-' || text[at] == '+')) negative = text[at++] == '-';
  const std::size_t digits = at;
  long long v = 0;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) && v < 1000000000LL)
    v = v * 10 + (text[at++] - '0');
  if (at == digits) return false;
  value = static_cast<int>(negative ? -v : v);
  text.remove_prefix(at);
  return true;
}

}  // namespace detail

// The columns -RANGE selects: the whole alignment unless both ends are given and in order; an end past the
// alignment is pulled back to it.
inline OutputColumns output_columns(const MultipleAlignment& alignment, const AlignmentOutputOptions& options) {
  const int length = detail::longest_row(alignment);
  OutputColumns columns{1, length};
  const int from = options.range_from, to = options.range_to;
  if (from == -1 || to == -1 || from > to) return columns;
  columns.first = std::max(from, 1);
  columns.last = std::min(to, length);
  return columns;
}

// The name up to its first '/', the part a "name/start-end" label keeps.
inline std::string name_before_slash(const std::string& name) { return name.substr(0, name.find('/')); }

struct SequenceRange {
  int start = 0;
  int end = 0;
};

// The residue numbers -SEQNO_RANGE prints for one row. This is ClustalW's arithmetic, quirks kept, since the
// labels must match: the start is the column of the first residue in range less the gaps before the range (plus
// the start of a "name/start-end" name, less one); a row with nothing but gaps before the range keeps the name's
// start; and the end adds the whole alignment length less the gaps from the range's start to the row's end.
inline SequenceRange sequence_range(const std::string& name, const std::vector<int>& row, OutputColumns columns) {
  int name_start = 0;
  bool name_has_range = false;
  {
    // A name "x/a-b" (x without '/'); as with sscanf, `a` counts even when "-b" is missing.
    const std::size_t slash = name.find('/');
    if (slash != std::string::npos && slash > 0) {
      std::string_view rest = std::string_view(name).substr(slash + 1);
      int name_end = 0;
      if (detail::scan_int(rest, name_start) && !rest.empty() && rest.front() == '-') {
        rest.remove_prefix(1);
        name_has_range = detail::scan_int(rest, name_end);
      }
    }
  }
  int gaps_before = 0;
  for (int k = 1; k < columns.first; ++k)
    if (!clustal_is_residue(detail::code_at(row, k))) ++gaps_before;
  // ClustalW passes the range's last column where the window's width belongs, so the window runs past it.
  const int window = columns.last;
  int gaps = 0;
  int first_residue = 0;
  for (int j = columns.first; j < columns.first + window && j <= static_cast<int>(row.size()); ++j) {
    if (clustal_is_residue(detail::code_at(row, j))) {
      if (first_residue == 0) first_residue = j;
    } else {
      ++gaps;
    }
  }
  int start = first_residue - gaps_before;
  if (name_has_range && name_start != 1) start += name_start - 1;
  if (gaps_before == columns.first - 1) start = name_start;
  if (start <= 0) start = 1;
  if (gaps_before == 0 && name_start == 0) start = columns.first;
  return {start, start + window - gaps - 1};
}

inline std::string range_label(const std::string& shown_name, const std::string& full_name,
                               const std::vector<int>& row, OutputColumns columns) {
  const SequenceRange r = sequence_range(full_name, row, columns);
  return name_before_slash(shown_name) + "/" + std::to_string(r.start) + "-" + std::to_string(r.end);
}

// `text` left-aligned in `width` columns, never cut (as an iostream setw does).
inline std::string pad_right(std::string text, int width) {
  if (static_cast<int>(text.size()) < width) text.resize(static_cast<std::size_t>(width), ' ');
  return text;
}

}  // namespace cudp::msa
