#pragma once
// Output files written all or nothing: each as path.tmp, renamed over path only when every file of the run was
// written, so that a failure leaves no partial file (nor a truncated one from an earlier run). A path that is not a
// regular file (/dev/null, a named pipe, /dev/stdout) is written in place: renaming over it would replace the
// device or pipe with a file. A symbolic link is followed, so that the link stays and its target is replaced.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "error.hpp"

namespace cudp::io {

// files: (path, text) pairs.
inline void write_outputs(const std::vector<std::pair<std::string, const std::string*>>& files) {
  namespace fs = std::filesystem;
  struct Plan {
    std::string path, target, tmp;
    const std::string* text;
    bool direct;
  };
  std::vector<Plan> plans;
  for (const auto& [path, text] : files) {
    std::error_code ec;
    std::string target = path;
    if (fs::is_symlink(fs::symlink_status(path, ec))) target = fs::weakly_canonical(path, ec).string();
    const fs::file_status st = fs::status(target, ec);
    const bool direct = fs::exists(st) && !fs::is_regular_file(st);
    plans.push_back({path, target, target + ".tmp", text, direct});
  }
  std::vector<std::string> temporaries;
  const auto discard = [&] {
    for (const auto& t : temporaries) std::remove(t.c_str());
  };
  const auto write = [](const std::string& where, const std::string& text) {
    std::ofstream f(where, std::ios::binary);
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    f.close();
    return static_cast<bool>(f);
  };
  for (const auto& p : plans) {
    if (p.direct) continue;
    temporaries.push_back(p.tmp);
    if (!write(p.tmp, *p.text)) {
      discard();
      throw InputError(format_error(p.path, "cannot write (" + p.tmp + ")"));
    }
  }
  for (const auto& p : plans) {
    if (p.direct) continue;
    if (std::rename(p.tmp.c_str(), p.target.c_str()) != 0) {
      discard();
      throw InputError(format_error(p.path, "cannot rename " + p.tmp + " to it"));
    }
  }
  for (const auto& p : plans)
    if (p.direct && !write(p.target, *p.text))
      throw InputError(format_error(p.path, "cannot write"));
}

// Fails early, before a long search, when an output file cannot be created (a missing directory, no permission).
inline void check_writable(const std::optional<std::string>& path) {
  namespace fs = std::filesystem;
  if (!path) return;
  std::error_code ec;
  const fs::file_status st = fs::status(*path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) return;  // written in place
  const std::string probe = *path + ".tmp";
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (f == nullptr)
    throw InputError(format_error(*path, std::string("cannot create: ") + std::strerror(errno)));
  std::fclose(f);
  std::remove(probe.c_str());
}

}  // namespace cudp::io
