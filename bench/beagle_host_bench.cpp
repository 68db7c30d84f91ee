// The host tree likelihood through BEAGLE's C API, in the shapes of BEAGLE's synthetictest: a balanced tree of
// `tips` tips given as states, random transition matrices set directly (so that the eigen code is not timed), all
// partials updated per traversal, then the root sum. Linked against the system's libhmsbeagle.so.1 (Debian's BEAGLE);
// LD_LIBRARY_PATH=build/apps/beagle/lib runs the same binary on cudp's library instead. The implementation's name is
// printed, so that the line says which library ran.
//
//   cudp-beagle-host-bench STATES PATTERNS [CATEGORIES=4] [TIPS=16] [THREADS=0: the library's choice]
//                          [SCALING=0: none, 1: a scale buffer written per node, accumulated at the root]
#include <libhmsbeagle/beagle.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Milliseconds per call of `step`: the least over batches of calls (each batch about 20 ms, for about `budget`
// seconds in all), since the least is the one other processes on the machine disturbed least.
template <class Step>
double time_per_call(Step step, double budget = 1.5) {
  step();
  step();
  int batch = 1;
  for (auto start = std::chrono::steady_clock::now(); seconds_since(start) < 0.02; batch *= 2)
    for (int i = 0; i < batch; ++i) step();
  double best = 1e300;
  for (const auto start = std::chrono::steady_clock::now(); seconds_since(start) < budget;) {
    const auto batch_start = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) step();
    best = std::min(best, 1e3 * seconds_since(batch_start) / batch);
  }
  return best;
}

void check(int code, const char* what) {
  if (code < 0) {
    std::fprintf(stderr, "%s failed: %d\n", what, code);
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s STATES PATTERNS [CATEGORIES] [TIPS] [THREADS] [SCALING]\n", argv[0]);
    return 2;
  }
  const int states = std::atoi(argv[1]), patterns = std::atoi(argv[2]);
  const int categories = argc > 3 ? std::atoi(argv[3]) : 4;
  const int tips = argc > 4 ? std::atoi(argv[4]) : 16;
  const int threads = argc > 5 ? std::atoi(argv[5]) : 0;
  const bool scaling = argc > 6 && std::atoi(argv[6]) != 0;
  const int nodes = 2 * tips - 1, internal = tips - 1;

  BeagleInstanceDetails details;
  const long preferred = BEAGLE_FLAG_VECTOR_SSE | BEAGLE_FLAG_THREADING_CPP | BEAGLE_FLAG_SCALING_MANUAL;
  const long required = BEAGLE_FLAG_PROCESSOR_CPU | BEAGLE_FLAG_PRECISION_DOUBLE;
  const int instance = beagleCreateInstance(tips, internal + 1, tips, states, patterns, 1, nodes, categories,
                                            scaling ? internal + 1 : 0, nullptr, 0, preferred, required, &details);
  check(instance, "beagleCreateInstance");
  if (threads > 0) check(beagleSetCPUThreadCount(instance, threads), "beagleSetCPUThreadCount");

  std::mt19937_64 random(4711);
  std::uniform_int_distribution<int> state(0, states - 1);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<int> codes(static_cast<std::size_t>(patterns));
  for (int t = 0; t < tips; ++t) {
    // One pattern in 20 a missing datum, as real alignments have.
    for (int& c : codes) c = uniform(random) < 0.05 ? states : state(random);
    check(beagleSetTipStates(instance, t, codes.data()), "beagleSetTipStates");
  }
  std::vector<double> frequencies(static_cast<std::size_t>(states), 1.0 / states);
  std::vector<double> weights(static_cast<std::size_t>(categories), 1.0 / categories);
  std::vector<double> rates(static_cast<std::size_t>(categories), 1.0);
  std::vector<double> pattern_weights(static_cast<std::size_t>(patterns), 1.0);
  check(beagleSetStateFrequencies(instance, 0, frequencies.data()), "beagleSetStateFrequencies");
  check(beagleSetCategoryWeights(instance, 0, weights.data()), "beagleSetCategoryWeights");
  check(beagleSetCategoryRates(instance, rates.data()), "beagleSetCategoryRates");
  check(beagleSetPatternWeights(instance, pattern_weights.data()), "beagleSetPatternWeights");

  // Random rows summing to 1, the diagonal heavier, as short branches give.
  std::vector<double> matrix(static_cast<std::size_t>(categories) * states * states);
  for (int m = 0; m < nodes; ++m) {
    for (int c = 0; c < categories; ++c)
      for (int s = 0; s < states; ++s) {
        double* row = &matrix[(static_cast<std::size_t>(c) * states + s) * states];
        double sum = 0;
        for (int j = 0; j < states; ++j) sum += row[j] = uniform(random) + (j == s ? states : 0);
        for (int j = 0; j < states; ++j) row[j] /= sum;
      }
    check(beagleSetTransitionMatrix(instance, m, matrix.data(), 1.0), "beagleSetTransitionMatrix");
  }

  // A balanced tree: nodes paired in order of creation.
  std::vector<BeagleOperation> operations;
  std::vector<int> queue;
  for (int t = 0; t < tips; ++t) queue.push_back(t);
  std::size_t front = 0;
  int next = tips;
  while (queue.size() - front > 1) {
    const int a = queue[front], b = queue[front + 1];
    front += 2;
    operations.push_back({next, scaling ? next - tips : BEAGLE_OP_NONE, BEAGLE_OP_NONE, a, a, b, b});
    queue.push_back(next++);
  }
  const int root = next - 1;
  std::vector<int> scale_buffers;
  for (int i = 0; i < internal; ++i) scale_buffers.push_back(i);
  const int cumulative = scaling ? internal : BEAGLE_OP_NONE;

  auto traverse = [&] {
    check(beagleUpdatePartials(instance, operations.data(), static_cast<int>(operations.size()), BEAGLE_OP_NONE),
          "beagleUpdatePartials");
  };
  double log_likelihood = 0;
  const int zero = 0;
  auto at_root = [&] {
    if (scaling) {
      check(beagleResetScaleFactors(instance, cumulative), "beagleResetScaleFactors");
      check(beagleAccumulateScaleFactors(instance, scale_buffers.data(), internal, cumulative),
            "beagleAccumulateScaleFactors");
    }
    check(beagleCalculateRootLogLikelihoods(instance, &root, &zero, &zero, &cumulative, 1, &log_likelihood),
          "beagleCalculateRootLogLikelihoods");
  };
  const double partials_ms = time_per_call(traverse);
  const double root_ms = time_per_call(at_root);
  const double flops = 2.0 * 2 * static_cast<double>(internal) * patterns * categories * states * states;
  std::printf("%-28s states %2d patterns %6d categories %d tips %3d threads %d scaling %d  partials %9.3f ms "
              "(%5.2f Gflop/s)  root %8.3f ms  lnL %.10f\n",
              details.implName, states, patterns, categories, tips, threads, scaling ? 1 : 0, partials_ms,
              flops / partials_ms * 1e-6, root_ms, log_likelihood);
  beagleFinalizeInstance(instance);
  return 0;
}
