// HMMER's Forward and Backward parsers four targets at a time (hmmer/plan7_parser_groups.hpp) against the
// single-target striped_forward and striped_backward, bit for bit: every special-state row of both passes, the
// Backward's switch to its own scale factors, and the Forward score rebuilt from the rows. Random models from 5 to
// 1100 nodes (both sides of the 100-node rule of the D->D passes, sticky delete chains), targets with consensus runs
// long enough to rescale rows, unequal lengths in one group (from 1 residue), and groups of 1 to 4.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <catch2/catch.hpp>

#include "cudp/hmmer/null_model.hpp"
#include "cudp/hmmer/plan7_parser_groups.hpp"
#include "cudp/hmmer/plan7_posterior.hpp"
#include "cudp/hmmer/plan7_profile.hpp"
#include "parser_rows_check.hpp"
#include "random_plan7.hpp"

namespace {

using namespace cudp;
using SM = hmmer::StripedMatrix;

struct Tally {
  long rows = 0, scaled_forward_rows = 0, targets = 0;
};

// Groups of `group` consecutive targets (the last one shorter) against the single-target parsers.
void check_model(const test::RandomModelOptions& options, int count, int max_length, int group, Tally& tally) {
  hmmer::use_hmmer_float_mode();
  const hmmer::HmmModel hmm = test::random_hmm(options);
  const hmmer::Plan7Profile profile =
      hmmer::configure_profile(hmm, hmmer::default_null_model(hmmer::plan7_alphabet_of(hmm.alphabet)));
  hmmer::StripedOddsProfile om(profile);
  auto targets = test::random_targets(profile, count, max_length, options.seed * 7 + 3);
  targets.push_back({static_cast<std::uint8_t>(options.seed % 20)});  // one residue, beside longer ones
  for (std::size_t first = 0; first < targets.size(); first += static_cast<std::size_t>(group)) {
    const int n = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(group), targets.size() - first));
    std::vector<std::vector<float>> forward(static_cast<std::size_t>(n)), backward(static_cast<std::size_t>(n));
    hmmer::ParserGroupTarget tg[hmmer::kParserGroupSize];
    for (int t = 0; t < n; ++t) {
      const auto& target = targets[first + static_cast<std::size_t>(t)];
      forward[t].assign((target.size() + 1) * SM::kSpecials, -1.0f);
      backward[t].assign((target.size() + 1) * SM::kSpecials, -1.0f);
      tg[t] = {target.data(), static_cast<int>(target.size()), forward[t].data(), backward[t].data(), false};
    }
    hmmer::parsers_for_group(om, tg, n);
    for (int t = 0; t < n; ++t) {
      const int L = tg[t].L;
      om.set_mode(true, L);
      INFO("M=" << options.M << (options.sticky_deletes ? " sticky" : "") << " seed " << options.seed << " target "
                << first + static_cast<std::size_t>(t) << " of a group of " << n << ", L=" << L);
      tally.scaled_forward_rows += test::require_same_parser_rows(
          om, tg[t].dsq, L, {forward[t].data(), backward[t].data(), tg[t].backward_own_scales});
      tally.rows += L + 1;
      tally.targets += 1;
    }
  }
}

}  // namespace

// Without AVX-512F the grouped parsers are never used, and cannot be tested: the whole program then reports itself
// skipped to ctest (SKIP_RETURN_CODE 77) rather than passed.
void skip_without_groups() {
  if (hmmer::parser_group_width() >= hmmer::kParserGroupSize) return;
  std::puts("this CPU has no AVX-512F: the grouped parsers are not used here, and not tested (skipped)");
  std::exit(77);
}

TEST_CASE("Parsers four targets at a time equal the single-target parsers bit for bit", "[hmmer][parsers]") {
  skip_without_groups();
  Tally tally;
  for (const int M : {5, 40, 99, 100, 150, 401, 1100}) {
    for (const bool sticky : {false, true}) {
      test::RandomModelOptions o;
      o.M = M;
      o.sticky_deletes = sticky;
      o.seed = static_cast<std::uint32_t>(M * 2 + (sticky ? 1 : 0));
      check_model(o, M >= 1000 ? 15 : 23, M >= 1000 ? 1500 : 700, hmmer::kParserGroupSize, tally);
    }
  }
  INFO(tally.targets << " targets, " << tally.rows << " rows, " << tally.scaled_forward_rows << " rescaled");
  // Rescaled rows are where the scale factors and the Backward's use of them are tested: there must be some.
  CHECK(tally.scaled_forward_rows > 100);
}

TEST_CASE("Parser groups of one to three targets give the same rows", "[hmmer][parsers]") {
  skip_without_groups();
  Tally tally;
  for (const int group : {1, 2, 3}) {
    test::RandomModelOptions o;
    o.M = 260;
    o.seed = static_cast<std::uint32_t>(11 + group);
    check_model(o, 9, 500, group, tally);
  }
  CHECK(tally.targets == 30);
}
