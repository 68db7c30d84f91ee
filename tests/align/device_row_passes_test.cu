// The device backend of a linear-space level (align/device_row_passes.cuh) against the host backend
// (run_row_passes_on_host), entry for entry: random boxes of every size, forward and reversed, with and without a
// continued left gap, rows = 0 and columns = 0; thousands of tiny boxes in one call; one box of many strips; the
// level cut into waves; the rows left on the device; checkpoint rows; the crossings of a level's boxes; global
// scores of a batch from them; the linear-space recursion run on them, with and without checkpoint rows. Best-cell
// passes (find_best_cells) in every mode and scope against the host's and the textbook's, and a batch's local and
// semi-global ends located with them. Checkpoint rows kept on the device
// (RowPassOutput::kept) and windows crossed with them, and a batch whose boxes are cut at checkpoints together. DNA (+2/-3) and BLOSUM62, gap costs 11/1, 0/2 and 5/2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <cudp/align/device_row_passes.cuh>
#include <cudp/align/linear_space.hpp>
#include <cudp/align/row_passes.hpp>
#include <cudp/bio/alphabet.hpp>
#include <cudp/engine/device_buffer.cuh>
#include <cudp/io/matrix.hpp>

#include "../support/best_cell_passes.hpp"
#include "../support/kept_rows.hpp"
#include "../support/reference_dp.hpp"
#include "../support/sequence_pair.hpp"

using cudp::align::DeviceRowPasses;
using cudp::align::RowPass;
using cudp::align::RowPassOutput;
using cudp::align::SequencePair;
using cudp::recurrences::GapCosts;
using cudp::test::make_sequences;
using cudp::test::Sequences;

namespace {

constexpr std::int32_t kUntouched = 0x7eadbeef;  // entries no pass owns must stay as they were

struct Dna {
  int operator()(int a, int b) const { return a == b ? 2 : -3; }
};

const cudp::io::SubstitutionMatrix& blosum62() {
  static const auto m = cudp::io::load_matrix("BLOSUM62", cudp::bio::protein());
  return m;
}

// A box of columns x rows somewhere in the sequences, read forwards or backwards.
RowPass box(std::mt19937_64& rng, const Sequences& s, int columns, int rows) {
  RowPass p;
  p.columns = columns;
  p.rows = rows;
  p.query_begin = static_cast<std::int64_t>(rng() % (s.query.size() - static_cast<std::size_t>(columns) + 1));
  p.target_begin = static_cast<std::int64_t>(rng() % (s.target.size() - static_cast<std::size_t>(rows) + 1));
  p.reversed = rng() % 2 == 1;
  p.left_gap_continues = rng() % 2 == 1;
  return p;
}

// Sides up to `max_side`, log-uniform (small and large boxes alike), a few 0; rows laid out with gaps between them.
std::vector<RowPass> random_passes(std::mt19937_64& rng, const Sequences& s, int count, int max_side) {
  std::uniform_real_distribution<double> log_side(0.0, std::log(static_cast<double>(max_side)));
  std::vector<RowPass> passes;
  std::size_t out = 0;
  for (int k = 0; k < count; ++k) {
    int columns = static_cast<int>(std::exp(log_side(rng)));
    int rows = static_cast<int>(std::exp(log_side(rng)));
    if (rng() % 20 == 0) columns = 0;
    if (rng() % 20 == 0) rows = 0;
    RowPass p = box(rng, s, columns, rows);
    out += rng() % 3;
    p.out = out;
    out += static_cast<std::size_t>(columns) + 1;
    passes.push_back(p);
  }
  return passes;
}

std::size_t output_size(const std::vector<RowPass>& passes) {
  std::size_t n = 0;
  for (const RowPass& p : passes) n = std::max(n, p.out + static_cast<std::size_t>(p.columns) + 1);
  return n + 2;
}

struct Rows {
  std::vector<std::int32_t> h, f;
  explicit Rows(std::size_t n) : h(n, kUntouched), f(n, kUntouched) {}
  RowPassOutput out() { return {h.data(), f.data()}; }
};

// Every entry of both rows equal; on a difference, which pass and column it is.
void require_same(const std::vector<RowPass>& passes, const Rows& device, const Rows& host) {
  for (std::size_t k = 0; k < host.h.size(); ++k) {
    if (device.h[k] == host.h[k] && device.f[k] == host.f[k]) continue;
    std::ostringstream where;
    where << "entry " << k << ": h " << device.h[k] << " (host " << host.h[k] << "), pending_f " << device.f[k]
          << " (host " << host.f[k] << ")";
    for (std::size_t t = 0; t < passes.size(); ++t) {
      const RowPass& p = passes[t];
      if (k >= p.out && k <= p.out + static_cast<std::size_t>(p.columns))
        where << "; pass " << t << ": " << p.columns << " columns x " << p.rows << " rows at (" << p.query_begin << ", "
              << p.target_begin << ")" << (p.reversed ? " reversed" : "")
              << (p.left_gap_continues ? " left gap continues" : "") << ", column " << k - p.out;
    }
    FAIL(where.str());
  }
}

// The checkpoint rows of the passes, as passes of their own (checkpoint_pass): where require_same looks them up.
std::vector<RowPass> checkpoints_of(const std::vector<RowPass>& passes) {
  std::vector<RowPass> checkpoints;
  for (const RowPass& p : passes)
    for (int k = 1; k <= cudp::align::checkpoints_of(p); ++k) checkpoints.push_back(cudp::align::checkpoint_pass(p, k));
  return checkpoints;
}

// Last rows and checkpoint rows, device against host.
template <class Matrix>
void compare(DeviceRowPasses<>& device, const Sequences& s, const Matrix& matrix, const std::vector<RowPass>& passes,
             GapCosts gaps) {
  INFO("gaps " << gaps.open << "/" << gaps.extend << ", " << passes.size() << " passes");
  const std::vector<RowPass> checkpoints = checkpoints_of(passes);
  Rows on_host(output_size(passes)), on_device(output_size(passes));
  Rows saved_on_host(output_size(checkpoints)), saved_on_device(output_size(checkpoints));
  auto both = [](Rows& rows, Rows& saved) { return RowPassOutput{rows.h.data(), rows.f.data(), saved.h.data(), saved.f.data()}; };
  cudp::align::run_row_passes_on_host(passes, s.view(), matrix, gaps, both(on_host, saved_on_host));
  device.run(passes, gaps, both(on_device, saved_on_device));
  require_same(passes, on_device, on_host);
  require_same(checkpoints, saved_on_device, saved_on_host);
}

const GapCosts kGapCosts[] = {GapCosts{11, 1}, GapCosts{0, 2}, GapCosts{5, 2}};

// Pair k is queries[k] against targets[k].
cudp::align::PairBatch batch_of(const std::vector<std::vector<std::uint8_t>>& queries,
                                const std::vector<std::vector<std::uint8_t>>& targets) {
  std::vector<cudp::align::SequenceView> qv, tv;
  for (std::size_t k = 0; k < queries.size(); ++k) {
    qv.push_back({queries[k].data(), static_cast<int>(queries[k].size())});
    tv.push_back({targets[k].data(), static_cast<int>(targets[k].size())});
  }
  return cudp::align::PairBatch(qv, tv);
}

}  // namespace

