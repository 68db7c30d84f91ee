// Observers on every device tier against the host tier and the textbook matrix: BestCell (the end cell, reduced
// across a group by shuffles or shared memory) for local Gotoh, and LastRowCapture (each target's last row) for
// global Gotoh, in packed and one-lane words.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include <cudp/engine/cascade.hpp>
#include <cudp/engine/device_buffer.cuh>
#include <cudp/engine/device_tasks.cuh>
#include <cudp/engine/launch.cuh>
#include <cudp/engine/profile.hpp>
#include <cudp/lanes.hpp>
#include <cudp/recurrences/gotoh.hpp>
#include <cudp/tiers/block.cuh>
#include <cudp/tiers/host.hpp>
#include <cudp/tiers/thread.cuh>
#include <cudp/tiers/warp.cuh>

#include "../support/reference_dp.hpp"

using namespace cudp;

namespace {

constexpr int kColumns = 2048;  // a multiple of every strip below

struct Problem {
  test::CodesSet db;
  std::vector<std::uint8_t> query;
  std::vector<std::uint32_t> order;
};

Problem make_problem(std::uint64_t seed, int alphabet, int qlen) {
  std::mt19937_64 rng(seed);
  Problem pr;
  pr.query = test::random_codes(rng, qlen, alphabet);
  for (int len : {1, 2, 15, 16, 17, 33, 100, 257, 600, 1100}) pr.db.add(test::random_codes(rng, len, alphabet));
  std::uniform_int_distribution<int> len(1, 400);
  for (int k = 0; k < 120; ++k) pr.db.add(test::random_codes(rng, len(rng), alphabet));
  pr.db.add(pr.query);
  for (std::uint32_t t = 0; t < pr.db.size(); ++t) pr.order.push_back(t);
  return pr;
}

// Runs policy P with `observer_of(device_output_pointer)` on `Tier`; returns the observer's output on the host.
template <class P, class Tier, class Out, class MakeObserver>
std::vector<Out> on_device(const Problem& pr, const P& p, const engine::Profile<P>& profile, std::size_t outputs,
                           MakeObserver observer_of) {
  using L = typename P::Lane;
  const engine::SequencesView view = engine::view_of(pr.db);
  auto packed = engine::pack_tasks<L::width>(view, pr.order.data(), pr.order.size(), static_cast<std::uint8_t>(profile.pad_code));
  engine::DeviceTasks<L::width> tasks;
  tasks.upload(packed);
  engine::DeviceBuffer<typename L::scalar> prof;
  prof.upload(profile.data);
  engine::DeviceBuffer<typename P::Right> boundary(packed.boundary_slots);
  engine::DeviceBuffer<std::int32_t> scores(pr.db.size());
  std::vector<Out> out(outputs);
  engine::DeviceBuffer<Out> device_out(outputs);
  device_out.upload(out);
  engine::launch_tier<P, Tier>(p, tasks.view(), {prof.get(), profile.stride, profile.rows},
                               static_cast<int>(pr.query.size()), boundary.get(), scores.get(), 0,
                               observer_of(device_out.get()));
  device_out.download(out.data(), outputs);
  CUDP_CUDA_CHECK(cudaDeviceSynchronize());
  return out;
}

template <class P, class Out, class MakeObserver>
std::vector<Out> on_host(const Problem& pr, const P& p, const engine::Profile<P>& profile, std::size_t outputs,
                         MakeObserver observer_of) {
  const engine::SequencesView view = engine::view_of(pr.db);
  auto packed = engine::pack_tasks<P::Lane::width>(view, pr.order.data(), pr.order.size(),
                                                   static_cast<std::uint8_t>(profile.pad_code));
  std::vector<std::int32_t> scores(pr.db.size());
  std::vector<Out> out(outputs);
  tiers::HostTier<32>::run(p, packed.view(), profile.view(), static_cast<int>(pr.query.size()), scores.data(), 0,
                           observer_of(out.data()));
  return out;
}

template <class Lane, class Tier>
void check_best_cell(const char* tier_name, std::initializer_list<int> query_lengths) {
  using P = recurrences::Gotoh<recurrences::AlignMode::Local, Lane>;
  const test::RandomMatrix s(4, -2, 2, 9);  // few codes, small scores: many tied cells
  const recurrences::GapCosts gaps{3, 1};
  for (int qlen : query_lengths) {
    const Problem pr = make_problem(90 + qlen, 4, qlen);
    auto profile = engine::build_profile<P>(gaps, s, s.size, pr.query.data(), qlen, kColumns);
    const P p(gaps, engine::shape_of(profile.data, s.size, profile.stride, qlen));
    auto observer = [](tiers::CellEnd* ends) { return tiers::BestCell{ends}; };
    const auto host = on_host<P, tiers::CellEnd>(pr, p, profile, pr.db.size(), observer);
    const auto device = on_device<P, Tier, tiers::CellEnd>(pr, p, profile, pr.db.size(), observer);
    for (std::size_t t = 0; t < pr.db.size(); ++t) {
      INFO(Lane::name << " " << tier_name << " query " << qlen << " target " << t << " length " << pr.db.get(t).size());
      REQUIRE(device[t].score == host[t].score);
      REQUIRE(device[t].target_end == host[t].target_end);
      REQUIRE(device[t].query_end == host[t].query_end);
      if (pr.db.get(t).size() * qlen <= 200'000)
        REQUIRE(host[t].score == test::reference_gotoh(test::Mode::Local, pr.db.get(t), pr.query, s, gaps.open, gaps.extend));
    }
  }
}

template <class Lane, class Tier>
void check_last_row(const char* tier_name, std::initializer_list<int> query_lengths) {
  using P = recurrences::Gotoh<recurrences::AlignMode::Global, Lane>;
  using Scalar = typename Lane::scalar;
  const test::RandomMatrix s(5, -4, 5, 10);
  const recurrences::GapCosts gaps{5, 2};
  for (int qlen : query_lengths) {
    const Problem pr = make_problem(190 + qlen, 5, qlen);
    auto profile = engine::build_profile<P>(gaps, s, s.size, pr.query.data(), qlen, kColumns);
    const P p(gaps, engine::shape_of(profile.data, s.size, profile.stride, qlen));
    auto observer = [qlen](Scalar* rows) { return tiers::LastRowCapture<Scalar>{rows, qlen}; };
    const std::size_t outputs = pr.db.size() * qlen * 2;
    const auto host = on_host<P, Scalar>(pr, p, profile, outputs, observer);
    const auto device = on_device<P, Tier, Scalar>(pr, p, profile, outputs, observer);
    for (std::size_t t = 0; t < pr.db.size(); ++t) {
      INFO(Lane::name << " " << tier_name << " query " << qlen << " target " << t << " length " << pr.db.get(t).size());
      for (int j = 1; j <= qlen; ++j)
        for (int f = 0; f < 2; ++f) REQUIRE(device[(t * qlen + j - 1) * 2 + f] == host[(t * qlen + j - 1) * 2 + f]);
      // The last row's H at column m is the global score.
      if (pr.db.get(t).size() * qlen <= 200'000)
        REQUIRE(host[(t * qlen + qlen - 1) * 2] ==
                test::reference_gotoh(test::Mode::Global, pr.db.get(t), pr.query, s, gaps.open, gaps.extend));
    }
  }
}

}  // namespace

template <class Lane>
void check_best_cell_on_every_tier(std::initializer_list<int> query_lengths) {
  check_best_cell<Lane, tiers::ThreadTier<16, 128>>("thread", query_lengths);
  check_best_cell<Lane, tiers::WarpTier<4, 32, 128>>("warp 4x32", query_lengths);
  check_best_cell<Lane, tiers::WarpTier<32, 8, 128>>("warp 32x8", query_lengths);
  check_best_cell<Lane, tiers::BlockTier<8, 256>>("block", query_lengths);
}

template <class Lane>
void check_last_row_on_every_tier(std::initializer_list<int> query_lengths) {
  check_last_row<Lane, tiers::ThreadTier<16, 128>>("thread", query_lengths);
  check_last_row<Lane, tiers::WarpTier<8, 32, 128>>("warp 8x32", query_lengths);
  check_last_row<Lane, tiers::BlockTier<8, 256>>("block", query_lengths);
}

// [small]: the cases compute-sanitizer runs (bench/gpu_check.sh); racecheck is too slow for the long queries.
TEMPLATE_TEST_CASE("BestCell on every device tier == host tier, short queries", "[tiers][observers][gpu][small]",
                   lanes::s16x2, lanes::s32) {
  check_best_cell_on_every_tier<TestType>({1, 40});
}

TEMPLATE_TEST_CASE("BestCell on every device tier == host tier, long queries", "[tiers][observers][gpu]", lanes::s16x2,
                   lanes::s32) {
  check_best_cell_on_every_tier<TestType>({300, 2100});
}

TEMPLATE_TEST_CASE("LastRowCapture on every device tier == host tier, short queries", "[tiers][observers][gpu][small]",
                   lanes::s16x2, lanes::s32) {
  check_last_row_on_every_tier<TestType>({1, 40});
}

TEMPLATE_TEST_CASE("LastRowCapture on every device tier == host tier, long queries", "[tiers][observers][gpu]",
                   lanes::s16x2, lanes::s32) {
  check_last_row_on_every_tier<TestType>({300});
}
