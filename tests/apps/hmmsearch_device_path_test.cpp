// cudp-hmmsearch's GPU path (search_with_device) against its host path (search_on_host), with the device filters
// emulated on the host (hmmsearch_emulated_device_filters.cpp): same counts, same hits, same numbers, for every
// pipeline setting that changes which stage decides, with the workers taking the device's parser rows as they come
// and waiting for every one of them.
#include <catch2/catch.hpp>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cudp/hmmer/null_model.hpp>
#include <cudp/hmmer/plan7_pipeline.hpp>
#include <cudp/hmmer/plan7_profile.hpp>
#include <cudp/engine/sequences.hpp>
#include <cudp/hmmer/hmm_file.hpp>

#include "hmmer/database.hpp"
#include "hmmer/search.hpp"
#include "../hmmer/random_plan7.hpp"
#include "../support/temp_dir.hpp"
#include "../support/test_data.hpp"

namespace hmmsearch {
extern std::atomic<std::uint64_t> emulated_parser_targets;  // targets whose parser rows the emulated device computed
extern std::atomic<std::size_t> emulated_parsers_at_once;   // targets a call of the emulated device's parsers takes
extern std::atomic<int> emulated_parser_delay_ms;           // how long each such call takes beside its work
extern std::atomic<std::uint64_t> emulated_envelopes;       // envelopes the emulated device rescored
extern std::atomic<bool> emulated_envelopes_fail;           // the emulated device fails every envelope batch
extern std::atomic<std::uint64_t> emulated_bias_certain;    // bias sums the emulated device called certain
extern std::atomic<std::uint64_t> emulated_bias_doubtful;   // and not certain (NaN: the pipeline must not take them)
}  // namespace hmmsearch

namespace {

void require_same(const hmmsearch::SearchOutcome& a, const hmmsearch::SearchOutcome& b) {
  CHECK(a.counts.targets == b.counts.targets);
  CHECK(a.counts.residues == b.counts.residues);
  CHECK(a.counts.passed_msv == b.counts.passed_msv);
  CHECK(a.counts.passed_bias == b.counts.passed_bias);
  CHECK(a.counts.passed_viterbi == b.counts.passed_viterbi);
  CHECK(a.counts.passed_forward == b.counts.passed_forward);
  REQUIRE(a.hits.size() == b.hits.size());
  for (std::size_t i = 0; i < a.hits.size(); ++i) {
    CHECK(a.hits[i].target == b.hits[i].target);
    CHECK(a.hits[i].bits == b.hits[i].bits);
    CHECK(a.hits[i].pre_bits == b.hits[i].pre_bits);
    CHECK(a.hits[i].lnP == b.hits[i].lnP);
    REQUIRE(a.hits[i].domains.size() == b.hits[i].domains.size());
    for (std::size_t d = 0; d < a.hits[i].domains.size(); ++d) {
      CHECK(a.hits[i].domains[d].env_from == b.hits[i].domains[d].env_from);
      CHECK(a.hits[i].domains[d].env_to == b.hits[i].domains[d].env_to);
      CHECK(a.hits[i].domains[d].bits == b.hits[i].domains[d].bits);
      const auto& x = a.hits[i].domains[d].alignment;
      const auto& y = b.hits[i].domains[d].alignment;
      REQUIRE((x == nullptr) == (y == nullptr));
      if (x) {
        CHECK(x->model == y->model);
        CHECK(x->match == y->match);
        CHECK(x->target == y->target);
        CHECK(x->posterior == y->posterior);
      }
    }
  }
}

// require_same and every other number of a hit and its domains.
void require_identical(const hmmsearch::SearchOutcome& a, const hmmsearch::SearchOutcome& b) {
  require_same(a, b);
  CHECK(a.counts.residues_passed_forward == b.counts.residues_passed_forward);
  for (std::size_t i = 0; i < a.hits.size(); ++i) {
    const auto& x = a.hits[i];
    const auto& y = b.hits[i];
    CHECK(x.expected_domains == y.expected_domains);
    CHECK(x.regions == y.regions);
    CHECK(x.clustered == y.clustered);
    CHECK(x.overlaps == y.overlaps);
    CHECK(x.envelopes == y.envelopes);
    for (std::size_t d = 0; d < x.domains.size(); ++d) {
      CHECK(x.domains[d].ali_from == y.domains[d].ali_from);
      CHECK(x.domains[d].ali_to == y.domains[d].ali_to);
      CHECK(x.domains[d].hmm_from == y.domains[d].hmm_from);
      CHECK(x.domains[d].hmm_to == y.domains[d].hmm_to);
      CHECK(x.domains[d].env_nats == y.domains[d].env_nats);
      CHECK(x.domains[d].null2_nats == y.domains[d].null2_nats);
      CHECK(x.domains[d].bias_bits == y.domains[d].bias_bits);
      CHECK(x.domains[d].lnP == y.domains[d].lnP);
      CHECK(x.domains[d].mean_posterior == y.domains[d].mean_posterior);
    }
  }
}

// globins45.fa, then its globins two and three at a time with short linkers, and random targets with repeated runs
// of the model's consensus (regions of several domains).
std::string tandem_globins(const cudp::hmmer::Plan7Profile& profile) {
  std::ifstream in(cudp::test::hmmer_examples_file("tutorial/globins45.fa"));
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::string> sequences;
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    if (line[0] == '>') {
      sequences.emplace_back();
    } else if (!sequences.empty()) {
      sequences.back() += line;
    }
  }
  std::string fasta = text.str();
  std::mt19937 rng(9);
  const std::string linkers = "GSAPTKE";
  for (std::size_t s = 0; s + 2 < sequences.size(); s += 2) {
    std::string joined = sequences[s];
    for (std::size_t c = 1; c <= 1 + s % 2; ++c) {
      joined += linkers.substr(0, rng() % linkers.size());
      joined += sequences[s + c];
    }
    fasta += ">tandem" + std::to_string(s) + "\n" + joined + "\n";
  }
  const auto runs = cudp::test::random_targets(profile, 40, 3 * profile.M, 23);
  for (std::size_t t = 0; t < runs.size(); ++t) {
    fasta += ">runs" + std::to_string(t) + "\n";
    for (const std::uint8_t code : runs[t]) fasta += profile.alphabet->symbols[code];
    fasta += "\n";
  }
  return fasta;
}

