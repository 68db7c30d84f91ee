#pragma once
// Character alignments (the data of a phylogenetic analysis) from aligned FASTA, relaxed PHYLIP or NEXUS text,
// plain or gzip-compressed; the format is told from the first non-blank text.
//
// Whatever the format, the result has at least one taxon and one site, unique non-empty names and rows of equal
// length, in which every character is a letter (upper-cased), a digit (the states of standard data), one of -?.*~
// or the gap or missing symbol the file declares. Which letters make sense is for the caller to judge, against
// the model's alphabet. Anything else is an io::InputError naming source, line and column.
//
// FASTA: '>' NAME [description] header lines, the sequence lines of a record concatenated, blanks in them ignored.
// PHYLIP (relaxed): a first line of two counts, taxa and sites; then either one taxon after another (its name, up
// to the first blank, then its characters, which may go on over several lines) or interleaved blocks (the first
// block names the taxa, each line a name and a chunk; later blocks give chunks only, in the same order).
// Characters may be split by blanks. Both readings are tried; the one that got further reports the error.
// NEXUS: the first data or characters block (others are skipped, up to their end; or endblock;): dimensions,
// format (datatype, interleave, gap, missing, matchchar, respectcase, symbols) and the matrix, whose rows are a
// name (quoted with single quotes where it must be) and characters split by blanks and comments at will. Matchchar
// stands for the first taxon's character in the same column. MrBayes-style polymorphisms, (AG) or {AG}, become
// the IUPAC code for the set in nucleotide data and are refused otherwise.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../io/error.hpp"
#include "../io/fasta.hpp"
#include "../io/text_cursor.hpp"

namespace cudp::phylo {

enum class DeclaredType { unknown, dna, rna, nucleotide, protein, standard };

struct CharacterAlignment {
  std::string source;                // path or name given
  std::vector<std::string> names;    // taxon names, in file order
  std::vector<std::string> rows;     // one string per taxon, all the same length, letters upper-cased
  std::vector<std::uint64_t> lines;  // line where each taxon's (first) row starts
  DeclaredType declared = DeclaredType::unknown;  // NEXUS datatype=, otherwise unknown
  char gap = '-', missing = '?';  // as the file declares them (NEXUS format gap=/missing=); rows keep them

  std::size_t taxa() const { return names.size(); }
  std::size_t sites() const { return rows.empty() ? 0 : rows.front().size(); }
};

namespace detail {

using io::LocatedInputError;
using io::TextCursor;
using io::TextPosition;

inline char alignment_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }
inline char alignment_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string alignment_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = alignment_lower(c);
  return out;
}

// A row character as stored (letters upper-cased), or 0 when it is not one.
inline char alignment_state(char c, char gap, char missing) {
  const char upper = alignment_upper(c);
  if ((upper >= 'A' && upper <= 'Z') || (c >= '0' && c <= '9')) return upper;
  switch (c) {
    case '-':
    case '?':
    case '.':
    case '*':
    case '~':
      return c;
    default:
      return c == gap || c == missing ? c : 0;
  }
}

// Collects taxa and rows and checks what every format must satisfy.
class AlignmentBuilder {
 public:
  explicit AlignmentBuilder(const TextCursor& text) : text_(&text) { out.source = text.source(); }

  CharacterAlignment out;
  std::vector<TextPosition> name_at;
  char matchchar = 0;  // 0 where none is declared

  std::size_t add_taxon(std::string name, TextPosition at) {
    if (name.empty()) text_->fail(at, "empty taxon name");
    const auto [seen, inserted] = index_.try_emplace(name, out.names.size());
    if (!inserted) {
      text_->fail(at, "duplicate taxon name '" + io::excerpt(name) + "' (first on line " +
                          std::to_string(out.lines[seen->second]) + ")");
    }
    out.names.push_back(std::move(name));
    out.rows.emplace_back();
    out.lines.push_back(at.line);
    name_at.push_back(at);
    return out.names.size() - 1;
  }

