// The one-sweep posterior pass of an envelope (hmmer/plan7_envelope.hpp) against the three passes it replaces
// (posterior_decoding, optimal_accuracy, null2_by_expectation), bit for bit: every cell and special state of the
// optimal-accuracy matrix, the traceback's coordinates, expected accuracy and columns (with their posteriors), and
// the null2 odds. Random models of 5-700 nodes (both sides of the 100-node rule, sticky delete chains), targets
// with consensus runs (rescaled rows), degenerate codes and length 1, in unihit mode as envelopes are rescored and
// in multihit mode.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "cudp/hmmer/null_model.hpp"
#include "cudp/hmmer/plan7_envelope.hpp"
#include "cudp/hmmer/plan7_profile.hpp"
#include "random_plan7.hpp"
#include "striped_matrix_check.hpp"

namespace {

using namespace cudp;
using SM = hmmer::StripedMatrix;

using test::same_bits;

void check_model(const test::RandomModelOptions& options, int count, int max_length, long& envelopes) {
  hmmer::use_hmmer_float_mode();
  const hmmer::HmmModel hmm = test::random_hmm(options);
  const hmmer::Plan7Alphabet& alphabet = hmmer::plan7_alphabet_of(hmm.alphabet);
  const hmmer::Plan7Profile profile = hmmer::configure_profile(hmm, hmmer::default_null_model(alphabet));
  hmmer::StripedOddsProfile om(profile);
  const auto targets = test::random_targets(profile, count, max_length, options.seed * 5 + 3);
  SM fwd, bck, pp, reference_ox, ox;
  hmmer::EnvelopeScratch scratch;
  std::vector<float> reference_null2, null2;
  std::vector<hmmer::AlignedColumn> reference_columns, columns;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const int L = static_cast<int>(targets[t].size());
    const bool unihit = t % 3 != 2;
    om.set_mode(!unihit, L);
    hmmer::striped_forward(om, targets[t].data(), L, fwd, true);
    hmmer::striped_backward(om, targets[t].data(), L, fwd, bck, true);

    const bool decoded = hmmer::posterior_decoding(om, fwd, bck, pp);
    hmmer::OptimalAccuracyResult oa;
    const bool fused = hmmer::envelope_posteriors(om, alphabet, fwd, bck, scratch, ox, oa, &null2, &columns);
    REQUIRE(fused == decoded);
    if (!decoded) continue;
    const hmmer::OptimalAccuracyResult reference = hmmer::optimal_accuracy(om, pp, reference_ox, &reference_columns);
    hmmer::null2_by_expectation(om, alphabet, pp, reference_null2);
    INFO("model " << hmm.name << ", target " << t << " of length " << L << (unihit ? ", unihit" : ", multihit"));
    REQUIRE(same_bits(oa.expected_correct, reference.expected_correct));
    REQUIRE(oa.ok == reference.ok);
    REQUIRE(oa.sq_from == reference.sq_from);
    REQUIRE(oa.sq_to == reference.sq_to);
    REQUIRE(oa.hmm_from == reference.hmm_from);
    REQUIRE(oa.hmm_to == reference.hmm_to);
    REQUIRE(test::first_difference(ox, reference_ox, 0) == "");
    REQUIRE(null2.size() == reference_null2.size());
    for (std::size_t x = 0; x < null2.size(); ++x) REQUIRE(same_bits(null2[x], reference_null2[x]));
    REQUIRE(columns.size() == reference_columns.size());
    for (std::size_t c = 0; c < columns.size(); ++c) {
      REQUIRE(columns[c].state == reference_columns[c].state);
      REQUIRE(columns[c].k == reference_columns[c].k);
      REQUIRE(columns[c].i == reference_columns[c].i);
      REQUIRE(same_bits(columns[c].pp, reference_columns[c].pp));
    }
    // Without null2 the alignment is the same.
    hmmer::OptimalAccuracyResult again;
    REQUIRE(hmmer::envelope_posteriors(om, alphabet, fwd, bck, scratch, ox, again, nullptr, nullptr));
    REQUIRE(same_bits(again.expected_correct, reference.expected_correct));
    ++envelopes;
  }
}

}  // namespace

TEST_CASE("An envelope's one-sweep posterior pass equals decoding, optimal accuracy and null2 done apart",
          "[plan7][envelope]") {
  long envelopes = 0;
  for (const int M : {5, 40, 99, 100, 260, 700}) {
    for (const bool sticky : {false, true}) {
      test::RandomModelOptions options;
      options.M = M;
      options.sticky_deletes = sticky;
      options.seed = static_cast<std::uint32_t>(M * 2 + (sticky ? 1 : 0));
      check_model(options, M >= 260 ? 8 : 16, M >= 260 ? 500 : 300, envelopes);
    }
  }
  REQUIRE(envelopes > 150);
}