TEST_CASE("device row passes: a few small boxes (sanitizer run)", "[gpu][small]") {
  std::mt19937_64 rng(7);
  const Sequences s = make_sequences(rng, 2400, 300, 4);
  std::vector<RowPass> passes;
  std::size_t out = 0;
  // columns, rows: several strips of the widest shape (two and a bit), one strip of every width, an empty box of
  // each kind.
  constexpr int widest = 32 * cudp::align::DefaultStripShapes::widths.back();
  static_assert(2 * widest + 100 <= 2400, "the first box spans three strips");
  const int shapes[][2] = {{2 * widest + 100, 50}, {5, 7}, {40, 0}, {0, 9}, {0, 0}, {33, 1}, {100, 100}, {64, 3}, {1, 1}, {257, 20}};
  std::size_t saved = 0;
  for (const auto& shape : shapes) {
    RowPass p = box(rng, s, shape[0], shape[1]);
    p.out = out;
    out += static_cast<std::size_t>(shape[0]) + 2;
    p.save_every = passes.size() % 3 == 0 ? 7 : 0;  // checkpoint rows in a third of them, the first included
    p.saved = saved;
    saved += static_cast<std::size_t>(cudp::align::checkpoints_of(p)) * (static_cast<std::size_t>(shape[0]) + 1) + 1;
    passes.push_back(p);
  }
  DeviceRowPasses<> device(s.view(), Dna{});
  for (GapCosts gaps : {GapCosts{11, 1}, GapCosts{5, 2}}) compare(device, s, Dna{}, passes, gaps);
}

// The two halves of `count` random boxes, as a level of Myers-Miller sets them: a forward pass over the rows above
// the middle, a reverse pass over those below (RowPassOutput::midpoints).
std::vector<RowPass> box_halves(std::mt19937_64& rng, const Sequences& s, int count, int max_side) {
  const auto m = static_cast<std::int64_t>(s.query.size()), n = static_cast<std::int64_t>(s.target.size());
  std::vector<RowPass> passes;
  std::size_t out = 0;
  for (int k = 0; k < count; ++k) {
    const int columns = k % 17 == 0 ? 0 : 1 + static_cast<int>(rng() % static_cast<unsigned>(max_side));
    const int rows = 2 + static_cast<int>(rng() % static_cast<unsigned>(max_side));
    RowPass forward = box(rng, s, columns, rows);
    forward.reversed = false;
    forward.rows = rows / 2;
    forward.out = out;
    RowPass reverse = forward;
    reverse.query_begin = m - (forward.query_begin + columns);
    reverse.target_begin = n - (forward.target_begin + rows);
    reverse.rows = rows - rows / 2;
    reverse.reversed = true;
    reverse.left_gap_continues = rng() % 2 == 1;
    reverse.out = out + static_cast<std::size_t>(columns) + 1;
    out += 2 * (static_cast<std::size_t>(columns) + 1);
    passes.push_back(forward);
    passes.push_back(reverse);
  }
  return passes;
}

