#pragma once
/// \file
/// Notes a tool prints that are not errors (a fallback taken, a setting adjusted), as "tool: message" on standard
/// error, from code that has no ToolContext at hand: run_tool (tool.hpp) records the tool it runs and whether this
/// process is the one that speaks (the first of an MPI run, so that a note is said once).
#include <cstdio>
#include <string>

namespace cudp::apps {

/// What run_tool needs to know of a tool.
struct ToolInfo {
  const char* name;       ///< "cudp-swsearch": the prefix of every message
  int usage_status = 2;   ///< the exit status of a usage error (HMMER's tools: 1, as HMMER's)
};

/// The tool run_tool runs, for notes printed by code that has no ToolContext at hand.
inline ToolInfo& running_tool() {
  static ToolInfo tool{"cudp"};
  return tool;
}
/// Whether this process prints notes.
inline bool& notes_printed() {
  static bool printed = true;
  return printed;
}

/// A note that is not an error (a fallback taken, a setting adjusted) on standard error, as "tool: message".
inline void note(const std::string& message) {
  if (notes_printed()) std::fprintf(stderr, "%s: %s\n", running_tool().name, message.c_str());
}

}  // namespace cudp::apps