  // The taxon called name, or -1.
  long find(const std::string& name) const {
    const auto found = index_.find(name);
    return found == index_.end() ? -1 : static_cast<long>(found->second);
  }

  std::string quoted_name(std::size_t taxon) const { return "'" + io::excerpt(out.names[taxon]) + "'"; }

  // Appends the character c, read at `at`, to the row of taxon.
  void add_character(std::size_t taxon, char c, TextPosition at) {
    std::string& row = out.rows[taxon];
    if (matchchar != 0 && alignment_upper(c) == matchchar) {
      if (taxon == 0) {
        text_->fail(at, "matchchar " + io::quote_byte(c) + " in the first taxon, whose characters it stands for");
      }
      if (out.rows[0].size() <= row.size()) {
        text_->fail(at, "matchchar " + io::quote_byte(c) + " at character " + std::to_string(row.size() + 1) +
                            " of taxon " + quoted_name(taxon) + ", but the first taxon has no character there");
      }
      row += out.rows[0][row.size()];
      return;
    }
    const char state = alignment_state(c, out.gap, out.missing);
    if (state == 0) {
      text_->fail(at, "invalid character " + io::quote_byte(c) + " in the row of taxon " + quoted_name(taxon) +
                          " (expected a letter, a digit or one of -?.*~)");
    }
    row += state;
  }

  // The checks common to all formats; end is where the input ended.
  CharacterAlignment finish(TextPosition end) {
    if (out.names.empty()) text_->fail(end, "no taxa found");
    const std::size_t sites = out.rows[0].size();
    for (std::size_t t = 1; t < out.rows.size(); ++t) {
      if (out.rows[t].size() != sites) {
        text_->fail(name_at[t], "taxon " + quoted_name(t) + " has " + std::to_string(out.rows[t].size()) +
                                    " characters, expected " + std::to_string(sites) +
                                    " (as many as the first taxon " + quoted_name(0) + ")");
      }
    }
    if (sites == 0) text_->fail(name_at[0], "no sites: the rows are empty");
    return std::move(out);
  }

 private:
  const TextCursor* text_;
  std::unordered_map<std::string, std::size_t> index_;
};

// A name or word up to the next blank (or a stop byte), refusing control bytes.
inline std::string read_alignment_word(TextCursor& text, std::string_view stops = {}) {
  const std::size_t start = text.offset();
  while (!text.at_end() && !io::is_blank_or_newline(text.peek()) && stops.find(text.peek()) == std::string_view::npos) {
    if (io::is_control(text.peek())) text.fail_here("invalid " + io::quote_byte(text.peek()) + " in a name");
    text.advance();
  }
  return std::string(text.slice(start));
}

// ---- FASTA ----

inline CharacterAlignment parse_aligned_fasta(TextCursor text) {
  AlignmentBuilder builder(text);
  long taxon = -1;
  while (!text.at_end()) {
    text.skip_line_blanks();
    if (text.at_end()) break;
    if (text.peek() == '>') {
      const TextPosition at = text.here();
      text.advance();
      if (text.at_end() || io::is_blank_or_newline(text.peek())) {
        text.fail(at, "FASTA header has no name: '>' must be followed directly by the name");
      }
      taxon = static_cast<long>(builder.add_taxon(read_alignment_word(text), at));
      while (!text.at_end() && text.peek() != '\n') text.advance();  // the description
    } else {
      // Detection put a '>' first, so a sequence line always has a record.
      while (!text.at_end() && text.peek() != '\n') {
        if (!io::is_line_blank(text.peek())) {
          builder.add_character(static_cast<std::size_t>(taxon), text.peek(), text.here());
        }
        text.advance();
      }
    }
    if (!text.at_end()) text.advance();  // the newline
  }
  return builder.finish(text.here());
}

// ---- PHYLIP ----

