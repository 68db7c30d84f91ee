// The device leaves (align/device_leaves.cuh) against the host's full traceback (align_full through
// solve_leaves_on_host), box for box: the same score and the same edit string, ties included. Random boxes of every
// strip shape, one strip and many, thin and flat, with and without continuing gaps at either corner; boxes sent to
// the host by the slot limit; a grid cut down by the memory budget; the linear-space recursion with the levels and
// the leaves on the device, in all three modes and for a batch of pairs (its leaves reading the row passes' copy of
// the sequences). DNA (+2/-3) and BLOSUM62, gap costs 11/1, 0/2 and 5/2.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <cudp/align/device_leaves.cuh>
#include <cudp/align/device_row_passes.cuh>
#include <cudp/align/linear_space.hpp>
#include <cudp/bio/alphabet.hpp>
#include <cudp/io/matrix.hpp>

#include "../support/reference_dp.hpp"
#include "../support/sequence_pair.hpp"

using cudp::align::Alignment;
using cudp::align::Box;
using cudp::align::DeviceLeaves;
using cudp::align::SequencePair;
using cudp::recurrences::GapCosts;
using cudp::test::make_sequences;
using cudp::test::Sequences;

namespace {

struct Dna {
  int operator()(int a, int b) const { return a == b ? 2 : -3; }
};

const cudp::io::SubstitutionMatrix& blosum62() {
  static const auto m = cudp::io::load_matrix("BLOSUM62", cudp::bio::protein());
  return m;
}

const GapCosts kGapCosts[] = {{11, 1}, {0, 2}, {5, 2}};

Box random_box(std::mt19937_64& rng, const Sequences& s, int columns, int rows) {
  Box b;
  b.query_begin = static_cast<int>(rng() % (s.query.size() - static_cast<std::size_t>(columns) + 1));
  b.query_end = b.query_begin + columns;
  b.target_begin = static_cast<int>(rng() % (s.target.size() - static_cast<std::size_t>(rows) + 1));
  b.target_end = b.target_begin + rows;
  b.gap_continues_at_start = rng() % 2 == 1;
  b.gap_continues_at_end = rng() % 2 == 1;
  return b;
}

// Sides log-uniform in [1, max_side], a few 0.
std::vector<Box> random_boxes(std::mt19937_64& rng, const Sequences& s, int count, int max_side) {
  std::uniform_real_distribution<double> log_side(0, std::log(static_cast<double>(max_side)));
  std::vector<Box> boxes;
  for (int k = 0; k < count; ++k) {
    const int columns = rng() % 40 == 0 ? 0 : static_cast<int>(std::exp(log_side(rng)));
    const int rows = rng() % 40 == 0 ? 0 : static_cast<int>(std::exp(log_side(rng)));
    boxes.push_back(random_box(rng, s, columns, rows));
  }
  return boxes;
}

template <class Matrix, class Leaves>
void require_same_as_host(Leaves& device, const Sequences& s, const std::vector<Box>& boxes, const Matrix& matrix,
                          GapCosts gaps) {
  std::vector<Alignment> on_host, on_device;
  cudp::align::solve_leaves_on_host(s.view(), boxes, matrix, gaps, on_host);
  device.solve(boxes, gaps, on_device);
  REQUIRE(on_device.size() == boxes.size());
  for (std::size_t k = 0; k < boxes.size(); ++k) {
    const Box& b = boxes[k];
    INFO("box " << k << ": " << b.columns() << " x " << b.rows() << ", gaps " << gaps.open << "/" << gaps.extend
                << (b.gap_continues_at_start ? ", continued at the start" : "")
                << (b.gap_continues_at_end ? ", continued at the end" : ""));
    REQUIRE(on_device[k].score == on_host[k].score);
    REQUIRE(cudp::align::cigar(on_device[k]) == cudp::align::cigar(on_host[k]));
  }
}

}  // namespace

