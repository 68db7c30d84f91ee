#pragma once
/// \file
/// A tool's main as the kit runs it: the MPI world started (a world of one without mpirun), the tool's body run, and
/// every way it can fail turned into one message on standard error and an exit status: a usage error (UsageError,
/// std::invalid_argument) with the tool's usage status, a failure in some processes of an MPI run as each said it,
/// a failed self-check (InternalError) with 3, anything else with 1. Under mpirun the first process prints the
/// errors met before the processes compare notes (mpi_world.hpp). `--version` anywhere before `--` answers the
/// version and what the build has (kit/version.hpp), as workflow managers record it.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

#include "kit/command_line.hpp"
#include "kit/mpi_world.hpp"
#include "kit/notes.hpp"
#include "kit/version.hpp"

namespace cudp::apps {

/// Whether argv[1..argc) asks for the version: `--version` before any `--`.
inline bool asks_version(int argc, const char* const* argv) {
  for (int a = 1; a < argc && std::strcmp(argv[a], "--") != 0; ++a)
    if (std::strcmp(argv[a], "--version") == 0) return true;
  return false;
}

/// A failed self-check: a bug, not bad input (exit status 3).
struct InternalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What a tool's body is handed.
struct ToolContext {
  const MpiWorld& world;  ///< the processes of the run (a world of one without mpirun)
  ProcessErrors& errors;  ///< how the body reports an error it handles itself
};

/// Runs `body(context)` (which returns the exit status) as described above. Starting MPI may take its own words off
/// the command line: argc and argv are main's, updated, for the body to read.
template <class Body>
int run_tool(int& argc, char**& argv, const ToolInfo& tool, Body&& body) {
  running_tool() = tool;
  std::optional<MpiWorld> world;
  if (!start_world(world, argc, argv, tool.name)) return 1;
  notes_printed() = world->root();
  ProcessErrors errors(*world, tool.name);
  try {
    return body(ToolContext{*world, errors});
  } catch (const UsageError& e) {
    return errors.fail(std::string(e.what()) + " (see --help)", tool.usage_status);
  } catch (const ProcessesFailed& e) {
    errors.print(e.failures);  // a step failed in some processes: the first prints what each said
    return 1;
  } catch (const std::invalid_argument& e) {
    return errors.fail(e.what(), tool.usage_status);
  } catch (const InternalError& e) {
    return errors.fail(e.what(), 3);
  } catch (const std::exception& e) {
    return errors.fail(e.what(), 1);
  }
}

/// The whole main of a tool: `parse(argc, argv)` gives its checked options, or nullopt for --help (which prints
/// `usage`), and `run(options, context)` the exit status.
template <class Parse, class Run>
int run_tool(int& argc, char**& argv, const ToolInfo& tool, Parse&& parse, const char* usage, Run&& run) {
  return run_tool(argc, argv, tool, [&](const ToolContext& context) {
    if (asks_version(argc, argv)) {
      if (context.world.root()) std::fputs(version_text(tool.name).c_str(), stdout);
      return 0;
    }
    const auto options = parse(argc, argv);
    if (!options) {
      std::fputs(usage, stdout);
      return 0;
    }
    return run(*options, context);
  });
}

/// Whether a run shows its progress: on a terminal, and only in the first process of an MPI run.
inline bool show_progress(const MpiWorld& world) { return isatty(STDERR_FILENO) != 0 && world.root(); }

}  // namespace cudp::apps
