#pragma once
/// \file
/// File operands as the tools take them: `-` is standard input, opened as /dev/stdin (which a pipe or a
/// redirected file both are) and called "standard input" in messages.
#include <string>

namespace cudp::apps {

/// Where to open an input, and what to call it in messages.
struct InputFile {
  std::string path;  ///< what to open
  std::string name;  ///< what a message calls it
};

/// The input a command-line word names.
inline InputFile input_file(const std::string& word) {
  if (word == "-") return {"/dev/stdin", "standard input"};
  return {word, word};
}

}  // namespace cudp::apps