// A crossing found on the device is the host's: the same score, column and kind.
void require_same_midpoint(const cudp::align::Midpoint& device, const cudp::align::Midpoint& host) {
  REQUIRE(device.score == host.score);
  REQUIRE(device.column == host.column);
  REQUIRE(device.in_vertical_gap == host.in_vertical_gap);
}

// Crossings of the halves' rows, device (run_crossings) against host (find_midpoint on run_row_passes_on_host's
// rows): the same score, column and kind, ties included.
template <class Matrix>
void compare_crossings(DeviceRowPasses<>& device, const Sequences& s, const Matrix& matrix,
                       const std::vector<RowPass>& passes, GapCosts gaps) {
  INFO("gaps " << gaps.open << "/" << gaps.extend << ", " << passes.size() / 2 << " boxes");
  std::vector<cudp::align::Midpoint> on_host(passes.size() / 2), on_device(passes.size() / 2, {1, -1, true});
  RowPassOutput host_out, device_out;
  host_out.midpoints = on_host.data();
  device_out.midpoints = on_device.data();
  cudp::align::run_row_passes_on_host(passes, s.view(), matrix, gaps, host_out);
  device.run(passes, gaps, device_out);
  for (std::size_t k = 0; k < on_host.size(); ++k) {
    INFO("box " << k << ": " << passes[2 * k].columns << " columns, " << passes[2 * k].rows + passes[2 * k + 1].rows
                << " rows");
    require_same_midpoint(on_device[k], on_host[k]);
  }
}

TEST_CASE("device row passes: the crossings of a level's boxes", "[gpu][small]") {
  std::mt19937_64 rng(17);
  for (int alphabet : {1, 4}) {  // one letter: every column ties
    INFO("alphabet of " << alphabet);
    const Sequences s = make_sequences(rng, 3000, 3000, alphabet);
    DeviceRowPasses<> device(s.view(), Dna{});
    for (GapCosts gaps : kGapCosts) {
      compare_crossings(device, s, Dna{}, box_halves(rng, s, 60, 200), gaps);
      compare_crossings(device, s, Dna{}, box_halves(rng, s, 3, 2500), gaps);  // several strips, long lanes
    }
    cudp::align::Midpoint untouched;
    RowPassOutput out;
    out.midpoints = &untouched;
    device.run({}, GapCosts{11, 1}, out);  // no boxes: nothing to do
    std::vector<RowPass> odd = box_halves(rng, s, 1, 10);
    odd.pop_back();
    REQUIRE_THROWS_AS(device.run(odd, GapCosts{11, 1}, out), std::invalid_argument);
  }
}

TEST_CASE("device row passes: random boxes up to 3000 x 3000", "[gpu]") {
  std::mt19937_64 rng(2027);
  const Sequences dna = make_sequences(rng, 4000, 4000, 4);
  const Sequences protein = make_sequences(rng, 3500, 3200, 24);
  DeviceRowPasses<> on_dna(dna.view(), Dna{});
  DeviceRowPasses<> on_protein(protein.view(), blosum62());
  for (GapCosts gaps : kGapCosts) {
    compare(on_dna, dna, Dna{}, random_passes(rng, dna, 60, 3000), gaps);
    compare(on_protein, protein, blosum62(), random_passes(rng, protein, 60, 3000), gaps);
  }
}

TEST_CASE("device row passes: thousands of tiny boxes in one call", "[gpu]") {
  std::mt19937_64 rng(99);
  const Sequences dna = make_sequences(rng, 2000, 2000, 4);
  const Sequences protein = make_sequences(rng, 2000, 2000, 24);
  DeviceRowPasses<> on_dna(dna.view(), Dna{});
  DeviceRowPasses<> on_protein(protein.view(), blosum62());
  compare(on_dna, dna, Dna{}, random_passes(rng, dna, 4000, 40), GapCosts{11, 1});
  compare(on_protein, protein, blosum62(), random_passes(rng, protein, 3000, 70), GapCosts{5, 2});
  CHECK(on_protein.last_run().waves == 1);
}