TEST_CASE("device leaves: one box of every strip shape, one of several strips (sanitizer run)", "[gpu][small]") {
  std::mt19937_64 rng(1);
  const Sequences s = make_sequences(rng, 700, 700, 4);
  std::vector<Box> boxes;
  for (int columns : {1, 20, 33, 64, 100, 128, 200, 256, 600})
    for (int rows : {1, 2, 40}) boxes.push_back(random_box(rng, s, columns, rows));
  boxes.push_back(random_box(rng, s, 0, 5));
  boxes.push_back(random_box(rng, s, 7, 0));
  DeviceLeaves<> device(s.view(), Dna{});
  require_same_as_host(device, s, boxes, Dna{}, GapCosts{5, 2});
  CHECK(device.last_run().on_host == 2);
  CHECK(device.last_run().packed == device.last_run().on_device);  // every box fits 16-bit lanes
  device.set_packed(false);
  require_same_as_host(device, s, boxes, Dna{}, GapCosts{5, 2});
  CHECK(device.last_run().packed == 0);
}

TEST_CASE("device leaves: random boxes up to 1500 x 1500", "[gpu]") {
  std::mt19937_64 rng(2);
  for (int alphabet : {4, 20}) {
    const Sequences s = make_sequences(rng, 4000, 4000, alphabet);
    const std::vector<Box> boxes = random_boxes(rng, s, 600, 1500);
    DeviceLeaves<> dna(s.view(), Dna{}), protein(s.view(), blosum62());
    for (bool packed : {true, false}) {
      INFO((packed ? "16-bit lanes where they fit" : "32-bit lanes"));
      dna.set_packed(packed);
      protein.set_packed(packed);
      for (GapCosts gaps : kGapCosts) {
        if (alphabet == 4)
          require_same_as_host(dna, s, boxes, Dna{}, gaps);
        else
          require_same_as_host(protein, s, boxes, blosum62(), gaps);
        const auto& run = alphabet == 4 ? dna.last_run() : protein.last_run();
        CHECK((run.packed > 0) == packed);
      }
    }
  }
}

TEST_CASE("device leaves: boxes on both sides of the 16-bit bound, in one run", "[gpu]") {
  // Extending a gap costs 20: boxes up to a few hundred residues a side fit 16-bit lanes, longer ones do not.
  std::mt19937_64 rng(7);
  const Sequences s = make_sequences(rng, 3000, 3000, 4);
  const std::vector<Box> boxes = random_boxes(rng, s, 400, 1400);
  DeviceLeaves<> device(s.view(), Dna{});
  require_same_as_host(device, s, boxes, Dna{}, GapCosts{10, 20});
  CHECK(device.last_run().packed > 50);
  CHECK(device.last_run().packed + 50 < device.last_run().on_device);
}

TEST_CASE("device leaves: thin and flat boxes, unrelated sequences", "[gpu]") {
  std::mt19937_64 rng(3);
  Sequences s;
  s.query = cudp::test::random_codes(rng, 5000, 20);
  s.target = cudp::test::random_codes(rng, 5000, 20);
  std::vector<Box> boxes;
  for (int side : {1, 2, 31, 32, 33, 257, 3000, 4999}) {
    boxes.push_back(random_box(rng, s, 1, side));
    boxes.push_back(random_box(rng, s, side, 1));
    boxes.push_back(random_box(rng, s, 3, side));
    boxes.push_back(random_box(rng, s, side, 3));
  }
  DeviceLeaves<> device(s.view(), blosum62());
  for (GapCosts gaps : kGapCosts) require_same_as_host(device, s, boxes, blosum62(), gaps);
  CHECK(device.last_run().on_host == 0);
}

TEST_CASE("device leaves: boxes past the slot limit go to the host; a small budget, a small grid", "[gpu]") {
  std::mt19937_64 rng(4);
  const Sequences s = make_sequences(rng, 3000, 3000, 20);
  const std::vector<Box> boxes = random_boxes(rng, s, 300, 1200);
  DeviceLeaves<> device(s.view(), blosum62());
  device.set_slot_limit(64 << 10);
  require_same_as_host(device, s, boxes, blosum62(), GapCosts{11, 1});
  CHECK(device.last_run().on_host > 20);
  CHECK(device.last_run().on_device > 100);
  DeviceLeaves<> small(s.view(), blosum62());
  small.set_memory_budget(24 << 20);
  require_same_as_host(small, s, boxes, blosum62(), GapCosts{11, 1});
  CHECK(small.last_run().warps < 100);
  CHECK(small.last_run().device_bytes <= (24u << 20));
}