// A FASTA file's sequences, their names left out.
std::vector<std::string> fasta_sequences(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> sequences;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] == '>') {
      sequences.emplace_back();
    } else if (!sequences.empty()) {
      sequences.back() += line;
    }
  }
  return sequences;
}

// The ungapped sequences of a Stockholm alignment, in their order: a model's seed, the surest homologs of it there
// are without emitting from the model at test time (hmmemit).
std::vector<std::string> stockholm_sequences(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> names, sequences;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("//", 0) == 0) continue;
    std::istringstream fields(line);
    std::string name, aligned;
    if (!(fields >> name >> aligned)) continue;
    std::size_t at = 0;
    while (at < names.size() && names[at] != name) ++at;  // blocks of an interleaved file continue their rows
    if (at == names.size()) {
      names.push_back(name);
      sequences.emplace_back();
    }
    for (const char c : aligned)
      if (std::isalpha(static_cast<unsigned char>(c))) sequences[at] += static_cast<char>(std::toupper(c));
  }
  return sequences;
}

// globins45.fa and the model's seed sequences, every third set inside a globin, so that each model has targets
// that pass every stage and envelopes that are not the whole target, beside globins that fail fn3's and Pkinase's
// filters.
std::string globins_and_seed(const std::string& seed_file) {
  const std::string globins_file = cudp::test::hmmer_examples_file("tutorial/globins45.fa");
  std::ifstream in(globins_file);
  std::stringstream fasta;
  fasta << in.rdbuf();
  const auto globins = fasta_sequences(globins_file);
  const auto seed = stockholm_sequences(cudp::test::hmmer_examples_file(seed_file));
  REQUIRE(seed.size() >= 4);
  for (std::size_t s = 0; s < seed.size(); ++s) {
    std::string target = seed[s];
    if (s % 3 == 1) {
      const std::string& globin = globins[s % globins.size()];
      target = globin.substr(0, globin.size() / 2) + target + globin.substr(globin.size() / 2);
    }
    fasta << ">seed" << s << "\n" << target << "\n";
  }
  return fasta.str();
}

}  // namespace