TEST_CASE("device row passes: one box of many strips, forward and reversed", "[gpu]") {
  std::mt19937_64 rng(1234);
  const Sequences s = make_sequences(rng, 20000, 15000, 4);
  std::vector<RowPass> passes(2);
  passes[0].columns = 20000;
  passes[0].rows = 15000;
  passes[1].columns = 9000;
  passes[1].rows = 12000;
  passes[1].query_begin = 11000;
  passes[1].target_begin = 3000;
  passes[1].reversed = true;
  passes[1].left_gap_continues = true;
  passes[1].out = 20001;
  DeviceRowPasses<> device(s.view(), Dna{});
  compare(device, s, Dna{}, passes, GapCosts{5, 2});
  const auto& run = device.last_run();
  constexpr int widest = 32 * cudp::align::DefaultStripShapes::widths.back();
  // 29 strips of the widest shape: fewer than an H100's multiprocessors, so strips of 16 columns per lane.
  CHECK(run.strips == (20000 + widest / 2 - 1) / (widest / 2) + (9000 + widest / 2 - 1) / (widest / 2));
  CHECK(run.cells == 20000.0 * 15000 + 9000.0 * 12000);
  WARN("two boxes, " << run.cells << " cells: " << run.kernel_ms << " ms, " << run.cells / run.kernel_ms / 1e6 << " GCUPS");
}

TEST_CASE("device row passes: a level cut into waves", "[gpu]") {
  std::mt19937_64 rng(5);
  const Sequences s = make_sequences(rng, 3000, 3000, 24);
  const auto passes = random_passes(rng, s, 300, 2000);
  DeviceRowPasses<> device(s.view(), blosum62());
  device.set_memory_budget(DeviceRowPasses<>::bytes_of(RowPass{0, 0, 2000, 2000}, true) * 2);
  compare(device, s, blosum62(), passes, GapCosts{11, 1});
  CHECK(device.last_run().waves > 3);
  CHECK(device.last_run().passes == passes.size());
}

TEST_CASE("device row passes: rows left on the device", "[gpu]") {
  std::mt19937_64 rng(11);
  const Sequences s = make_sequences(rng, 2500, 2500, 4);
  const auto passes = random_passes(rng, s, 200, 2500);
  Rows on_host(output_size(passes)), on_device(output_size(passes));
  cudp::align::run_row_passes_on_host(passes, s.view(), Dna{}, GapCosts{0, 2}, on_host.out());
  cudp::engine::DeviceBuffer<std::int32_t> h(on_device.h.size()), f(on_device.f.size());
  h.upload(on_device.h);
  f.upload(on_device.f);
  DeviceRowPasses<> device(s.view(), Dna{});
  device.run_on_device(passes, GapCosts{0, 2}, RowPassOutput{h.get(), f.get()});
  h.download(on_device.h.data(), on_device.h.size());
  f.download(on_device.f.data(), on_device.f.size());
  CUDP_CUDA_CHECK(cudaDeviceSynchronize());
  require_same(passes, on_device, on_host);
}

// Checkpoint rows (RowPass::save_every) beside the last rows, every spacing, with the output in host memory and in
// device memory.
TEST_CASE("device row passes: checkpoint rows", "[gpu]") {
  std::mt19937_64 rng(606);
  const Sequences s = make_sequences(rng, 3000, 3000, 24);
  std::vector<RowPass> passes = random_passes(rng, s, 120, 2500);
  // Two large ones: many strips each, a checkpoint every few hundred rows.
  std::size_t out = output_size(passes);
  for (int side : {2900, 2000}) {
    passes.push_back(box(rng, s, side, 2800));
    passes.back().out = out;
    out += static_cast<std::size_t>(side) + 1;
  }
  std::size_t saved = 5;
  for (RowPass& p : passes) {
    if (rng() % 4 == 0) continue;
    p.save_every = rng() % 8 == 0 ? 1 : 1 + static_cast<int>(rng() % (p.rows / 3 + 2));
    if (p.columns > 1500) p.save_every = 300;
    p.saved = saved;
    saved += static_cast<std::size_t>(cudp::align::checkpoints_of(p)) * (p.columns + 1) + rng() % 3;
  }
  const std::vector<RowPass> checkpoints = checkpoints_of(passes);
  REQUIRE(checkpoints.size() > 100);
  DeviceRowPasses<> device(s.view(), blosum62());
  for (GapCosts gaps : kGapCosts) {
    compare(device, s, blosum62(), passes, gaps);

    Rows on_host(output_size(passes)), saved_on_host(output_size(checkpoints));
    cudp::align::run_row_passes_on_host(passes, s.view(), blosum62(), gaps,
                                        {on_host.h.data(), on_host.f.data(), saved_on_host.h.data(), saved_on_host.f.data()});
    Rows rows(on_host.h.size()), kept(saved_on_host.h.size());
    cudp::engine::DeviceBuffer<std::int32_t> h(rows.h.size()), f(rows.f.size()), sh(kept.h.size()), sf(kept.f.size());
    h.upload(rows.h);
    f.upload(rows.f);
    sh.upload(kept.h);
    sf.upload(kept.f);
    device.run_on_device(passes, gaps, RowPassOutput{h.get(), f.get(), sh.get(), sf.get()});
    h.download(rows.h.data(), rows.h.size());
    f.download(rows.f.data(), rows.f.size());
    sh.download(kept.h.data(), kept.h.size());
    sf.download(kept.f.data(), kept.f.size());
    CUDP_CUDA_CHECK(cudaDeviceSynchronize());
    require_same(passes, rows, on_host);
    require_same(checkpoints, kept, saved_on_host);
  }
}