// A count of the PHYLIP header or the NEXUS dimensions; digits only.
inline std::uint64_t parse_alignment_count(const TextCursor& text, std::string_view digits, TextPosition at,
                                           const std::string& what, const std::string& hint = "") {
  if (digits.empty()) text.fail(at, "expected a count for " + what + hint + ", got " + text.describe_next());
  std::uint64_t value = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') {
      text.fail(at, "expected a count for " + what + hint + ", got '" + io::excerpt(digits) + "'");
    }
    if (value > (std::uint64_t{1} << 40)) text.fail(at, what + " " + io::excerpt(digits) + " is too large");
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (value == 0) text.fail(at, what + " must be at least 1");
  return value;
}

struct PhylipHeader {
  std::uint64_t taxa = 0;
  std::uint64_t sites = 0;
};

// Reads characters of taxon up to the end of the line; a row may not grow past the header's count.
inline void read_phylip_chunk(TextCursor& text, AlignmentBuilder& builder, std::size_t taxon,
                              const PhylipHeader& header) {
  while (!text.at_end() && text.peek() != '\n') {
    if (!io::is_line_blank(text.peek())) {
      if (builder.out.rows[taxon].size() == header.sites) {
        text.fail_here("taxon " + builder.quoted_name(taxon) + " has more than the " + std::to_string(header.sites) +
                       " characters the PHYLIP header gives");
      }
      builder.add_character(taxon, text.peek(), text.here());
    }
    text.advance();
  }
}

inline void check_phylip_rows(const TextCursor& text, const AlignmentBuilder& builder, const PhylipHeader& header) {
  for (std::size_t t = 0; t < builder.out.rows.size(); ++t) {
    if (builder.out.rows[t].size() != header.sites) {
      text.fail(builder.name_at[t], "taxon " + builder.quoted_name(t) + " has " +
                                        std::to_string(builder.out.rows[t].size()) + " characters, expected " +
                                        std::to_string(header.sites) + " (the PHYLIP header)");
    }
  }
}

inline CharacterAlignment parse_phylip_interleaved(TextCursor text, const PhylipHeader& header) {
  AlignmentBuilder builder(text);
  std::uint64_t complete = 0;  // rows that have all their characters
  for (std::uint64_t line = 0;; ++line) {
    text.skip_spaces();
    if (text.at_end()) break;
    if (complete == header.taxa) {
      text.fail_here("unexpected text after the alignment: all " + std::to_string(header.taxa) + " taxa have their " +
                     std::to_string(header.sites) + " characters");
    }
    std::size_t taxon = static_cast<std::size_t>(line % header.taxa);
    if (line < header.taxa) {
      const TextPosition at = text.here();
      taxon = builder.add_taxon(read_alignment_word(text), at);
    }
    const std::size_t before = builder.out.rows[taxon].size();
    read_phylip_chunk(text, builder, taxon, header);
    if (before < header.sites && builder.out.rows[taxon].size() == header.sites) ++complete;
  }
  if (builder.out.names.size() < header.taxa) {
    text.fail_here("the PHYLIP header gives " + std::to_string(header.taxa) + " taxa, but only " +
                   std::to_string(builder.out.names.size()) + " were found");
  }
  check_phylip_rows(text, builder, header);
  return builder.finish(text.here());
}

inline CharacterAlignment parse_phylip_sequential(TextCursor text, const PhylipHeader& header) {
  AlignmentBuilder builder(text);
  for (std::uint64_t t = 0; t < header.taxa; ++t) {
    text.skip_spaces();
    if (text.at_end()) {
      text.fail_here("the PHYLIP header gives " + std::to_string(header.taxa) + " taxa, but only " +
                     std::to_string(t) + " were found");
    }
    const TextPosition at = text.here();
    const std::size_t taxon = builder.add_taxon(read_alignment_word(text), at);
    read_phylip_chunk(text, builder, taxon, header);
    while (builder.out.rows[taxon].size() < header.sites) {
      text.skip_spaces();
      if (text.at_end()) break;
      read_phylip_chunk(text, builder, taxon, header);
    }
  }
  text.skip_spaces();
  if (!text.at_end()) {
    text.fail_here("unexpected text after the alignment: all " + std::to_string(header.taxa) + " taxa have their " +
                   std::to_string(header.sites) + " characters");
  }
  check_phylip_rows(text, builder, header);
  return builder.finish(text.here());
}

