#pragma once
/// \file
/// A tool's main as the kit runs it: the MPI world started (a world of one without mpirun), the tool's body run, and
/// every way it can fail turned into one message on standard error and an exit status: a usage error (UsageError,
/// std::invalid_argument) with the tool's usage status, a failure in some processes of an MPI run as each said it,
/// a failed self-check (InternalError) with 3, anything else with 1. Under mpirun the first process prints the
/// errors met before the processes compare notes (mpi_world.hpp).
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

#include "kit/command_line.hpp"
#include "kit/mpi_world.hpp"

namespace cudp::apps {

/// What run_tool needs to know of a tool.
struct ToolInfo {
  const char* name;       ///< "cudp-swsearch": the prefix of every message
  int usage_status = 2;   ///< the exit status of a usage error (HMMER's tools: 1, as HMMER's)
};

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
  std::optional<MpiWorld> world;
  if (!start_world(world, argc, argv, tool.name)) return 1;
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