TEST_CASE("device row passes: no passes, and codes past the matrix limit", "[gpu][small]") {
  std::mt19937_64 rng(3);
  Sequences s = make_sequences(rng, 50, 50, 4);
  DeviceRowPasses<> device(s.view(), Dna{});
  Rows rows(4);
  device.run({}, GapCosts{}, rows.out());
  CHECK(rows.h[0] == kUntouched);
  s.query[3] = 40;
  REQUIRE_THROWS_AS(DeviceRowPasses<>(s.view(), Dna{}), std::invalid_argument);
  RowPass too_far;
  too_far.columns = 51;
  too_far.rows = 1;
  REQUIRE_THROWS_AS(device.run({too_far}, GapCosts{}, rows.out()), std::out_of_range);
}

TEST_CASE("device row passes: the linear-space recursion on them gives the host's alignments", "[gpu]") {
  using cudp::recurrences::AlignMode;
  std::mt19937_64 rng(21);
  const Sequences s = make_sequences(rng, 3000, 2800, 4);
  const int m = static_cast<int>(s.query.size()), n = static_cast<int>(s.target.size());
  DeviceRowPasses<> device(s.view(), Dna{});
  cudp::align::LinearSpaceOptions options;
  options.leaf_cells = 1L << 12;  // many levels
  for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
    for (GapCosts gaps : kGapCosts) {
      INFO("mode " << cudp::recurrences::to_string(mode) << ", gaps " << gaps.open << "/" << gaps.extend);
      const auto on_host = cudp::align::align_linear_space(mode, s.query.data(), m, s.target.data(), n, Dna{}, gaps, options);
      const auto on_device = cudp::align::align_linear_space(
          mode, s.query.data(), m, s.target.data(), n, Dna{}, gaps, options,
          [&](const std::vector<RowPass>& passes, const SequencePair&, RowPassOutput out) { device.run(passes, gaps, out); });
      REQUIRE(on_device.score == on_host.score);
      REQUIRE(cudp::align::cigar(on_device) == cudp::align::cigar(on_host));
    }
  }
}

TEST_CASE("device row passes: global scores of a batch from two half passes each", "[gpu]") {
  std::mt19937_64 rng(41);
  std::vector<std::vector<std::uint8_t>> queries, targets;
  for (int k = 0; k < 400; ++k) {  // empty and one-residue sides, then up to 3000 (several strips)
    const std::size_t m = k < 6 ? k % 3 : 1 + rng() % (k % 20 == 0 ? 3000 : 400);
    queries.push_back(cudp::test::random_codes(rng, m, 4));
    targets.push_back(k < 12 ? cudp::test::random_codes(rng, k % 4, 4)
                             : cudp::test::mutated_copy(rng, queries.back(), m + rng() % 40, 4));
  }
  const cudp::align::PairBatch batch = batch_of(queries, targets);
  DeviceRowPasses<> device(batch.pair(), Dna{});
  for (GapCosts gaps : kGapCosts) {
    INFO("gaps " << gaps.open << "/" << gaps.extend);
    const auto on_host = cudp::align::global_scores(
        batch, Dna{}, gaps, cudp::align::LinearSpaceOptions{},
        [&](const std::vector<RowPass>& passes, const SequencePair& pair, RowPassOutput out) {
          cudp::align::run_row_passes_on_host(passes, pair, Dna{}, gaps, out);
        });
    const auto on_device = cudp::align::global_scores(
        batch, Dna{}, gaps, cudp::align::LinearSpaceOptions{},
        [&](const std::vector<RowPass>& passes, const SequencePair&, RowPassOutput out) {
          device.run(passes, gaps, out);
        });
    REQUIRE(on_device == on_host);
    for (std::size_t k = 12; k < queries.size(); k += 37)  // and the host's are the textbook's
      REQUIRE(on_host[k] == cudp::test::reference_gotoh(cudp::test::Mode::Global, targets[k], queries[k], Dna{},
                                                        gaps.open, gaps.extend));
  }
}