inline CharacterAlignment parse_phylip(TextCursor text) {
  PhylipHeader header;
  const auto count = [&](const std::string& what) {
    text.skip_line_blanks();
    const TextPosition at = text.here();
    const std::size_t start = text.offset();
    while (!text.at_end() && !io::is_blank_or_newline(text.peek())) text.advance();
    return parse_alignment_count(text, text.slice(start), at, what, " (a PHYLIP header is two counts: taxa, sites)");
  };
  header.taxa = count("the number of taxa");
  header.sites = count("the number of sites");
  text.skip_line_blanks();
  if (!text.at_end() && text.peek() != '\n') {
    text.fail_here("unexpected text after the PHYLIP header's two counts (taxa and sites), got " +
                   text.describe_next());
  }
  // The layout is not declared: read it both ways, and where neither works report the reading that got further.
  try {
    return parse_phylip_interleaved(text, header);
  } catch (const LocatedInputError& interleaved) {
    try {
      return parse_phylip_sequential(text, header);
    } catch (const LocatedInputError& sequential) {
      if (sequential.progress > interleaved.progress) throw;
    }
    throw;
  }
}

// ---- NEXUS ----

class NexusReader {
 public:
  explicit NexusReader(TextCursor text) : text_(text) {}

  CharacterAlignment read() {
    for (int i = 0; i < 6; ++i) text_.advance();  // #NEXUS, which detection has seen
    while (true) {
      const Token begin = next_token();
      if (begin.kind == Token::end) text_.fail(begin.at, "no data or characters block found");
      if (!begin.is("begin")) text_.fail(begin.at, "expected 'begin' (a NEXUS block), got " + begin.describe());
      const Token name = next_token();
      if (name.kind != Token::word && name.kind != Token::quoted) {
        text_.fail(name.at, "expected a block name after 'begin', got " + name.describe());
      }
      expect_semicolon("after 'begin " + io::excerpt(name.text) + "'");
      if (name.is("data") || name.is("characters")) return read_data_block(name.is("data"), begin.at);
      skip_block(name, begin.at);
    }
  }

 private:
  struct Token {
    enum Kind { end, word, quoted, punctuation } kind = end;
    std::string text;
    TextPosition at;

    bool is(std::string_view keyword) const { return kind == word && alignment_lower(text) == keyword; }
    bool is_punctuation(char c) const { return kind == punctuation && text[0] == c; }
    std::string describe() const {
      return kind == end ? "the end of the input" : "'" + io::excerpt(text) + "'";
    }
  };

  // Reads a single-quoted string at the cursor ('' stands for one quote).
  std::string read_quoted(const std::string& what) {
    const TextPosition at = text_.here();
    text_.advance();
    std::string value;
    while (true) {
      if (text_.at_end()) text_.fail(at, "unterminated quoted " + what + ": no closing quote");
      const char c = text_.peek();
      text_.advance();
      if (c == '\'') {
        if (text_.at_end() || text_.peek() != '\'') return value;
        text_.advance();
      }
      value += c;
    }
  }

  // Words run up to a blank, ';', '=' or '['; a quote opens a quoted token only at the start of one, so that an
  // apostrophe inside a word of a skipped block does not swallow the rest of the file.
  Token next_token() {
    text_.skip_spaces_and_comments();
    Token token;
    token.at = text_.here();
    if (text_.at_end()) return token;
    const char c = text_.peek();
    if (c == ';' || c == '=') {
      token.kind = Token::punctuation;
      token.text = std::string(1, c);
      text_.advance();
    } else if (c == '\'') {
      token.kind = Token::quoted;
      token.text = read_quoted("string");
    } else {
      token.kind = Token::word;
      const std::size_t start = text_.offset();
      while (!text_.at_end() && !io::is_blank_or_newline(text_.peek()) && text_.peek() != ';' && text_.peek() != '=' &&
             text_.peek() != '[') {
        text_.advance();
      }
      token.text = std::string(text_.slice(start));
    }
    return token;
  }

