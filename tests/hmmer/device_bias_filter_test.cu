// The bias filter's Forward sums on the GPU (device_bias_filter.cuh) against the host's BiasFilter::forward_sum, run
// in HMMER's float mode as the pipeline's workers run it: every sum the device calls certain must be the host's
// float bit for bit, nearly all of them must be certain on ordinary targets, and the rows that a flush-to-zero host
// would round differently must be reported as not certain.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "cudp/engine/device_striped.cuh"
#include "cudp/hmmer/device_bias_filter.cuh"
#include "cudp/hmmer/float_mode.hpp"
#include "cudp/hmmer/null_model.hpp"
#include "cudp/hmmer/plan7_alphabet.hpp"

namespace {

using namespace cudp;

struct Targets {
  std::vector<std::uint8_t> residues;
  std::vector<std::uint64_t> offsets{0};
  void add(const std::vector<std::uint8_t>& s) {
    residues.insert(residues.end(), s.begin(), s.end());
    offsets.push_back(residues.size());
  }
  engine::SequencesView view() const { return {residues.data(), offsets.data(), offsets.size() - 1}; }
  std::size_t size() const { return offsets.size() - 1; }
};

// A composition over the alphabet's K residues: random, with `favourite` holding `share` of the mass when given.
std::vector<float> composition(std::mt19937& rng, int K, int favourite = -1, float share = 0) {
  std::uniform_real_distribution<float> u(0.2f, 1.0f);
  std::vector<float> c(static_cast<std::size_t>(K));
  float sum = 0;
  for (float& v : c) sum += v = u(rng);
  for (float& v : c) v /= sum;
  if (favourite >= 0) {
    for (float& v : c) v *= 1.0f - share;
    c[static_cast<std::size_t>(favourite)] += share;
  }
  return c;
}

std::vector<std::uint8_t> random_codes(std::mt19937& rng, std::size_t L, int codes) {
  std::uniform_int_distribution<int> pick(0, codes - 1);
  std::vector<std::uint8_t> s(L);
  for (auto& x : s) x = static_cast<std::uint8_t>(pick(rng));
  return s;
}

struct Outcome {
  std::size_t certain = 0, compared = 0;
};

// Every target's device sum against the host's, in HMMER's float mode; checks the certain ones bit for bit.
Outcome compare(const hmmer::BiasFilter& filter, const Targets& targets) {
  hmmer::use_hmmer_float_mode();
  const engine::DeviceStripedDatabase db(targets.view());
  hmmer::DeviceBiasFilter device(db);
  std::vector<std::uint32_t> ids;
  for (std::uint32_t i = 0; i < targets.size(); ++i)
    if (targets.offsets[i + 1] > targets.offsets[i]) ids.push_back(i);
  const std::vector<hmmer::BiasSum> got = device.sums(filter.model(), ids);
  REQUIRE(got.size() == ids.size());
  Outcome out;
  for (std::size_t j = 0; j < ids.size(); ++j) {
    const std::uint8_t* codes = targets.residues.data() + targets.offsets[ids[j]];
    const std::size_t L = targets.offsets[ids[j] + 1] - targets.offsets[ids[j]];
    ++out.compared;
    if (!got[j].certain) continue;
    ++out.certain;
    const float want = filter.forward_sum(codes, L);
    INFO("target " << ids[j] << " L=" << L << ": device " << got[j].nats << " host " << want);
    CHECK(std::memcmp(&got[j].nats, &want, sizeof want) == 0);
    CHECK(filter.finish(got[j].nats, L) == filter.score(codes, L));
  }
  return out;
}

}  // namespace

TEST_CASE("device bias sums are the host's on protein targets, every code and length", "[gpu][plan7]") {
  std::mt19937 rng(11);
  const auto& amino = hmmer::plan7_amino();
  const auto null_model = hmmer::default_null_model(amino);
  for (const int M : {40, 400, 2400}) {
    const hmmer::BiasFilter filter(null_model, composition(rng, amino.K, 9, 0.3f), M);
    Targets targets;
    targets.add({});  // length 0: skipped by the pipeline, never asked
    for (int i = 0; i < 1500; ++i) {
      std::uniform_int_distribution<std::size_t> length(1, 1200);
      targets.add(random_codes(rng, length(rng), amino.K));
    }
    for (int i = 0; i < 200; ++i) targets.add(random_codes(rng, 300, amino.Kp));  // degenerate, gap, '*', '~' codes
    for (int x = 0; x < amino.Kp; ++x) targets.add({static_cast<std::uint8_t>(x)});  // length 1, each code
    targets.add(std::vector<std::uint8_t>(5000, 9));  // the favoured residue alone: as biased as it gets
    targets.add(random_codes(rng, 40000, amino.K));    // one long target
    const Outcome o = compare(filter, targets);
    CHECK(o.compared == targets.size() - 1);
    // The doubtful cases are a rounding boundary's neighbourhood: a few in a hundred million logarithms.
    CHECK(o.certain >= o.compared - 2);
  }
}

TEST_CASE("device bias sums are the host's on DNA targets", "[gpu][plan7]") {
  std::mt19937 rng(12);
  const auto& dna = hmmer::plan7_dna();
  const hmmer::BiasFilter filter(hmmer::default_null_model(dna), composition(rng, dna.K, 2, 0.5f), 300);
  Targets targets;
  for (int i = 0; i < 1000; ++i) targets.add(random_codes(rng, 1 + i * 7 % 3000, dna.Kp));
  const Outcome o = compare(filter, targets);
  CHECK(o.certain >= o.compared - 2);
}

// A composition that gives one residue almost no mass: a long run of it drives the biased state's cells toward
// zero, far below where a flush-to-zero host and the device could part, and those targets must come back as not
// certain (the host computes them) while the others stay certain and exact.
TEST_CASE("device bias sums report the rows a flush-to-zero host could round otherwise", "[gpu][plan7]") {
  std::mt19937 rng(13);
  const auto& amino = hmmer::plan7_amino();
  std::vector<float> c = composition(rng, amino.K);
  c[4] = 1e-30f;
  const hmmer::BiasFilter filter(hmmer::default_null_model(amino), c, 100);
  Targets targets;
  for (int i = 0; i < 50; ++i) {
    std::vector<std::uint8_t> s = random_codes(rng, 200, amino.K);
    for (auto& x : s) x = x == 4 ? 5 : x;  // one such residue anywhere already makes a target doubtful
    targets.add(s);
  }
  const std::size_t ordinary = targets.size();
  targets.add(std::vector<std::uint8_t>(400, 4));
  std::vector<std::uint8_t> mixed = random_codes(rng, 300, amino.K);
  for (std::size_t i = 100; i < 160; ++i) mixed[i] = 4;
  targets.add(mixed);
  hmmer::use_hmmer_float_mode();
  const engine::DeviceStripedDatabase db(targets.view());
  hmmer::DeviceBiasFilter device(db);
  std::vector<std::uint32_t> ids(targets.size());
  for (std::uint32_t i = 0; i < ids.size(); ++i) ids[i] = i;
  const auto got = device.sums(filter.model(), ids);
  CHECK_FALSE(got[ordinary].certain);
  CHECK_FALSE(got[ordinary + 1].certain);
  const Outcome o = compare(filter, targets);
  CHECK(o.certain >= ordinary - 2);
}
