#pragma once
// The CLUSTAL .aln text ClustalW 2.1 writes: a header line, then blocks of at most 60 columns, each a blank line,
// one line per sequence (name padded to the name width plus 6) and a conservation line: '*' where every sequence
// has the first input sequence's residue, else (proteins only) ':' where all residues fall in one strong group,
// '.' where all fall in one weak group. The name width is the longest name, kept between 10 and 30; names longer
// than it are cut; the block width is 80 less the name width, rounded down to tens, at most 60.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

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

inline std::string clustal_aln_text(const std::vector<std::string>& names, const MultipleAlignment& alignment,
                                    bool dna) {
  int longest = 0;
  for (const auto& name : names) longest = std::max(longest, static_cast<int>(name.size()));
  const int name_width = std::max(std::min(clustal_max_name_width, longest), clustal_min_name_width);
  int block = 80 - name_width;
  block -= block % 10;
  if (block > 60 || block <= 0) block = 60;
  std::size_t length = 0;
  for (const auto& row : alignment.rows) length = std::max(length, row.size());

  std::string out = "CLUSTAL 2.1 multiple sequence alignment\n\n";
  for (std::size_t start = 0; start < length; start += static_cast<std::size_t>(block)) {
    const std::size_t end = std::min(length, start + static_cast<std::size_t>(block));
    out += '\n';
    for (const int s : alignment.order) {
      std::string name = names[static_cast<std::size_t>(s)].substr(0, static_cast<std::size_t>(name_width));
      name.resize(static_cast<std::size_t>(name_width) + 6, ' ');
      out += name;
      const auto& row = alignment.rows[static_cast<std::size_t>(s)];
      for (std::size_t j = start; j < end; ++j) out += j < row.size() ? clustal_letter(row[j]) : '-';
      out += '\n';
    }
    out.append(static_cast<std::size_t>(name_width) + 6, ' ');
    for (std::size_t j = start; j < end; ++j) out += detail::conservation_mark(alignment.rows, j, dna);
    out += '\n';
  }
  return out;
}

}  // namespace cudp::msa