  Token peek_token() {
    const TextCursor saved = text_;
    Token token = next_token();
    text_ = saved;
    return token;
  }

  void expect_semicolon(const std::string& where) {
    const Token token = next_token();
    if (!token.is_punctuation(';')) text_.fail(token.at, "expected ';' " + where + ", got " + token.describe());
  }

  void skip_block(const Token& name, TextPosition begin_at) {
    while (true) {
      const Token token = next_token();
      if (token.kind == Token::end) {
        text_.fail(begin_at, "block '" + io::excerpt(name.text) + "' has no 'end;'");
      }
      if ((token.is("end") || token.is("endblock")) && peek_token().is_punctuation(';')) {
        next_token();
        return;
      }
    }
  }

  // Skips the rest of a command that does not concern the matrix (charstatelabels, options, ...).
  void skip_command(const Token& command) {
    while (true) {
      const Token token = next_token();
      if (token.kind == Token::end) text_.fail(command.at, "command " + command.describe() + " has no ';'");
      if (token.is_punctuation(';')) return;
    }
  }

  // "= value" after a setting; the value may be quoted.
  Token setting_value(const Token& setting) {
    const Token equals = next_token();
    if (!equals.is_punctuation('=')) {
      text_.fail(equals.at, "expected '=' after " + setting.describe() + ", got " + equals.describe());
    }
    const Token value = next_token();
    if (value.kind != Token::word && value.kind != Token::quoted) {
      text_.fail(value.at, "expected a value after '" + io::excerpt(setting.text) + "=', got " +
                               value.describe());
    }
    return value;
  }

  std::uint64_t count_value(const Token& setting) {
    const Token value = setting_value(setting);
    return parse_alignment_count(text_, value.text, value.at, alignment_lower(setting.text));
  }

  // gap=, missing= and matchchar= name one printable character that cannot be mistaken for NEXUS punctuation.
  char symbol_value(const Token& setting) {
    const Token value = setting_value(setting);
    const std::string_view reserved = ";=[]'\"(){},";
    if (value.text.size() != 1 || io::is_control(value.text[0]) || io::is_blank_or_newline(value.text[0]) ||
        static_cast<unsigned char>(value.text[0]) >= 0x80 || reserved.find(value.text[0]) != std::string_view::npos) {
      text_.fail(value.at, alignment_lower(setting.text) + " must be a single printable character, got " +
                               value.describe());
    }
    return alignment_upper(value.text[0]);
  }

  void read_dimensions(bool data_block, const Token& command) {
    while (true) {
      const Token token = next_token();
      if (token.is_punctuation(';')) break;
      if (token.is("ntax")) {
        ntax_ = count_value(token);
      } else if (token.is("nchar")) {
        nchar_ = count_value(token);
      } else if (!token.is("newtaxa")) {
        text_.fail(token.at, "unknown dimensions setting " + token.describe() + " (expected ntax= or nchar=)");
      }
    }
    if (data_block && ntax_ == 0) text_.fail(command.at, "the dimensions of a data block must give ntax=");
    if (nchar_ == 0) text_.fail(command.at, "dimensions must give nchar=");
  }

