// phmmer's single-sequence models against hmmbuild --singlemx, which builds them with the same p7_SingleBuilder
// and the same defaults (BLOSUM62, popen 0.02, pextend 0.4, seed 42): every line of the model file is compared
// (emissions and transitions to the five decimals HMMER writes, the consensus line, COMPO, the STATS lines of the
// calibration), except DATE and COM, which record when and how hmmbuild ran.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cudp/hmmer/hmm_file_writer.hpp>
#include <cudp/hmmer/single_sequence_model.hpp>
#include <cudp/io/fasta.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../support/test_data.hpp"

namespace {

using cudp::hmmer::SingleSequenceOptions;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

struct Query {
  std::string name;
  std::string residues;  // as written to the FASTA file
};

// A scratch directory of this test run, removed at exit.
class Scratch {
 public:
  Scratch() {
    dir_ = std::filesystem::temp_directory_path() / ("cudp_seqmodel_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

std::string hmmbuild_flags(const SingleSequenceOptions& o) {
  std::ostringstream flags;
  flags << " --mx " << o.matrix << " --popen " << o.popen << " --pextend " << o.pextend << " --seed "
        << o.calibration.seed;
  return flags.str();
}

// Compares our model of each query with hmmbuild's; returns the number of lines compared, and records every
// differing line (the first few in detail).
struct Comparison {
  std::size_t models = 0, lines = 0, differing = 0;
  std::vector<std::string> messages;
};

void compare_with_hmmbuild(const std::vector<Query>& queries, const SingleSequenceOptions& options,
                           Comparison& result) {
  const std::string hmmbuild = cudp::test::hmmbuild_program();
  Scratch scratch;
  cudp::hmmer::SingleSequenceBuilder builder(options);
  for (const Query& q : queries) {
    const std::string fasta = scratch.path("q.fa");
    const std::string theirs = scratch.path("q.hmm");
    {
      std::ofstream out(fasta);
      out << ">" << q.name << "\n";
      for (std::size_t i = 0; i < q.residues.size(); i += 60) out << q.residues.substr(i, 60) << "\n";
    }
    std::filesystem::remove(theirs);
    const std::string command = "'" + hmmbuild + "' --singlemx --amino --informat afa -n '" + q.name + "'" +
                                hmmbuild_flags(options) + " '" + theirs + "' '" + fasta + "' > /dev/null";
    INFO(command);
    REQUIRE(std::system(command.c_str()) == 0);

    cudp::io::FastaReader reader(fasta, cudp::hmmer::plan7_amino().sequence_alphabet);
    cudp::io::FastaRecord record;
    REQUIRE(reader.next(record));
    const auto ours =
        lines_of(cudp::hmmer::hmm_file_text(builder.build(q.name, record.codes.data(), record.codes.size())));
    const auto expected = lines_of(read_text(theirs));
    result.models += 1;
    if (ours.size() != expected.size()) {
      result.differing += 1;
      result.messages.push_back(q.name + ": " + std::to_string(ours.size()) + " lines, hmmbuild wrote " +
                                std::to_string(expected.size()));
      continue;
    }
    for (std::size_t i = 0; i < ours.size(); ++i) {
      if (expected[i].rfind("DATE ", 0) == 0 || expected[i].rfind("COM ", 0) == 0) continue;
      result.lines += 1;
      if (ours[i] != expected[i]) {
        result.differing += 1;
        if (result.messages.size() < 20) {
          result.messages.push_back(q.name + " (L=" + std::to_string(q.residues.size()) + ") line " +
                                    std::to_string(i + 1) + ":\n  ours:     " + ours[i] +
                                    "\n  hmmbuild: " + expected[i]);
        }
      }
    }
  }
}

void require_identical(const std::vector<Query>& queries, const SingleSequenceOptions& options) {
  Comparison result;
  compare_with_hmmbuild(queries, options, result);
  std::string report;
  for (const std::string& m : result.messages) report += m + "\n";
  std::printf("%zu models, %zu lines compared with hmmbuild's, %zu differ\n", result.models, result.lines,
              result.differing);
  INFO(result.models << " models, " << result.lines << " lines compared, " << result.differing << " differ\n"
                     << report);
  CHECK(result.models == queries.size());
  CHECK(result.lines > 0);
  REQUIRE(result.differing == 0);
}

std::vector<Query> fasta_queries(const std::string& path) {
  std::vector<Query> queries;
  const cudp::hmmer::Plan7Alphabet& alphabet = cudp::hmmer::plan7_amino();
  cudp::io::FastaReader reader(path, alphabet.sequence_alphabet);
  cudp::io::FastaRecord record;
  while (reader.next(record)) {
    std::string residues;
    for (const std::uint8_t c : record.codes) residues += alphabet.symbols[c];
    queries.push_back({record.name, residues});
  }
  return queries;
}

// Random queries: canonical residues with some lower case, and (when `degenerate`) the ambiguity codes.
std::vector<Query> random_queries(std::uint32_t seed, const std::vector<int>& lengths, bool degenerate) {
  std::mt19937 rng(seed);
  const std::string canonical = "ACDEFGHIKLMNPQRSTVWY";
  const std::string ambiguous = "BJZOUX";
  std::vector<Query> queries;
  for (const int L : lengths) {
    std::string residues;
    for (int i = 0; i < L; ++i) {
      char c = canonical[rng() % canonical.size()];
      if (degenerate && rng() % 10 == 0) c = ambiguous[rng() % ambiguous.size()];
      if (rng() % 4 == 0) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      residues += c;
    }
    queries.push_back({"rnd" + std::to_string(seed) + "_" + std::to_string(L), residues});
  }
  return queries;
}

}  // namespace

TEST_CASE("BLOSUM62's implied probabilities", "[single_sequence_model]") {
  const auto& background = cudp::hmmer::hmmer_amino_background();
  const std::vector<double> f(background.begin(), background.end());
  const auto p = cudp::hmmer::substitution_probabilities(*cudp::hmmer::find_easel_protein_matrix("BLOSUM62"), f);
  // BLOSUM62 is in half bits: lambda is near ln 2 / 2 (0.347) for the frequencies it was built from, a little lower
  // for HMMER's Swiss-Prot background.
  CHECK(p.lambda > 0.30);
  CHECK(p.lambda < 0.35);
  const auto& alphabet = cudp::hmmer::plan7_amino();
  for (int a = 0; a < alphabet.Kp; ++a) {
    if (!alphabet.is_residue(a)) continue;
    double sum = 0;
    for (int b = 0; b < alphabet.K; ++b) sum += p.conditional_row(a)[b];
    INFO("query residue " << alphabet.symbols[a]);
    CHECK(std::fabs(sum - 1.0) < 1e-9);
  }
  CHECK(cudp::hmmer::find_easel_protein_matrix("BLOSUM63") == nullptr);
}

TEST_CASE("single-sequence models of the hmmer-examples proteins are hmmbuild --singlemx's",
          "[single_sequence_model][hmmer-examples][hmmbuild]") {
  std::vector<Query> queries;
  for (const char* file : {"tutorial/HBB_HUMAN", "testsuite/PAX8_HUMAN", "tutorial/globins45.fa",
                           "testsuite/rndseq400-10.fa.gz", "testsuite/20aa-alitest.fa"}) {
    const auto more = fasta_queries(cudp::test::hmmer_examples_file(file));
    queries.insert(queries.end(), more.begin(), more.end());
  }
  require_identical(queries, SingleSequenceOptions{});
}

TEST_CASE("single-sequence models of random queries of 1 to 2000 residues are hmmbuild --singlemx's",
          "[single_sequence_model][hmmbuild]") {
  const std::vector<int> lengths = {1,   2,   3,   4,   5,   6,   7,    8,    9,    10,   11,  13,  16,
                                    17,  31,  32,  33,  50,  64,  99,   100,  101,  128,  199, 200, 201,
                                    256, 333, 400, 512, 640, 777, 1000, 1234, 1500, 1999, 2000};
  SECTION("canonical residues, mixed case") { require_identical(random_queries(1, lengths, false), {}); }
  SECTION("with ambiguity codes B J Z O U X") { require_identical(random_queries(2, lengths, true), {}); }
  SECTION("ambiguity codes at every position of short queries") {
    std::vector<Query> queries;
    for (const std::string s : {"B", "Z", "X", "U", "O", "J", "BZ", "XX", "AXA", "xbzjuo", "WBW", "CUC", "KOK",
                                "MXXXXXXXXXM", "ACDEFGHIKLMNPQRSTVWYBJZOUX"}) {
      queries.push_back({"amb_" + s, s});
    }
    require_identical(queries, {});
  }
}

TEST_CASE("the calibration's worker threads leave the models hmmbuild --singlemx's",
          "[single_sequence_model][hmmbuild]") {
  // The random sequences are drawn before they are shared out, and each score lands in its sequence's place: the
  // fitted values must not depend on the workers (one sequence left unscored by a split moves a location).
  SingleSequenceOptions options;
  options.threads = GENERATE(2, 3, 7);
  INFO("threads " << options.threads);
  require_identical(random_queries(4, {1, 17, 200, 777, 2000}, true), options);
}

TEST_CASE("single-sequence models follow --seed, --popen, --pextend and --mx as hmmbuild does",
          "[single_sequence_model][hmmer-examples][hmmbuild]") {
  auto queries = fasta_queries(cudp::test::hmmer_examples_file("tutorial/HBB_HUMAN"));
  const auto more = random_queries(3, {1, 20, 150, 600}, true);
  queries.insert(queries.end(), more.begin(), more.end());
  SingleSequenceOptions options;
  SECTION("--seed 7") {
    options.calibration.seed = 7;
    require_identical(queries, options);
  }
  SECTION("--popen 0.1 --pextend 0.7") {
    options.popen = 0.1;
    options.pextend = 0.7;
    require_identical(queries, options);
  }
  SECTION("--popen 0 --pextend 0") {
    options.popen = 0.0;
    options.pextend = 0.0;
    require_identical(queries, options);
  }
  for (const char* matrix :
       {"PAM30", "PAM70", "PAM120", "PAM240", "BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "BLOSUM90"}) {
    SECTION(std::string("--mx ") + matrix) {
      options.matrix = matrix;
      require_identical(queries, options);
    }
  }
}
