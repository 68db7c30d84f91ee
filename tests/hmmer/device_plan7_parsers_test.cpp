// HMMER's Forward and Backward parsers on the GPU (hmmer/device_parsers.cuh) against the host's striped_forward and
// striped_backward, bit for bit: every special-state row of both passes, the Backward's switch to its own scale
// factors, and the Forward score rebuilt from the rows. Random models from 5 to 1100 nodes (both sides of the
// 100-node rule of the D->D passes, sticky delete chains), targets with consensus runs long enough to rescale rows,
// degenerate codes, length 1, and waves forced down to a few targets.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <vector>

#include <catch2/catch.hpp>

#include "cudp/hmmer/null_model.hpp"
#include "cudp/hmmer/plan7_posterior.hpp"
#include "cudp/hmmer/plan7_profile.hpp"
#include "device_parsers_runner.hpp"
#include "parser_rows_check.hpp"
#include "random_plan7.hpp"

namespace {

using namespace cudp;
using SM = hmmer::StripedMatrix;

using test::bits_of;
using test::require_same_specials;

struct Tally {
  long rows = 0, scaled_forward_rows = 0, targets = 0;
};

// The host's parsers for each target against the device's rows; `room` bytes per wave.
void check_model(const test::RandomModelOptions& options, int count, int max_length, std::uint64_t room,
                 Tally& tally) {
  hmmer::use_hmmer_float_mode();
  const hmmer::HmmModel hmm = test::random_hmm(options);
  const hmmer::Plan7Profile profile = hmmer::configure_profile(hmm, hmmer::default_null_model(hmmer::plan7_alphabet_of(hmm.alphabet)));
  hmmer::StripedOddsProfile om(profile);
  const auto targets = test::random_targets(profile, count, max_length, options.seed * 7 + 1);
  std::vector<const std::uint8_t*> residues;
  std::vector<std::uint32_t> lengths;
  for (const auto& t : targets) {
    residues.push_back(t.data());
    lengths.push_back(static_cast<std::uint32_t>(t.size()));
  }
  const hmmer::ParserRowsBatch rows = test::run_device_parsers(om.tables(), residues, lengths, room);
  REQUIRE(rows.size() == targets.size());

  for (std::size_t j = 0; j < targets.size(); ++j) {
    const int L = static_cast<int>(lengths[j]);
    om.set_mode(true, L);
    INFO("M=" << options.M << " seed " << options.seed << " target " << j << " L=" << L);
    tally.scaled_forward_rows += test::require_same_parser_rows(om, residues[j], L, rows.at(j));
    tally.rows += L + 1;
    tally.targets += 1;
  }
}

}  // namespace

TEST_CASE("Device Forward and Backward parsers equal the host's bit for bit", "[hmmer][device][parsers]") {
  Tally tally;
  for (const int M : {5, 40, 99, 100, 150, 401, 1100}) {
    for (const bool sticky : {false, true}) {
      test::RandomModelOptions o;
      o.M = M;
      o.sticky_deletes = sticky;
      o.seed = static_cast<std::uint32_t>(M * 2 + (sticky ? 1 : 0));
      check_model(o, M >= 1000 ? 12 : 24, M >= 1000 ? 1500 : 700, std::uint64_t{512} << 20, tally);
    }
  }
  INFO(tally.targets << " targets, " << tally.rows << " rows, " << tally.scaled_forward_rows << " rescaled");
  // Rescaled rows are where the scale factors and the Backward's use of them are tested: there must be some.
  CHECK(tally.scaled_forward_rows > 100);
}

TEST_CASE("Device parsers in waves of a few targets give the same rows", "[hmmer][device][parsers]") {
  Tally tally;
  test::RandomModelOptions o;
  o.M = 260;
  o.seed = 11;
  // About 50 KB a wave: a few targets each, some waves a single target.
  check_model(o, 30, 400, 50000, tally);
  CHECK(tally.targets == 30);
}

// cudp-hmmsearch calls off the parsers once its host threads have every target: a call made off before it starts
// launches nothing, one called off midway returns (its rows are dropped), and the next call is exact again.
TEST_CASE("Device parsers called off stop, and the next call is exact", "[hmmer][device][parsers]") {
  hmmer::use_hmmer_float_mode();
  const test::RandomModelOptions o{900, false, 23};
  const hmmer::HmmModel hmm = test::random_hmm(o);
  const hmmer::Plan7Profile profile =
      hmmer::configure_profile(hmm, hmmer::default_null_model(hmmer::plan7_alphabet_of(hmm.alphabet)));
  const hmmer::StripedOddsProfile om(profile);
  const auto targets = test::random_targets(profile, 20, 2000, 29);
  std::vector<const std::uint8_t*> residues;
  std::vector<std::uint32_t> lengths;
  for (const auto& t : targets) {
    residues.push_back(t.data());
    lengths.push_back(static_cast<std::uint32_t>(t.size()));
  }
  const hmmer::ParserRowsBatch before = test::run_device_parsers_called_off(om.tables(), residues, lengths, 0);
  REQUIRE(before.size() == targets.size());
  CHECK(std::all_of(before.forward.begin(), before.forward.end(), [](float x) { return x == 0.0f; }));
  test::run_device_parsers_called_off(om.tables(), residues, lengths, 2);
  Tally tally;
  check_model(o, 20, 2000, std::uint64_t{512} << 20, tally);
  CHECK(tally.targets == 20);
}

