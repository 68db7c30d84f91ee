// Domain definition in two halves (hmmer/plan7_domains.hpp): plan(), each envelope rescored apart, then complete()
// gives define()'s definition bit for bit (counts, null2 scores, every envelope's fields and alignment columns),
// whatever order the envelopes are rescored in and whichever workspace rescores them. Real models on their own
// targets and on targets with repeated consensus runs (regions of several domains, sampled and clustered), random
// models with overflowing hits (envelopes whose decoding fails); and complete()'s bookkeeping of overlaps and
// failed envelopes on a plan made by hand.
#include <cctype>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cudp/hmmer/hmm_file.hpp"
#include "cudp/hmmer/null_model.hpp"
#include "cudp/hmmer/plan7_domains.hpp"
#include "cudp/hmmer/plan7_profile.hpp"
#include "cudp/io/fasta.hpp"
#include "../support/test_data.hpp"
#include "random_plan7.hpp"
#include "striped_matrix_check.hpp"

namespace {

using namespace cudp;
using test::same_bits;

struct Totals {
  long targets = 0, envelopes = 0, clustered = 0, overlaps = 0, failed = 0;
};

void require_same(const hmmer::DomainDefinition& got, const hmmer::DomainDefinition& want) {
  REQUIRE(same_bits(got.expected, want.expected));
  REQUIRE(got.regions == want.regions);
  REQUIRE(got.clustered == want.clustered);
  REQUIRE(got.overlaps == want.overlaps);
  REQUIRE(got.envelopes == want.envelopes);
  REQUIRE(got.null2_scores.size() == want.null2_scores.size());
  for (std::size_t i = 0; i < got.null2_scores.size(); ++i)
    REQUIRE(same_bits(got.null2_scores[i], want.null2_scores[i]));
  REQUIRE(got.domains.size() == want.domains.size());
  for (std::size_t d = 0; d < got.domains.size(); ++d) {
    const hmmer::DomainEnvelope& a = got.domains[d];
    const hmmer::DomainEnvelope& b = want.domains[d];
    INFO("domain " << d);
    REQUIRE(a.env_from == b.env_from);
    REQUIRE(a.env_to == b.env_to);
    REQUIRE(a.ali_from == b.ali_from);
    REQUIRE(a.ali_to == b.ali_to);
    REQUIRE(a.hmm_from == b.hmm_from);
    REQUIRE(a.hmm_to == b.hmm_to);
    REQUIRE(same_bits(a.env_nats, b.env_nats));
    REQUIRE(same_bits(a.domcorrection, b.domcorrection));
    REQUIRE(same_bits(a.expected_correct, b.expected_correct));
    REQUIRE(a.alignment.size() == b.alignment.size());
    for (std::size_t c = 0; c < a.alignment.size(); ++c) {
      REQUIRE(a.alignment[c].state == b.alignment[c].state);
      REQUIRE(a.alignment[c].k == b.alignment[c].k);
      REQUIRE(a.alignment[c].i == b.alignment[c].i);
      REQUIRE(same_bits(a.alignment[c].pp, b.alignment[c].pp));
    }
  }
}

// define() against plan(), rescore_envelope per request (in the plan's order, then backwards on a workspace of
// its own, as a worker meeting a device in the middle of a longest-first list would) and complete().
void check_targets(const hmmer::Plan7Profile& profile, const std::vector<std::vector<std::uint8_t>>& targets,
                   bool alignments, Totals& totals) {
  hmmer::use_hmmer_float_mode();
  const hmmer::Plan7Alphabet& alphabet = *profile.alphabet;
  hmmer::DomainDefinitionParameters parameters;
  parameters.alignments = alignments;
  const hmmer::DomainDefiner definer(alphabet, parameters);
  hmmer::StripedOddsProfile om(profile), unihit(profile);
  hmmer::StripedMatrix fwd, bck;
  hmmer::DomainWorkspace ws;
  hmmer::EnvelopeWorkspace other;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const std::uint8_t* x = targets[t].data();
    const int L = static_cast<int>(targets[t].size());
    INFO("model " << profile.name << ", target " << t << " of length " << L << (alignments ? ", alignments" : ""));
    om.set_mode(true, L);
    hmmer::striped_forward(om, x, L, fwd, false);
    hmmer::striped_backward(om, x, L, fwd, bck, false);
    hmmer::DomainDefinition defined;
    definer.define(om, x, L, fwd, bck, ws, defined);
    REQUIRE(om.multihit());
    REQUIRE(om.length() == L);

    hmmer::DomainPlan plan;
    definer.plan(om, x, L, fwd, bck, ws, plan);
    REQUIRE(om.multihit());
    REQUIRE(om.length() == L);
    REQUIRE(plan.definition.envelopes == 0);
    REQUIRE(plan.definition.domains.empty());
    REQUIRE(plan.requests.size() == plan.envelopes.size());
    unihit.set_mode(false, L);
    const hmmer::OddsSpecials& xf = unihit.xf();
    for (std::size_t e = 0; e < plan.envelopes.size(); ++e) {
      const hmmer::PlannedEnvelope& p = plan.envelopes[e];
      const hmmer::EnvelopeRequest& r = plan.requests[e];
      REQUIRE(1 <= p.i);
      REQUIRE(p.i <= p.j);
      REQUIRE(p.j <= L);
      REQUIRE(r.residues == x + (p.i - 1));
      REQUIRE(r.length == static_cast<std::uint32_t>(p.j - p.i + 1));
      REQUIRE(r.null2 == !p.null2_done);
      REQUIRE(p.region < plan.definition.regions);
      if (e > 0) REQUIRE(p.region >= plan.envelopes[e - 1].region);
      REQUIRE((same_bits(r.xf.n_loop, xf.n_loop) && same_bits(r.xf.n_move, xf.n_move) &&
               same_bits(r.xf.e_loop, xf.e_loop) && same_bits(r.xf.e_move, xf.e_move) &&
               same_bits(r.xf.c_loop, xf.c_loop) && same_bits(r.xf.c_move, xf.c_move) &&
               same_bits(r.xf.j_loop, xf.j_loop) && same_bits(r.xf.j_move, xf.j_move)));
    }

    for (const bool backwards : {false, true}) {
      hmmer::DomainPlan copy = plan;
      std::vector<hmmer::RescoredEnvelope> rescored(copy.requests.size());
      for (std::size_t n = 0; n < rescored.size(); ++n) {
        const std::size_t e = backwards ? rescored.size() - 1 - n : n;
        hmmer::rescore_envelope(unihit, alphabet, copy.requests[e], alignments, backwards ? other : ws.envelope,
                                rescored[e]);
        if (!backwards) totals.failed += rescored[e].decoded ? 0 : 1;
      }
      hmmer::DomainDefinition completed;
      definer.complete(x, std::move(copy), std::move(rescored), completed);
      INFO((backwards ? "rescored backwards" : "rescored in order"));
      require_same(completed, defined);
    }
    totals.targets += 1;
    totals.envelopes += defined.envelopes;
    totals.clustered += defined.clustered;
    totals.overlaps += defined.overlaps;
  }
}

