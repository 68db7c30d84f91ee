#include "cudp/io/matrix.hpp"

#include <catch2/catch.hpp>

#include "../support/temp_dir.hpp"
#include "../support/test_data.hpp"

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using cudp::io::InputError;
using cudp::io::load_matrix;
using cudp::io::parse_matrix;
using cudp::io::SubstitutionMatrix;

namespace fs = std::filesystem;

namespace {

int score(const SubstitutionMatrix& m, char a, char b) {
  const auto& alphabet = *m.alphabet;
  return m(static_cast<std::uint8_t>(alphabet.encode(a)), static_cast<std::uint8_t>(alphabet.encode(b)));
}

std::string error_of(const std::string& text, const cudp::bio::Alphabet& alphabet = cudp::bio::dna()) {
  try {
    parse_matrix(text, "x.mat", alphabet);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("BLOSUM62 has its published values", "[matrix]") {
  const auto m = load_matrix("BLOSUM62", cudp::bio::protein());
  CHECK(m.name == "BLOSUM62");
  CHECK(m.size == 24);
  CHECK(score(m, 'W', 'W') == 11);
  CHECK(score(m, 'A', 'A') == 4);
  CHECK(score(m, 'C', 'C') == 9);
  CHECK(score(m, 'H', 'H') == 8);
  CHECK(score(m, 'I', 'V') == 3);
  CHECK(score(m, 'D', 'E') == 2);
  CHECK(score(m, 'W', 'F') == 1);
  CHECK(score(m, 'G', 'I') == -4);
  CHECK(score(m, 'A', 'R') == -1);
  CHECK(score(m, '*', 'A') == -4);
  CHECK(score(m, '*', '*') == 1);
  CHECK(score(m, 'X', 'X') == -1);
  CHECK(score(m, 'J', 'L') == score(m, 'X', 'L'));  // J is read as X, not taken from NCBI's J row
  CHECK(m.max_score() == 11);
  CHECK(m.min_score() == -4);
  for (int a = 0; a < 24; ++a) {
    for (int b = 0; b < 24; ++b) {
      CHECK(m(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)) ==
            m(static_cast<std::uint8_t>(b), static_cast<std::uint8_t>(a)));
    }
  }
}

TEST_CASE("the other built-ins: names, extremes, case-insensitive lookup", "[matrix]") {
  CHECK(cudp::io::builtin_matrix_names() ==
        std::vector<std::string>{"BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "PAM250"});
  const auto b45 = load_matrix("blosum45", cudp::bio::protein());
  CHECK(b45.name == "BLOSUM45");
  CHECK(score(b45, 'W', 'W') == 15);
  CHECK(score(b45, 'C', 'C') == 12);
  const auto b50 = load_matrix("Blosum50", cudp::bio::protein());
  CHECK(score(b50, 'W', 'W') == 15);
  CHECK(score(b50, 'A', 'A') == 5);
  const auto b80 = load_matrix("BLOSUM80", cudp::bio::protein());
  CHECK(b80.min_score() == -6);
  CHECK(score(b80, 'W', 'W') == 11);
  const auto pam = load_matrix("pam250", cudp::bio::protein());
  CHECK(score(pam, 'W', 'W') == 17);
  CHECK(score(pam, 'C', 'C') == 12);
  CHECK(pam.min_score() == -8);
  CHECK_THROWS_WITH(load_matrix("BLOSUM62", cudp::bio::dna()), Catch::Contains("protein"));
}

TEST_CASE("built-ins equal NCBI's files", "[matrix][ncbi-data]") {
  for (const auto& name : cudp::io::builtin_matrix_names()) {
    CAPTURE(name);
    const std::string path = cudp::test::ncbi_data_file(name);
    CHECK(load_matrix(path, cudp::bio::protein()).scores == load_matrix(name, cudp::bio::protein()).scores);
  }
}

TEST_CASE("parsing: comments, row order, asymmetry, missing letters", "[matrix]") {
  // N is missing: it must score the file's minimum (-3) against everything, itself included.
  const std::string text =
      "# a comment\n"
      "\n"
      "   A  C  G  T\n"
      "# rows need not follow the column order\n"
      "T -1 -3 -1  5\r\n"
      "A  5 -1 -2 -1\n"
      "C -2  5 -1 -1\n"
      "G -1 -1  5 -1\n";
  const auto m = parse_matrix(text, "x.mat", cudp::bio::dna());
  CHECK(m.name == "x.mat");
  CHECK(m.size == 5);
  CHECK(score(m, 'A', 'A') == 5);
  CHECK(score(m, 'T', 'C') == -3);
  CHECK(score(m, 'C', 'T') == -1);
  CHECK(score(m, 'A', 'C') == -1);
  CHECK(score(m, 'C', 'A') == -2);
  for (char c : std::string("ACGTN")) {
    CHECK(score(m, 'N', c) == -3);
    CHECK(score(m, c, 'N') == -3);
  }
  CHECK(m.max_score() == 5);
  CHECK(m.min_score() == -3);
}

TEST_CASE("parse errors name the file and line", "[matrix]") {
  const std::string header = "   A  C  G  T\n";
  CHECK(error_of(header + "A 1 -1 -1 -1\nC -1 1 -1\n") == "x.mat:3: row 'C' has 3 scores but the header has 4 columns");
  CHECK(error_of(header + "A 1 -1 -1 -1 2\n") == "x.mat:2: row 'A' has 5 scores but the header has 4 columns");
  CHECK(error_of(header + "A 1 -1 1.5 -1\n") == "x.mat:2: row 'A': '1.5' is not an integer score");
  CHECK(error_of(header + "A 1 -1 x -1\n") == "x.mat:2: row 'A': 'x' is not an integer score");
  CHECK(error_of(header + "A 1 -1 99999999999 -1\n") == "x.mat:2: row 'A': '99999999999' is not an integer score");
  CHECK(error_of("   A  C  E  T\n") == "x.mat:1: 'E' is not a DNA letter");
  CHECK(error_of("   A  C  A  T\n") == "x.mat:1: column 'A' appears twice");
  CHECK(error_of("   A  C  GT\n") == "x.mat:1: expected a single letter, found 'GT'");
  CHECK(error_of(header + "A 1 1 1 1\nA 1 1 1 1\n") == "x.mat:3: row 'A' appears twice");
  CHECK(error_of("   A  C  G\nT 1 1 1\n") == "x.mat:2: row 'T' has no column in the header");
  CHECK(error_of(header + "A 1 1 1 1\nC 1 1 1 1\nG 1 1 1 1\n") == "x.mat: the matrix has 3 rows but 4 columns");
  CHECK(error_of("# only comments\n\n") == "x.mat: no matrix found");
  CHECK(error_of("") == "x.mat: no matrix found");
}

TEST_CASE("load_matrix: files, and unknown names", "[matrix]") {
  cudp::test::TempDir dir;
  const std::string path = dir.file("tiny.mat", "  A C G T\nA 2 -3 -3 -3\nC -3 2 -3 -3\nG -3 -3 2 -3\nT -3 -3 -3 2\n");
  const auto m = load_matrix(path, cudp::bio::dna());
  CHECK(m.name == path);
  CHECK(score(m, 'G', 'G') == 2);
  CHECK(score(m, 'N', 'A') == -3);

  const std::string missing = dir / "BLOSUM99";
  CHECK_THROWS_WITH(load_matrix(missing, cudp::bio::protein()),
                    missing + ": not a built-in matrix (BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, PAM250) and cannot "
                              "open it as a file: No such file or directory");
}
