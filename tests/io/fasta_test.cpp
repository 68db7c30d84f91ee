#include "cudp/io/fasta.hpp"

#include <catch2/catch.hpp>

#include "../support/same_sequences.hpp"
#include "../support/temp_dir.hpp"
#include "../support/test_data.hpp"
#include <zlib.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using cudp::io::FastaReader;
using cudp::io::FastaRecord;
using cudp::io::InputError;
using cudp::io::SequenceSet;

namespace fs = std::filesystem;

using cudp::test::require_same;
using cudp::test::TempDir;

namespace {

SequenceSet parse(const std::string& text, const cudp::bio::Alphabet& alphabet = cudp::bio::protein()) {
  return cudp::io::parse_fasta(text.data(), text.size(), "x.fa", alphabet);
}

// The message of the InputError that parsing throws, or a marker when it does not throw one.
std::string error_of(const std::string& text, const cudp::bio::Alphabet& alphabet = cudp::bio::protein()) {
  try {
    parse(text, alphabet);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

std::string letters(const SequenceSet& set, std::size_t i, const cudp::bio::Alphabet& alphabet = cudp::bio::protein()) {
  std::string text;
  for (std::uint32_t k = 0; k < set.length(i); ++k) text += alphabet.decode(set.data(i)[k]);
  return text;
}

void write_gzip(const std::string& path, const std::string& contents) {
  gzFile file = gzopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  REQUIRE(gzwrite(file, contents.data(), static_cast<unsigned>(contents.size())) == static_cast<int>(contents.size()));
  REQUIRE(gzclose(file) == Z_OK);
}

}  // namespace

TEST_CASE("records: names, descriptions, residues and offsets", "[fasta]") {
  const auto set = parse(">sp|P1|ONE first protein\nMKV\nLA\n>two\nW\n>three  spaced   out  \nAC\n");
  REQUIRE(set.size() == 3);
  CHECK(set.names == std::vector<std::string>{"sp|P1|ONE", "two", "three"});
  CHECK(set.descriptions == std::vector<std::string>{"first protein", "", "spaced   out"});
  CHECK(set.offsets == std::vector<std::uint64_t>{0, 5, 6, 8});
  CHECK(letters(set, 0) == "MKVLA");
  CHECK(letters(set, 1) == "W");
  CHECK(letters(set, 2) == "AC");
  CHECK(set.total_residues() == 8);
  CHECK(set.max_length() == 5);
}

TEST_CASE("accepted variations of the format", "[fasta]") {
  SECTION("Windows line endings") {
    const auto set = parse(">a desc here\r\nAC\r\nDE\r\n\r\n>b\r\nW\r\n");
    REQUIRE(set.size() == 2);
    CHECK(set.names[0] == "a");
    CHECK(set.descriptions[0] == "desc here");
    CHECK(letters(set, 0) == "ACDE");
    CHECK(letters(set, 1) == "W");
  }
  SECTION("blank lines before, between and after records") {
    const auto set = parse("\n\n  \n>a\n\nAC\n\n\nDE\n\n>b\nW\n\n\n");
    REQUIRE(set.size() == 2);
    CHECK(letters(set, 0) == "ACDE");
    CHECK(letters(set, 1) == "W");
  }
  SECTION("spaces and tabs inside sequence lines") {
    CHECK(letters(parse(">a\n AC DE\t\tFG \n\tH\n"), 0) == "ACDEFGH");
  }
  SECTION("a trailing stop codon stays a residue") {
    const auto set = parse(">a\nMK*\n");
    REQUIRE(set.length(0) == 3);
    CHECK(set.data(0)[2] == cudp::bio::protein().encode('*'));
  }
  SECTION("no newline at the end of the file") {
    const auto set = parse(">a\nAC\n>b\nDE");
    REQUIRE(set.size() == 2);
    CHECK(letters(set, 1) == "DE");
  }
  SECTION("lower case, and U/O/J read as X") {
    CHECK(letters(parse(">a\nmkvuoj\n"), 0) == "MKVXXX");
  }
  SECTION("a name separated by a tab; a header line of 100 000 characters") {
    const std::string long_name(100000, 'n');
    const auto set = parse(">a\tthe rest\nA\n>" + long_name + "\nC\n");
    CHECK(set.names[0] == "a");
    CHECK(set.descriptions[0] == "the rest");
    CHECK(set.names[1] == long_name);
  }
  SECTION("DNA with RNA and ambiguity letters") {
    const auto set = parse(">d\nACGTU\nacgtu\nRYN\n", cudp::bio::dna());
    CHECK(letters(set, 0, cudp::bio::dna()) == "ACGTTACGTTNNN");
  }
}

TEST_CASE("every error names the file and the line (and the column for bad bytes)", "[fasta]") {
  CHECK(error_of(">s1\nAC1D\n") == "x.fa:2:3: invalid residue '1' in sequence 's1' (not a protein letter)");
  CHECK(error_of(">s\nAC GT\n  A1\n") == "x.fa:3:4: invalid residue '1' in sequence 's' (not a protein letter)");
  CHECK(error_of(">s\r\nAC\r\nA1\r\n") == "x.fa:3:2: invalid residue '1' in sequence 's' (not a protein letter)");
  CHECK(error_of(">s\nAC>D\n") == "x.fa:2:3: invalid residue '>' in sequence 's' (not a protein letter)");
  CHECK(error_of(std::string(">s\nA\0C\n", 7)) ==
        "x.fa:2:2: invalid residue byte 0x00 in sequence 's' (not a protein letter)");
  CHECK(error_of(">d\nACGE\n", cudp::bio::dna()) ==
        "x.fa:2:4: invalid residue 'E' in sequence 'd' (not a DNA letter)");
  CHECK(error_of(">a\nAA\n>b\n\nCC\n\n-\n") == "x.fa:7:1: invalid residue '-' in sequence 'b' (not a protein letter)");

  CHECK(error_of("ACGT\n>s\nA\n") == "x.fa:1: expected '>' at the start of a FASTA record");
  CHECK(error_of("\n\n  \nfoo\n>s\nA\n") == "x.fa:4: expected '>' at the start of a FASTA record");
  CHECK(error_of(" >s\nA\n") == "x.fa:1: expected '>' at the start of a FASTA record");

  CHECK(error_of(">a\nAA\n>b\nCC\n>sp|P1 desc\n>c\nA\n") == "x.fa:5: sequence 'sp|P1' is empty");
  CHECK(error_of(">a\nAA\n>b\n\n  \n>c\nA\n") == "x.fa:3: sequence 'b' is empty");
  CHECK(error_of(">a\nA\n>b") == "x.fa:3: sequence 'b' is empty");
  CHECK(error_of(">a\nA\n>b\n") == "x.fa:3: sequence 'b' is empty");

  CHECK(error_of("") == "x.fa: no sequences found");
  CHECK(error_of("\n\n \r\n\t\n") == "x.fa: no sequences found");

  const std::string no_name = "sequence header has no name: '>' must be followed directly by the name";
  CHECK(error_of("> foo\nA\n") == "x.fa:1: " + no_name);
  CHECK(error_of(">\nA\n") == "x.fa:1: " + no_name);
  CHECK(error_of(">") == "x.fa:1: " + no_name);
  CHECK(error_of(">\r\nA\n") == "x.fa:1: " + no_name);
  CHECK(error_of(">a\nA\n\n>\tb\nC\n") == "x.fa:4: " + no_name);
}

TEST_CASE("files: missing, directories, plain and gzip give the same result", "[fasta]") {
  TempDir dir;
  const std::string text = ">a one\nACDEFGHIK\nLMNPQ\n\n>b two\r\nRSTVWY\r\n";
  const auto expected = parse(text);

  SECTION("missing file") {
    const std::string path = (dir.path / "q.fa").string();
    CHECK_THROWS_WITH(cudp::io::read_fasta(path, cudp::bio::protein()),
                      path + ": cannot open: No such file or directory");
  }
  SECTION("a directory is not a FASTA file") {
    CHECK_THROWS_AS(cudp::io::read_fasta(dir.path.string(), cudp::bio::protein()), InputError);
  }
  SECTION("errors in files carry the path") {
    const std::string path = dir.file("bad.fa", ">a\nAC\nA1\n");
    CHECK_THROWS_WITH(cudp::io::read_fasta(path, cudp::bio::protein()),
                      path + ":3:2: invalid residue '1' in sequence 'a' (not a protein letter)");
    const std::string empty = dir.file("empty.fa", "");
    CHECK_THROWS_WITH(cudp::io::read_fasta(empty, cudp::bio::protein()), empty + ": no sequences found");
  }
  SECTION("plain") {
    require_same(cudp::io::read_fasta(dir.file("p.fa", text), cudp::bio::protein()), expected);
  }
  SECTION("gzip round trip") {
    const std::string path = (dir.path / "g.fa.gz").string();
    write_gzip(path, text);
    require_same(cudp::io::read_fasta(path, cudp::bio::protein()), expected);
  }
  SECTION("a truncated gzip stream is an error, not a short database") {
    std::string big;
    std::mt19937 rng(7);
    for (int i = 0; i < 2000; ++i) {
      big += ">s" + std::to_string(i) + "\n";
      for (int k = 0; k < 200; ++k) big += "ACDEFGHIKLMNPQRSTVWY"[rng() % 20];
      big += '\n';
    }
    const std::string path = (dir.path / "t.fa.gz").string();
    write_gzip(path, big);
    fs::resize_file(path, fs::file_size(path) / 2);
    CHECK_THROWS_WITH(cudp::io::read_fasta(path, cudp::bio::protein()),
                      Catch::StartsWith(path + ": truncated gzip stream"));
    // Losing only the 8-byte trailer (CRC and length) must be caught too.
    write_gzip(path, big);
    fs::resize_file(path, fs::file_size(path) - 4);
    CHECK_THROWS_WITH(cudp::io::read_fasta(path, cudp::bio::protein()),
                      Catch::StartsWith(path + ": truncated gzip stream"));
  }
  SECTION("a corrupt gzip stream is an error") {
    const std::string path = (dir.path / "c.fa.gz").string();
    write_gzip(path, text);
    std::string bytes;
    {
      std::ifstream in(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    // Damaging the stored CRC-32 (the first trailer bytes) leaves the data intact but must still be noticed.
    bytes[bytes.size() - 8] = static_cast<char>(bytes[bytes.size() - 8] ^ 0x55);
    dir.file("c.fa.gz", bytes);
    CHECK_THROWS_WITH(cudp::io::read_fasta(path, cudp::bio::protein()),
                      Catch::StartsWith(path + ": corrupt gzip stream"));
  }
}

TEST_CASE("FastaReader streams the same records, with the line of each header", "[fasta]") {
  TempDir dir;
  const std::string path = dir.file("r.fa", "\n>a x\nAC\nDE\n\n>b\nW\n>c y z\nK");
  FastaReader reader(path, cudp::bio::protein());
  FastaRecord record;
  std::vector<std::string> names;
  std::vector<std::uint64_t> lines;
  std::vector<std::size_t> lengths;
  while (reader.next(record)) {
    names.push_back(record.name);
    lines.push_back(record.line);
    lengths.push_back(record.codes.size());
  }
  CHECK(names == std::vector<std::string>{"a", "b", "c"});
  CHECK(lines == std::vector<std::uint64_t>{2, 6, 8});
  CHECK(lengths == std::vector<std::size_t>{4, 1, 1});
  CHECK(record.description == "y z");
  CHECK_FALSE(reader.next(record));
}

TEST_CASE("the public sources: a file (plain or gzip) and memory, read whole or through FastaReader", "[fasta]") {
  TempDir dir;
  const std::string text = ">a x\nACDE\n>b\nKLMN\n";
  const std::string plain = dir.file("s.fa", text);
  const std::string gzip = (dir / "s.fa.gz");
  write_gzip(gzip, text);
  const auto read_all = [](cudp::io::ChunkSource& source) {
    std::string bytes;
    const char* data = nullptr;
    for (std::size_t n; (n = source.read(data)) != 0;) bytes.append(data, n);
    return bytes;
  };
  {
    cudp::io::GzipFileSource file(plain);
    CHECK_FALSE(file.compressed());
    CHECK(file.size_hint() == text.size());
    CHECK(read_all(file) == text);
    cudp::io::GzipFileSource packed(gzip);
    CHECK(packed.compressed());
    CHECK(read_all(packed) == text);
    cudp::io::MemorySource memory(text.data(), text.size());
    CHECK(memory.size_hint() == text.size());
    CHECK(read_all(memory) == text);
    CHECK(read_all(memory).empty());  // read once
  }
  const std::string missing = dir / "missing.fa";
  CHECK_THROWS_WITH(cudp::io::GzipFileSource(missing), Catch::StartsWith(missing + ": cannot open"));
  // Any source feeds the reader: the same records from memory as from the file.
  std::unique_ptr<cudp::io::ChunkSource> source = std::make_unique<cudp::io::MemorySource>(text.data(), text.size());
  FastaReader reader(std::move(source), "in memory", cudp::bio::protein());
  FastaRecord record;
  std::vector<std::string> names;
  while (reader.next(record)) names.push_back(record.name);
  CHECK(names == std::vector<std::string>{"a", "b"});
  require_same(cudp::io::read_fasta(std::make_unique<cudp::io::GzipFileSource>(gzip), gzip, cudp::bio::protein()),
               cudp::io::read_fasta(plain, cudp::bio::protein()));
}

TEST_CASE("lines longer than the read chunk, and headers on chunk boundaries", "[fasta]") {
  TempDir dir;
  std::mt19937 rng(11);
  const std::string residues = "ACDEFGHIKLMNPQRSTVWY";
  const auto random_sequence = [&](std::size_t n) {
    std::string s(n, 'A');
    for (auto& c : s) c = residues[rng() % residues.size()];
    return s;
  };

  SECTION("a 3 MB line and a 9 MB line") {
    const std::string a = random_sequence(3'000'000);
    const std::string b = random_sequence(9'000'000);
    const auto set = cudp::io::read_fasta(dir.file("long.fa", ">a\n" + a + "\n>b\n" + b), cudp::bio::protein());
    REQUIRE(set.size() == 2);
    CHECK(letters(set, 0) == a);
    CHECK(letters(set, 1) == b);
  }

  SECTION("the second header's '>' near the end of the first chunk") {
    const std::size_t chunk = cudp::io::GzipFileSource::chunk_bytes;
    for (int shift = -3; shift <= 3; ++shift) {
      CAPTURE(shift);
      // ">a\n" + body + "\n" puts '>' of the next header at offset 3 + body + 1.
      const std::size_t body_size = chunk + shift - 4;
      std::string body = random_sequence(body_size);
      for (std::size_t i = 70; i < body.size(); i += 71) body[i] = '\n';
      const std::string text = ">a\n" + body + "\n>b desc\nMKV\n";
      REQUIRE(text.find(">b") == chunk + shift);
      const auto set = cudp::io::read_fasta(dir.file("edge.fa", text), cudp::bio::protein());
      REQUIRE(set.size() == 2);
      const std::size_t newlines = static_cast<std::size_t>(std::count(body.begin(), body.end(), '\n'));
      CHECK(set.length(0) == body_size - newlines);
      CHECK(set.names[1] == "b");
      CHECK(set.descriptions[1] == "desc");
      CHECK(letters(set, 1) == "MKV");
    }
  }

  SECTION("line and column of an error far into the file") {
    std::string text = ">a\n";
    for (int line = 0; line < 200000; ++line) text += random_sequence(60) + "\n";  // 12 MB, three chunks
    text += "ACDEFGHIKLMNPQ!\n";
    const std::string path = dir.file("far.fa", text);
    CHECK_THROWS_WITH(cudp::io::read_fasta(path, cudp::bio::protein()),
                      path + ":200002:15: invalid residue '!' in sequence 'a' (not a protein letter)");
  }

  SECTION("column of an error on a line that began in the previous chunk") {
    const std::size_t chunk = cudp::io::GzipFileSource::chunk_bytes;
    const std::string first_lines = ">a\n" + random_sequence(100) + "\n";  // line 3 starts at offset 104
    const std::string text = first_lines + random_sequence(chunk + 10 - first_lines.size()) + "!\n";
    REQUIRE(text.find('!') == chunk + 10);
    const std::string path = dir.file("straddle.fa", text);
    CHECK_THROWS_WITH(cudp::io::read_fasta(path, cudp::bio::protein()),
                      path + ":3:" + std::to_string(chunk + 10 - 104 + 1) +
                          ": invalid residue '!' in sequence 'a' (not a protein letter)");
  }

  SECTION("many records of random shape agree with what was written") {
    std::string text;
    std::vector<std::string> written;
    for (int i = 0; i < 40000; ++i) {
      const std::string s = random_sequence(1 + rng() % 600);
      written.push_back(s);
      text += ">r" + std::to_string(i) + "\n";
      const std::size_t width = 1 + rng() % 120;
      for (std::size_t k = 0; k < s.size(); k += width) text += s.substr(k, width) + (rng() % 4 ? "\n" : "\r\n");
    }
    const auto set = cudp::io::read_fasta(dir.file("many.fa", text), cudp::bio::protein());
    REQUIRE(set.size() == written.size());
    for (std::size_t i = 0; i < written.size(); ++i) {
      if (letters(set, i) != written[i] || set.names[i] != "r" + std::to_string(i)) FAIL("record " << i << " differs");
    }
    const std::string gz = (dir.path / "many.fa.gz").string();
    write_gzip(gz, text);
    require_same(cudp::io::read_fasta(gz, cudp::bio::protein()), set);
  }
}

TEST_CASE("HMMER's globins45.fa: count and lengths agree with an independent count", "[fasta][hmmer-examples]") {
  const std::string path = cudp::test::hmmer_examples_file("tutorial/globins45.fa");
  // Independent count: a record starts at a '>' line, its length is the number of letters on the other lines.
  std::ifstream in(path);
  std::vector<std::string> names;
  std::vector<std::size_t> lengths;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '>') {
      std::istringstream header(line.substr(1));
      names.emplace_back();
      header >> names.back();
      lengths.push_back(0);
    } else if (!lengths.empty()) {
      for (const char c : line) lengths.back() += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
    }
  }
  REQUIRE(names.size() == 45);

  const auto set = cudp::io::read_fasta(path, cudp::bio::protein());
  REQUIRE(set.size() == names.size());
  CHECK(set.names == names);
  for (std::size_t i = 0; i < names.size(); ++i) {
    CAPTURE(names[i]);
    CHECK(set.length(i) == lengths[i]);
  }
  CHECK(set.names.front() == "MYG_ESCGI");
  CHECK(set.length(0) == 153);  // three lines of 50 and one of 3
}

TEST_CASE("FastaHeaders::easel splits header lines as HMMER's Easel does", "[fasta]") {
  const auto easel = [](const std::string& text) {
    return cudp::io::parse_fasta(text.data(), text.size(), "x.fa", cudp::bio::protein(), cudp::io::FastaHeaders::easel);
  };
  const SequenceSet set = easel(">a\vv desc\nA\n>b\f f\nA\n> \t c  two words \t \r\nA\n>d\t\nA\n>e\v\nA\n");
  REQUIRE(set.size() == 5);
  CHECK(set.names == std::vector<std::string>{"a", "b", "c", "d", "e"});
  CHECK(set.descriptions == std::vector<std::string>{"\vv desc", "\f f", "two words \t ", "", "\v"});
  const auto error = [&](const std::string& text) {
    try {
      easel(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(error("> \vname\nA\n") == "x.fa:1: sequence header has no name");
  CHECK(error(">\nA\n") == "x.fa:1: sequence header has no name");
  CHECK(error(">a desc\rmore\nA\n") == "x.fa:1: carriage return inside a sequence header, with more text after it");
  CHECK(easel(">a desc\r\r\nA\n").descriptions[0] == "desc");
}
