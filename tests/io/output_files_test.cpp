// All-or-nothing output files: every file of a run appears whole or none does, earlier contents survive a failed
// run, and special files (/dev/null) are written in place rather than replaced.
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "cudp/io/output_files.hpp"
#include "../support/temp_dir.hpp"

using cudp::test::file_bytes;

TEST_CASE("output files are written whole, without temporaries left", "[io]") {
  cudp::test::TempDir dir;
  const std::string a = "first\n", b = "second\n";
  cudp::io::write_outputs({{dir / "a.txt", &a}, {dir / "b.txt", &b}});
  CHECK(file_bytes(dir / "a.txt") == a);
  CHECK(file_bytes(dir / "b.txt") == b);
  CHECK_FALSE(std::filesystem::exists(dir / "a.txt.tmp"));
}

TEST_CASE("a file that cannot be written leaves the run's other files untouched", "[io]") {
  cudp::test::TempDir dir;
  const std::string old_text = "from an earlier run\n", text = "new\n";
  const std::string kept = dir.file("kept.txt", old_text);
  const std::string impossible = dir / "no-such-directory/out.txt";
  CHECK_THROWS_WITH(cudp::io::write_outputs({{kept, &text}, {impossible, &text}}),
                    Catch::Contains("no-such-directory/out.txt") && Catch::Contains("cannot write"));
  CHECK(file_bytes(kept) == old_text);
  CHECK_FALSE(std::filesystem::exists(kept + ".tmp"));
  CHECK_THROWS_WITH(cudp::io::check_writable(impossible), Catch::Contains("cannot create"));
}

TEST_CASE("/dev/null is written in place, not replaced by a file", "[io]") {
  const std::string text = "discarded\n";
  cudp::io::write_outputs({{"/dev/null", &text}});
  struct stat st {};
  REQUIRE(stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}