TEST_CASE("cudp-hmmsearch's envelopes rescored on the device, on the host or shared give the host path's results",
          "[hmmsearch][hmmer-examples]") {
  const auto models = cudp::hmmer::read_hmm_file(cudp::test::hmmer_examples_file("tutorial/globins4.hmm"));
  const auto& alphabet = cudp::hmmer::plan7_alphabet_of(models.front().alphabet);
  const auto null_model = cudp::hmmer::default_null_model(alphabet);
  const cudp::test::TempDir dir;
  const std::string targets =
      dir.file("tandem.fa", tandem_globins(cudp::hmmer::configure_profile(models.front(), null_model)));
  const auto db = hmmsearch::load_database(targets, alphabet, "globins4.hmm");
  hmmsearch::DeviceFilters device(cudp::engine::view_of(db));
  long clustered = 0;
  for (int setting = 0; setting < 3; ++setting) {
    cudp::hmmer::Plan7PipelineOptions options;
    options.max = setting == 1;
    options.null2 = setting != 2;
    options.alignments = setting != 1;
    INFO("setting " << setting);
    const cudp::hmmer::Plan7Pipeline pipeline(models.front(), null_model, options);
    const auto host = hmmsearch::search_on_host(pipeline, db, 2);
    std::uint64_t envelopes = 0;
    for (const auto& hit : host.hits) {
      envelopes += static_cast<std::uint64_t>(hit.envelopes);
      clustered += hit.clustered;
    }
    for (const char* mode : {"all", "0", "shared"}) {
      INFO("CUDP_DEVICE_ENVELOPES=" << mode);
      setenv("CUDP_DEVICE_ENVELOPES", mode, 1);
      const std::uint64_t before = hmmsearch::emulated_envelopes;
      require_identical(hmmsearch::search_with_device(pipeline, db, device, 2), host);
      const std::uint64_t rescored = hmmsearch::emulated_envelopes - before;
      if (std::string(mode) == "all") CHECK(rescored == envelopes);
      if (std::string(mode) == "0") CHECK(rescored == 0);
      if (std::string(mode) == "shared") CHECK(rescored <= envelopes);
      // The workers waiting for the device's parser rows as well.
      setenv("CUDP_DEVICE_PARSERS", "wait", 1);
      require_identical(hmmsearch::search_with_device(pipeline, db, device, 3), host);
      unsetenv("CUDP_DEVICE_PARSERS");
    }
    // A device error comes out of the search, once the workers have done every envelope.
    setenv("CUDP_DEVICE_ENVELOPES", setting == 0 ? "all" : "shared", 1);
    hmmsearch::emulated_envelopes_fail = true;
    CHECK_THROWS_AS(hmmsearch::search_with_device(pipeline, db, device, 2), std::runtime_error);
    hmmsearch::emulated_envelopes_fail = false;
    unsetenv("CUDP_DEVICE_ENVELOPES");
  }
  CHECK(clustered > 10);
}

TEST_CASE("cudp-hmmsearch's parsers shared with the device give the host path's results however fast it is",
          "[hmmsearch][hmmer-examples]") {
  const auto models = cudp::hmmer::read_hmm_file(cudp::test::hmmer_examples_file("tutorial/globins4.hmm"));
  const auto& alphabet = cudp::hmmer::plan7_alphabet_of(models.front().alphabet);
  const auto null_model = cudp::hmmer::default_null_model(alphabet);
  const cudp::test::TempDir dir;
  const std::string targets =
      dir.file("tandem.fa", tandem_globins(cudp::hmmer::configure_profile(models.front(), null_model)));
  const auto db = hmmsearch::load_database(targets, alphabet, "globins4.hmm");
  hmmsearch::DeviceFilters device(cudp::engine::view_of(db));
  const cudp::hmmer::Plan7Pipeline pipeline(models.front(), null_model, cudp::hmmer::Plan7PipelineOptions{});
  const auto host = hmmsearch::search_on_host(pipeline, db, 2);
  REQUIRE(host.counts.passed_forward > 20);
  // Lists of one target, of a few, and of all; a device with no parsers for the model (0); a device slower than
  // the workers, so that they take targets of the list it has in hand and call it off.
  for (const std::size_t at_once : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{100000}}) {
    for (const int delay_ms : {0, 30}) {
      INFO("targets at once " << at_once << ", " << delay_ms << " ms a call");
      hmmsearch::emulated_parsers_at_once = at_once;
      hmmsearch::emulated_parser_delay_ms = delay_ms;
      for (const int threads : {1, 3}) require_identical(hmmsearch::search_with_device(pipeline, db, device, threads), host);
      if (at_once == 0) continue;
      // The workers waiting for the device: it computes every target's rows.
      setenv("CUDP_DEVICE_PARSERS", "wait", 1);
      const std::uint64_t before = hmmsearch::emulated_parser_targets;
      require_identical(hmmsearch::search_with_device(pipeline, db, device, 2), host);
      CHECK(hmmsearch::emulated_parser_targets - before == host.counts.passed_forward);
      unsetenv("CUDP_DEVICE_PARSERS");
    }
  }
  hmmsearch::emulated_parsers_at_once = 5;
  hmmsearch::emulated_parser_delay_ms = 0;
}

