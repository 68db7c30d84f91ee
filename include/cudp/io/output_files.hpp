#pragma once
// Output files written all or nothing: each regular file as path.tmp, renamed over path only when every file of the
// run was written, so that a failure leaves no partial file (nor a truncated one from an earlier run). A symbolic
// link is followed, so that the link stays and its target is replaced.
//
// A path that is not a regular file is a stream, written in place after the regular files, in the order given:
// renaming over /dev/null or a named pipe would replace the device or pipe with a file. A name of a descriptor the
// process already has open (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) is written through that
// descriptor, even when the shell pointed it at a regular file: opening the name again would truncate what the
// shell opened for appending, and would put the text out of order with what else goes to the same stream.
#include <fcntl.h>
#include <unistd.h>

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

namespace detail {

// The open descriptor that path names (see the file comment), or -1.
inline int descriptor_named(const std::string& path) {
  int fd = -1;
  if (path == "/dev/stdout") {
    fd = STDOUT_FILENO;
  } else if (path == "/dev/stderr") {
    fd = STDERR_FILENO;
  } else {
    for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
      if (path.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string number = path.substr(prefix.size());
      if (number.empty() || number.size() > 9 || number.find_first_not_of("0123456789") != std::string::npos) break;
      fd = std::stoi(number);
    }
  }
  return fd >= 0 && fcntl(fd, F_GETFL) != -1 ? fd : -1;
}

inline bool write_descriptor(int fd, const std::string& text) {
  // Text already buffered by stdio for the same stream must come out first.
  if (fd == STDOUT_FILENO) std::fflush(stdout);
  if (fd == STDERR_FILENO) std::fflush(stderr);
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

inline bool write_file(const std::string& where, const std::string& text) {
  std::ofstream f(where, std::ios::binary);
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  f.close();
  return static_cast<bool>(f);
}

}  // namespace detail

// True when path is written in place (a stream), false when it is written through a temporary and renamed.
inline bool is_output_stream(const std::string& path) {
  if (detail::descriptor_named(path) >= 0) return true;
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);  // follows links
  return std::filesystem::exists(st) && !std::filesystem::is_regular_file(st);
}

// files: (path, text) pairs. standard_output, when given, is written to standard output after the regular files
// and before the streams among files: a program's main output, which the programs cudp replaces print as they go,
// before the tables they write at the end.
inline void write_outputs(const std::vector<std::pair<std::string, const std::string*>>& files,
                          const std::string* standard_output = nullptr) {
  namespace fs = std::filesystem;
  struct Plan {
    std::string path, target, tmp;
    const std::string* text;
    bool direct;
  };
  std::vector<Plan> plans;
  for (const auto& [path, text] : files) {
    const bool direct = is_output_stream(path);
    std::error_code ec;
    std::string target = path;
    if (!direct && fs::is_symlink(fs::symlink_status(path, ec))) target = fs::weakly_canonical(path, ec).string();
    plans.push_back({path, target, target + ".tmp", text, direct});
  }
  std::vector<std::string> temporaries;
  const auto discard = [&] {
    for (const auto& t : temporaries) std::remove(t.c_str());
  };
  for (const auto& p : plans) {
    if (p.direct) continue;
    temporaries.push_back(p.tmp);
    if (!detail::write_file(p.tmp, *p.text)) {
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
  if (standard_output != nullptr && !detail::write_descriptor(STDOUT_FILENO, *standard_output))
    throw InputError(std::string("standard output: cannot write: ") + std::strerror(errno));
  for (const auto& p : plans) {
    if (!p.direct) continue;
    const int fd = detail::descriptor_named(p.path);
    if (!(fd >= 0 ? detail::write_descriptor(fd, *p.text) : detail::write_file(p.path, *p.text)))
      throw InputError(format_error(p.path, "cannot write"));
  }
}

// Fails early, before a long search, when an output file cannot be created (a missing directory, no permission).
inline void check_writable(const std::optional<std::string>& path) {
  if (!path || is_output_stream(*path)) return;  // written in place
  const std::string probe = *path + ".tmp";
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (f == nullptr) throw InputError(format_error(*path, std::string("cannot create: ") + std::strerror(errno)));
  std::fclose(f);
  std::remove(probe.c_str());
}

}  // namespace cudp::io
