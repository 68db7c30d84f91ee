// The striped Plan7 filters on the GPU against HMMER's scalar reference: MSV and SSV in s16x2 (DPX) and u8x4, the
// Viterbi filter in s16x2 with Lazy-F, on every compiled shape of the menus, with random and adversarial models and
// targets (consensus runs that overflow, long delete chains, degenerate codes, length-1 targets).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cudp/hmmer/device_filters.cuh"
#include "cudp/tiers/striped_rows_host.hpp"
#include "striped_filter_check.hpp"

namespace {

using namespace cudp;

hmmer::FilterResult reference_ssv(test::StripedFilterCase& c, std::uint32_t id) {
  c.msv.set_target_length(c.length(id));
  return hmmer::ssv_filter(c.msv, c.data(id), c.length(id));
}

std::string describe_any(const hmmer::FilterResult& r) {
  return r.status == hmmer::FilterStatus::NoResult ? std::string("no result") : test::describe(r);
}

// HMMER's answer for every target of the case, computed once for all shapes and lanes (the reference is the slow
// side of these tests).
template <class Reference>
std::vector<hmmer::FilterResult> answers_of(test::StripedFilterCase& c, Reference reference) {
  std::vector<hmmer::FilterResult> answers(c.ids.size());
  for (std::size_t i = 0; i < c.ids.size(); ++i) answers[i] = reference(c, c.ids[i]);
  return answers;
}

// Runs an MSV-table filter (DeviceMsvFilter, DeviceSsvFilter) on every shape of MsvMenu that holds the model and
// compares every target with `want`. Returns the comparisons; counts the NoResult answers among them.
template <class Filter>
int check_on_every_msv_shape(test::StripedFilterCase& c, Filter& filter, const std::vector<hmmer::FilterResult>& want,
                             const char* what, int& no_results) {
  int compared = 0;
  for (std::size_t shape = 0; shape < hmmer::MsvMenu::size; ++shape) {
    filter.force_shape(static_cast<int>(shape));
    const auto got = filter.scores(c.msv, c.ids);
    const auto ran = filter.last_shape();
    if (ran.capacity() < c.msv.M) continue;  // the forced shape cannot hold the model: the menu chose another
    for (std::size_t i = 0; i < c.ids.size(); ++i) {
      INFO(what << " width " << ran.width << " shape G=" << ran.group << " Q=" << ran.segments << " M=" << c.msv.M
                << " target " << c.ids[i] << " L=" << c.length(c.ids[i]) << ": " << describe_any(got[i]) << " vs "
                << describe_any(want[i]));
      CHECK(test::same_filter_result(got[i], want[i]));
      ++compared;
      no_results += want[i].status == hmmer::FilterStatus::NoResult;
    }
  }
  return compared;
}

// The MSV tests' cases: the ladder and two models past 1000 nodes, with targets long enough for their diagonals.
std::vector<test::StripedFilterCase> msv_cases() {
  auto ladder = test::striped_model_ladder();
  ladder.push_back({1000, false, 91});
  ladder.push_back({2400, true, 92});
  std::vector<test::StripedFilterCase> cases;
  for (const auto& o : ladder) cases.push_back(test::make_striped_case(o, 150, o.M > 500 ? 3000 : 900));
  return cases;
}

}  // namespace

// The consensus runs of the cases overflow the MSV's saturating words (HMMER's eslERANGE): those targets must come
// back as overflowed on every shape and lane, so some must exist.
TEST_CASE("device MSV equals HMMER's on every shape, s16x2 and u8x4", "[gpu][plan7]") {
  int compared = 0, no_results = 0, overflowed_targets = 0;
  for (auto& c : msv_cases()) {
    const engine::DeviceStripedDatabase db(c.view());
    const auto want = answers_of(c, test::reference_msv);
    overflowed_targets += static_cast<int>(std::count_if(want.begin(), want.end(), [](const hmmer::FilterResult& r) {
      return r.status == hmmer::FilterStatus::Overflow;
    }));
    hmmer::DeviceMsvFilter<lanes::s16x2> words(db);
    hmmer::DeviceMsvFilter<lanes::u8x4> bytes(db);
    compared += check_on_every_msv_shape(c, words, want, "MSV", no_results);
    compared += check_on_every_msv_shape(c, bytes, want, "MSV", no_results);
  }
  CHECK(compared > 10000);
  REQUIRE(overflowed_targets > 0);
}

