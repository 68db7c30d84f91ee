#pragma once
// Errors in user input (files, matrices, databases). They carry a compiler-style location so that a user can jump
// to the offending line; programming errors use other exception types.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cudp::io {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "source: message"
inline std::string format_error(std::string_view source, std::string_view message) {
  std::string text(source);
  text += ": ";
  text += message;
  return text;
}

// "source:line: message"
inline std::string format_error(std::string_view source, std::uint64_t line, std::string_view message) {
  std::string text(source);
  text += ':';
  text += std::to_string(line);
  text += ": ";
  text += message;
  return text;
}

// "source:line:column: message"
inline std::string format_error(std::string_view source, std::uint64_t line, std::uint64_t column,
                                std::string_view message) {
  std::string text(source);
  text += ':';
  text += std::to_string(line);
  text += ':';
  text += std::to_string(column);
  text += ": ";
  text += message;
  return text;
}

// A byte as a message shows it: 'A' when printable, otherwise byte 0x00, so that binary garbage stays readable.
inline std::string quote_byte(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return std::string{'\'', c, '\''};
  static constexpr char hex[] = "0123456789abcdef";
  return std::string("byte 0x") + hex[byte >> 4] + hex[byte & 15];
}

// Text for a message: printable ASCII as it is, other bytes as \xNN, cut short (with "...") so that a megabyte of
// garbage does not become a megabyte of message.
inline std::string excerpt(std::string_view text, std::size_t limit = 40) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < limit; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += text[i];
    } else {
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 15];
    }
  }
  if (text.size() > limit) out += "...";
  return out;
}

}  // namespace cudp::io