  void read_format(AlignmentBuilder& builder, const Token& command) {
    while (true) {
      const Token token = next_token();
      if (token.is_punctuation(';')) break;
      if (token.kind != Token::word) text_.fail(token.at, "expected a format setting, got " + token.describe());
      if (token.is("datatype")) {
        const Token value = setting_value(token);
        std::string type = alignment_lower(value.text);
        type = type.substr(0, type.find('('));
        if (type == "dna") {
          builder.out.declared = DeclaredType::dna;
        } else if (type == "rna") {
          builder.out.declared = DeclaredType::rna;
        } else if (type == "nucleotide") {
          builder.out.declared = DeclaredType::nucleotide;
        } else if (type == "protein") {
          builder.out.declared = DeclaredType::protein;
        } else if (type == "standard") {
          builder.out.declared = DeclaredType::standard;
        } else {
          text_.fail(value.at, "datatype " + io::excerpt(type) + " is not supported");
        }
      } else if (token.is("interleave")) {
        interleave_ = true;
        if (peek_token().is_punctuation('=')) {
          const Token value = setting_value(token);
          const std::string answer = alignment_lower(value.text);
          if (answer != "yes" && answer != "no") {
            text_.fail(value.at, "interleave= must be yes or no, got " + value.describe());
          }
          interleave_ = answer == "yes";
        }
      } else if (token.is("gap")) {
        builder.out.gap = symbol_value(token);
      } else if (token.is("missing")) {
        builder.out.missing = symbol_value(token);
      } else if (token.is("matchchar")) {
        builder.matchchar = symbol_value(token);
      } else if (token.is("symbols")) {
        skip_symbols(token);
      } else if (token.is("equate")) {
        text_.fail(token.at, "equate is not supported");
      } else if (!token.is("respectcase") && !token.is("labels") && !token.is("notokens")) {
        text_.fail(token.at, "format setting " + token.describe() + " is not supported");
      }
    }
    const CharacterAlignment& out = builder.out;
    if (out.gap == out.missing || (builder.matchchar != 0 && (builder.matchchar == out.gap ||
                                                              builder.matchchar == out.missing))) {
      text_.fail(command.at, "gap, missing and matchchar must be different characters");
    }
  }

  // symbols="..." lists the states of standard data; the rows are checked character by character anyway.
  void skip_symbols(const Token& setting) {
    const Token equals = next_token();
    if (!equals.is_punctuation('=')) text_.fail(equals.at, "expected '=' after 'symbols', got " + equals.describe());
    text_.skip_spaces_and_comments();
    if (!text_.at_end() && text_.peek() == '"') {
      const TextPosition at = text_.here();
      text_.advance();
      while (!text_.at_end() && text_.peek() != '"') text_.advance();
      if (text_.at_end()) text_.fail(at, "unterminated symbols list: no closing '\"'");
      text_.advance();
    } else if (next_token().kind != Token::word) {
      text_.fail(setting.at, "symbols= has no list of symbols");
    }
  }

  CharacterAlignment read_data_block(bool data_block, TextPosition begin_at) {
    AlignmentBuilder builder(text_);
    bool have_matrix = false;
    while (true) {
      const Token command = next_token();
      if (command.kind == Token::end) text_.fail(begin_at, "the data block has no 'end;'");
      if (command.is_punctuation(';')) continue;
      if (command.is("dimensions")) {
        read_dimensions(data_block, command);
      } else if (command.is("format")) {
        read_format(builder, command);
      } else if (command.is("matrix")) {
        if (have_matrix) text_.fail(command.at, "a second matrix in the data block");
        if (nchar_ == 0) text_.fail(command.at, "matrix before dimensions: the number of characters is unknown");
        read_matrix(builder);
        have_matrix = true;
      } else if (command.is("end") || command.is("endblock")) {
        expect_semicolon("after " + command.describe());
        if (!have_matrix) text_.fail(command.at, "the data block has no matrix");
        return builder.finish(command.at);
      } else if (command.kind == Token::word) {
        skip_command(command);
      } else {
        text_.fail(command.at, "expected a command of the data block, got " + command.describe());
      }
    }
  }

  std::string read_row_name() {
    if (text_.peek() == '\'') return read_quoted("taxon name");
    return read_alignment_word(text_, ";[");
  }