namespace {

// Crossings with kept rows, device against host: the halves' crossings and entries, then windows' (which the device
// crosses with the rows it kept), score, column, kind and entries alike.
template <class Matrix>
void compare_kept(DeviceRowPasses<>& device, std::mt19937_64& rng, const Sequences& s, const Matrix& matrix,
                  int boxes, int side, GapCosts gaps) {
  INFO("gaps " << gaps.open << "/" << gaps.extend << ", " << boxes << " boxes up to " << side);
  const std::vector<RowPass> halves = cudp::test::keeping_halves(rng, s, boxes, side);
  const std::vector<RowPass> windows = cudp::test::windows_on(rng, s, halves, 3 * boxes, side);
  cudp::align::KeptRows host_kept, device_kept;
  for (const std::vector<RowPass>* passes : {&halves, &windows}) {
    const bool crossing_windows = passes == &windows;
    const std::size_t count = crossing_windows ? passes->size() : passes->size() / 2;
    std::vector<cudp::align::Midpoint> on_host(count), on_device(count, {1, -1, true});
    std::vector<cudp::align::CrossingEntries> host_at(count), device_at(count, {-7, -7, -7, -7});
    RowPassOutput host_out, device_out;
    host_out.midpoints = on_host.data(), host_out.entries = host_at.data(), host_out.kept = &host_kept;
    device_out.midpoints = on_device.data(), device_out.entries = device_at.data(), device_out.kept = &device_kept;
    cudp::align::run_row_passes_on_host(*passes, s.view(), matrix, gaps, host_out);
    device.run(*passes, gaps, device_out);
    REQUIRE(device_kept.on_runner);
    for (std::size_t k = 0; k < count; ++k) {
      INFO((crossing_windows ? "window " : "box ") << k);
      require_same_midpoint(on_device[k], on_host[k]);
      REQUIRE(device_at[k].forward_h == host_at[k].forward_h);
      REQUIRE(device_at[k].forward_f == host_at[k].forward_f);
      REQUIRE(device_at[k].reverse_h == host_at[k].reverse_h);
      REQUIRE(device_at[k].reverse_f == host_at[k].reverse_f);
    }
  }
  // Windows need rows kept on the device.
  cudp::align::KeptRows elsewhere;
  std::vector<cudp::align::Midpoint> midpoints(windows.size());
  RowPassOutput out;
  out.midpoints = midpoints.data();
  out.kept = &elsewhere;
  REQUIRE_THROWS_AS(device.run(windows, gaps, out), std::invalid_argument);
}

}  // namespace

TEST_CASE("device row passes: checkpoint rows kept on the device, windows crossed with them", "[gpu][small]") {
  std::mt19937_64 rng(1202);
  for (int alphabet : {1, 4}) {  // one letter: every column ties
    INFO("alphabet of " << alphabet);
    const Sequences s = make_sequences(rng, 2500, 2400, alphabet);
    DeviceRowPasses<> device(s.view(), Dna{});
    for (GapCosts gaps : kGapCosts) {
      compare_kept(device, rng, s, Dna{}, 40, 150, gaps);
      compare_kept(device, rng, s, Dna{}, 3, 2000, gaps);  // several strips, long lanes
    }
  }
}

TEST_CASE("device row passes: a batch cut at checkpoint rows together gives the host's alignments", "[gpu]") {
  using cudp::recurrences::AlignMode;
  std::mt19937_64 rng(1203);
  std::vector<std::vector<std::uint8_t>> queries, targets;
  for (int k = 0; k < 300; ++k) {  // empty sides, unrelated pairs, mutated copies up to 3000
    const std::size_t m = k < 4 ? k % 2 : 1 + rng() % (k % 10 == 0 ? 3000 : 900);
    queries.push_back(cudp::test::random_codes(rng, m, 4));
    targets.push_back(k < 8 || k % 9 == 0 ? cudp::test::random_codes(rng, k < 8 ? k % 3 : m, 4)
                                          : cudp::test::mutated_copy(rng, queries.back(), m + rng() % 40, 4));
  }
  const cudp::align::PairBatch batch = batch_of(queries, targets);
  DeviceRowPasses<> device(batch.pair(), Dna{});
  for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
    for (GapCosts gaps : kGapCosts) {
      for (std::size_t budget : {std::size_t{1} << 16, std::size_t{1} << 30}) {
        INFO("mode " << cudp::recurrences::to_string(mode) << ", gaps " << gaps.open << "/" << gaps.extend
                     << ", budget " << budget);
        cudp::align::LinearSpaceOptions options;
        options.leaf_cells = 2048;
        options.checkpoint_cells = 20000;
        options.checkpoint_rows = 8;
        options.checkpoint_bytes = budget;
        const auto on_host = cudp::align::align_batch_linear_space(
            mode, batch, Dna{}, gaps, options,
            [&](const std::vector<RowPass>& passes, const SequencePair& pair, RowPassOutput out) {
              cudp::align::run_row_passes_on_host(passes, pair, Dna{}, gaps, out);
            });
        std::size_t most_halves = 0, window_calls = 0;
        const auto on_device = cudp::align::align_batch_linear_space(
            mode, batch, Dna{}, gaps, options,
            [&](const std::vector<RowPass>& passes, const SequencePair&, RowPassOutput out) {
              std::size_t keeping = 0;
              for (const RowPass& p : passes) keeping += p.save_every > 0;
              most_halves = std::max(most_halves, keeping);
              window_calls += cudp::align::crosses_kept_rows(passes);
              device.run(passes, gaps, out);
            });
        for (std::size_t k = 0; k < queries.size(); ++k) {
          INFO("pair " << k);
          REQUIRE(on_device[k].score == on_host[k].score);
          REQUIRE(cudp::align::cigar(on_device[k]) == cudp::align::cigar(on_host[k]));
        }
        CHECK(window_calls > 0);
        if (budget > 1000000) CHECK(most_halves > 100);  // the boxes of a level cut together
      }
    }
  }
}

