// Envelope rescoring on the GPU (hmmer/device_envelopes.cuh) against the host's rescore_envelope, bit for bit:
// the envelope's score, whether it decoded, null2 for every residue code, the optimal-accuracy coordinates and
// expected accuracy, and every column of the alignment with its posterior. Random models of 5 to 1100 nodes, with
// and without sticky delete chains (the D->D scan), envelopes from one residue to whole targets, waves forced down
// to a few envelopes.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <catch2/catch.hpp>

#include "cudp/hmmer/null_model.hpp"
#include "cudp/hmmer/plan7_envelope.hpp"
#include "cudp/hmmer/plan7_profile.hpp"
#include "device_envelopes_runner.hpp"
#include "random_plan7.hpp"
#include "striped_matrix_check.hpp"

namespace {

using namespace cudp;

using test::same_bits;

struct Tally {
  long envelopes = 0, columns = 0, null2 = 0, undecoded = 0;
};

void require_same(const hmmer::RescoredEnvelope& got, const hmmer::RescoredEnvelope& want, Tally& tally) {
  REQUIRE(got.decoded == want.decoded);
  tally.undecoded += want.decoded ? 0 : 1;
  REQUIRE(same_bits(got.env_nats, want.env_nats));
  if (!want.decoded) return;
  REQUIRE(same_bits(got.oa.expected_correct, want.oa.expected_correct));
  REQUIRE(got.oa.sq_from == want.oa.sq_from);
  REQUIRE(got.oa.sq_to == want.oa.sq_to);
  REQUIRE(got.oa.hmm_from == want.oa.hmm_from);
  REQUIRE(got.oa.hmm_to == want.oa.hmm_to);
  REQUIRE(got.oa.ok == want.oa.ok);
  REQUIRE(got.null2.size() == want.null2.size());
  for (std::size_t x = 0; x < want.null2.size(); ++x) {
    INFO("null2 code " << x);
    REQUIRE(same_bits(got.null2[x], want.null2[x]));
  }
  tally.null2 += want.null2.empty() ? 0 : 1;
  REQUIRE(got.columns.size() == want.columns.size());
  for (std::size_t c = 0; c < want.columns.size(); ++c) {
    INFO("column " << c);
    REQUIRE(got.columns[c].state == want.columns[c].state);
    REQUIRE(got.columns[c].k == want.columns[c].k);
    REQUIRE(got.columns[c].i == want.columns[c].i);
    REQUIRE(same_bits(got.columns[c].pp, want.columns[c].pp));
  }
  tally.columns += static_cast<long>(want.columns.size());
  tally.envelopes += 1;
}

// Envelopes cut from random targets of a random model, rescored on the device and on the host.
void check_model(const test::RandomModelOptions& o, int count, int max_length, bool columns, std::uint64_t room,
                 Tally& tally) {
  hmmer::use_hmmer_float_mode();
  const hmmer::HmmModel hmm = test::random_hmm(o);
  const hmmer::Plan7Alphabet& alphabet = hmmer::plan7_alphabet_of(hmm.alphabet);
  const hmmer::Plan7Profile profile = hmmer::configure_profile(hmm, hmmer::default_null_model(alphabet));
  hmmer::StripedOddsProfile om(profile);
  const auto targets = test::random_targets(profile, count, max_length, o.seed * 5 + 3);
  std::vector<hmmer::EnvelopeRequest> requests;
  std::vector<std::size_t> target_of;
  for (std::size_t j = 0; j < targets.size(); ++j) {
    const int L = static_cast<int>(targets[j].size());
    // Whole targets, their middles, their last residue alone.
    const int from = j % 3 == 0 ? 0 : j % 3 == 1 ? L / 4 : L - 1;
    const int to = j % 3 == 2 ? L : std::max(from + 1, L - L / 5);
    om.set_mode(false, L);
    requests.push_back(hmmer::EnvelopeRequest{targets[j].data() + from, static_cast<std::uint32_t>(to - from), om.xf(),
                                              j % 2 == 0});
    target_of.push_back(j);
  }
  const hmmer::EnvelopeBatch batch = test::run_device_envelopes(om.tables(), requests, columns, room);
  REQUIRE(batch.size() == requests.size());
  hmmer::EnvelopeWorkspace ws;
  hmmer::EnvelopeScratch scratch;
  for (std::size_t j = 0; j < requests.size(); ++j) {
    om.set_mode(false, static_cast<std::int64_t>(targets[target_of[j]].size()));
    hmmer::RescoredEnvelope want, got;
    hmmer::rescore_envelope(om, alphabet, requests[j], columns, ws, want);
    hmmer::adopt_rescored_envelope(om, alphabet, requests[j], batch, j, scratch, got);
    INFO("M=" << o.M << (o.sticky_deletes ? " sticky" : "") << " envelope " << j << " of length "
              << requests[j].length);
    require_same(got, want, tally);
  }
}

}  // namespace

