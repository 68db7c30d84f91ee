#include "cudp/io/database_file.hpp"

#include <catch2/catch.hpp>

#include "../support/same_sequences.hpp"
#include "../support/temp_dir.hpp"

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using cudp::io::InputError;
using cudp::io::SequenceSet;

namespace fs = std::filesystem;

using cudp::test::require_same;
using cudp::test::file_bytes;
using cudp::test::TempDir;

namespace {

void spit(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

SequenceSet sample_set(const cudp::bio::Alphabet& alphabet, std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  SequenceSet set;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<std::uint8_t> codes(1 + rng() % 500);
    for (auto& c : codes) c = static_cast<std::uint8_t>(rng() % static_cast<unsigned>(alphabet.size));
    const std::string description = i % 3 == 0 ? "" : "description of sequence " + std::to_string(i) + " \xce\xb1";
    set.add("seq|" + std::to_string(i), description, codes.data(), codes.size());
  }
  return set;
}

template <typename T>
void poke(std::string& bytes, std::size_t offset, T value) {
  std::memcpy(&bytes[offset], &value, sizeof value);
}

std::string read_error(const std::string& path, const cudp::bio::Alphabet& alphabet = cudp::bio::protein()) {
  try {
    cudp::io::read_database(path, alphabet);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

// Offsets of the fixed header fields, from the format description in database_file.hpp.
constexpr std::size_t kind_at = 8, size_at = 12, count_at = 16, residues_at = 24, text_at = 32, offsets_at = 40;

}  // namespace

TEST_CASE("round trip: protein, DNA, and an empty set", "[database]") {
  TempDir dir;
  const auto protein = sample_set(cudp::bio::protein(), 1000, 1);
  cudp::io::write_database(dir / "p.cudpdb", protein, cudp::bio::protein());
  require_same(cudp::io::read_database(dir / "p.cudpdb", cudp::bio::protein()), protein);

  const auto dna = sample_set(cudp::bio::dna(), 300, 2);
  cudp::io::write_database(dir / "d.cudpdb", dna, cudp::bio::dna());
  require_same(cudp::io::read_database(dir / "d.cudpdb", cudp::bio::dna()), dna);

  cudp::io::write_database(dir / "e.cudpdb", SequenceSet{}, cudp::bio::protein());
  const auto empty = cudp::io::read_database(dir / "e.cudpdb", cudp::bio::protein());
  CHECK(empty.size() == 0);
  CHECK(empty.offsets == std::vector<std::uint64_t>{0});
}

TEST_CASE("the file layout is the documented one", "[database]") {
  TempDir dir;
  SequenceSet set;
  const std::uint8_t codes[] = {0, 1, 2, 23, 4};
  set.add("ab", "cde", codes, 3);
  set.add("f", "", codes + 3, 2);
  cudp::io::write_database(dir / "l.cudpdb", set, cudp::bio::protein());
  const std::string bytes = file_bytes(dir / "l.cudpdb");
  // 40-byte header, 3 offsets, 2 + 2 lengths, 5 residues, 6 bytes of text.
  REQUIRE(bytes.size() == 40 + 3 * 8 + 4 * 4 + 5 + 6);
  CHECK(bytes.substr(0, 8) == "CUDPDB01");
  CHECK(bytes[kind_at] == 0);
  CHECK(bytes[size_at] == 24);
  CHECK(bytes[count_at] == 2);
  CHECK(bytes[residues_at] == 5);
  CHECK(bytes[text_at] == 6);
  CHECK(bytes[offsets_at + 16] == 5);
  CHECK(bytes.substr(bytes.size() - 11) == std::string("\x00\x01\x02\x17\x04", 5) + "abcdef");
}

TEST_CASE("load_sequences and is_database_file tell databases from FASTA", "[database]") {
  TempDir dir;
  const std::string fasta = dir / "s.fa";
  spit(fasta, ">a x\nMKV\n>b\nWW\n");
  const auto from_fasta = cudp::io::load_sequences(fasta, cudp::bio::protein());
  REQUIRE(from_fasta.size() == 2);
  cudp::io::write_database(dir / "s.cudpdb", from_fasta, cudp::bio::protein());
  CHECK(cudp::io::is_database_file(dir / "s.cudpdb"));
  CHECK_FALSE(cudp::io::is_database_file(fasta));
  CHECK_FALSE(cudp::io::is_database_file(dir / "missing"));
  require_same(cudp::io::load_sequences(dir / "s.cudpdb", cudp::bio::protein()), from_fasta);
}

TEST_CASE("database_magic and looks_like_database tell a database's bytes from FASTA", "[database]") {
  static_assert(cudp::io::looks_like_database(cudp::io::database_magic()));
  CHECK(cudp::io::database_magic() == "CUDPDB01");
  TempDir dir;
  cudp::io::write_database(dir / "m.cudpdb", sample_set(cudp::bio::protein(), 3, 5), cudp::bio::protein());
  const std::string bytes = file_bytes(dir / "m.cudpdb");
  CHECK(bytes.substr(0, cudp::io::database_magic().size()) == cudp::io::database_magic());
  CHECK(cudp::io::looks_like_database(bytes));
  CHECK(cudp::io::looks_like_database(bytes.substr(0, 8)));
  CHECK_FALSE(cudp::io::looks_like_database(bytes.substr(0, 7)));  // too short to tell
  CHECK_FALSE(cudp::io::looks_like_database(">CUDPDB01\nMKV\n"));
  CHECK_FALSE(cudp::io::looks_like_database(""));
  CHECK_FALSE(cudp::io::looks_like_database("CUDPDB02"));
}

TEST_CASE("a database of the other alphabet is refused", "[database]") {
  TempDir dir;
  cudp::io::write_database(dir / "p.cudpdb", sample_set(cudp::bio::protein(), 3, 3), cudp::bio::protein());
  CHECK(read_error(dir / "p.cudpdb", cudp::bio::dna()) ==
        dir / "p.cudpdb" + ": the database holds protein sequences but DNA was expected");
}

TEST_CASE("truncated and corrupt files give InputError", "[database]") {
  TempDir dir;
  const std::string path = dir / "c.cudpdb";
  const auto set = sample_set(cudp::bio::protein(), 50, 4);
  cudp::io::write_database(path, set, cudp::bio::protein());
  const std::string good = file_bytes(path);
  const std::uint64_t n = set.size();

  SECTION("every truncation") {
    for (std::size_t size : {std::size_t{0}, std::size_t{7}, std::size_t{39}, std::size_t{40}, good.size() / 2,
                             good.size() - 1}) {
      CAPTURE(size);
      spit(path, good.substr(0, size));
      CHECK_THROWS_AS(cudp::io::read_database(path, cudp::bio::protein()), InputError);
    }
    spit(path, good + "x");
    CHECK_THROWS_WITH(cudp::io::read_database(path, cudp::bio::protein()), Catch::Contains("truncated or corrupt"));
  }
  SECTION("wrong magic") {
    std::string bad = good;
    bad[7] = '2';
    spit(path, bad);
    CHECK(read_error(path) == path + ": not a cudp database (wrong magic number)");
  }
  SECTION("unknown alphabet kind, wrong alphabet size") {
    std::string bad = good;
    poke<std::uint32_t>(bad, kind_at, 7);
    spit(path, bad);
    CHECK(read_error(path) == path + ": corrupt database: unknown alphabet kind 7");
    bad = good;
    poke<std::uint32_t>(bad, size_at, 25);
    spit(path, bad);
    CHECK(read_error(path) == path + ": the database uses 25 residue codes but the protein alphabet has 24");
  }
  SECTION("absurd counts fail before anything is allocated") {
    for (std::size_t field : {count_at, residues_at, text_at}) {
      std::string bad = good;
      poke<std::uint64_t>(bad, field, std::uint64_t{1} << 62);
      spit(path, bad);
      CHECK_THROWS_WITH(cudp::io::read_database(path, cudp::bio::protein()), Catch::Contains("truncated or corrupt"));
    }
  }
  SECTION("offsets that go backwards or do not span the residues") {
    std::string bad = good;
    poke<std::uint64_t>(bad, offsets_at + 8 * 10, 0);  // sequence 9 now ends before it starts
    spit(path, bad);
    CHECK(read_error(path) == path + ": corrupt database: bad offset for sequence 9");
    bad = good;
    poke<std::uint64_t>(bad, offsets_at, 1);
    spit(path, bad);
    CHECK(read_error(path) == path + ": corrupt database: sequence offsets do not span the residues");
  }
  SECTION("a residue code outside the alphabet") {
    std::string bad = good;
    const std::size_t residues = offsets_at + 8 * (n + 1) + 8 * n;
    bad[residues + 17] = static_cast<char>(200);
    spit(path, bad);
    CHECK(read_error(path) == path + ": corrupt database: residue code 200 is outside the protein alphabet");
  }
  SECTION("name lengths that overrun the text") {
    std::string bad = good;
    poke<std::uint32_t>(bad, offsets_at + 8 * (n + 1), 1000000);
    spit(path, bad);
    CHECK(read_error(path) == path + ": corrupt database: header lengths exceed the header text");
    bad = good;
    poke<std::uint32_t>(bad, offsets_at + 8 * (n + 1), 0);
    spit(path, bad);
    CHECK(read_error(path) == path + ": corrupt database: header lengths do not cover the header text");
  }
  SECTION("missing file") {
    CHECK(read_error(dir / "nope") == dir / "nope" + ": cannot open: No such file or directory");
  }
}

TEST_CASE("several readers give the same set, recoded on request, and still find a bad code", "[database]") {
  TempDir dir;
  const auto set = sample_set(cudp::bio::protein(), 16000, 7);  // about 4 M residues: several 1 M parts
  REQUIRE(set.total_residues() > 3u << 20);
  const std::string path = dir / "big.cudpdb";
  cudp::io::write_database(path, set, cudp::bio::protein());

  cudp::io::DatabaseReadOptions four;
  four.threads = 4;
  require_same(cudp::io::read_database(path, cudp::bio::protein(), four), set);

  std::array<std::uint8_t, 256> shifted{};
  for (std::size_t c = 0; c < shifted.size(); ++c) shifted[c] = static_cast<std::uint8_t>((c * 7 + 3) % 251);
  four.recode = &shifted;
  const SequenceSet recoded = cudp::io::read_database(path, cudp::bio::protein(), four);
  REQUIRE(recoded.residues.size() == set.residues.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < set.residues.size(); ++i) differing += recoded.residues[i] != shifted[set.residues[i]];
  CHECK(differing == 0);
  CHECK(recoded.offsets == set.offsets);
  CHECK(recoded.names == set.names);
  CHECK(recoded.descriptions == set.descriptions);

  // A bad code in the last part, which another thread than the caller's reads.
  std::string bytes = file_bytes(path);
  const std::size_t n = set.size();
  const std::size_t residues = offsets_at + 8 * (n + 1) + 8 * n;
  bytes[residues + set.total_residues() - 5] = static_cast<char>(99);
  spit(path, bytes);
  four.recode = nullptr;
  CHECK_THROWS_WITH(cudp::io::read_database(path, cudp::bio::protein(), four),
                    Catch::Contains("residue code 99 is outside the protein alphabet"));
}

TEST_CASE("a failed write leaves no file behind and the old database intact", "[database]") {
  TempDir dir;
  const auto set = sample_set(cudp::bio::protein(), 10, 5);

  SECTION("the directory does not exist") {
    const std::string path = dir / "no/such/dir/x.cudpdb";
    CHECK_THROWS_AS(cudp::io::write_database(path, set, cudp::bio::protein()), InputError);
    CHECK_FALSE(fs::exists(path));
    CHECK_FALSE(fs::exists(path + ".tmp"));
  }
  SECTION("the rename fails: the target is a non-empty directory") {
    const std::string path = dir / "target";
    fs::create_directories(dir.path / "target" / "child");
    CHECK_THROWS_AS(cudp::io::write_database(path, set, cudp::bio::protein()), InputError);
    CHECK(fs::is_directory(path));
    CHECK_FALSE(fs::exists(path + ".tmp"));
  }
  SECTION("an inconsistent set is refused before anything is written") {
    const std::string path = dir / "x.cudpdb";
    cudp::io::write_database(path, set, cudp::bio::protein());
    const std::string before = file_bytes(path);
    SequenceSet bad = set;
    bad.residues[3] = 24;
    CHECK_THROWS_AS(cudp::io::write_database(path, bad, cudp::bio::protein()), std::invalid_argument);
    bad = set;
    bad.offsets.pop_back();
    CHECK_THROWS_AS(cudp::io::write_database(path, bad, cudp::bio::protein()), std::invalid_argument);
    CHECK(file_bytes(path) == before);
    CHECK_FALSE(fs::exists(path + ".tmp"));
  }
}