TEST_CASE("the GPU-filter path of cudp-hmmsearch gives the host path's results", "[hmmsearch][hmmer-examples]") {
  const cudp::test::TempDir dir;
  for (const std::string model : {"globins4", "fn3", "Pkinase"}) {
    const std::string model_file = "tutorial/" + model + ".hmm";
    const auto models = cudp::hmmer::read_hmm_file(cudp::test::hmmer_examples_file(model_file));
    const auto& alphabet = cudp::hmmer::plan7_alphabet_of(models.front().alphabet);
    const std::string targets = dir.file(model + ".fa", globins_and_seed("tutorial/" + model + ".sto"));
    const auto db = hmmsearch::load_database(targets, alphabet, model_file);
    const auto null_model = cudp::hmmer::default_null_model(alphabet);
    hmmsearch::DeviceFilters device(cudp::engine::view_of(db));
    for (int setting = 0; setting < 4; ++setting) {
      cudp::hmmer::Plan7PipelineOptions options;
      if (setting == 1) options.max = true;
      if (setting == 2) {
        options.F1 = 0.5;
        options.F2 = 0.2;
        options.bias_filter = false;
      }
      if (setting == 3) {
        options.F1 = 1.0;
        options.F2 = 0.3;  // most targets go through the Viterbi filter, some pass it
        options.null2 = false;
      }
      options.alignments = setting % 2 == 0;
      INFO(model_file << " setting " << setting);
      const cudp::hmmer::Plan7Pipeline pipeline(models.front(), null_model, options);
      const auto host = hmmsearch::search_on_host(pipeline, db, 3);
      // Every stage the device runs has targets to pass on, so that each comparison below is of something.
      CHECK(host.counts.passed_msv > 0);
      CHECK(host.counts.passed_bias > 0);
      CHECK(host.counts.passed_viterbi > 0);
      REQUIRE(host.counts.passed_forward > 0);
      REQUIRE_FALSE(host.hits.empty());
      const std::uint64_t certain = hmmsearch::emulated_bias_certain, doubtful = hmmsearch::emulated_bias_doubtful;
      require_same(hmmsearch::search_with_device(pipeline, db, device, 2), host);
      // The bias filter's sums came from the device where it runs, some certain and some not (setting 2 has none).
      if (options.bias_filter && !options.max && host.counts.passed_msv > 3) {
        CHECK(hmmsearch::emulated_bias_certain > certain);
        CHECK(hmmsearch::emulated_bias_doubtful > doubtful);
      }
      // The workers waiting for the device's parser rows, so that every target after the filters takes them.
      setenv("CUDP_DEVICE_PARSERS", "wait", 1);
      const std::uint64_t before = hmmsearch::emulated_parser_targets;
      require_same(hmmsearch::search_with_device(pipeline, db, device, 2), host);
      CHECK(hmmsearch::emulated_parser_targets - before >= host.counts.passed_forward);
      unsetenv("CUDP_DEVICE_PARSERS");
      // Setting 3 sends targets through the device Viterbi filter and some fail it.
      if (setting == 3 && model != "globins4")
        CHECK(host.counts.passed_viterbi < host.counts.passed_bias);
    }
  }
}

// A streamed database shares one MSV pass among a group of models (run.cpp): each model's search with its results
// from DeviceFilters::msv of the whole group is the search that runs its own MSV filter.
TEST_CASE("cudp-hmmsearch with MSV results from a pass of several models gives each model's own search",
          "[hmmsearch][hmmer-examples]") {
  std::vector<cudp::hmmer::HmmModel> models;
  for (const char* name : {"tutorial/globins4.hmm", "tutorial/fn3.hmm", "tutorial/Pkinase.hmm"})
    models.push_back(cudp::hmmer::read_hmm_file(cudp::test::hmmer_examples_file(name)).front());
  const auto& alphabet = cudp::hmmer::plan7_alphabet_of(models.front().alphabet);
  const auto null_model = cudp::hmmer::default_null_model(alphabet);
  const cudp::test::TempDir dir;
  const std::string targets =
      dir.file("tandem.fa", tandem_globins(cudp::hmmer::configure_profile(models.front(), null_model)));
  const auto db = hmmsearch::load_database(targets, alphabet, "models.hmm");
  hmmsearch::DeviceFilters device(cudp::engine::view_of(db));
  std::vector<std::unique_ptr<cudp::hmmer::Plan7Pipeline>> pipelines;
  std::vector<hmmsearch::MsvRequest> requests;
  for (const auto& model : models) {
    pipelines.push_back(std::make_unique<cudp::hmmer::Plan7Pipeline>(model, null_model));
    requests.push_back({&pipelines.back()->msv_profile(), pipelines.back()->msv_test()});
  }
  const auto pass = device.msv(requests);
  REQUIRE(pass.size() == models.size());
  for (std::size_t m = 0; m < models.size(); ++m) {
    INFO("model " << models[m].name);
    const auto own = device.msv(requests[m]);
    REQUIRE(pass[m].positions == own.positions);
    REQUIRE(pass[m].size() == own.results.size());
    for (std::size_t t = 0; t < own.size(); ++t) {
      REQUIRE(pass[m].results[t].status == own.results[t].status);
      REQUIRE(pass[m].results[t].nats == own.results[t].nats);
    }
    require_identical(hmmsearch::search_with_device(*pipelines[m], db, device, 2, nullptr, false, &pass[m]),
                      hmmsearch::search_with_device(*pipelines[m], db, device, 2));
  }
}