TEST_CASE("Device envelope rescoring equals the host's bit for bit", "[hmmer][device][envelopes]") {
  Tally tally;
  for (const int M : {5, 40, 99, 150, 401, 1100}) {
    for (const bool sticky : {false, true}) {
      const test::RandomModelOptions o{M, sticky, static_cast<std::uint32_t>(M * 4 + (sticky ? 1 : 0))};
      check_model(o, M >= 1000 ? 9 : 15, M >= 1000 ? 1300 : 600, true, std::uint64_t{1} << 30, tally);
    }
  }
  INFO(tally.envelopes << " envelopes, " << tally.columns << " columns, " << tally.null2 << " with null2");
  CHECK(tally.envelopes > 100);
  CHECK(tally.columns > 5000);
  CHECK(tally.null2 > 50);
}

TEST_CASE("Device envelope rescoring without columns, in waves of a few envelopes", "[hmmer][device][envelopes]") {
  Tally tally;
  const test::RandomModelOptions o{260, false, 17};
  // About 20 MB a wave: a few envelopes each, some waves a single one.
  check_model(o, 24, 500, false, std::uint64_t{20} << 20, tally);
  CHECK(tally.envelopes + tally.undecoded == 24);
}

// Small inputs for compute-sanitizer (device.sh runs this case under memcheck, racecheck and synccheck).
TEST_CASE("Device envelope rescoring, small", "[hmmer][device][envelopes][small]") {
  Tally tally;
  const test::RandomModelOptions o{70, true, 3};
  check_model(o, 6, 120, true, std::uint64_t{1} << 30, tally);
  CHECK(tally.envelopes == 6);
}

// Not a test (hidden tag, run by hand on the device): a wave of long envelopes against a long model.
TEST_CASE("Device envelope timings", "[.timing]") {
  const test::RandomModelOptions o{2700, false, 5};
  const hmmer::HmmModel hmm = test::random_hmm(o);
  const hmmer::Plan7Profile profile =
      hmmer::configure_profile(hmm, hmmer::default_null_model(hmmer::plan7_alphabet_of(hmm.alphabet)));
  hmmer::StripedOddsProfile om(profile);
  for (const int count : {1, 132, 264, 512}) {
    const auto targets = test::random_targets(profile, count, 2700, 9);
    std::vector<hmmer::EnvelopeRequest> requests;
    double cells = 0;
    for (const auto& t : targets) {
      om.set_mode(false, static_cast<std::int64_t>(t.size()));
      requests.push_back(hmmer::EnvelopeRequest{t.data(), static_cast<std::uint32_t>(t.size()), om.xf(), true});
      cells += static_cast<double>(t.size()) * o.M;
    }
    test::run_device_envelopes(om.tables(), requests, true, std::uint64_t{60} << 30);  // warm up
    double passes = 0, sweep = 0;
    const auto start = std::chrono::steady_clock::now();
    test::run_device_envelopes(om.tables(), requests, true, std::uint64_t{60} << 30, &passes, &sweep);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("envelopes M=%d: %d envelopes, %.3g cells, %.4f s (%.2f ms each): passes %.4f s, sweep %.4f s\n", o.M,
                count, cells, s, 1e3 * s / count, passes, sweep);
  }
}
