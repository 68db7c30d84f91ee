// Smith-Waterman database-search benchmark: every query of a ladder against the whole database, per lane width,
// reporting GCUPS per query and overall (kernel time, events) and the per-tier split.
#include "gpu_bench_main.cuh"
#include <cstdio>
#include <string>
#include <vector>

#include <cudp/bio/alphabet.hpp>
#include <cudp/engine/device_scorer.cuh>
#include <cudp/io/database_file.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/recurrences/gotoh.hpp>

#include "kit/tuning_env.hpp"

template <class L> using LocalSW = cudp::recurrences::Gotoh<cudp::recurrences::AlignMode::Local, L>;

template <class Lane>
void run(const char* label, const cudp::io::SequenceSet& queries, const cudp::io::SequenceSet& db,
         const cudp::io::SubstitutionMatrix& matrix, std::vector<std::vector<int>>* reference) {
  cudaDeviceProp prop{};
  CUDP_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  auto view = cudp::engine::view_of(db);
  // The tuning of the device's architecture; CUDP_TIERS and CUDP_WARP_SHAPE override it for tuning runs.
  cudp::engine::DeviceScorer<LocalSW, Lane> scorer(view, static_cast<std::uint8_t>(matrix.size),
                                                   cudp::apps::dispatch_options_from_env());
  double cells_all = 0, secs_all = 0;
  std::uint64_t mismatches = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    cudp::engine::CascadeStats cs;
    cudp::engine::DeviceRunStats rs;
    int m = static_cast<int>(queries.length(q));
    scorer.score({11, 1}, matrix, matrix.size, queries.data(q), m, nullptr, nullptr);  // warm-up
    auto scores = scorer.score({11, 1}, matrix, matrix.size, queries.data(q), m, &cs, &rs);
    if (reference) {
      if (reference->size() <= q) reference->push_back(scores);
      else
        for (std::size_t t = 0; t < scores.size(); ++t) mismatches += scores[t] != (*reference)[q][t];
    }
    double secs = (rs.kernel_ms + rs.rescore_ms) / 1e3, cells = static_cast<double>(cs.cells);
    auto gcups = [](const cudp::engine::TierRunStats& t) { return t.ms > 0 ? t.cells / (t.ms / 1e3) / 1e9 : 0.0; };
    const auto& warp = rs.tier("warp");
    cells_all += cells;
    secs_all += secs;
    std::printf("%-6s query %-12s len %5d  %8.1f GCUPS  (thread %.1f / warp %dx%d %.1f / block %.1f GCUPS; rescored %llu)\n",
                label, queries.names[q].c_str(), m, cells / secs / 1e9,
                gcups(rs.tier("thread")), warp.shape.group, warp.shape.columns, gcups(warp), gcups(rs.tier("block")),
                static_cast<unsigned long long>(cs.rescored_overflow));
  }
  std::printf("%-6s OVERALL %.1f GCUPS on %s (%zu queries, %zu targets, %llu residues)%s\n", label, cells_all / secs_all / 1e9,
              prop.name, queries.size(), db.size(), static_cast<unsigned long long>(db.total_residues()),
              reference && mismatches ? " SCORE MISMATCHES vs s16x2!" : "");
  if (reference && mismatches) std::printf("%-6s mismatching scores: %llu\n", label, static_cast<unsigned long long>(mismatches));
  std::fflush(stdout);
}

int bench_main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: cudp-sw-bench QUERIES.fa DB(.fa|.cudpdb) [lanes: s16x2,s8x4,s32,h16x2]\n");
    return 2;
  }
  try {
    const auto& alphabet = cudp::bio::protein();
    auto queries = cudp::io::load_sequences(argv[1], alphabet);
    auto db = cudp::io::load_sequences(argv[2], alphabet);
    auto matrix = cudp::io::load_matrix("BLOSUM62", alphabet);
    std::string lanes = argc > 3 ? argv[3] : "s16x2,s8x4,s32,h16x2";
    std::vector<std::vector<int>> reference;
    if (lanes.find("s16x2") != std::string::npos) run<cudp::lanes::s16x2>("s16x2", queries, db, matrix, &reference);
    if (lanes.find("s8x4") != std::string::npos) run<cudp::lanes::s8x4>("s8x4", queries, db, matrix, &reference);
    if (lanes.find("s32") != std::string::npos) run<cudp::lanes::s32>("s32", queries, db, matrix, &reference);
    if (lanes.find("h16x2") != std::string::npos) run<cudp::lanes::h16x2>("h16x2", queries, db, matrix, &reference);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudp-sw-bench: %s\n", e.what());
    return 1;
  }
}

int main(int argc, char** argv) {
  constexpr const char* usage =
      "usage: cudp-sw-bench QUERIES.fa DB(.fa|.cudpdb) [lanes: s16x2,s8x4,s32,h16x2]\n";
  return run_gpu_bench("cudp-sw-bench", usage, argc, argv, [&] { return bench_main(argc, argv); });
}