// survivors() hands back only the targets a test of certain failure keeps, in the order of the ids given, set
// aside on the device by the least J value per length: the same list and results as the full answers filtered on
// the host, for tests that keep none, some and all (a length term makes the cut differ by length), and for a
// subset of the targets in an order of its own.
TEST_CASE("device MSV survivors are HMMER's answers that the test keeps, s16x2 and u8x4", "[gpu][plan7]") {
  int kept = 0, dropped = 0;
  for (auto& c : msv_cases()) {
    const engine::DeviceStripedDatabase db(c.view());
    const auto all = answers_of(c, test::reference_msv);
    std::vector<float> scores;
    for (const auto& r : all) scores.push_back(r.nats);
    std::sort(scores.begin(), scores.end());
    std::vector<std::uint32_t> subset;
    for (std::size_t i = c.ids.size(); i-- > 0;)
      if (i % 3 != 1) subset.push_back(c.ids[i]);
    hmmer::DeviceMsvFilter<lanes::s16x2> words(db);
    hmmer::DeviceMsvFilter<lanes::u8x4> bytes(db);
    for (const float quantile : {0.0f, 0.5f, 0.9f, 1.0f}) {
      const float cut = quantile >= 1.0f ? INFINITY : scores[static_cast<std::size_t>(quantile * (scores.size() - 1))];
      const hmmer::MsvMayPass may_pass = [cut](std::uint32_t L, float nats) { return nats - 1e-3f * L >= cut - 0.5f; };
      for (const auto* ids : {&c.ids, &subset}) {
        std::vector<hmmer::FilterResult> want_all;
        for (const std::uint32_t id : *ids) want_all.push_back(all[std::find(c.ids.begin(), c.ids.end(), id) - c.ids.begin()]);
        const auto want = hmmer::keep_may_pass(want_all, [&](std::size_t i) { return c.length((*ids)[i]); }, may_pass);
        for (int lane = 0; lane < 2; ++lane) {
          const auto got = lane == 0 ? words.survivors(c.msv, *ids, may_pass) : bytes.survivors(c.msv, *ids, may_pass);
          INFO("M=" << c.msv.M << ", cut " << cut << ", " << ids->size() << " ids, lane " << (lane == 0 ? "s16x2" : "u8x4"));
          REQUIRE(got.positions == want.positions);
          REQUIRE(got.results.size() == want.results.size());
          for (std::size_t k = 0; k < want.size(); ++k) CHECK(test::same_filter_result(got.results[k], want.results[k]));
        }
        kept += static_cast<int>(want.size());
        dropped += static_cast<int>(ids->size() - want.size());
      }
    }
  }
  CHECK(kept > 1000);
  CHECK(dropped > 1000);
}

// SSV's answers include NoResult (p7_SSVFilter's eslENORESULT), which must come back as such: hits strong enough
// that the J state might have been used or the overflow test is not conclusive, and lengths whose N->B cost leaves
// no room in the signed bytes. The consensus runs of the cases produce many.
TEST_CASE("device SSV equals HMMER's on every shape, s16x2 and u8x4, NoResult included", "[gpu][plan7]") {
  int compared = 0, no_results = 0;
  for (auto& c : msv_cases()) {
    const engine::DeviceStripedDatabase db(c.view());
    const auto want = answers_of(c, reference_ssv);
    hmmer::DeviceSsvFilter<lanes::s16x2> words(db);
    hmmer::DeviceSsvFilter<lanes::u8x4> bytes(db);
    compared += check_on_every_msv_shape(c, words, want, "SSV", no_results);
    compared += check_on_every_msv_shape(c, bytes, want, "SSV", no_results);
  }
  CHECK(compared > 10000);
  REQUIRE(no_results > 0);
}

