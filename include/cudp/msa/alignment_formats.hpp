#pragma once
// The alignment formats ClustalW 2.1 writes besides CLUSTAL (clustal_output.hpp), byte for byte as its -OUTPUT=
// GCG, GDE, PIR, PHYLIP, NEXUS and FASTA files, under the options of alignment_output_options.hpp.
//
// Layout facts the formats do not share:
// - GCG/MSF: blocks of 50 in tens, '.' for gaps and for the missing end of a short row; names padded to the longest
//   name plus 5; GCG checksums (position weights 1..57 cycling) summed mod 10000 into the header's; weights as the
//   alignment's weights / 10, one decimal. The header's MSF field is the range's last column, Len its width.
// - PHYLIP: interleaved blocks of 50 in tens, names cut to 10 in the first block, 11 blanks after it.
// - NEXUS: interleaved blocks of 50 without spaces, names padded to the longest name plus 1.
// - GDE, PIR and FASTA: one record per sequence in lines as wide as the CLUSTAL rule gives for the longest name
//   (uncapped here); GDE alone follows -CASE, FASTA alone drops a name's "/..." tail.
// - Rows that end early stop where they end (GCG pads them), and -SEQNO_RANGE labels take the name field (wider
//   by 10 in GCG, PHYLIP and NEXUS, where a label is padded to the longest name plus 15).
#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "alignment_output_options.hpp"
#include "clustal_alphabet.hpp"
#include "clustal_output.hpp"
#include "progressive_alignment.hpp"

namespace cudp::msa {

enum class AlignmentFormat { clustal, gcg, gde, pir, phylip, nexus, fasta };

namespace detail {

inline constexpr int interleaved_block = 50;
inline constexpr int range_label_width_extra = 15;  // GCG, PHYLIP, NEXUS: -SEQNO_RANGE labels pad to longest + 15
inline constexpr int phylip_name_width = 10;
inline constexpr int gcg_check_cycle = 57;
inline constexpr int gcg_check_modulus = 10000;
inline constexpr int convert_weight = 100;  // what ClustalW reports for sequences it has not weighted

// The window's letters of one row, stopping where the row ends; gaps as `gap`.
inline std::string row_text(const std::vector<int>& row, OutputColumns columns, char gap) {
  std::string text;
  for (int j = columns.first; j <= columns.last; ++j) {
    const int code = code_at(row, j);
    if (code < 0) break;
    text += clustal_is_residue(code) ? clustal_letter(code) : gap;
  }
  return text;
}

// `text` in lines of `width`, each ending in a newline; nothing for an empty text.
inline std::string wrapped(const std::string& text, int width) {
  std::string out;
  for (std::size_t at = 0; at < text.size(); at += static_cast<std::size_t>(width))
    out += text.substr(at, static_cast<std::size_t>(width)) + '\n';
  return out;
}

// Columns [from, to] (1-based in the window) of `text`, a blank after every tenth column of the window.
inline std::string spaced_tens(const std::string& text, int from, int to) {
  std::string out;
  for (int j = from; j <= to && j <= static_cast<int>(text.size()); ++j) {
    out += text[static_cast<std::size_t>(j - 1)];
    if (j % 10 == 0) out += ' ';
  }
  return out;
}

inline std::string chunk(const std::string& text, int from, int to) {
  if (from > static_cast<int>(text.size())) return {};
  return text.substr(static_cast<std::size_t>(from - 1), static_cast<std::size_t>(to - from + 1));
}

// A label of -SEQNO_RANGE as GCG, PHYLIP and NEXUS write it.
inline std::string interleaved_label(const std::vector<std::string>& names, const MultipleAlignment& alignment,
                                     int s, OutputColumns columns) {
  const std::string& name = names[static_cast<std::size_t>(s)];
  return pad_right(range_label(name, name, alignment.rows[static_cast<std::size_t>(s)], columns),
                   longest_name(names) + range_label_width_extra);
}

inline std::string record_name(const std::vector<std::string>& names, const MultipleAlignment& alignment, int s,
                               OutputColumns columns, bool ranges) {
  const std::string& name = names[static_cast<std::size_t>(s)];
  return ranges ? range_label(name, name, alignment.rows[static_cast<std::size_t>(s)], columns) : name;
}

// The GCG checksum of a row as ClustalW takes it: over the window padded with '.' to the window's last column
// (not its width), so a range starting past column 1 adds dots.
inline int gcg_checksum(const std::vector<int>& row, OutputColumns columns) {
  std::string text = row_text(row, columns, '.');
  text.resize(static_cast<std::size_t>(std::max(columns.last, 0)), '.');
  long check = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    check += static_cast<long>(i % gcg_check_cycle + 1) * std::toupper(static_cast<unsigned char>(text[i]));
  return static_cast<int>(check % gcg_check_modulus);
}

inline std::string printf_text(const char* format, int a, int b) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, a, b);
  return buffer;
}

}  // namespace detail