// Envelopes as domain definition rescores them: pieces of targets, in unihit mode for their whole target's length,
// with every row's cells kept, against the host's full-matrix passes, every cell and special state.
TEST_CASE("Device passes keeping their matrices equal the host's full-matrix passes, every cell",
          "[hmmer][device][parsers]") {
  hmmer::use_hmmer_float_mode();
  long rows = 0, scaled = 0;
  for (const int M : {40, 150, 700}) {
    for (const bool sticky : {false, true}) {
      const test::RandomModelOptions o{M, sticky, static_cast<std::uint32_t>(M * 3 + (sticky ? 1 : 0))};
      const hmmer::HmmModel hmm = test::random_hmm(o);
      const hmmer::Plan7Profile profile =
          hmmer::configure_profile(hmm, hmmer::default_null_model(hmmer::plan7_alphabet_of(hmm.alphabet)));
      hmmer::StripedOddsProfile om(profile);
      const auto targets = test::random_targets(profile, 10, 600, o.seed + 5);
      std::vector<const std::uint8_t*> residues;
      std::vector<std::uint32_t> lengths;
      std::vector<hmmer::OddsSpecials> length_models;
      for (std::size_t j = 0; j < targets.size(); ++j) {
        // An envelope: a stretch of the target, scored in unihit mode for the target's length.
        const int L = static_cast<int>(targets[j].size());
        const int from = j % 2 == 0 ? 0 : L / 4;
        const int to = j % 3 == 0 ? L : std::max(from + 1, L - L / 5);
        residues.push_back(targets[j].data() + from);
        lengths.push_back(static_cast<std::uint32_t>(to - from));
        om.set_mode(false, L);
        length_models.push_back(om.xf());
      }
      hmmer::ParserCellsBatch cells;
      const hmmer::ParserRowsBatch got =
          test::run_device_full_passes(om.tables(), residues, lengths, length_models, std::uint64_t{64} << 20, cells);
      SM fwd, bck;
      for (std::size_t j = 0; j < targets.size(); ++j) {
        const int Ld = static_cast<int>(lengths[j]);
        om.set_mode(false, static_cast<std::int64_t>(targets[j].size()));
        hmmer::striped_forward(om, residues[j], Ld, fwd, true);
        hmmer::striped_backward(om, residues[j], Ld, fwd, bck, true);
        const hmmer::ParserSpecials specials = got.at(j);
        INFO("M=" << M << (sticky ? " sticky" : "") << " envelope " << j << " of length " << Ld);
        REQUIRE(specials.backward_own_scales == bck.has_own_scales);
        for (int i = 0; i <= Ld; ++i) {
          require_same_specials(specials, fwd, bck, i);
          const float* device_forward = cells.forward_row(j, i);
          const float* device_backward = cells.backward_row(j, i);
          for (int f = 0; f < om.Q() * 12; ++f) {
            INFO("row " << i << " float " << f);
            REQUIRE(bits_of(device_forward[f]) == bits_of(fwd.row(i)[f / 4].v[f % 4]));
            if (i >= 1) REQUIRE(bits_of(device_backward[f]) == bits_of(bck.row(i)[f / 4].v[f % 4]));
          }
          scaled += fwd.x(i, SM::kScale) != 1.0f;
        }
        rows += Ld;
      }
    }
  }
  INFO(rows << " rows, " << scaled << " rescaled");
  CHECK(scaled > 20);
}

// Not a test (hidden tag, run by hand on the device): the time of a wave of long targets against a long model, and
// of a single one (latency), for tuning the kernel.
// CUDP_PARSER_TIMING_M sets the model's length (default 1900).
TEST_CASE("Device parser timings", "[.timing]") {
  const char* length = std::getenv("CUDP_PARSER_TIMING_M");
  const test::RandomModelOptions o{length != nullptr ? std::atoi(length) : 1900, false, 5};
  const hmmer::HmmModel hmm = test::random_hmm(o);
  const hmmer::Plan7Profile profile = hmmer::configure_profile(hmm, hmmer::default_null_model(hmmer::plan7_alphabet_of(hmm.alphabet)));
  const hmmer::StripedOddsProfile om(profile);
  for (const int count : {1, 32, 280}) {
    const auto targets = test::random_targets(profile, count + 1, 2000, 3);
    std::vector<const std::uint8_t*> residues;
    std::vector<std::uint32_t> lengths;
    long cells = 0;
    for (std::size_t j = 1; j < targets.size(); ++j) {
      residues.push_back(targets[j].data());
      lengths.push_back(static_cast<std::uint32_t>(targets[j].size()));
      cells += static_cast<long>(targets[j].size()) * o.M;
    }
    test::run_device_parsers(om.tables(), residues, lengths, std::uint64_t{512} << 20);  // warm up
    const auto start = std::chrono::steady_clock::now();
    test::run_device_parsers(om.tables(), residues, lengths, std::uint64_t{512} << 20);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("parsers M=%d: %d targets, %.3g cells, %.4f s, %.2f GCUPS (forward and backward)\n", o.M, count,
                static_cast<double>(cells), s, static_cast<double>(cells) / s / 1e9);
  }
}