// The sequences of a FASTA file, or of a UniProt text record (7LESS_DROME: its SQ lines).
std::vector<std::vector<std::uint8_t>> sequences_in(const std::string& path, const hmmer::Plan7Alphabet& alphabet) {
  std::string text = io::read_file_text(path);
  if (text.rfind("ID ", 0) == 0) {
    std::string fasta = ">" + path + "\n";
    bool in_sequence = false;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("//", 0) == 0) break;
      if (in_sequence) {
        for (const char c : line)
          if (std::isalpha(static_cast<unsigned char>(c))) fasta += c;
      }
      if (line.rfind("SQ ", 0) == 0) in_sequence = true;
    }
    text = fasta + "\n";
  }
  const io::SequenceSet set = io::parse_fasta(text.data(), text.size(), path, alphabet.sequence_alphabet);
  std::vector<std::vector<std::uint8_t>> out;
  for (std::size_t s = 0; s < set.size(); ++s) out.emplace_back(set.data(s), set.data(s) + set.length(s));
  return out;
}

}  // namespace

TEST_CASE("Domain definition planned, its envelopes rescored apart and in any order, then completed, is define()",
          "[plan7][domains][hmmer-examples]") {
  Totals totals;
  const struct {
    const char* model;
    const char* targets;
  } cases[] = {{"tutorial/globins4.hmm", "tutorial/globins45.fa"},
               {"tutorial/fn3.hmm", "tutorial/7LESS_DROME"},
               {"tutorial/Pkinase.hmm", "tutorial/7LESS_DROME"},
               {"testsuite/RRM_1.hmm.gz", "tutorial/globins45.fa"}};
  for (const auto& c : cases) {
    const hmmer::HmmModel hmm = hmmer::read_hmm_file(test::hmmer_examples_file(c.model)).at(0);
    const hmmer::Plan7Alphabet& alphabet = hmmer::plan7_alphabet_of(hmm.alphabet);
    const hmmer::Plan7Profile profile = hmmer::configure_profile(hmm, hmmer::default_null_model(alphabet));
    std::vector<std::vector<std::uint8_t>> targets = sequences_in(test::hmmer_examples_file(c.targets), alphabet);
    // Repeated runs of the model's consensus: regions of several domains.
    for (auto& t : test::random_targets(profile, 24, 4 * hmm.length, 17)) targets.push_back(std::move(t));
    for (const bool alignments : {false, true}) check_targets(profile, targets, alignments, totals);
  }
  INFO(totals.targets << " targets, " << totals.envelopes << " envelopes, " << totals.clustered
                      << " clustered regions, " << totals.overlaps << " overlaps");
  REQUIRE(totals.envelopes > 100);
  REQUIRE(totals.clustered > 5);
  REQUIRE(totals.overlaps > 0);
}