namespace detail {

// The MSF header: the grand checksum, then one line per sequence with its checksum and weight.
inline std::string gcg_header(const std::vector<std::string>& names, const MultipleAlignment& alignment,
                              const AlignmentOutputOptions& options, OutputColumns columns) {
  std::vector<int> checks(alignment.rows.size());
  long grand = 0;
  for (std::size_t s = 0; s < alignment.rows.size(); ++s) {
    checks[s] = gcg_checksum(alignment.rows[s], columns);
    grand += checks[s];
  }
  std::string out = "PileUp\n\n\n\n   MSF:" + printf_text("%5d", columns.last, 0) + "  Type: ";
  out += options.dna ? 'N' : 'P';
  out += "    Check:" + printf_text("%6d", static_cast<int>(grand % gcg_check_modulus), 0) + "   .. \n\n";
  for (const int s : alignment.order) {
    const std::size_t u = static_cast<std::size_t>(s);
    const int weight = options.weights.empty() ? convert_weight : options.weights[u];
    char shown[32];
    std::snprintf(shown, sizeof shown, "%.1f", static_cast<double>(static_cast<float>(weight * 100) / 1000.0f));
    out += " Name: " + names[u] + " oo  Len:" + printf_text("%5d  Check:%6d", columns.count(), checks[u]) +
           "  Weight:  " + shown + "\n";
  }
  return out + "\n//\n";
}

}  // namespace detail

inline std::string gcg_msf_text(const std::vector<std::string>& names, const MultipleAlignment& alignment,
                                const AlignmentOutputOptions& options) {
  const OutputColumns columns = output_columns(alignment, options);
  std::string out = detail::gcg_header(names, alignment, options, columns);
  const int name_width = detail::longest_name(names) + 5;
  for (int from = 1; from <= columns.count(); from += detail::interleaved_block) {
    const int to = std::min(columns.count(), from + detail::interleaved_block - 1);
    out += "\n\n";
    for (const int s : alignment.order) {
      const std::size_t u = static_cast<std::size_t>(s);
      out += '\n';
      out += options.sequence_ranges ? detail::interleaved_label(names, alignment, s, columns)
                                     : pad_right(names[u], name_width) + ' ';
      std::string text = detail::row_text(alignment.rows[u], columns, '.');
      text.resize(static_cast<std::size_t>(columns.count()), '.');
      out += detail::spaced_tens(text, from, to);
    }
  }
  return out + "\n\n";
}

inline std::string phylip_text(const std::vector<std::string>& names, const MultipleAlignment& alignment,
                               const AlignmentOutputOptions& options) {
  const OutputColumns columns = output_columns(alignment, options);
  std::string out = detail::printf_text("%6d %6d", static_cast<int>(alignment.rows.size()), columns.count());
  for (int from = 1; from <= columns.count(); from += detail::interleaved_block) {
    const int to = std::min(columns.count(), from + detail::interleaved_block - 1);
    for (const int s : alignment.order) {
      const std::size_t u = static_cast<std::size_t>(s);
      out += '\n';
      if (from > 1)
        out.append(detail::phylip_name_width + 1, ' ');
      else if (options.sequence_ranges)
        out += detail::interleaved_label(names, alignment, s, columns);
      else
        out += pad_right(names[u].substr(0, detail::phylip_name_width), detail::phylip_name_width) + ' ';
      out += detail::spaced_tens(detail::row_text(alignment.rows[u], columns, '-'), from, to);
    }
    out += '\n';
  }
  return out;
}

inline std::string nexus_text(const std::vector<std::string>& names, const MultipleAlignment& alignment,
                              const AlignmentOutputOptions& options) {
  const OutputColumns columns = output_columns(alignment, options);
  std::string out = "#NEXUS\nBEGIN DATA;\ndimensions ntax=" + std::to_string(alignment.rows.size()) +
                    " nchar=" + std::to_string(columns.count()) + ";\nformat missing=?\ninterleave datatype=" +
                    (options.dna ? "DNA " : "PROTEIN ") + "gap= -;\n\nmatrix";
  const int name_width = detail::longest_name(names) + 1;
  for (int from = 1; from <= columns.count(); from += detail::interleaved_block) {
    const int to = std::min(columns.count(), from + detail::interleaved_block - 1);
    for (const int s : alignment.order) {
      const std::size_t u = static_cast<std::size_t>(s);
      out += '\n';
      out += options.sequence_ranges ? detail::interleaved_label(names, alignment, s, columns)
                                     : pad_right(names[u], name_width) + ' ';
      out += detail::chunk(detail::row_text(alignment.rows[u], columns, '-'), from, to);
    }
    out += '\n';
  }
  return out + ";\nend;\n";
}

