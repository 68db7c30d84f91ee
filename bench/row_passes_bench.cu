// One level of linear-space row passes on the GPU (align/device_row_passes.cuh), timed: either a few huge boxes
// (the top levels of one long pair) or many small ones (the deep levels), over random DNA (+2/-3, gaps 5/2) whose
// target is a mutated copy of the query. Prints kernel time and GCUPS; --check compares with the host backend.
//
//   cudp-row-passes-bench long COLUMNS ROWS PASSES [--narrow] [--check]
//   cudp-row-passes-bench many COUNT SIDE [--narrow] [--check]
// align and batch take --leaf=CELLS: the largest box solved whole by full traceback (LinearSpaceOptions), on the
// device (device_leaves.cuh) or, with --host-leaves, on the host;
// align takes --fasta=PREFIX: writes the pair to PREFIX.query.fa and PREFIX.target.fa for the CPU tools, and
// --checkpoints=CELLS (boxes of at least CELLS cells cut at checkpoint rows; 0, the default: Myers-Miller only),
// --checkpoint-count=N, --checkpoint-rows=N and --checkpoint-mib=N (LinearSpaceOptions).
//   cudp-row-passes-bench align LENGTH [--check]
//       one global DNA alignment, end to end with the levels on the GPU, beside the score-only pass over the same
//       pair; --check aligns on the host too and requires the same score
//   cudp-row-passes-bench locate LENGTH
//       one LENGTH x LENGTH pass's best cell in each mode and scope, beside the global score pass
//   cudp-row-passes-bench batch COUNT MIN MAX protein|dna [--check] [--mode=local|semiglobal]
//       COUNT global alignments of pairs of MIN..MAX residues (BLOSUM62 11/1, or DNA +2/-3 5/2), one batch; with
//       --mode, local or semi-global ones, their ends located on the device, then on the host for comparison
//
// --narrow runs the menu whose widest strip is 16 columns per lane (512 per warp) instead of 32; --widest=2|4|8|16
// any of them.
#include "gpu_bench_main.cuh"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <algorithm>
#include <chrono>

#include <cudp/align/device_leaves.cuh>
#include <cudp/align/device_row_passes.cuh>
#include <cudp/align/linear_space.hpp>
#include <cudp/align/row_passes.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/host/keep_freed_memory.hpp>

