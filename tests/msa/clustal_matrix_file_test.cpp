// Matrix files as ClustalW 2.1 reads them (clustal_matrix_file.hpp) and the tables made from them: values traced by
// hand from ClustalW's reading (a letter it does not know shifting the rows after it, decimals times 10 truncated),
// a built-in table written out as a file giving the built-in's scoring, series members by percent identity, and
// the errors, each naming the file and line. clustalw itself on NCBI's files: msa_vs_clustalw_matrices.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "cudp/msa/clustal_matrices.hpp"
#include "cudp/msa/clustal_matrix_file.hpp"
#include "cudp/msa/clustal_pairwise_matrices.hpp"

using namespace cudp::msa;
using cudp::io::InputError;

namespace {

int code(char c) { return clustal_code(c); }

// Whether parsing `text` fails with a message holding `what`.
bool fails_with(const std::string& text, const std::string& what) {
  try {
    parse_clustal_matrix(text, "m.txt");
  } catch (const InputError& e) {
    INFO(e.what());
    return std::string(e.what()).find(what) != std::string::npos;
  }
  return false;
}

// A built-in triangle (rows of `order`, lower triangle) in NCBI's layout, with BLAST's '*' row.
template <std::size_t N>
std::string as_ncbi_file(const std::array<std::int16_t, N>& triangle, std::string_view order) {
  const std::size_t n = order.size();
  auto at = [&](std::size_t i, std::size_t j) { return i >= j ? triangle[i * (i + 1) / 2 + j] : triangle[j * (j + 1) / 2 + i]; };
  std::string text = "# written from a built-in table\n  ";
  for (const char c : order) text += std::string(" ") + c;
  text += " *\n";
  for (std::size_t i = 0; i <= n; ++i) {
    text += i < n ? order[i] : '*';
    for (std::size_t j = 0; j <= n; ++j) text += " " + std::to_string(i < n && j < n ? at(i, j) : -9);
    text += "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("a letter ClustalW does not know shifts the rows after it, as ClustalW reads them", "[msa][matrix]") {
  // J is no residue to ClustalW: its row is stored (for the residue columns A and R), the N row then reads it.
  const std::string text =
      "# a comment\n"
      "\n"
      "   A  R  J  N\n"
      "A  4 -1  7 -2  3\n"
      "R -1  5  7  0  3\n"
      "J  8  9  7  1  3\n"
      "N -2  0  7  6  3\n"
      "*  1  2  3  4  5\n";
  const ClustalTriangle m = parse_clustal_matrix(text, "m.txt");
  CHECK(m.letters == "ARJN");
  CHECK(m.unknown_letters == "J");
  // Row by row, the residue columns up to the row: A [4]; R [-1 5]; J [8 9]; N [-2 0 6]; * from its first field
  // ("*" reads as 0) [0 1 3].
  CHECK(m.values == std::vector<std::int16_t>{4, -1, 5, 8, 9, -2, 0, 6, 0, 1, 3});
  const ProfileMatrix t = detail::expand_clustal_triangle(m.values.data(), m.codes, 100, true);
  CHECK(t.score[code('A')][code('A')] == 400);
  CHECK(t.score[code('R')][code('A')] == -100);
  CHECK(t.score[code('R')][code('R')] == 500);
  CHECK(t.score[code('N')][code('A')] == 800);  // J's row
  CHECK(t.score[code('A')][code('N')] == 800);
  CHECK(t.score[code('N')][code('R')] == 900);
  CHECK(t.score[code('N')][code('N')] == -200);
  // ClustalW's mean mismatch: (-100 + 800 + 900) over (2*2 - 2)/2 pairs, three diagonal cells less one.
  CHECK(t.average_mismatch == -1600);
  // Shifted to non-negative when negative values are not kept: the lowest (column 0 left out) is -200.
  const ProfileMatrix shifted = detail::expand_clustal_triangle(m.values.data(), m.codes, 100, false);
  CHECK(shifted.score[code('N')][code('N')] == 0);
  CHECK(shifted.score[code('A')][code('A')] == 600);
  CHECK(shifted.score[code('A')][clustal_gap_new] == 0);
}

TEST_CASE("decimal rows are read times 10 and truncated; whole-number rows as they are", "[msa][matrix]") {
  const std::string decimals =
      "  A C D\n"
      "A 2.3 0 0 0\n"
      "C -1.99 1.26 0 0\n"
      "D 3 2.5 -1.99 0\n"
      "* 0 0 0 0\n";
  const ClustalTriangle m = parse_clustal_matrix(decimals, "m.txt");
  // Towards zero: -1.99 is -19, 1.26 is 12. Row D's first value has no '.', so its 2.5 is read as 2.
  CHECK(m.values == std::vector<std::int16_t>{23, -19, 12, 3, 2, -1, 0, 0, 0});
}

TEST_CASE("a built-in table written as a file scores as the built-in", "[msa][matrix]") {
  const std::string text = as_ncbi_file(tables::blosum30, tables::protein_order);
  const ClustalTriangle m = parse_clustal_matrix(text, "blosum30.txt");
  CHECK(m.unknown_letters.empty());
  const PairwiseScoring user = pairwise_scoring(m);
  const PairwiseScoring builtin = pairwise_scoring(PairwiseProteinMatrix::blosum);
  CHECK(user.table == builtin.table);
  CHECK(user.average_mismatch == builtin.average_mismatch);

  ClustalParameters p;
  p.protein_series = ProteinSeries::user;
  p.user_matrix.members.push_back({0, 100, m});
  ClustalParameters blosum;
  blosum.protein_series = ProteinSeries::blosum;
  // BLOSUM's series takes blosum30 below 20% identity, at a gap scale of 0.6; a single file keeps 0.75.
  const ProfileMatrix a = profile_matrix(p, 10.0, 200);
  const ProfileMatrix b = profile_matrix(blosum, 10.0, 200);
  CHECK(a.score == b.score);
  CHECK(a.average_mismatch == b.average_mismatch);
  CHECK(a.scale == 0.75f);
  CHECK(b.scale == 0.6f);
}

TEST_CASE("a series' member is the first whose range holds the identity, its scale from the range", "[msa][matrix]") {
  ClustalMatrixSeries s;
  s.series = true;
  const ClustalTriangle one = parse_clustal_matrix(as_ncbi_file(tables::blosum80, tables::protein_order), "80");
  const ClustalTriangle two = parse_clustal_matrix(as_ncbi_file(tables::blosum45, tables::protein_order), "45");
  s.members = {{61, 100, one}, {20, 61, two}};
  SeriesChoice c = choose_series_member(s, 61.0);  // both ranges hold 61: the first
  CHECK(c.matrix == &s.members[0].matrix);
  CHECK(c.in_range);
  CHECK(c.scale == static_cast<float>(0.5 + 0.0 / (39 * 2.0)));
  c = choose_series_member(s, 40.5);
  CHECK(c.matrix == &s.members[1].matrix);
  CHECK(c.scale == static_cast<float>(0.5 + 20.5 / (41 * 2.0)));
  c = choose_series_member(s, 12.0);  // none: the first member, scaled from its own range (below 0.5)
  CHECK(c.matrix == &s.members[0].matrix);
  CHECK_FALSE(c.in_range);
  CHECK(c.scale == static_cast<float>(0.5 + (12.0 - 61) / (39 * 2.0)));
}

TEST_CASE("series files name their members; bad ones fail naming the file and line", "[msa][matrix]") {
  const std::string folder = "clustal_matrix_file_test_files";
  std::remove((folder + "/series").c_str());
  std::string cmd = "mkdir -p " + folder;
  REQUIRE(std::system(cmd.c_str()) == 0);
  {
    std::ofstream(folder + "/b80") << as_ncbi_file(tables::blosum80, tables::protein_order);
    std::ofstream(folder + "/series") << "# two members\nCLUSTAL_SERIES\n\nMATRIX 50 100 " << folder
                                      << "/b80\nnot a matrix line\nMATRIX 0 50 " << folder << "/b80\n";
    std::ofstream(folder + "/bad_limits") << "CLUSTAL_SERIES\nMATRIX 60 40 " << folder << "/b80\n";
    std::ofstream(folder + "/bad_line") << "CLUSTAL_SERIES\nMATRIX 0 40\n";
    std::ofstream(folder + "/empty_series") << "CLUSTAL_SERIES\n# none\n";
    std::ofstream(folder + "/missing_member") << "CLUSTAL_SERIES\nMATRIX 0 40 " << folder << "/nothing\n";
  }
  const ClustalMatrixSeries s = read_clustal_matrix_series(folder + "/series");
  CHECK(s.series);
  REQUIRE(s.members.size() == 2);
  CHECK(s.members[0].low == 50);
  CHECK(s.members[1].high == 50);
  const ClustalMatrixSeries single = read_clustal_matrix_series(folder + "/b80");
  CHECK_FALSE(single.series);
  CHECK(single.members.size() == 1);
  CHECK(choose_series_member(single, 3.0).scale == 0.75f);

  auto message = [](auto read) -> std::string {
    try {
      read();
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(message([&] { read_clustal_matrix_series(folder + "/bad_limits"); }) ==
        folder + "/bad_limits:2: the lower limit is not below the upper (60-40)");
  CHECK(message([&] { read_clustal_matrix_series(folder + "/bad_line"); }).find("/bad_line:2: expected 'MATRIX") !=
        std::string::npos);
  CHECK(message([&] { read_clustal_matrix_series(folder + "/empty_series"); }).find("without MATRIX lines") !=
        std::string::npos);
  CHECK(message([&] { read_clustal_matrix_series(folder + "/missing_member"); }) ==
        folder + "/nothing: cannot open the matrix file");
  CHECK(message([&] { read_clustal_matrix(folder + "/series"); }) ==
        folder + "/series:2: a single matrix expected, not a CLUSTAL_SERIES");
  CHECK(message([&] { read_clustal_matrix(folder + "/none"); }) == folder + "/none: cannot open the matrix file");
}

TEST_CASE("malformed matrices fail naming the line", "[msa][matrix]") {
  // ClustalW wants one row more than letters (BLAST's '*' row).
  CHECK(fails_with("  A C D\nA 1 0 0\nC 0 1 0\nD 0 0 1\n", "m.txt:4: 3 rows; ClustalW wants one more"));
  CHECK(fails_with("  A C D\nA 1 0 0 0\nC 0 1 0 0\nD 0 0 1 0\n* 0 0 0 0\n* 0 0 0 0\n", "m.txt:6: more rows"));
  CHECK(fails_with("# only a comment\n\n", "no header line"));
  CHECK(fails_with("  A J\nA 1 0 0\nJ 0 1 0\n* 0 0 0\n", "fewer than 3 of its first 25 letters are residues"));
  // ClustalW wants a row to have as many fields as residue letters, label included.
  CHECK(fails_with("  A C D\nA 1 0 0 0\nC 0\n", "m.txt:3: row 2 has 1 values, 3 wanted"));
  CHECK(fails_with("  A C D\nA 1 0 0 0\nC 0 99999 0 0\n", "m.txt:3: value '99999' out of range"));
  // A '#' or '!' line ends the matrix early: too few rows.
  CHECK(fails_with("  A C D\nA 1 0 0 0\n! end\nC 0 1 0 0\nD 0 0 1 0\n* 0 0 0 0\n", "1 rows"));
  // CRLF line ends read as LF ones.
  CHECK_NOTHROW(parse_clustal_matrix("  A C D\r\nA 1 0 0 0\r\n\r\nC 0 1 0 0\r\nD 0 0 1 0\r\n* 0 0 0 0\r\n", "m"));
}
