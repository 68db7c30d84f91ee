#include "cudp/bio/alphabet.hpp"

#include <catch2/catch.hpp>

#include <cctype>
#include <string>

using cudp::bio::Alphabet;
using cudp::bio::dna;
using cudp::bio::protein;

namespace {

int accepted_bytes(const Alphabet& alphabet) {
  int count = 0;
  for (int byte = 0; byte < 256; ++byte) count += alphabet.encode(static_cast<char>(byte)) >= 0;
  return count;
}

}  // namespace

TEST_CASE("protein codes follow the column order of the NCBI matrix files", "[alphabet]") {
  // The header line of BLOSUM62 in NCBI's data directory, without its J column (J is read as X).
  const std::string ncbi_order = "ARNDCQEGHILKMFPSTWYVBZX*";
  const Alphabet& aa = protein();
  REQUIRE(aa.size == 24);
  CHECK(aa.kind == cudp::bio::AlphabetKind::Protein);
  for (int code = 0; code < 24; ++code) {
    CAPTURE(ncbi_order[code]);
    CHECK(aa.encode(ncbi_order[code]) == code);
    CHECK(aa.decode(static_cast<std::uint8_t>(code)) == ncbi_order[code]);
    if (ncbi_order[code] != '*') CHECK(aa.encode(static_cast<char>(std::tolower(ncbi_order[code]))) == code);
  }
}

TEST_CASE("protein: U, O and J are scored as X; everything else is rejected", "[alphabet]") {
  const Alphabet& aa = protein();
  const int x = aa.encode('X');
  for (char c : std::string("UOJuoj")) {
    CAPTURE(c);
    CHECK(aa.encode(c) == x);
  }
  for (char c : std::string("1-. \t\n\r>@[`{\x7f")) {
    CAPTURE(static_cast<int>(c));
    CHECK(aa.encode(c) == -1);
  }
  CHECK(aa.encode('\0') == -1);
  CHECK(aa.encode(static_cast<char>(0xc1)) == -1);  // 'A' with the high bit set must not alias 'A'
  // 24 upper-case letters (including *), 23 lower-case letters, U O J in both cases.
  CHECK(accepted_bytes(aa) == 24 + 23 + 6);
}

TEST_CASE("DNA: ACGTN in either case, U as T, IUPAC ambiguity codes as N", "[alphabet]") {
  const Alphabet& nt = dna();
  REQUIRE(nt.size == 5);
  CHECK(nt.kind == cudp::bio::AlphabetKind::Dna);
  const std::string order = "ACGTN";
  for (int code = 0; code < 5; ++code) {
    CHECK(nt.encode(order[code]) == code);
    CHECK(nt.encode(static_cast<char>(std::tolower(order[code]))) == code);
    CHECK(nt.decode(static_cast<std::uint8_t>(code)) == order[code]);
  }
  CHECK(nt.encode('U') == nt.encode('T'));
  CHECK(nt.encode('u') == nt.encode('T'));
  for (char c : std::string("RYKMSWBDHVrykmswbdhv")) {
    CAPTURE(c);
    CHECK(nt.encode(c) == nt.encode('N'));
  }
  for (char c : std::string("XEFIJLOPQZ*-.1 ")) {
    CAPTURE(c);
    CHECK(nt.encode(c) == -1);
  }
  CHECK(accepted_bytes(nt) == 5 * 2 + 2 + 10 * 2);
}

TEST_CASE("DNA with IUPAC codes: the 15 codes kept apart, either case, U as T", "[alphabet]") {
  const Alphabet& nt = cudp::bio::dna_iupac();
  REQUIRE(nt.size == 15);
  CHECK(nt.kind == cudp::bio::AlphabetKind::Dna);
  // Every IUPAC nucleotide letter (the four bases, the ten ambiguity codes and N) is its own code.
  const std::string iupac = "ACGTRYKMSWBDHVN";
  std::string seen;
  for (char c : iupac) {
    CAPTURE(c);
    const int code = nt.encode(c);
    REQUIRE(code >= 0);
    CHECK(nt.encode(static_cast<char>(std::tolower(c))) == code);
    CHECK(nt.decode(static_cast<std::uint8_t>(code)) == c);
    seen += nt.decode(static_cast<std::uint8_t>(code));
  }
  CHECK(seen == iupac);  // distinct codes, decoding back to each letter
  CHECK(nt.encode('U') == nt.encode('T'));
  CHECK(nt.encode('u') == nt.encode('T'));
  for (char c : std::string("XEFIJLOPQZ*-.1 ")) {
    CAPTURE(c);
    CHECK(nt.encode(c) == -1);
  }
  CHECK(accepted_bytes(nt) == 15 * 2 + 2);
}

TEST_CASE("make_code_table: letters in either case, aliases, everything else refused", "[alphabet]") {
  static constexpr Alphabet rna{cudp::bio::AlphabetKind::Dna, "RNA", "ACGU", 4,
                                cudp::bio::make_code_table("ACGU", "TN", "UZ")};
  CHECK(rna.encode('A') == 0);
  CHECK(rna.encode('c') == 1);
  CHECK(rna.encode('U') == 3);
  CHECK(rna.encode('u') == 3);
  CHECK(rna.encode('T') == 3);  // an alias of U
  CHECK(rna.encode('t') == 3);
  CHECK(rna.encode('N') == -1);  // an alias of a letter that is not one of the alphabet's
  CHECK(rna.encode('X') == -1);
  CHECK(rna.decode(2) == 'G');
  CHECK(accepted_bytes(rna) == 10);
  // The built-in alphabets are made with it.
  CHECK(cudp::bio::make_code_table("ARNDCQEGHILKMFPSTWYVBZX*", "UOJ", "XXX") == protein().code_of_byte);
  CHECK(cudp::bio::make_code_table("ACGTN", "URYKMSWBDHV", "TNNNNNNNNNN") == dna().code_of_byte);
  // Without aliases: only the letters (the '*' has no lower case).
  const auto plain = cudp::bio::make_code_table("AB*");
  int accepted = 0;
  for (auto code : plain) accepted += code >= 0;
  CHECK(accepted == 5);
  CHECK(plain[static_cast<unsigned char>('*')] == 2);
}