TEST_CASE("device leaves: the linear-space recursion with levels and leaves on the device", "[gpu]") {
  using cudp::recurrences::AlignMode;
  std::mt19937_64 rng(5);
  const Sequences s = make_sequences(rng, 6000, 5800, 4);
  std::vector<std::uint8_t> query_reversed(s.query.rbegin(), s.query.rend()),
      target_reversed(s.target.rbegin(), s.target.rend());
  const SequencePair pair{s.query.data(), query_reversed.data(), static_cast<std::int64_t>(s.query.size()),
                          s.target.data(), target_reversed.data(), static_cast<std::int64_t>(s.target.size())};
  const int m = static_cast<int>(s.query.size()), n = static_cast<int>(s.target.size());
  cudp::align::DeviceRowPasses<> passes(pair, Dna{});
  DeviceLeaves<> leaves(pair, Dna{});
  cudp::align::LinearSpaceOptions options;
  options.leaf_cells = 1L << 18;
  for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
    for (GapCosts gaps : kGapCosts) {
      INFO("mode " << cudp::recurrences::to_string(mode) << ", gaps " << gaps.open << "/" << gaps.extend);
      const auto on_host = cudp::align::align_linear_space(mode, s.query.data(), m, s.target.data(), n, Dna{}, gaps, options);
      const auto on_device = cudp::align::align_linear_space(
          mode, s.query.data(), m, s.target.data(), n, Dna{}, gaps, options,
          [&](const std::vector<cudp::align::RowPass>& level, const SequencePair&, cudp::align::RowPassOutput out) {
            passes.run(level, gaps, out);
          },
          [&](const std::vector<Box>& boxes, std::vector<Alignment>& out) { leaves.solve(boxes, gaps, out); });
      REQUIRE(on_device.score == on_host.score);
      REQUIRE(cudp::align::cigar(on_device) == cudp::align::cigar(on_host));
      CHECK(leaves.last_run().on_device > 0);
    }
  }
}

TEST_CASE("device leaves: a batch of protein pairs, each one leaf", "[gpu]") {
  using cudp::recurrences::AlignMode;
  std::mt19937_64 rng(6);
  std::vector<Sequences> pairs;
  std::vector<cudp::align::SequenceView> queries, targets;
  for (int k = 0; k < 500; ++k) {
    const std::size_t length = 1 + rng() % 1000;
    pairs.push_back(make_sequences(rng, length, length + rng() % 50, 20));
  }
  for (const Sequences& p : pairs) {
    queries.push_back({p.query.data(), static_cast<int>(p.query.size())});
    targets.push_back({p.target.data(), static_cast<int>(p.target.size())});
  }
  const cudp::align::PairBatch batch(queries, targets);
  cudp::align::DeviceRowPasses<> passes(batch.pair(), blosum62());
  DeviceLeaves<> leaves(batch.pair(), blosum62(), passes.forward_sequences());  // as cudp-align: one device copy
  cudp::align::LinearSpaceOptions options;
  options.leaf_cells = 1100000;  // 1001 x 1050 cells: every pair whole
  for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
    const GapCosts gaps{11, 1};
    INFO("mode " << cudp::recurrences::to_string(mode));
    const auto on_host = cudp::align::align_batch_linear_space(
        mode, batch, blosum62(), gaps, options,
        [&](const std::vector<cudp::align::RowPass>& level, const SequencePair& pair, cudp::align::RowPassOutput out) {
          cudp::align::run_row_passes_on_host(level, pair, blosum62(), gaps, out);
        });
    const auto on_device = cudp::align::align_batch_linear_space(
        mode, batch, blosum62(), gaps, options,
        [&](const std::vector<cudp::align::RowPass>& level, const SequencePair&, cudp::align::RowPassOutput out) {
          passes.run(level, gaps, out);
        },
        [&](const std::vector<Box>& boxes, std::vector<Alignment>& out) { leaves.solve(boxes, gaps, out); });
    REQUIRE(on_device.size() == on_host.size());
    for (std::size_t k = 0; k < on_host.size(); ++k) {
      INFO("pair " << k);
      REQUIRE(on_device[k].score == on_host[k].score);
      REQUIRE(cudp::align::cigar(on_device[k]) == cudp::align::cigar(on_host[k]));
      const SequencePair p = batch.pair(k);
      REQUIRE(cudp::align::rescore(on_device[k], mode, p.query, static_cast<int>(p.query_length), p.target,
                                   static_cast<int>(p.target_length), blosum62(), gaps) == on_device[k].score);
    }
    CHECK(passes.last_run().passes == 0);  // every pair was a leaf
  }
}
