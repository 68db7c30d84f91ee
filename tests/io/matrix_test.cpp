#include "cudp/io/matrix.hpp"

#include <catch2/catch.hpp>

#include "../support/temp_dir.hpp"
#include "../support/test_data.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
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
        std::vector<std::string>{"BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "PAM250", "NUC.4.4", "EDNAFULL"});
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
  CHECK_THROWS_WITH(load_matrix("BLOSUM62", cudp::bio::dna()),
                    "BLOSUM62: this built-in matrix scores protein, not DNA sequences");
  CHECK_THROWS_WITH(load_matrix("BLOSUM62", cudp::bio::dna_iupac()),
                    "BLOSUM62: this built-in matrix scores protein, not DNA sequences");
  CHECK_THROWS_WITH(load_matrix("nuc.4.4", cudp::bio::protein()),
                    "NUC.4.4: this built-in matrix scores DNA, not protein sequences");
}

TEST_CASE("NUC.4.4: its published values over the IUPAC alphabet; EDNAFULL is the same matrix", "[matrix]") {
  const auto m = load_matrix("NUC.4.4", cudp::bio::dna_iupac());
  CHECK(m.name == "NUC.4.4");
  REQUIRE(m.size == 15);
  // Spot values of NCBI's file (rows A..N in its order A T G C S W R Y K M B V H D N).
  CHECK(score(m, 'A', 'A') == 5);
  CHECK(score(m, 'A', 'T') == -4);
  CHECK(score(m, 'A', 'W') == 1);
  CHECK(score(m, 'A', 'R') == 1);
  CHECK(score(m, 'A', 'B') == -4);
  CHECK(score(m, 'A', 'V') == -1);
  CHECK(score(m, 'A', 'N') == -2);
  CHECK(score(m, 'S', 'S') == -1);
  CHECK(score(m, 'S', 'H') == -3);
  CHECK(score(m, 'B', 'V') == -2);
  CHECK(score(m, 'N', 'N') == -1);
  CHECK(score(m, 'U', 'T') == 5);  // U is read as T
  CHECK(m.max_score() == 5);
  CHECK(m.min_score() == -4);
  // Symmetric, and independent of the file's letter order: a matching pair of letters scores the same in both
  // directions and the four bases score 5 against themselves, -4 against each other.
  const std::string bases = "ACGT";
  for (char a : bases)
    for (char b : bases) CHECK(score(m, a, b) == (a == b ? 5 : -4));
  for (int a = 0; a < 15; ++a)
    for (int b = 0; b < 15; ++b)
      CHECK(m(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)) ==
            m(static_cast<std::uint8_t>(b), static_cast<std::uint8_t>(a)));
  CHECK(load_matrix("ednafull", cudp::bio::dna_iupac()).scores == m.scores);
  CHECK(load_matrix("EDNAFULL", cudp::bio::dna_iupac()).name == "EDNAFULL");
}

TEST_CASE("NUC.4.4 equals EMBOSS's EDNAFULL file", "[matrix][emboss-data]") {
  const std::string path = cudp::test::emboss_data_file("EDNAFULL");
  // The U row and column of EMBOSS's file are an alias of T for dna_iupac(), so the parser skips them; check them
  // against T's here from the text itself.
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    if (header.empty())
      header = w;
    else
      rows.push_back(w);
  }
  REQUIRE(header.size() == 16);
  REQUIRE(header[1] == "T");
  REQUIRE(header[15] == "U");
  REQUIRE(rows.size() == 16);
  for (std::size_t r = 0; r < 16; ++r) CHECK(rows[r][16] == rows[r][2]);  // column U == column T
  CHECK(std::vector<std::string>(rows[15].begin() + 1, rows[15].end() - 1) ==
        std::vector<std::string>(rows[1].begin() + 1, rows[1].end() - 1));  // row U == row T but for (U,U)
  CHECK(load_matrix(path, cudp::bio::dna_iupac()).scores == load_matrix("NUC.4.4", cudp::bio::dna_iupac()).scores);
}

TEST_CASE("built-ins equal NCBI's files", "[matrix][ncbi-data]") {
  for (const auto& name : cudp::io::builtin_matrix_names()) {
    if (name == "NUC.4.4" || name == "EDNAFULL") continue;  // not in Debian's ncbi-data: compared with EMBOSS's
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
  // Only the matrices of the alphabet's kind are offered: a protein tool has no use for the DNA ones.
  CHECK_THROWS_WITH(load_matrix(missing, cudp::bio::protein()),
                    missing + ": not a built-in protein matrix (BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, PAM250) and "
                              "cannot open it as a file: No such file or directory");
  CHECK_THROWS_WITH(load_matrix(missing, cudp::bio::dna()),
                    missing + ": not a built-in DNA matrix (NUC.4.4, EDNAFULL) and cannot open it as a file: No "
                              "such file or directory");
}
