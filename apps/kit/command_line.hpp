#pragma once
// Command-line pieces the example programs share. A usage error is std::invalid_argument, which each program's
// main turns into exit status 2 and a message that points at --help.
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudp::apps {

[[noreturn]] inline void usage_error(const std::string& message) {
  throw std::invalid_argument(message + " (see --help)");
}

// The whole of `text` as a 32-bit integer, or a usage error naming the flag.
inline int parse_int(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < INT32_MIN || v > INT32_MAX)
    usage_error(flag + " expects an integer, got '" + text + "'");
  return static_cast<int>(v);
}

// The value of option argv[a] (a moves on to it), or a usage error when the line ends there. Programs fetch it only
// once the option is known, so that a misspelt option last on the line is reported as unknown.
inline std::string option_value(int argc, const char* const* argv, int& a, const std::string& flag) {
  if (a + 1 >= argc) usage_error("missing value for " + flag);
  return argv[++a];
}

// `value` is one of `allowed`, or a usage error listing them.
inline void check_choice(const std::string& flag, const std::string& value, const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (value == a) return;
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  usage_error(flag + " must be " + list + ", got '" + value + "'");
}

}  // namespace cudp::apps