TEST_CASE("Random models' envelopes, overflowing ones included, complete as define() does", "[plan7][domains]") {
  Totals totals;
  for (const int M : {20, 99, 260}) {
    for (const bool sticky : {false, true}) {
      test::RandomModelOptions options;
      options.M = M;
      options.sticky_deletes = sticky;
      options.seed = static_cast<std::uint32_t>(M * 2 + (sticky ? 1 : 0) + 1000);
      const hmmer::HmmModel hmm = test::random_hmm(options);
      const hmmer::Plan7Alphabet& alphabet = hmmer::plan7_alphabet_of(hmm.alphabet);
      const hmmer::Plan7Profile profile = hmmer::configure_profile(hmm, hmmer::default_null_model(alphabet));
      const auto targets = test::random_targets(profile, 24, 4 * M + 50, options.seed * 3 + 1);
      check_targets(profile, targets, sticky, totals);
    }
  }
  INFO(totals.targets << " targets, " << totals.envelopes << " envelopes, " << totals.clustered
                      << " clustered regions, " << totals.failed << " failed decodings");
  REQUIRE(totals.envelopes > 50);
  REQUIRE(totals.clustered > 0);
}

TEST_CASE("complete() counts overlaps against the last envelope of the region that decoded", "[plan7][domains]") {
  const hmmer::Plan7Alphabet& alphabet = hmmer::plan7_amino();
  const hmmer::DomainDefiner definer(alphabet);
  const int L = 200;
  std::vector<std::uint8_t> x(L, 3);
  // Region 0 clustered into three envelopes, each overlapping the one before; region 1 a single envelope.
  hmmer::DomainPlan plan;
  plan.definition.regions = 2;
  plan.definition.clustered = 1;
  plan.definition.null2_scores.assign(L + 1, 0.0f);
  for (int pos = 10; pos <= 100; ++pos) plan.definition.null2_scores[static_cast<std::size_t>(pos)] = 0.25f;
  const hmmer::PlannedEnvelope envelopes[] = {{10, 50, 0, true}, {40, 80, 0, true}, {70, 100, 0, true},
                                               {150, 160, 1, false}};
  for (const hmmer::PlannedEnvelope& e : envelopes) {
    plan.envelopes.push_back(e);
    plan.requests.push_back(hmmer::EnvelopeRequest{x.data() + e.i - 1, static_cast<std::uint32_t>(e.j - e.i + 1),
                                                   hmmer::OddsSpecials{}, !e.null2_done});
  }
  const auto run = [&](bool middle_decodes) {
    std::vector<hmmer::RescoredEnvelope> rescored(plan.envelopes.size());
    for (std::size_t e = 0; e < rescored.size(); ++e) {
      rescored[e].decoded = e != 1 || middle_decodes;
      rescored[e].env_nats = static_cast<float>(e) + 1.0f;
      rescored[e].oa.sq_from = 2;
      rescored[e].oa.sq_to = 5;
      if (!plan.envelopes[e].null2_done) rescored[e].null2.assign(static_cast<std::size_t>(alphabet.Kp), 2.0f);
    }
    hmmer::DomainDefinition out;
    hmmer::DomainPlan copy = plan;
    definer.complete(x.data(), std::move(copy), std::move(rescored), out);
    return out;
  };
  const hmmer::DomainDefinition all = run(true);
  REQUIRE(all.envelopes == 4);
  REQUIRE(all.overlaps == 2);
  REQUIRE(all.domains.size() == 4);
  REQUIRE(all.domains[1].env_from == 40);
  REQUIRE(all.domains[1].ali_from == 41);
  REQUIRE(all.domains[1].ali_to == 44);
  REQUIRE(all.domains[1].domcorrection == 41 * 0.25f);
  // The single envelope's null2 scores come from its own null2: log 2 at each of its residues.
  REQUIRE(all.null2_scores[150] == std::log(2.0f));
  REQUIRE(all.null2_scores[149] == 0.0f);
  REQUIRE(all.domains[3].env_nats == 4.0f);
  // The middle envelope failing: still counted, not kept, and the third is compared with the first (no overlap).
  const hmmer::DomainDefinition failed = run(false);
  REQUIRE(failed.envelopes == 4);
  REQUIRE(failed.overlaps == 1);
  REQUIRE(failed.domains.size() == 3);
  REQUIRE(failed.domains[1].env_from == 70);
}