namespace {

struct Dna {
  int operator()(int a, int b) const { return a == b ? 2 : -3; }
};

struct Sequences {
  std::vector<std::uint8_t> q, qr, t, tr;
};

Sequences make(std::size_t m, std::size_t n) {
  std::mt19937_64 rng(42);
  Sequences s;
  s.q.resize(m);
  for (auto& c : s.q) c = static_cast<std::uint8_t>(rng() % 4);
  for (std::size_t k = 0; s.t.size() < n; k = (k + 1) % m) {
    const unsigned roll = rng() % 100;
    if (roll < 4) continue;
    if (roll < 8) s.t.push_back(static_cast<std::uint8_t>(rng() % 4));
    s.t.push_back(roll < 12 ? static_cast<std::uint8_t>(rng() % 4) : s.q[k]);
  }
  s.t.resize(n);
  s.qr.assign(s.q.rbegin(), s.q.rend());
  s.tr.assign(s.t.rbegin(), s.t.rend());
  return s;
}

template <class Shapes>
int bench(const Sequences& s, const std::vector<cudp::align::RowPass>& passes, bool check) {
  using namespace cudp;
  const align::SequencePair pair{s.q.data(), s.qr.data(), static_cast<std::int64_t>(s.q.size()),
                                 s.t.data(), s.tr.data(), static_cast<std::int64_t>(s.t.size())};
  std::size_t entries = 0;
  for (const auto& p : passes) entries = std::max(entries, p.out + static_cast<std::size_t>(p.columns) + 1);
  std::vector<std::int32_t> h(entries), f(entries);
  align::DeviceRowPasses<align::GlobalS32, Shapes> device(pair, Dna{});
  const recurrences::GapCosts gaps{5, 2};
  device.run(passes, gaps, {h.data(), f.data()});  // warm-up
  for (int rep = 0; rep < 3; ++rep) {
    device.run(passes, gaps, {h.data(), f.data()});
    const auto& r = device.last_run();
    std::printf("%zu passes, %zu strips, %.3g cells, %d wave(s), %.1f MiB working: %.2f ms, %.1f GCUPS\n", r.passes,
                r.strips, r.cells, r.waves, r.device_bytes / 1048576.0, r.kernel_ms, r.cells / r.kernel_ms / 1e6);
  }
  if (!check) return 0;
  std::vector<std::int32_t> hh(entries), hf(entries);
  align::run_row_passes_on_host(passes, pair, Dna{}, gaps, {hh.data(), hf.data()});
  const bool same = hh == h && hf == f;
  std::printf("host check: %s\n", same ? "identical" : "DIFFERENT");
  return same ? 0 : 1;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void write_fasta(const std::string& path, const char* name, const std::vector<std::uint8_t>& codes) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  std::fprintf(f, ">%s\n", name);
  for (std::size_t k = 0; k < codes.size(); ++k) {
    std::fputc("ACGT"[codes[k]], f);
    if (k % 80 == 79 || k + 1 == codes.size()) std::fputc('\n', f);
  }
  std::fclose(f);
}

bool host_leaves = false;  // --host-leaves: the leaves' full traceback on the host, as before device_leaves.cuh

// The leaves on the device, or on the host with --host-leaves.
template <class Matrix>
auto leaf_solver(cudp::align::DeviceLeaves<>& leaves, const cudp::align::SequencePair& pair, const Matrix& matrix,
                 cudp::recurrences::GapCosts gaps, const cudp::align::LinearSpaceOptions& options) {
  return [&leaves, pair, &matrix, gaps, &options](const std::vector<cudp::align::Box>& boxes,
                                                  std::vector<cudp::align::Alignment>& out) {
    if (host_leaves)
      cudp::align::solve_leaves_on_host(pair, boxes, matrix, gaps, out, options.threads);
    else
      leaves.solve(boxes, gaps, out, options.threads);
  };
}

// The whole matrix of `s` as one pass, and its top-left corner of at most 4096 x 4096 (a warm-up: the kernels' first
// launch).
std::pair<cudp::align::RowPass, cudp::align::RowPass> whole_and_corner(const Sequences& s) {
  cudp::align::RowPass whole;
  whole.columns = static_cast<int>(s.q.size());
  whole.rows = static_cast<int>(s.t.size());
  cudp::align::RowPass corner = whole;
  corner.columns = std::min(whole.columns, 4096);
  corner.rows = std::min(whole.rows, 4096);
  return {whole, corner};
}

int bench_align(std::size_t length, bool check, const cudp::align::LinearSpaceOptions& options,
                const std::string& fasta) {
  using namespace cudp;
  const Sequences s = make(length, length);
  if (!fasta.empty()) {
    write_fasta(fasta + ".query.fa", "query", s.q);
    write_fasta(fasta + ".target.fa", "target", s.t);
  }
  const align::SequencePair pair{s.q.data(), s.qr.data(), static_cast<std::int64_t>(s.q.size()),
                                 s.t.data(), s.tr.data(), static_cast<std::int64_t>(s.t.size())};
  const recurrences::GapCosts gaps{5, 2};
  align::DeviceRowPasses<> device(pair, Dna{});
  // Score only: the whole matrix as one pass (its last row holds the global score).
  const auto [whole, corner] = whole_and_corner(s);
  std::vector<std::int32_t> h(s.q.size() + 1), f(s.q.size() + 1);
  device.run({corner}, gaps, {h.data(), f.data()});
  auto t0 = std::chrono::steady_clock::now();
  device.run({whole}, gaps, {h.data(), f.data()});
  const double score_seconds = seconds_since(t0);
  const double cells = static_cast<double>(s.q.size()) * static_cast<double>(s.t.size());
  // Score only, as global_scores runs it: the two halves side by side, joined at the middle row on the device.
  const align::PairBatch one({{s.q.data(), static_cast<int>(s.q.size())}},
                             {{s.t.data(), static_cast<int>(s.t.size())}});
  t0 = std::chrono::steady_clock::now();
  const long halves_score = align::global_scores(
      one, Dna{}, gaps, options,
      [&](const std::vector<align::RowPass>& passes, const align::SequencePair&, align::RowPassOutput out) {
        device.run(passes, gaps, out);
      })
      .front();
  const double halves_seconds = seconds_since(t0);
  std::printf("score-only by two halves: %.3f s (%.1f GCUPS, score %ld, one pass %.2fx its time)\n", halves_seconds,
              cells / halves_seconds / 1e9, halves_score, score_seconds / halves_seconds);
  t0 = std::chrono::steady_clock::now();
  align::DeviceLeaves<> leaves(pair, Dna{});
  // Where the time goes: the passes that keep checkpoint rows, the checkpoint windows (one strip of each half that
  // is still walking: the upper half's read backwards first, or one alone), the other levels, the leaves.
  double kept_seconds = 0, window_seconds = 0, level_seconds = 0, leaf_seconds = 0;
  int window_calls = 0, level_calls = 0;
  auto solve_leaves = leaf_solver(leaves, pair, Dna{}, gaps, options);
  const align::Alignment a = align::align_linear_space(
      recurrences::AlignMode::Global, s.q.data(), static_cast<int>(s.q.size()), s.t.data(), static_cast<int>(s.t.size()),
      Dna{}, gaps, options,
      [&](const std::vector<align::RowPass>& passes, const align::SequencePair&, align::RowPassOutput out) {
        const auto start = std::chrono::steady_clock::now();
        device.run(passes, gaps, out);
        const double took = seconds_since(start);
        const bool keeps = passes.front().save_every > 0;
        const bool window = align::crosses_kept_rows(passes);
        (keeps ? kept_seconds : window ? window_seconds : level_seconds) += took;
        (window ? window_calls : level_calls) += !keeps;
      },
      [&](const std::vector<align::Box>& boxes, std::vector<align::Alignment>& out) {
        const auto start = std::chrono::steady_clock::now();
        solve_leaves(boxes, out);
        leaf_seconds += seconds_since(start);
      });
  const double align_seconds = seconds_since(t0);
  std::printf("  time: passes keeping checkpoints %.3f s, %d window calls %.3f s, %d other levels %.3f s, leaves %.3f s, "
              "the rest %.3f s\n", kept_seconds, window_calls, window_seconds, level_calls, level_seconds, leaf_seconds,
              align_seconds - kept_seconds - window_seconds - level_seconds - leaf_seconds);
  std::printf("leaf %ld, checkpoints %.3g cells (%zu MiB, %d rows apart at least): align %zu x %zu: score-only %.3f s "
              "(%.1f GCUPS, score %d), full alignment %.3f s (%.1f GCUPS over m x n), "
              "ratio %.2f; score %ld, %zu edit runs; sequences on device %.1f MiB\n",
              options.leaf_cells, options.checkpoint_cells, options.checkpoint_bytes >> 20, options.checkpoint_rows,
              s.q.size(), s.t.size(), score_seconds, cells / score_seconds / 1e9, h.back(), align_seconds,
              cells / align_seconds / 1e9, align_seconds / score_seconds, a.score, a.edits.size(),
              device.sequence_bytes() / 1048576.0);
  std::printf("full alignment / score-only by two halves: %.2f\n", align_seconds / halves_seconds);
  if (a.score != h.back() || halves_score != h.back()) return std::printf("DIFFERENT scores\n"), 1;
  if (!check) return 0;
  const align::Alignment host = align::align_linear_space(recurrences::AlignMode::Global, s.q.data(),
                                                          static_cast<int>(s.q.size()), s.t.data(),
                                                          static_cast<int>(s.t.size()), Dna{}, gaps);
  std::printf("host check: %s\n", host.score == a.score ? "same score" : "DIFFERENT");
  return host.score == a.score ? 0 : 1;
}

// One LENGTH x LENGTH pass's best cell in each mode and scope (DeviceRowPasses::find_best_cells), beside the global
// score pass over the same pair: what locating a long pair's ends costs.
void bench_locate(const Sequences& s) {
  using namespace cudp;
  using recurrences::AlignMode;
  const align::SequencePair pair{s.q.data(), s.qr.data(), static_cast<std::int64_t>(s.q.size()),
                                 s.t.data(), s.tr.data(), static_cast<std::int64_t>(s.t.size())};
  const recurrences::GapCosts gaps{5, 2};
  align::DeviceRowPasses<> device(pair, Dna{});
  const auto [whole, corner] = whole_and_corner(s);
  const double cells = static_cast<double>(whole.columns) * whole.rows;
  std::vector<std::int32_t> h(s.q.size() + 1), f(s.q.size() + 1);
  device.run({corner}, gaps, {h.data(), f.data()});
  auto t0 = std::chrono::steady_clock::now();
  device.run({whole}, gaps, {h.data(), f.data()});
  double took = seconds_since(t0);
  std::printf("locate %zu x %zu: global score pass %.3f s (%.1f GCUPS)\n", s.q.size(), s.t.size(), took,
              cells / took / 1e9);
  const std::pair<AlignMode, align::CellScope> kinds[] = {{AlignMode::Local, align::CellScope::Anywhere},
                                                          {AlignMode::Global, align::CellScope::Anywhere},
                                                          {AlignMode::SemiGlobal, align::CellScope::Edges},
                                                          {AlignMode::Global, align::CellScope::Edges}};
  for (const auto& [mode, scope] : kinds) {
    tiers::CellEnd end;
    device.find_best_cells({corner}, mode, scope, gaps, &end);
    t0 = std::chrono::steady_clock::now();
    device.find_best_cells({whole}, mode, scope, gaps, &end);
    took = seconds_since(t0);
    std::printf("  best cell, %s, %s: %.3f s (%.1f GCUPS), H %d at (%d, %d)\n", recurrences::to_string(mode),
                scope == align::CellScope::Anywhere ? "anywhere" : "edges", took, cells / took / 1e9, end.score,
                end.target_end, end.query_end);
  }
}

template <class Matrix>
int bench_batch(int count, int low, int high, int alphabet, const Matrix& matrix, cudp::recurrences::GapCosts gaps,
                bool check, const cudp::align::LinearSpaceOptions& options, cudp::recurrences::AlignMode mode) {
  using namespace cudp;
  std::mt19937_64 rng(5);
  std::vector<std::vector<std::uint8_t>> q(count), t(count);
  std::vector<align::SequenceView> qv, tv;
  double cells = 0;
  for (int k = 0; k < count; ++k) {
    const int len = low + static_cast<int>(rng() % static_cast<unsigned>(high - low + 1));
    q[k].resize(len);
    for (auto& c : q[k]) c = static_cast<std::uint8_t>(rng() % alphabet);
    for (int i = 0; i < len; ++i) {  // a mutated copy: 10% substitutions, 2% short indels
      const unsigned roll = rng() % 100;
      if (roll < 1) continue;
      if (roll < 2) t[k].push_back(static_cast<std::uint8_t>(rng() % alphabet));
      t[k].push_back(roll < 12 ? static_cast<std::uint8_t>(rng() % alphabet) : q[k][i]);
    }
    qv.push_back({q[k].data(), static_cast<int>(q[k].size())});
    tv.push_back({t[k].data(), static_cast<int>(t[k].size())});
    cells += static_cast<double>(q[k].size()) * static_cast<double>(t[k].size());
  }
  const align::PairBatch batch(qv, tv);
  align::DeviceRowPasses<> device(batch.pair(), matrix);
  align::DeviceLeaves<> leaves(batch.pair(), matrix, device.forward_sequences());
  double level_seconds = 0, leaf_seconds = 0;  // wall time in the levels' passes and in the leaves
  double kept_seconds = 0, window_seconds = 0;  // of level_seconds: the halves keeping checkpoints, the windows
  int window_calls = 0;
  auto runner = [&](const std::vector<align::RowPass>& passes, const align::SequencePair&, align::RowPassOutput out) {
    const auto t = std::chrono::steady_clock::now();
    device.run(passes, gaps, out);
    const double took = seconds_since(t);
    level_seconds += took;
    if (align::crosses_kept_rows(passes)) window_seconds += took, ++window_calls;
    else if (!passes.empty() && passes.front().save_every > 0) kept_seconds += took;
  };
  const auto solve = leaf_solver(leaves, batch.pair(), matrix, gaps, options);
  auto solver = [&](const std::vector<align::Box>& boxes, std::vector<align::Alignment>& out) {
    const auto t = std::chrono::steady_clock::now();
    solve(boxes, out);
    leaf_seconds += seconds_since(t);
  };
  double locate_seconds = 0;  // wall time in the device's best-cell passes (local and semi-global ends)
  auto locator = [&](const std::vector<align::RowPass>& passes, recurrences::AlignMode pass_mode, align::CellScope scope,
                     const align::SequencePair&, tiers::CellEnd* out) {
    const auto t = std::chrono::steady_clock::now();
    device.find_best_cells(passes, pass_mode, scope, gaps, out);
    locate_seconds += seconds_since(t);
  };
  align::align_batch_linear_space(mode, batch, matrix, gaps, options, runner, solver, locator);  // warm-up
  level_seconds = leaf_seconds = locate_seconds = kept_seconds = window_seconds = 0;
  window_calls = 0;
  auto t0 = std::chrono::steady_clock::now();
  const auto all = align::align_batch_linear_space(mode, batch, matrix, gaps, options, runner, solver, locator);
  const double seconds = seconds_since(t0);
  if (mode != recurrences::AlignMode::Global) {
    // The same batch with its ends located on the host (all cores), as before the device's best-cell passes.
    const double device_levels = level_seconds, device_leaves = leaf_seconds;
    t0 = std::chrono::steady_clock::now();
    const auto host_located = align::align_batch_linear_space(mode, batch, matrix, gaps, options, runner, solver);
    const double host_located_seconds = seconds_since(t0);
    bool same = true;
    for (int k = 0; k < count; ++k)
      same = same && host_located[k].score == all[k].score && align::cigar(host_located[k]) == align::cigar(all[k]);
    std::printf("batch of %d pairs, %d..%d residues, %s: ends located on the device %.3f s (%.1f GCUPS over sum(m x n); "
                "locating %.3f s, levels %.3f s, leaves %.3f s), on the host %.3f s (%.1f GCUPS): %.2fx; "
                "alignments %s\n",
                count, low, high, recurrences::to_string(mode), seconds, cells / seconds / 1e9, locate_seconds,
                device_levels, device_leaves, host_located_seconds, cells / host_located_seconds / 1e9,
                host_located_seconds / seconds, same ? "identical" : "DIFFERENT");
    return same ? 0 : 1;
  }
  // The steps below run the boxes again: keep the timed call's checkpoint figures.
  const double call_levels = level_seconds, call_kept = kept_seconds, call_windows = window_seconds;
  const int call_window_calls = window_calls;
  const auto& l = leaves.last_run();
  std::printf("batch of %d pairs, %d..%d residues, leaf %ld (%s): %.3f s, %.1f GCUPS over sum(m x n) (levels %.3f s, "
              "leaves %.3f s, the rest %.3f s); device sequences %.1f MiB; last leaf run: %zu on the device (%.3g cells, "
              "%.2f ms, %.1f GCUPS, %d warps, %.1f MiB; host: launch at %.1f ms, last answer read at %.1f ms), %zu on "
              "the host\n",
              count, low, high, options.leaf_cells, host_leaves ? "host leaves" : "device leaves", seconds,
              cells / seconds / 1e9, level_seconds, leaf_seconds, seconds - level_seconds - leaf_seconds,
              device.sequence_bytes() / 1048576.0, l.on_device, l.cells, l.kernel_ms,
              l.kernel_ms > 0 ? l.cells / l.kernel_ms / 1e6 : 0.0, l.warps, l.device_bytes / 1048576.0,
              l.first_launch_ms, l.answers_ms, l.on_host);
  {
    // Where the time outside the passes and the leaves goes: align_batch_linear_space's steps one by one, warm.
    auto t = std::chrono::steady_clock::now();
    align::for_each_checked_pair(batch, matrix, gaps, options.threads, [](std::size_t, const align::SequencePair&) {});
    const double check_ms = 1e3 * seconds_since(t);
    t = std::chrono::steady_clock::now();
    std::vector<align::Box> boxes;
    std::vector<long> located;
    align::locate_boxes(mode, batch, gaps, options.threads, locator, boxes, located);
    const double ends_ms = 1e3 * seconds_since(t);
    level_seconds = leaf_seconds = 0;
    t = std::chrono::steady_clock::now();
    std::vector<align::Alignment> out =
        align::align_boxes_linear_space(batch.pair(), boxes, gaps, options, runner, solver);
    const double boxes_ms = 1e3 * seconds_since(t);
    t = std::chrono::steady_clock::now();
    align::place_and_check(mode, batch, located, matrix, gaps, options.threads, out);
    const double rescore_ms = 1e3 * seconds_since(t);
    t = std::chrono::steady_clock::now();
    out = {};
    const double free_ms = 1e3 * seconds_since(t);
    std::printf("  steps: 32-bit check %.1f ms, ends %.1f ms, boxes %.1f ms (levels %.1f ms, leaves %.1f ms, the rest "
                "%.1f ms), placing and rescoring on the host %.1f ms; freeing the alignments %.1f ms\n",
                check_ms, ends_ms, boxes_ms, 1e3 * level_seconds, 1e3 * leaf_seconds,
                boxes_ms - 1e3 * (level_seconds + leaf_seconds), rescore_ms, free_ms);
  }
  if (options.checkpoint_cells > 0)
    std::printf("  checkpoints (boxes from %.3g cells, %d rows apart at least, %d at most, %zu MiB at once): halves "
                "keeping rows %.3f s, %d window calls %.3f s, other levels %.3f s\n",
                options.checkpoint_cells, options.checkpoint_rows, options.checkpoint_count,
                options.checkpoint_bytes >> 20, call_kept, call_window_calls, call_windows,
                call_levels - call_kept - call_windows);
  // Scores alone (global_scores: two half passes a pair, crossings on the device), warm.
  auto score_runner = [&](const std::vector<align::RowPass>& passes, const align::SequencePair&,
                          align::RowPassOutput out) { device.run(passes, gaps, out); };
  align::global_scores(batch, matrix, gaps, options, score_runner);
  t0 = std::chrono::steady_clock::now();
  const std::vector<long> scores = align::global_scores(batch, matrix, gaps, options, score_runner);
  const double score_seconds = seconds_since(t0);
  bool same_scores = true;
  for (int k = 0; k < count; ++k) same_scores = same_scores && scores[k] == all[k].score;
  std::printf("  scores alone: %.3f s, %.1f GCUPS (%s the alignments' scores)\n", score_seconds,
              cells / score_seconds / 1e9, same_scores ? "equal to" : "DIFFERENT from");
  if (!same_scores) return 1;
  if (!check) return 0;
  t0 = std::chrono::steady_clock::now();
  const auto host = align::align_batch_linear_space(
      recurrences::AlignMode::Global, batch, matrix, gaps, options,
      [&](const std::vector<align::RowPass>& passes, const align::SequencePair& pair, align::RowPassOutput out) {
        align::run_row_passes_on_host(passes, pair, matrix, gaps, out);
      });
  const double host_seconds = seconds_since(t0);
  bool same = true;
  for (int k = 0; k < count; ++k) same = same && host[k].score == all[k].score;
  std::printf("host, all cores: %.3f s, %.1f GCUPS; scores %s\n", host_seconds, cells / host_seconds / 1e9,
              same ? "identical" : "DIFFERENT");
  return same ? 0 : 1;
}

}  // namespace