TEST_CASE("device Viterbi filter equals HMMER's on every shape", "[gpu][plan7]") {
  int compared = 0, overflows = 0;
  auto ladder = test::striped_model_ladder();
  ladder.push_back({1000, true, 93});
  ladder.push_back({1500, false, 94});
  for (const auto& o : ladder) {
    auto c = test::make_striped_case(o, 150, o.M > 500 ? 3000 : 900);
    const engine::DeviceStripedDatabase db(c.view());
    hmmer::DeviceViterbiFilter<> filter(db);
    for (std::size_t shape = 0; shape < hmmer::ViterbiMenu::size; ++shape) {
      filter.force_shape(static_cast<int>(shape));
      std::vector<std::uint32_t> host_targets;
      const auto got = filter.scores(c.viterbi, c.ids, c.view(), host_targets);
      REQUIRE(host_targets.empty());
      if (filter.last_shape().capacity() < c.viterbi.M) continue;
      for (std::size_t i = 0; i < c.ids.size(); ++i) {
        const auto want = test::reference_viterbi(c, c.ids[i]);
        INFO("shape G=" << filter.last_shape().group << " Q=" << filter.last_shape().segments << " M=" << c.viterbi.M
                        << (o.sticky_deletes ? " sticky" : "") << " target " << c.ids[i] << " L="
                        << c.length(c.ids[i]) << ": " << test::describe(got[i]) << " vs " << test::describe(want));
        CHECK(test::same_filter_result(got[i], want));
        ++compared;
        overflows += want.status == hmmer::FilterStatus::Overflow;
      }
    }
  }
  REQUIRE(overflows > 0);
  CHECK(compared > 10000);
}

TEST_CASE("device Viterbi filter hands targets with unscorable codes back to the host", "[gpu][plan7]") {
  auto c = test::make_striped_case({60, false, 5}, 20, 200);
  const auto& a = *c.profile.alphabet;
  c.residues[c.offsets[3] + 0] = static_cast<std::uint8_t>(a.nonresidue());
  const engine::DeviceStripedDatabase db(c.view());
  hmmer::DeviceViterbiFilter<> filter(db);
  std::vector<std::uint32_t> host_targets;
  const auto got = filter.scores(c.viterbi, c.ids, c.view(), host_targets);
  REQUIRE(host_targets == std::vector<std::uint32_t>{3});
  for (std::size_t i = 0; i < c.ids.size(); ++i) {
    if (c.ids[i] == 3) continue;
    CHECK(test::same_filter_result(got[i], test::reference_viterbi(c, c.ids[i])));
  }
  // The codes the database holds, given, find the same target; a database said to hold none of them hands back
  // none (what the filter is told is what it trusts).
  const std::uint64_t codes = hmmer::codes_present(c.view());
  REQUIRE(((codes >> a.nonresidue()) & 1u) == 1u);
  std::vector<std::uint32_t> told;
  const auto again = filter.scores(c.viterbi, c.ids, c.view(), told, codes);
  REQUIRE(told == host_targets);
  for (std::size_t i = 0; i < c.ids.size(); ++i) CHECK(test::same_filter_result(again[i], got[i]));
  filter.scores(c.viterbi, c.ids, c.view(), told, codes & ~(std::uint64_t{1} << a.nonresidue()));
  CHECK(told.empty());
}

TEST_CASE("device Forward equals the host striped Forward on every shape", "[gpu][plan7]") {
  int compared = 0;
  double worst = 0;
  auto ladder = test::striped_model_ladder();
  ladder.push_back({1000, true, 95});
  ladder.push_back({1500, false, 96});
  for (const auto& o : ladder) {
    auto c = test::make_striped_case(o, 100, o.M > 500 ? 2000 : 800);
    const engine::DeviceStripedDatabase db(c.view());
    hmmer::DeviceForwardFilter<> filter(db);
    const auto host_tables = hmmer::stripe_forward(c.profile, hmmer::striped_shape_for(c.profile.M, 1, 1));
    tiers::StripedTargets targets{c.residues.data(), c.offsets.data(), c.ids.data(), static_cast<std::uint32_t>(c.ids.size())};
    const auto want = tiers::striped_rows_on_host<hmmer::Plan7Forward>(host_tables.host_model(), targets, 2);
    for (std::size_t shape = 0; shape < hmmer::ForwardMenu::size; ++shape) {
      filter.force_shape(static_cast<int>(shape));
      const auto got = filter.scores(c.profile, c.ids);
      if (filter.last_shape().capacity() < c.profile.M) continue;
      for (std::size_t i = 0; i < c.ids.size(); ++i) {
        INFO("shape G=" << filter.last_shape().group << " Q=" << filter.last_shape().segments << " M=" << c.profile.M
                        << " target " << c.ids[i] << " L=" << c.length(c.ids[i]) << ": " << got[i] << " vs "
                        << want[i].nats);
        CHECK(got[i] == Approx(want[i].nats).margin(1e-3).epsilon(1e-5));
        worst = std::max(worst, static_cast<double>(std::fabs(got[i] - want[i].nats)));
        ++compared;
      }
    }
  }
  CHECK(compared > 5000);
  WARN("device Forward: " << compared << " comparisons, largest difference " << worst << " nats");
}
