#pragma once
// The CLUSTAL .aln text ClustalW 2.1 writes: a header line, then blocks of at most 60 columns, each a blank line,
// one line per sequence (name padded to the name width plus 6) and a conservation line: '*' where every sequence
// has the first input sequence's residue, else (proteins only) ':' where all residues fall in one strong group,
// '.' where all fall in one weak group. The name width is the longest name, kept between 10 and 30; names longer
// than it are cut; the block width is 80 less the name width, rounded down to tens, at most 60. -SEQNOS appends
// each row's residue count so far to lines holding a residue; -SEQNO_RANGE writes "name/start-end" in a field 10
// wider; -RANGE writes only the chosen columns.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "alignment_output_options.hpp"
#include "clustal_alphabet.hpp"
#include "progressive_alignment.hpp"

namespace cudp::msa {

namespace detail {

inline constexpr std::string_view strong_groups[] = {"STA", "NEQK", "NHQK", "NDEQ", "QHRK",
                                                     "MILV", "MILF", "HY", "FYW"};
inline constexpr std::string_view weak_groups[] = {"CSA", "ATV", "SAG", "STNK", "STPA", "SGND",
                                                   "SNDEQK", "NDEQHK", "NEQHRK", "FVLIM", "HFY"};

// Whether every sequence's residue in `column` lies in one group of `groups` (first such group wins).
template <std::size_t N>
bool all_in_one_group(const std::vector<std::vector<int>>& rows, std::size_t column,
                      const std::string_view (&groups)[N]) {
  for (const std::string_view group : groups) {
    std::size_t members = 0;
    for (const auto& row : rows) {
      const int code = column < row.size() ? row[column] : -1;
      if (clustal_is_residue(code) && group.find(clustal_letter(code)) != std::string_view::npos) ++members;
    }
    if (members == rows.size()) return true;
  }
  return false;
}

inline char conservation_mark(const std::vector<std::vector<int>>& rows, std::size_t column, bool dna) {
  const int first = column < rows[0].size() ? rows[0][column] : -1;
  if (!clustal_is_residue(first)) return ' ';
  std::size_t identical = 0;
  for (const auto& row : rows)
    if (column < row.size() && row[column] == first) ++identical;
  if (identical == rows.size()) return '*';
  if (dna) return ' ';
  if (all_in_one_group(rows, column, strong_groups)) return ':';
  if (all_in_one_group(rows, column, weak_groups)) return '.';
  return ' ';
}

}  // namespace detail

inline constexpr int clustal_min_name_width = 10;
inline constexpr int clustal_max_name_width = 30;

namespace detail {

inline constexpr int range_label_extra = 10;  // -SEQNO_RANGE widens the name field by this much (6 becomes 16)

inline std::string clustal_name_field(const std::string& name, const std::vector<int>& row, OutputColumns columns,
                                      int name_width, bool ranges) {
  const std::string shown = name.substr(0, static_cast<std::size_t>(name_width));
  if (!ranges) return pad_right(shown, name_width + 6);
  return pad_right(range_label(shown, name, row, columns), name_width + 6 + range_label_extra);
}

}  // namespace detail

// The .aln text under the output options (alignment_output_options.hpp): -RANGE, -SEQNOS and -SEQNO_RANGE.
inline std::string clustal_aln_text(const std::vector<std::string>& names, const MultipleAlignment& alignment,
                                    const AlignmentOutputOptions& options) {
  const int name_width = std::max(std::min(clustal_max_name_width, detail::longest_name(names)),
                                  clustal_min_name_width);
  const int block = detail::line_width(name_width);
  const OutputColumns columns = output_columns(alignment, options);
  // ClustalW counts every column before the -RANGE window, gaps too, into the -SEQNOS residue numbers.
  std::vector<int> numbers(alignment.rows.size(), columns.first - 1);

  std::string out = "CLUSTAL 2.1 multiple sequence alignment\n\n";
  for (int start = 1; start <= columns.count(); start += block) {
    const int end = std::min(columns.count(), start + block - 1);
    out += '\n';
    for (const int s : alignment.order) {
      const auto& row = alignment.rows[static_cast<std::size_t>(s)];
      const std::string& name = names[static_cast<std::size_t>(s)];
      out += detail::clustal_name_field(name, row, columns, name_width, options.sequence_ranges);
      bool any_residue = false;
      for (int j = start; j <= end; ++j) {
        const int code = detail::code_at(row, j + columns.first - 1);
        out += clustal_letter(code);
        if (clustal_is_residue(code)) {
          ++numbers[static_cast<std::size_t>(s)];
          any_residue = true;
        }
      }
      if (options.sequence_numbers && any_residue) out += ' ' + std::to_string(numbers[static_cast<std::size_t>(s)]);
      out += '\n';
    }
    out.append(static_cast<std::size_t>(name_width) + 6 + (options.sequence_ranges ? detail::range_label_extra : 0),
               ' ');
    for (int j = start; j <= end; ++j)
      out += detail::conservation_mark(alignment.rows, static_cast<std::size_t>(j + columns.first - 2), options.dna);
    out += '\n';
  }
  return out;
}

inline std::string clustal_aln_text(const std::vector<std::string>& names, const MultipleAlignment& alignment,
                                    bool dna) {
  AlignmentOutputOptions options;
  options.dna = dna;
  return clustal_aln_text(names, alignment, options);
}

}  // namespace cudp::msa
