#pragma once
// A position-keeping reader over text held in memory, for the parsers that report line and column (Newick trees,
// PHYLIP and NEXUS alignments). Copyable, so that a parser can look ahead or start over.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "error.hpp"

namespace cudp::io {

struct TextPosition {
  std::uint64_t line = 1;
  std::uint64_t column = 1;
};

// An InputError that remembers how far the reader had got, so that a parser that tries two readings (PHYLIP,
// interleaved or sequential) can report the one that explains more of the text.
struct LocatedInputError : InputError {
  LocatedInputError(const std::string& source, TextPosition at, std::size_t reached, const std::string& message)
      : InputError(format_error(source, at.line, at.column, message)), progress(reached) {}
  std::size_t progress;
};

// Blanks within a line, and blanks or newlines.
inline bool is_line_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
inline bool is_blank_or_newline(char c) { return is_line_blank(c) || c == '\n'; }
inline bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

class TextCursor {
 public:
  TextCursor(std::string_view text, const std::string& source) : text_(text), source_(&source) {}

  bool at_end() const { return pos_ == text_.size(); }
  char peek() const { return text_[pos_]; }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }
  TextPosition here() const { return {line_, pos_ - line_start_ + 1}; }
  std::size_t offset() const { return pos_; }
  std::string_view slice(std::size_t from) const { return text_.substr(from, pos_ - from); }
  std::string_view rest() const { return text_.substr(pos_); }
  const std::string& source() const { return *source_; }

  [[noreturn]] void fail(TextPosition at, const std::string& message) const {
    throw LocatedInputError(*source_, at, pos_, message);
  }
  [[noreturn]] void fail_here(const std::string& message) const { fail(here(), message); }

  // What is at the cursor, for "got ..." in messages.
  std::string describe_next() const {
    if (at_end()) return "the end of the input";
    return peek() == '\n' ? "the end of the line" : quote_byte(peek());
  }

  void skip_line_blanks() {
    while (!at_end() && is_line_blank(peek())) advance();
  }
  void skip_spaces() {
    while (!at_end() && is_blank_or_newline(peek())) advance();
  }
  // At a '['. Comments in square brackets (NEXUS, Newick) do not nest.
  void skip_comment() {
    const TextPosition start = here();
    while (!at_end() && peek() != ']') advance();
    if (at_end()) fail(start, "unterminated comment: '[' without a closing ']'");
    advance();
  }
  void skip_spaces_and_comments() {
    while (!at_end()) {
      if (is_blank_or_newline(peek())) {
        advance();
      } else if (peek() == '[') {
        skip_comment();
      } else {
        return;
      }
    }
  }

 private:
  std::string_view text_;
  const std::string* source_;
  std::size_t pos_ = 0;
  std::uint64_t line_ = 1;
  std::size_t line_start_ = 0;
};

}  // namespace cudp::io