inline std::string gde_text(const std::vector<std::string>& names, const MultipleAlignment& alignment,
                            const AlignmentOutputOptions& options) {
  const OutputColumns columns = output_columns(alignment, options);
  const int width = detail::line_width(detail::longest_name(names));
  std::string out;
  for (const int s : alignment.order) {
    out += options.dna ? '#' : '%';
    out += detail::record_name(names, alignment, s, columns, options.sequence_ranges) + '\n';
    std::string text = detail::row_text(alignment.rows[static_cast<std::size_t>(s)], columns, '-');
    if (options.lower_case)
      for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out += detail::wrapped(text, width);
  }
  return out;
}

inline std::string pir_text(const std::vector<std::string>& names, const MultipleAlignment& alignment,
                            const AlignmentOutputOptions& options) {
  const OutputColumns columns = output_columns(alignment, options);
  const int width = detail::line_width(detail::longest_name(names));
  std::string out;
  for (const int s : alignment.order) {
    const std::size_t u = static_cast<std::size_t>(s);
    out += options.dna ? ">DL;" : ">P1;";
    out += detail::record_name(names, alignment, s, columns, options.sequence_ranges) + '\n';
    out += (options.titles.empty() ? std::string() : options.titles[u]) + '\n';
    out += detail::wrapped(detail::row_text(alignment.rows[u], columns, '-'), width) + "*\n";
  }
  return out;
}

inline std::string fasta_alignment_text(const std::vector<std::string>& names, const MultipleAlignment& alignment,
                                        const AlignmentOutputOptions& options) {
  const OutputColumns columns = output_columns(alignment, options);
  const int width = detail::line_width(detail::longest_name(names));
  std::string out;
  for (const int s : alignment.order) {
    const std::size_t u = static_cast<std::size_t>(s);
    out += '>' + name_before_slash(names[u]);
    if (options.sequence_ranges) {
      const SequenceRange r = sequence_range(names[u], alignment.rows[u], columns);
      out += '/' + std::to_string(r.start) + '-' + std::to_string(r.end);
    }
    out += '\n' + detail::wrapped(detail::row_text(alignment.rows[u], columns, '-'), width);
  }
  return out;
}

inline std::string alignment_text(AlignmentFormat format, const std::vector<std::string>& names,
                                  const MultipleAlignment& alignment, const AlignmentOutputOptions& options) {
  switch (format) {
    case AlignmentFormat::clustal: return clustal_aln_text(names, alignment, options);
    case AlignmentFormat::gcg: return gcg_msf_text(names, alignment, options);
    case AlignmentFormat::gde: return gde_text(names, alignment, options);
    case AlignmentFormat::pir: return pir_text(names, alignment, options);
    case AlignmentFormat::phylip: return phylip_text(names, alignment, options);
    case AlignmentFormat::nexus: return nexus_text(names, alignment, options);
    case AlignmentFormat::fasta: return fasta_alignment_text(names, alignment, options);
  }
  return {};
}

// An -OUTPUT= value as ClustalW reads it: any prefix, in any case, that tells the formats apart.
inline AlignmentFormat alignment_format_from_name(const std::string& value) {
  static const char* const spellings[] = {"clustal", "gcg", "gde", "pir", "phylip", "nexus", "fasta"};
  static const AlignmentFormat formats[] = {AlignmentFormat::clustal, AlignmentFormat::gcg, AlignmentFormat::gde,
                                            AlignmentFormat::pir, AlignmentFormat::phylip, AlignmentFormat::nexus,
                                            AlignmentFormat::fasta};
  std::string lower;
  for (const char c : value) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::size_t i = 0; i < lower.size(); ++i) {
    int matches = 0;
    std::size_t match = 0;
    for (std::size_t f = 0; f < 7; ++f) {
      if (i < std::string(spellings[f]).size() && spellings[f][i] == lower[i]) {
        ++matches;
        match = f;
      }
    }
    if (matches == 0) break;
    if (matches == 1) return formats[match];
  }
  throw std::invalid_argument("unknown alignment format '" + value + "'");
}

}  // namespace cudp::msa