  // Reads a polymorphism such as (AG) or {A,G} at the cursor: the IUPAC code of the set.
  char read_polymorphism(const AlignmentBuilder& builder) {
    static constexpr char iupac[] = "?ACMGRSVTWYHKDBN";  // by bit set: A 1, C 2, G 4, T/U 8
    const TextPosition at = text_.here();
    const char open = text_.peek();
    const char close = open == '(' ? ')' : '}';
    text_.advance();
    std::string members;
    unsigned set = 0;
    bool nucleotides = true;
    bool uracil = false;
    while (true) {
      if (text_.at_end() || text_.peek() == ';') {
        text_.fail(at, std::string("unterminated polymorphism: '") + open + "' without '" + close + "'");
      }
      const char c = text_.peek();
      text_.advance();
      if (c == close) break;
      if (io::is_blank_or_newline(c) || c == ',') continue;
      members += c;
      switch (alignment_upper(c)) {
        case 'A': set |= 1; break;
        case 'C': set |= 2; break;
        case 'G': set |= 4; break;
        case 'T': set |= 8; break;
        case 'U': set |= 8; uracil = true; break;
        default: nucleotides = false;
      }
    }
    const std::string shown = open + io::excerpt(members) + close;
    if (members.empty()) text_.fail(at, "empty polymorphism " + shown);
    const DeclaredType type = builder.out.declared;
    if (type == DeclaredType::protein || type == DeclaredType::standard) {
      text_.fail(at, "polymorphism " + shown + " in " + (type == DeclaredType::protein ? "protein" : "standard") +
                         " data is not supported: only sets of nucleotides have a code of their own (IUPAC)");
    }
    if (!nucleotides) {
      text_.fail(at, "polymorphism " + shown + " is not a set of nucleotides (A, C, G, T/U): only those can be " +
                         "written as one IUPAC code");
    }
    return set == 8 && uracil ? 'U' : iupac[set];
  }

  // Reads characters of taxon: up to the end of the line (interleaved), or until the row has nchar characters
  // (sequential, where a row may go on over several lines). Stops before ';'.
  void read_row(AlignmentBuilder& builder, std::size_t taxon, bool to_line_end) {
    std::string& row = builder.out.rows[taxon];
    while (!text_.at_end()) {
      if (!to_line_end && row.size() == nchar_) return;
      const char c = text_.peek();
      if (c == '\n' && to_line_end) {
        text_.advance();
        return;
      }
      if (io::is_blank_or_newline(c)) {
        text_.advance();
        continue;
      }
      if (c == '[') {
        text_.skip_comment();
        continue;
      }
      if (c == ';') return;
      const TextPosition at = text_.here();
      if (row.size() == nchar_) {
        text_.fail(at, "taxon " + builder.quoted_name(taxon) + " has more than nchar=" + std::to_string(nchar_) +
                           " characters");
      }
      if (c == '(' || c == '{') {
        const char code = read_polymorphism(builder);
        row += code;
      } else {
        builder.add_character(taxon, c, at);
        text_.advance();
      }
    }
  }

  void read_sequential(AlignmentBuilder& builder) {
    while (true) {
      text_.skip_spaces_and_comments();
      if (text_.at_end()) text_.fail_here("the matrix has no closing ';'");
      if (text_.peek() == ';') return;
      if (ntax_ != 0 && builder.out.names.size() == ntax_) {
        text_.fail_here("expected ';' after the ntax=" + std::to_string(ntax_) + " rows of the matrix, got " +
                        text_.describe_next());
      }
      const TextPosition at = text_.here();
      const std::size_t taxon = builder.add_taxon(read_row_name(), at);
      read_row(builder, taxon, false);
      // Rows usually end with their line: text after a full row on the same line means the row is too long, or
      // an earlier part of it too short (the next name then reads as characters).
      const std::uint64_t line = text_.here().line;
      while (!text_.at_end() && io::is_line_blank(text_.peek())) text_.advance();
      while (!text_.at_end() && text_.peek() == '[' && text_.here().line == line) {
        text_.skip_comment();
        while (!text_.at_end() && io::is_line_blank(text_.peek())) text_.advance();
      }
      if (!text_.at_end() && text_.here().line == line && text_.peek() != '\n' && text_.peek() != ';') {
        std::string message = "taxon " + builder.quoted_name(taxon) + " has more than nchar=" +
                              std::to_string(nchar_) + " characters";
        if (line != at.line) {
          message += " (its row began on line " + std::to_string(at.line) +
                     "; if it is short there, the next name was read as characters)";
        }
        text_.fail_here(message);
      }
    }
  }