int bench_main(int argc, char** argv) {
  cudp::host::keep_freed_memory();  // as cudp-align does
  std::vector<std::string> args(argv + 1, argv + argc);
  bool check = false;
  int widest = 32;  // columns per lane of the widest strip shape
  cudp::align::LinearSpaceOptions options;
  std::string fasta;
  cudp::recurrences::AlignMode mode = cudp::recurrences::AlignMode::Global;  // batch: --mode=local|semiglobal
  std::vector<std::string> rest;
  for (const auto& a : args) {
    if (a == "--narrow") widest = 16;
    else if (a.rfind("--widest=", 0) == 0) widest = std::atoi(a.c_str() + 9);
    else if (a == "--check") check = true;
    else if (a == "--host-leaves") host_leaves = true;
    else if (a.rfind("--leaf=", 0) == 0) options.leaf_cells = std::atol(a.c_str() + 7);
    else if (a.rfind("--checkpoints=", 0) == 0) options.checkpoint_cells = std::atof(a.c_str() + 14);
    else if (a.rfind("--checkpoint-rows=", 0) == 0) options.checkpoint_rows = std::atoi(a.c_str() + 18);
    else if (a.rfind("--checkpoint-count=", 0) == 0) options.checkpoint_count = std::atoi(a.c_str() + 19);
    else if (a.rfind("--checkpoint-mib=", 0) == 0) options.checkpoint_bytes = std::strtoull(a.c_str() + 17, nullptr, 10) << 20;
    else if (a.rfind("--fasta=", 0) == 0) fasta = a.substr(8);
    else if (a == "--mode=local") mode = cudp::recurrences::AlignMode::Local;
    else if (a == "--mode=semiglobal") mode = cudp::recurrences::AlignMode::SemiGlobal;
    else rest.push_back(a);
  }
  std::vector<cudp::align::RowPass> passes;
  Sequences s;
  if (rest.size() == 4 && rest[0] == "long") {
    const int columns = std::atoi(rest[1].c_str()), rows = std::atoi(rest[2].c_str()), count = std::atoi(rest[3].c_str());
    s = make(static_cast<std::size_t>(columns), static_cast<std::size_t>(rows));
    for (int k = 0; k < count; ++k) {
      cudp::align::RowPass p;
      p.columns = columns;
      p.rows = rows;
      p.reversed = k % 2 == 1;
      p.out = static_cast<std::size_t>(k) * (static_cast<std::size_t>(columns) + 1);
      passes.push_back(p);
    }
  } else if (rest.size() == 3 && rest[0] == "many") {
    const int count = std::atoi(rest[1].c_str()), side = std::atoi(rest[2].c_str());
    s = make(static_cast<std::size_t>(side) * 64, static_cast<std::size_t>(side) * 64);
    std::mt19937_64 rng(7);
    for (int k = 0; k < count; ++k) {
      cudp::align::RowPass p;
      p.columns = side;
      p.rows = side;
      p.query_begin = static_cast<std::int64_t>(rng() % (s.q.size() - side));
      p.target_begin = static_cast<std::int64_t>(rng() % (s.t.size() - side));
      p.reversed = k % 2 == 1;
      p.out = static_cast<std::size_t>(k) * (static_cast<std::size_t>(side) + 1);
      passes.push_back(p);
    }
  } else if (rest.size() == 2 && rest[0] == "locate") {
    const auto length = static_cast<std::size_t>(std::atol(rest[1].c_str()));
    const Sequences pair = make(length, length);
    bench_locate(pair);
    return 0;
  } else if (rest.size() == 2 && rest[0] == "align") {
    return bench_align(static_cast<std::size_t>(std::atol(rest[1].c_str())), check, options, fasta);
  } else if (rest.size() == 5 && rest[0] == "batch") {
    const int count = std::atoi(rest[1].c_str()), low = std::atoi(rest[2].c_str()), high = std::atoi(rest[3].c_str());
    if (rest[4] == "protein") {
      const auto blosum = cudp::io::load_matrix("BLOSUM62", cudp::bio::protein());
      return bench_batch(count, low, high, 20, blosum, {11, 1}, check, options, mode);
    }
    return bench_batch(count, low, high, 4, Dna{}, {5, 2}, check, options, mode);
  } else {
    std::fprintf(stderr, "usage: %s long COLUMNS ROWS PASSES [--narrow] [--check] | many COUNT SIDE [--narrow] [--check] | align LENGTH "
                 "[--check] | batch COUNT MIN MAX protein|dna [--check]\n", argv[0]);
    return 2;
  }
  using cudp::align::StripShapes;
  if (widest == 2) return bench<StripShapes<1, 2>>(s, passes, check);
  if (widest == 4) return bench<StripShapes<1, 2, 4>>(s, passes, check);
  if (widest == 8) return bench<StripShapes<1, 2, 4, 8>>(s, passes, check);
  if (widest == 16) return bench<StripShapes<1, 2, 4, 8, 16>>(s, passes, check);
  return bench<cudp::align::DefaultStripShapes>(s, passes, check);
}

int main(int argc, char** argv) {
  constexpr const char* usage =
      "usage: cudp-row-passes-bench long COLUMNS ROWS PASSES | many COUNT SIDE | align LENGTH | locate LENGTH\n"
      "       | batch COUNT MIN MAX protein|dna   (options: see the head of bench/row_passes_bench.cu)\n";
  return run_gpu_bench("cudp-row-passes-bench", usage, argc, argv, [&] { return bench_main(argc, argv); });
}
