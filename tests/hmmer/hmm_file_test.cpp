#include "cudp/hmmer/hmm_file.hpp"

#include <catch2/catch.hpp>
#include <zlib.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../support/temp_dir.hpp"
#include "../support/test_data.hpp"

using cudp::hmmer::HmmAlphabet;
using cudp::hmmer::HmmFormat;
using cudp::hmmer::HmmModel;
using cudp::io::InputError;
namespace fs = std::filesystem;

namespace {

const std::string corpus = std::string(CUDP_SOURCE_DIR) + "/tests/hmmer/fuzz_hmm_corpus";

// The raw text of a file, gzip or not, read without the parser under test.
std::string file_text(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  REQUIRE(file != nullptr);
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  gzclose(file);
  return text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

std::vector<std::string> hmm_files_in(const std::string& directory) {
  std::vector<std::string> files;
  if (!fs::is_directory(directory)) return files;
  for (const auto& entry : fs::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    const auto ends_with = [&](const std::string& suffix) {
      return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends_with(".hmm") || ends_with(".hmm.gz")) files.push_back(entry.path().string());
  }
  return files;
}

// The message of the InputError that parsing text throws; fails the test if it parses.
std::string parse_error(const std::string& text) {
  try {
    cudp::hmmer::parse_hmm(text, "bad.hmm");
  } catch (const InputError& error) {
    return error.what();
  }
  FAIL("no InputError for:\n" << text);
  return "";
}

std::string replace_line(const std::string& text, int line_number, const std::string& replacement) {
  auto lines = lines_of(text);
  lines.at(static_cast<std::size_t>(line_number - 1)) = replacement;
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

std::string first_lines(const std::string& text, int count) {
  const auto lines = lines_of(text);
  std::string out;
  for (int i = 0; i < count; ++i) out += lines.at(static_cast<std::size_t>(i)) + "\n";
  return out;
}

float p(double minus_log) { return std::exp(static_cast<float>(-minus_log)); }

}  // namespace

TEST_CASE("every profile shipped with hmmer-examples parses, consistent with its own text", "[hmm_file][hmmer-examples]") {
  const fs::path tutorial = fs::path(cudp::test::hmmer_examples_file("tutorial/fn3.hmm")).parent_path();
  std::vector<std::string> files = hmm_files_in(tutorial.string());
  for (const auto& file : hmm_files_in((tutorial.parent_path() / "testsuite").string())) files.push_back(file);
  REQUIRE(files.size() >= 17);
  for (const auto& file : files) {
    CAPTURE(file);
    const std::string text = file_text(file);
    const auto models = cudp::hmmer::read_hmm_file(file);

    // What the text says, scanned with no knowledge of the format beyond its tags.
    std::vector<std::string> names, lengths, alphabets;
    for (const auto& line : lines_of(text)) {
      const auto words = words_of(line);
      if (words.size() >= 2 && words[0] == "NAME") names.push_back(words[1]);
      if (words.size() >= 2 && words[0] == "LENG") lengths.push_back(words[1]);
      if (words.size() >= 2 && words[0] == "ALPH") alphabets.push_back(words[1]);
    }
    REQUIRE(models.size() == names.size());
    for (std::size_t i = 0; i < models.size(); ++i) {
      const HmmModel& model = models[i];
      CHECK(model.name == names[i]);
      CHECK(std::to_string(model.length) == lengths[i]);
      CHECK(cudp::hmmer::alphabet_name(model.alphabet) == alphabets[i]);
      REQUIRE(model.stats.has_value());

      // Each emission distribution and each state's transitions must sum to 1, up to the 5-decimal rounding of the
      // logs in the file: a column read into the wrong slot breaks this.
      const int K = model.residues();
      for (int k = 0; k <= model.length; ++k) {
        CAPTURE(k);
        double inserts = 0, matches = 0;
        for (int x = 0; x < K; ++x) {
          inserts += model.insert_probability(k, x);
          matches += model.match_probability(k, x);
        }
        CHECK(inserts == Approx(1.0).margin(2e-4));
        if (k > 0) CHECK(matches == Approx(1.0).margin(2e-4));
        using cudp::hmmer::HmmTransition;
        const auto t = [&](HmmTransition which) { return static_cast<double>(model.transition(k, which)); };
        CHECK(t(cudp::hmmer::kMM) + t(cudp::hmmer::kMI) + t(cudp::hmmer::kMD) == Approx(1.0).margin(2e-4));
        CHECK(t(cudp::hmmer::kIM) + t(cudp::hmmer::kII) == Approx(1.0).margin(2e-4));
        CHECK(t(cudp::hmmer::kDM) + t(cudp::hmmer::kDD) == Approx(1.0).margin(2e-4));
      }
      CHECK(model.transition(model.length, cudp::hmmer::kMD) == 0.0f);  // written '*': no D after the last node
    }
  }
}

TEST_CASE("fields of the tutorial's fn3 profile land where the file puts them", "[hmm_file][hmmer-examples]") {
  const std::string file = cudp::test::hmmer_examples_file("tutorial/fn3.hmm");
  const auto models = cudp::hmmer::read_hmm_file(file);
  REQUIRE(models.size() == 1);
  const HmmModel& fn3 = models[0];
  CHECK(fn3.format == HmmFormat::v3f);
  CHECK(fn3.name == "fn3");
  CHECK(fn3.accession == "PF00041.13");
  CHECK(fn3.description == "Fibronectin type III domain");
  CHECK(fn3.length == 86);
  CHECK(fn3.alphabet == HmmAlphabet::Amino);
  CHECK(fn3.date == "Thu Aug 24 10:11:56 2017");
  CHECK(fn3.sequence_count == 106);
  CHECK(*fn3.effective_sequence_count == Approx(11.415833));
  CHECK(fn3.checksum == 3564431818u);
  REQUIRE(fn3.gathering);
  CHECK(fn3.gathering->sequence == Approx(8.00));
  CHECK(fn3.gathering->domain == Approx(7.20));
  CHECK(fn3.noise->domain == Approx(7.90));
  REQUIRE(fn3.stats);
  CHECK(fn3.stats->msv_mu == Approx(-9.4043));
  CHECK(fn3.stats->viterbi_mu == Approx(-9.7737));
  CHECK(fn3.stats->forward_tau == Approx(-3.8341));
  CHECK(fn3.stats->forward_lambda == Approx(0.71847));
  CHECK(fn3.composition.at(0) == p(2.70330));
  CHECK(fn3.composition.at(19) == p(3.21526));
  CHECK(fn3.insert_probability(0, 1) == p(4.42225));
  CHECK(fn3.transition(0, cudp::hmmer::kMM) == p(0.00338));
  CHECK(fn3.transition(0, cudp::hmmer::kDM) == 1.0f);
  CHECK(fn3.transition(0, cudp::hmmer::kDD) == 0.0f);
  CHECK(fn3.match_probability(1, 0) == p(3.16986));
  CHECK(fn3.match_probability(1, 12) == p(0.76706));  // P
  CHECK(fn3.insert_probability(1, 9) == p(2.69316));
  CHECK(fn3.transition(1, cudp::hmmer::kDD) == p(0.95510));
  CHECK(fn3.match_probability(4, 17) == p(2.04533));
  REQUIRE(fn3.alignment_map.size() == 87);
  CHECK(fn3.alignment_map[1] == 1);
  CHECK(fn3.alignment_map[5] == 7);
  REQUIRE(fn3.consensus.size() == 87);
  CHECK(fn3.consensus.substr(1, 5) == "psaPe");
  CHECK(fn3.reference.empty());   // RF no
  CHECK(fn3.model_mask.empty());  // MM no
  CHECK(fn3.consensus_structure[5] == 'C');
}

TEST_CASE("a DNA profile with one-valued cutoffs, MAXL and gzip compression", "[hmm_file][hmmer-examples]") {
  const std::string made1 = cudp::test::hmmer_examples_file("tutorial/MADE1.hmm");
  const std::string gzipped = cudp::test::hmmer_examples_file("testsuite/3box.hmm.gz");
  const HmmModel model = cudp::hmmer::read_hmm_file(made1).at(0);
  CHECK(model.alphabet == HmmAlphabet::Dna);
  CHECK(model.residues() == 4);
  CHECK(model.length == 80);
  CHECK(model.max_length == 426);
  const HmmModel box = cudp::hmmer::read_hmm_file(gzipped).at(0);
  CHECK(box.name == "3box");
  CHECK(box.alphabet == HmmAlphabet::Dna);
}

TEST_CASE("models one after another, from a stream, in different alphabets", "[hmm_file]") {
  const std::string tiny = file_text(corpus + "/tiny_dna.hmm");
  const std::string legacy = file_text(corpus + "/xyppx_3a.hmm");
  std::istringstream in(tiny + "\n# a comment line between models\n\n" + legacy + tiny);
  cudp::hmmer::HmmReader reader(in, "stream");
  HmmModel model;
  REQUIRE(reader.next(model));
  CHECK(model.name == "tiny");
  CHECK(model.line == 1);
  CHECK(model.alphabet == HmmAlphabet::Dna);
  CHECK(model.consensus == " at");
  CHECK(model.alignment_map == std::vector<int>{0, 1, 2});
  CHECK(model.match_probability(1, 0) == p(0.35667));
  CHECK(model.transition(1, cudp::hmmer::kDM) == p(0.35667));
  CHECK(model.stats->viterbi_mu == Approx(-5.5));
  REQUIRE(reader.next(model));
  CHECK(model.name == "XYPPX");
  CHECK(model.format == HmmFormat::v3a);
  CHECK(model.alphabet == HmmAlphabet::Amino);
  CHECK(model.line == 28);
  // 3/a shares one lambda across the three distributions and one mu between MSV and Viterbi.
  CHECK(model.stats->forward_lambda == Approx(0.78852));
  CHECK(model.stats->msv_lambda == Approx(0.78852));
  CHECK(model.stats->msv_mu == Approx(-5.1112));
  CHECK(model.stats->forward_tau == Approx(-2.5557));
  CHECK(model.match_probability(3, 12) == p(0.02290));
  REQUIRE(reader.next(model));
  CHECK(model.name == "tiny");
  CHECK_FALSE(reader.next(model));
}

TEST_CASE("the legacy formats hmmconvert writes parse to the same probabilities", "[hmm_file][hmmer-examples][hmmconvert]") {
  const std::string hmmconvert = cudp::test::hmmconvert_program();
  const std::string source = cudp::test::hmmer_examples_file("tutorial/fn3.hmm");
  const cudp::test::TempDir dir;
  for (const std::string& dna_or_amino : {source, cudp::test::hmmer_examples_file("tutorial/MADE1.hmm")}) {
    const HmmModel reference = cudp::hmmer::read_hmm_file(dna_or_amino).at(0);
    for (char version = 'a'; version <= 'f'; ++version) {
      CAPTURE(dna_or_amino, version);
      const std::string out = dir / (std::string("converted_3") + version + ".hmm");
      const std::string command =
          "'" + hmmconvert + "' --outfmt 3/" + std::string(1, version) + " '" + dna_or_amino + "' > '" + out + "'";
      REQUIRE(std::system(command.c_str()) == 0);
      const HmmModel model = cudp::hmmer::read_hmm_file(out).at(0);
      CHECK(model.format == static_cast<HmmFormat>(version - 'a'));
      CHECK(model.name == reference.name);
      CHECK(model.length == reference.length);
      CHECK(model.match == reference.match);
      CHECK(model.insert == reference.insert);
      CHECK(model.transitions == reference.transitions);
      CHECK(model.composition == reference.composition);
      CHECK(model.stats->forward_tau == reference.stats->forward_tau);
      // 3/a kept one location for MSV and Viterbi; hmmconvert writes the MSV one there.
      CHECK(model.stats->msv_mu == reference.stats->msv_mu);
      if (version != 'a') CHECK(model.stats->viterbi_mu == reference.stats->viterbi_mu);
      CHECK(model.stats->forward_lambda == reference.stats->forward_lambda);
      CHECK(model.alignment_map == reference.alignment_map);
      if (version >= 'e') CHECK(model.consensus == reference.consensus);
    }
  }
}

TEST_CASE("malformed profiles name the file, line and field", "[hmm_file]") {
  const std::string good = file_text(corpus + "/tiny_dna.hmm");
  REQUIRE(cudp::hmmer::parse_hmm(good, "good.hmm").size() == 1);
  using Catch::Matchers::Contains;

  SECTION("truncated inside the node section") {
    const std::string message = parse_error(first_lines(good, 19));
    CHECK_THAT(message, Contains("bad.hmm:19:") && Contains("truncated") && Contains("node 1 transitions"));
  }
  SECTION("truncated in the header") {
    CHECK_THAT(parse_error(first_lines(good, 6)), Contains("bad.hmm:6:") && Contains("no HMM line"));
  }
  SECTION("a corrupt probability") {
    const std::string message =
        parse_error(replace_line(good, 18, "      1   0.35667  2.3x259  2.30259  2.30259      1 a - - -"));
    CHECK_THAT(message, Contains("bad.hmm:18:") && Contains("node 1 match emissions field 2") &&
                            Contains("'2.3x259' is not a number"));
  }
  SECTION("a non-numeric cutoff and an infinite value") {
    CHECK_THAT(parse_error(replace_line(good, 5, "GA    abc")), Contains("bad.hmm:5:") && Contains("GA sequence cutoff"));
    CHECK_THAT(parse_error(replace_line(good, 20, "0.10536 2.99573 2.99573 0.51083 0.91629 inf 1.20397")),
               Contains("bad.hmm:20:") && Contains("node 1 transitions field 6"));
  }
  SECTION("the closing // is missing") {
    CHECK_THAT(parse_error(first_lines(good, 23)), Contains("bad.hmm:23:") && Contains("missing its closing //"));
    CHECK_THAT(parse_error(replace_line(good, 24, "end")), Contains("bad.hmm:24:") && Contains("expected the closing //"));
  }
  SECTION("an unknown alphabet") {
    CHECK_THAT(parse_error(replace_line(good, 4, "ALPH  protein")),
               Contains("bad.hmm:4:") && Contains("unknown alphabet 'protein'"));
  }
  SECTION("nodes out of order") {
    CHECK_THAT(parse_error(replace_line(good, 21, "      3   2.30259  2.30259  2.30259  0.35667      2 t - - -")),
               Contains("bad.hmm:21:") && Contains("expected node 2, found 3"));
  }
  SECTION("LENG disagrees with the nodes") {
    CHECK_THAT(parse_error(replace_line(good, 3, "LENG  3")),
               Contains("bad.hmm:24:") && Contains("ends after node 2 but LENG says 3"));
    CHECK_THAT(parse_error(replace_line(good, 3, "LENG  1")),
               Contains("bad.hmm:21:") && Contains("more nodes than LENG 1"));
  }
  SECTION("wrong numbers of fields") {
    CHECK_THAT(parse_error(replace_line(good, 20, "0.10536 2.99573 2.99573 0.51083 0.91629 0.35667")),
               Contains("bad.hmm:20:") && Contains("node 1 transition line: expected 7 values, found 6"));
    CHECK_THAT(parse_error(replace_line(good, 18, "      1   0.35667  2.30259  2.30259  2.30259      1 a - -")),
               Contains("bad.hmm:18:") && Contains("node 1 match line"));
    CHECK_THAT(parse_error(replace_line(good, 15, "  COMPO   1.38629  1.38629  1.38629")),
               Contains("bad.hmm:15:") && Contains("COMPO line: expected 4 values, found 3"));
    CHECK_THAT(parse_error(replace_line(good, 13, "HMM A C G T U")), Contains("bad.hmm:13:") && Contains("HMM line"));
  }
  SECTION("incomplete statistics") {
    CHECK_THAT(parse_error(replace_line(good, 11, "# no Viterbi line")),
               Contains("bad.hmm:13:") && Contains("not all three"));
    CHECK_THAT(parse_error(replace_line(good, 11, "STATS LOCAL VITERBI  -5.5000  0.0")),
               Contains("bad.hmm:11:") && Contains("lambda must be positive"));
  }
  SECTION("not a HMMER3 file at all") {
    CHECK_THAT(parse_error(""), Contains("bad.hmm: no HMMER3 profile found"));
    CHECK_THAT(parse_error("HMMER2.0  [2.3.2]\nNAME x\n"), Contains("bad.hmm:1:") && Contains("HMMER2"));
    CHECK_THAT(parse_error(">seq\nACGT\n"), Contains("bad.hmm:1:") && Contains("expected a format line"));
  }
}

TEST_CASE("a missing file is an InputError naming it", "[hmm_file]") {
  CHECK_THROWS_WITH(cudp::hmmer::read_hmm_file("/nonexistent/x.hmm"), Catch::Matchers::Contains("/nonexistent/x.hmm"));
}

TEST_CASE("a library of many models, read in pieces on threads, is the file read from start to end",
          "[hmm_file]") {
  // About 6 MB of models (pieces start every 4 MiB), with the two alphabets and save formats mixed.
  const std::string tiny = file_text(corpus + "/tiny_dna.hmm");
  const std::string legacy = file_text(corpus + "/xyppx_3a.hmm");
  std::string library;
  while (library.size() < (std::size_t{6} << 20)) library += tiny + "# between models\n" + legacy;
  cudp::test::TempDir dir;
  const std::string path = (dir.path / "library.hmm").string();
  auto write = [&](const std::string& text) { std::ofstream(path, std::ios::binary) << text; };
  write(library);
  const std::vector<HmmModel> sequential = cudp::hmmer::parse_hmm(library, path);
  for (int threads : {1, 2, 5}) {
    const std::vector<HmmModel> pieces = cudp::hmmer::read_hmm_file(path, threads);
    REQUIRE(pieces.size() == sequential.size());
    REQUIRE(pieces.size() > 1000);
    for (std::size_t i = 0; i < pieces.size(); i += 97) {
      CHECK(pieces[i].name == sequential[i].name);
      CHECK(pieces[i].line == sequential[i].line);
      CHECK(pieces[i].match_probability(2, 1) == sequential[i].match_probability(2, 1));
    }
    CHECK(pieces.back().line == sequential.back().line);
  }
  // An error past the first piece names the line a reading from the start would: a corrupt value near the end,
  // and a model without its closing // just before a piece's start.
  auto error_of = [](auto&& read) -> std::string {
    try {
      read();
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::size_t near_end = library.rfind("NAME  tiny");
  std::string corrupt = library;
  corrupt.replace(corrupt.find("0.35667", near_end), 7, "0.3x667");
  write(corrupt);
  const std::string expected = error_of([&] { cudp::hmmer::parse_hmm(corrupt, path); });
  CHECK_THAT(expected, Catch::Matchers::Contains("is not a number"));
  CHECK(error_of([&] { cudp::hmmer::read_hmm_file(path, 3); }) == expected);
  std::string unclosed = library;
  const std::size_t cut = unclosed.find("//\n", std::size_t{4} << 20);
  unclosed.erase(cut, 3);
  write(unclosed);
  const std::string expected_unclosed = error_of([&] { cudp::hmmer::parse_hmm(unclosed, path); });
  CHECK(expected_unclosed != "no error");
  CHECK(error_of([&] { cudp::hmmer::read_hmm_file(path, 3); }) == expected_unclosed);
}