  void read_interleaved(AlignmentBuilder& builder) {
    bool first_block_done = false;
    while (true) {
      text_.skip_spaces_and_comments();
      if (text_.at_end()) text_.fail_here("the matrix has no closing ';'");
      if (text_.peek() == ';') return;
      const TextPosition at = text_.here();
      const std::string name = read_row_name();
      long taxon = builder.find(name);
      if (taxon < 0) {
        if (first_block_done || (ntax_ != 0 && builder.out.names.size() == ntax_)) {
          text_.fail(at, "taxon '" + io::excerpt(name) + "' is not among the " +
                             std::to_string(builder.out.names.size()) +
                             " taxa of the first block of the interleaved matrix");
        }
        taxon = static_cast<long>(builder.add_taxon(name, at));
      } else if (!first_block_done) {
        if (ntax_ != 0 && builder.out.names.size() < ntax_) {
          text_.fail(at, "taxon '" + io::excerpt(name) + "' appears again (first on line " +
                             std::to_string(builder.out.lines[static_cast<std::size_t>(taxon)]) +
                             ") before the first block has named all ntax=" + std::to_string(ntax_) + " taxa");
        }
        first_block_done = true;
      }
      read_row(builder, static_cast<std::size_t>(taxon), true);
    }
  }

  void read_matrix(AlignmentBuilder& builder) {
    if (interleave_) {
      read_interleaved(builder);
    } else {
      read_sequential(builder);
    }
    const TextPosition end = text_.here();
    text_.advance();  // ';'
    const CharacterAlignment& out = builder.out;
    if (ntax_ != 0 && out.names.size() != ntax_) {
      text_.fail(end, "the matrix names " + std::to_string(out.names.size()) + " taxa, but dimensions give ntax=" +
                          std::to_string(ntax_));
    }
    for (std::size_t t = 0; t < out.rows.size(); ++t) {
      if (out.rows[t].size() != nchar_) {
        text_.fail(builder.name_at[t], "taxon " + builder.quoted_name(t) + " has " +
                                           std::to_string(out.rows[t].size()) + " characters, expected nchar=" +
                                           std::to_string(nchar_));
      }
    }
  }

  TextCursor text_;
  std::uint64_t ntax_ = 0;  // 0 where not given
  std::uint64_t nchar_ = 0;
  bool interleave_ = false;
};

inline bool starts_with_nexus(std::string_view text) {
  constexpr std::string_view tag = "#nexus";
  if (text.size() < tag.size() || alignment_lower(text.substr(0, tag.size())) != tag) return false;
  return text.size() == tag.size() || io::is_blank_or_newline(text[tag.size()]) || text[tag.size()] == '[';
}

}  // namespace detail

// An alignment from text in any of the three formats; source names the text in error messages.
inline CharacterAlignment parse_alignment(std::string_view text, const std::string& source) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  detail::TextCursor cursor(text, source);
  cursor.skip_spaces();
  if (cursor.at_end()) cursor.fail_here("empty input: no alignment found");
  const char first = cursor.peek();
  if (first == '#' && detail::starts_with_nexus(cursor.rest())) return detail::NexusReader(cursor).read();
  if (first == '>') return detail::parse_aligned_fasta(cursor);
  if (first >= '0' && first <= '9') return detail::parse_phylip(cursor);
  const std::string_view rest = cursor.rest();
  std::size_t word = 0;
  while (word < rest.size() && !io::is_blank_or_newline(rest[word])) ++word;
  cursor.fail_here("unrecognized alignment format: expected '#NEXUS', a FASTA '>' header or a PHYLIP header of " +
                   std::string("two counts, got '") + io::excerpt(rest.substr(0, word)) + "'");
}

// An alignment from a plain or gzip-compressed file.
inline CharacterAlignment read_alignment(const std::string& path) {
  return parse_alignment(io::read_file_text(path), path);
}

}  // namespace cudp::phylo