TEST_CASE("device row passes: the recursion with checkpoint rows gives the host's alignments", "[gpu]") {
  using cudp::recurrences::AlignMode;
  std::mt19937_64 rng(31);
  const Sequences s = make_sequences(rng, 6000, 5500, 4);
  const int m = static_cast<int>(s.query.size()), n = static_cast<int>(s.target.size());
  DeviceRowPasses<> device(s.view(), Dna{});
  cudp::align::LinearSpaceOptions options;
  options.leaf_cells = 1L << 12;
  options.checkpoint_cells = 1e6;  // the whole box, and its parts of more than a million cells
  options.checkpoint_rows = 64;
  options.checkpoint_count = 1000;  // as many as 64 rows apart allows: 85
  for (AlignMode mode : {AlignMode::Global, AlignMode::Local, AlignMode::SemiGlobal}) {
    for (GapCosts gaps : kGapCosts) {
      INFO("mode " << cudp::recurrences::to_string(mode) << ", gaps " << gaps.open << "/" << gaps.extend);
      int kept = 0;
      const auto on_host = cudp::align::align_linear_space(mode, s.query.data(), m, s.target.data(), n, Dna{}, gaps, options);
      const auto on_device = cudp::align::align_linear_space(
          mode, s.query.data(), m, s.target.data(), n, Dna{}, gaps, options,
          [&](const std::vector<RowPass>& passes, const SequencePair&, RowPassOutput out) {
            for (const RowPass& p : passes) kept += cudp::align::checkpoints_of(p);
            device.run(passes, gaps, out);
          });
      REQUIRE(on_device.score == on_host.score);
      REQUIRE(cudp::align::cigar(on_device) == cudp::align::cigar(on_host));
      CHECK(kept > 50);
    }
  }
}

namespace {

// Best cells (DeviceRowPasses::find_best_cells) against find_best_cells_on_host, in every mode and scope, and the
// host's against the textbook matrix for the boxes small enough.
template <class Matrix>
void compare_best_cells(DeviceRowPasses<>& device, const Sequences& s, const Matrix& matrix,
                        const std::vector<RowPass>& passes, GapCosts gaps, bool textbook) {
  using cudp::align::CellScope;
  using cudp::recurrences::AlignMode;
  for (AlignMode mode : {AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal}) {
    for (CellScope scope : {CellScope::Anywhere, CellScope::Edges}) {
      std::vector<cudp::tiers::CellEnd> on_host(passes.size()), on_device(passes.size(), {-7, -7, -7});
      cudp::align::find_best_cells_on_host(passes, mode, scope, s.view(), matrix, gaps, on_host.data());
      device.find_best_cells(passes, mode, scope, gaps, on_device.data());
      for (std::size_t k = 0; k < passes.size(); ++k) {
        const RowPass& p = passes[k];
        INFO("pass " << k << ": " << p.columns << " x " << p.rows << (p.reversed ? " reversed" : "") << ", mode "
                     << cudp::recurrences::to_string(mode) << (scope == CellScope::Edges ? ", edges" : ", anywhere")
                     << ", gaps " << gaps.open << "/" << gaps.extend);
        cudp::test::require_same_cell(on_device[k], on_host[k]);
        if (textbook && static_cast<long>(p.columns) * p.rows <= 40000)
          cudp::test::require_same_cell(on_host[k], cudp::test::reference_best_cell(p, s, mode, scope, matrix, gaps));
      }
    }
  }
}

}  // namespace

TEST_CASE("device best cells: small boxes in every mode and scope (sanitizer run)", "[gpu][small]") {
  std::mt19937_64 rng(51);
  const Sequences dna = make_sequences(rng, 400, 380, 4);
  DeviceRowPasses<> device(dna.view(), Dna{});
  compare_best_cells(device, dna, Dna{}, cudp::test::random_boxes(rng, dna, 40, 150), GapCosts{5, 2}, true);
  Sequences two = make_sequences(rng, 200, 190, 2);  // ties everywhere
  DeviceRowPasses<> ties(two.view(), Dna{});
  compare_best_cells(ties, two, Dna{}, cudp::test::random_boxes(rng, two, 20, 200), GapCosts{0, 2}, true);
}

