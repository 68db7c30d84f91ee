#pragma once
// A fresh directory per test case, removed with everything in it, and reading a file whole.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <system_error>

namespace cudp::test {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device seed;
    path = std::filesystem::temp_directory_path() / ("cudp-test-" + std::to_string(seed()) + std::to_string(seed()));
    std::filesystem::create_directories(path);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  // Writes `contents` to a file of the directory and returns its path.
  std::string file(const std::string& name, const std::string& contents) const {
    const std::string p = *this / name;
    std::ofstream(p, std::ios::binary) << contents;
    return p;
  }
};

// The whole contents of a file (empty when it cannot be read).
inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace cudp::test
