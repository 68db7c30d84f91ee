// cudp-hmmsearch's GPU path (search_with_device) against its host path (search_on_host), with the device filters
// emulated on the host (hmmsearch_emulated_device_filters.cpp): same counts, same hits, same numbers, for every
// pipeline setting that changes which stage decides, with the workers taking the device's parser rows as they come
// and waiting for every one of them.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <cudp/hmmer/null_model.hpp>
#include <cudp/hmmer/plan7_pipeline.hpp>
#include <cudp/hmmer/plan7_profile.hpp>
#include <cudp/engine/sequences.hpp>
#include <cudp/hmmer/hmm_file.hpp>

#include "database.hpp"
#include "search.hpp"
#include "../support/test_data.hpp"

namespace hmmsearch {
extern std::atomic<std::uint64_t> emulated_parser_targets;  // targets whose parser rows the emulated device computed
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

}  // namespace

TEST_CASE("the GPU-filter path of cudp-hmmsearch gives the host path's results", "[hmmsearch][hmmer-examples]") {
  const std::string globins = cudp::test::hmmer_examples_file("tutorial/globins45.fa");
  for (const char* model_file : {"tutorial/globins4.hmm", "tutorial/fn3.hmm", "tutorial/Pkinase.hmm"}) {
    const auto models = cudp::hmmer::read_hmm_file(cudp::test::hmmer_examples_file(model_file));
    const auto& alphabet = cudp::hmmer::plan7_alphabet_of(models.front().alphabet);
    const auto db = hmmsearch::load_database(globins, alphabet, model_file);
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
      require_same(hmmsearch::search_with_device(pipeline, db, device, 2), host);
      // The workers waiting for the device's parser rows, so that every target after the filters takes them.
      setenv("CUDP_DEVICE_PARSERS", "wait", 1);
      const std::uint64_t before = hmmsearch::emulated_parser_targets;
      require_same(hmmsearch::search_with_device(pipeline, db, device, 2), host);
      CHECK(hmmsearch::emulated_parser_targets - before >= host.counts.passed_forward);
      unsetenv("CUDP_DEVICE_PARSERS");
      // Setting 3 sends targets through the device Viterbi filter and some fail it.
      if (setting == 3 && std::string(model_file) != "tutorial/globins4.hmm")
        CHECK(host.counts.passed_viterbi < host.counts.passed_bias);
    }
  }
}