TEST_CASE("device best cells: boxes of many strips, tiny boxes by the thousand, protein", "[gpu]") {
  std::mt19937_64 rng(52);
  const Sequences dna = make_sequences(rng, 12000, 11000, 4);
  DeviceRowPasses<> device(dna.view(), Dna{});
  for (GapCosts gaps : kGapCosts) {
    std::vector<RowPass> passes = cudp::test::random_boxes(rng, dna, 30, 12000);
    const std::vector<RowPass> tiny = cudp::test::random_boxes(rng, dna, 3000, 40);
    passes.insert(passes.end(), tiny.begin(), tiny.end());
    compare_best_cells(device, dna, Dna{}, passes, gaps, false);
  }
  Sequences one;  // one letter: every cell of a diagonal ties
  one.query.assign(5000, 2);
  one.target.assign(4000, 2);
  one.reverse();
  DeviceRowPasses<> same(one.view(), Dna{});
  compare_best_cells(same, one, Dna{}, cudp::test::random_boxes(rng, one, 12, 5000), GapCosts{11, 1}, false);
  const Sequences protein = make_sequences(rng, 3000, 2900, 20);
  DeviceRowPasses<> on_blosum(protein.view(), blosum62());
  compare_best_cells(on_blosum, protein, blosum62(), cudp::test::random_boxes(rng, protein, 200, 1500),
                     GapCosts{11, 1}, true);
}

TEST_CASE("device best cells: a batch located on the device aligns and scores as on the host", "[gpu]") {
  using cudp::recurrences::AlignMode;
  std::mt19937_64 rng(53);
  std::vector<std::vector<std::uint8_t>> queries, targets;
  for (int k = 0; k < 500; ++k) {  // empty sides, unrelated pairs, and mutated copies up to 4000
    const std::size_t m = k < 6 ? k % 3 : 1 + rng() % (k % 25 == 0 ? 4000 : 500);
    queries.push_back(cudp::test::random_codes(rng, m, 4));
    targets.push_back(k < 12 || k % 7 == 0 ? cudp::test::random_codes(rng, k < 12 ? k % 4 : m, 4)
                                           : cudp::test::mutated_copy(rng, queries.back(), m + rng() % 40, 4));
  }
  const cudp::align::PairBatch batch = batch_of(queries, targets);
  DeviceRowPasses<> device(batch.pair(), Dna{});
  auto host_passes = [&](GapCosts gaps) {
    return [&, gaps](const std::vector<RowPass>& passes, const SequencePair& pair, RowPassOutput out) {
      cudp::align::run_row_passes_on_host(passes, pair, Dna{}, gaps, out);
    };
  };
  auto host_leaves = [&](const std::vector<cudp::align::Box>& leaves, std::vector<cudp::align::Alignment>& out,
                         GapCosts gaps) { cudp::align::solve_leaves_on_host(batch.pair(), leaves, Dna{}, gaps, out); };
  for (AlignMode mode : {AlignMode::Local, AlignMode::SemiGlobal}) {
    for (GapCosts gaps : kGapCosts) {
      INFO("mode " << cudp::recurrences::to_string(mode) << ", gaps " << gaps.open << "/" << gaps.extend);
      cudp::align::LinearSpaceOptions options;
      const auto on_host = cudp::align::align_batch_linear_space(mode, batch, Dna{}, gaps, options, host_passes(gaps));
      int calls = 0;
      const auto on_device = cudp::align::align_batch_linear_space(
          mode, batch, Dna{}, gaps, options, host_passes(gaps),
          [&](const std::vector<cudp::align::Box>& leaves, std::vector<cudp::align::Alignment>& out) {
            host_leaves(leaves, out, gaps);
          },
          [&](const std::vector<RowPass>& passes, AlignMode pass_mode, cudp::align::CellScope scope,
              const SequencePair&, cudp::tiers::CellEnd* out) {
            ++calls;
            device.find_best_cells(passes, pass_mode, scope, gaps, out);
          });
      CHECK(calls == 2);  // the ends, then the starts: one call each for the whole batch
      const auto scores = cudp::align::located_scores(
          mode, batch, Dna{}, gaps, options,
          [&](const std::vector<RowPass>& passes, AlignMode pass_mode, cudp::align::CellScope scope,
              const SequencePair&, cudp::tiers::CellEnd* out) {
            device.find_best_cells(passes, pass_mode, scope, gaps, out);
          });
      for (std::size_t k = 0; k < queries.size(); ++k) {
        INFO("pair " << k);
        REQUIRE(on_device[k].score == on_host[k].score);
        REQUIRE(on_device[k].query_begin == on_host[k].query_begin);
        REQUIRE(on_device[k].target_begin == on_host[k].target_begin);
        REQUIRE(cudp::align::cigar(on_device[k]) == cudp::align::cigar(on_host[k]));
        REQUIRE(scores[k] == on_host[k].score);
      }
    }
  }
}
