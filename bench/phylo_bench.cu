// Tree likelihood throughput in the shapes of BEAGLE's synthetictest: one full evaluation = the transition matrices
// of every edge and category, the partials of every internal node, and the root log-likelihood, on a random tree
// with random data. Prints the device time per evaluation (CUDA events, median of the repeats after a warm-up)
// and the host tier's time on all cores for the same problem, with both log-likelihoods; for each tier its time and
// its log-likelihood against the host's in double precision; and the transition-matrix kernel's time alone.
//
// usage: cudp-phylo-bench [--repeats N] [--host 0|1] [STATES:TAXA:PATTERNS:CATEGORIES ...]
//   default shapes: BRIEF's BEAGLE figures, 4:64:100000:4, 20:64:20000:4, 61:32:5000:4
#include "gpu_bench_main.cuh"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cudp/phylo/device_tree_likelihood.cuh>
#include <cudp/phylo/host_tree_likelihood.hpp>
#include <string>
#include <vector>

#include "../tests/support/random_tree_problem.hpp"

namespace {

struct Shape {
  int states, taxa, patterns, categories;
};

template <class Real>
double device_ms(cudp::phylo::DeviceTreeLikelihood<Real>& d, int repeats) {
  cudaEvent_t start, stop;
  CUDP_CUDA_CHECK(cudaEventCreate(&start));
  CUDP_CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) d.run();
  std::vector<float> times;
  for (int i = 0; i < repeats; ++i) {
    CUDP_CUDA_CHECK(cudaEventRecord(start));
    d.run();
    CUDP_CUDA_CHECK(cudaEventRecord(stop));
    CUDP_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDP_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CUDP_CUDA_CHECK(cudaEventDestroy(start));
  CUDP_CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// The transition-matrix kernel of an evaluation alone (every edge and category), the part that is not pruning.
template <class Real>
double matrices_ms(const cudp::test::RandomTreeProblem& p, int repeats) {
  cudp::phylo::DeviceTreeLikelihood<Real> d(p.plan, p.data, p.model);
  const auto launch = [&] { d.build_matrices(0, p.plan.buffers, 0); };
  cudaEvent_t start, stop;
  CUDP_CUDA_CHECK(cudaEventCreate(&start));
  CUDP_CUDA_CHECK(cudaEventCreate(&stop));
  launch();
  std::vector<float> times;
  for (int i = 0; i < repeats; ++i) {
    CUDP_CUDA_CHECK(cudaEventRecord(start));
    launch();
    CUDP_CUDA_CHECK(cudaEventRecord(stop));
    CUDP_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDP_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CUDP_CUDA_CHECK(cudaGetLastError());
  CUDP_CUDA_CHECK(cudaEventDestroy(start));
  CUDP_CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct NamedTuning {
  const char* name;
  cudp::tiers::PruningTuning tuning;
};

// Every tier, for the tuning table; the figure is the chosen tier's. reference: the host's log-likelihood in double
// precision (NaN when the host is not run), against which each tier's is given.
template <class Real>
void run(const Shape& s, const cudp::test::RandomTreeProblem& p, int repeats, bool host, double reference) {
  double ms = 0, device_lnl = 0;
  using cudp::tiers::PruningTier;
  const auto chosen = cudp::phylo::pruning_tuning_for(s.states);
  const char* precision = sizeof(Real) == 4 ? "single" : "double";
  const NamedTuning tiers[] = {
      {"by pattern", {PruningTier::by_pattern, 1, 1}},
      {"by state, 1 pattern per thread", {PruningTier::by_state, 1, 1}},
      {"by state, 4 patterns per thread", {PruningTier::by_state, 4, 1}},
      {"by tile, CUDA cores", {PruningTier::by_tile, 1, 1}},
      {"by tile, CUDA cores, 2 blocks/SM", {PruningTier::by_tile, 1, 2}},
      {"by tile, CUDA cores, 4 blocks/SM", {PruningTier::by_tile, 1, 4}},
      {"by tile, tensor cores", {PruningTier::by_tile_tensor, 1, 1}},
      {"by tile, tensor cores, 2 blocks/SM", {PruningTier::by_tile_tensor, 1, 2}},
      {"by tile, one TF32 pass", {PruningTier::by_tile_tf32, 1, 1}},
  };
  for (const NamedTuning& t : tiers) {
    if (t.tuning.tier == PruningTier::by_tile_tf32 && sizeof(Real) != 4) continue;  // double: as tensor cores
    cudp::phylo::DeviceTreeLikelihood<Real> d(p.plan, p.data, p.model, t.tuning);
    const double tier_ms = device_ms(d, repeats);
    const double lnl = d.evaluate(false).log_likelihood;
    std::printf("  %s %d states: %-36s %8.3f ms  lnL %.6f  vs host double %.1e\n", precision, s.states, t.name, tier_ms,
                lnl, std::abs(lnl - reference) / std::abs(reference));
    if (t.tuning.tier == chosen.tier && t.tuning.patterns_per_thread == chosen.patterns_per_thread &&
        t.tuning.blocks_per_multiprocessor == chosen.blocks_per_multiprocessor) {
      ms = tier_ms;
      device_lnl = lnl;
    }
  }
  std::printf("  %s %d states: transition matrices alone %.3f ms\n", precision, s.states,
              matrices_ms<Real>(p, repeats));
  // Partials written per evaluation: internal nodes x categories x patterns x states.
  const double values = static_cast<double>(p.plan.buffers - p.plan.tips) * s.categories * s.patterns * s.states;
  std::printf(
      "%-6s states %2d taxa %3d patterns %6d categories %d: device %8.3f ms (%.1f G partial values/s), lnL %.6f",
      precision, s.states, s.taxa, s.patterns, s.categories, ms, values / ms * 1e-6, device_lnl);
  if (host) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto h = cudp::phylo::evaluate_on_host<Real>(p.plan, p.data, p.model);
    const double host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("; host tier, all cores %.1f ms (%.1fx), lnL %.6f, relative difference %.2e", host_ms, host_ms / ms,
                h.log_likelihood, std::abs(h.log_likelihood - device_lnl) / std::abs(h.log_likelihood));
  }
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int bench_main(int argc, char** argv) {
  int repeats = 20;
  bool host = true;
  std::vector<Shape> shapes;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--repeats" && a + 1 < argc) {
      repeats = std::atoi(argv[++a]);
    } else if (arg == "--host" && a + 1 < argc) {
      host = std::atoi(argv[++a]) != 0;
    } else {
      Shape s{};
      if (std::sscanf(arg.c_str(), "%d:%d:%d:%d", &s.states, &s.taxa, &s.patterns, &s.categories) != 4) {
        std::fprintf(stderr, "cudp-phylo-bench: expected STATES:TAXA:PATTERNS:CATEGORIES, got '%s'\n", arg.c_str());
        return 2;
      }
      shapes.push_back(s);
    }
  }
  if (shapes.empty()) shapes = {{4, 64, 100000, 4}, {20, 64, 20000, 4}, {61, 32, 5000, 4}};
  cudaDeviceProp prop{};
  CUDP_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s\n", prop.name);
  for (const Shape& s : shapes) {
    const auto p = cudp::test::make_random_tree_problem(42, s.taxa, s.patterns, s.states, s.categories);
    const double reference =
        host ? cudp::phylo::evaluate_on_host<double>(p.plan, p.data, p.model).log_likelihood : std::nan("");
    run<float>(s, p, repeats, host, reference);
    run<double>(s, p, repeats, host, reference);
  }
  return 0;
}

int main(int argc, char** argv) {
  constexpr const char* usage =
      "usage: cudp-phylo-bench [--repeats N] [--host 0|1] [STATES:TAXA:PATTERNS:CATEGORIES ...]\n"
      "  default shapes: 4:64:100000:4 20:64:20000:4 61:32:5000:4\n";
  return run_gpu_bench("cudp-phylo-bench", usage, argc, argv, [&] { return bench_main(argc, argv); });
}
