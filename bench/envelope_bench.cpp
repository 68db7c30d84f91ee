// The host's work per domain envelope after the GPU filters and parsers, timed phase by phase: Forward and Backward
// with full matrices, then the posterior sweep (decoding, null2, optimal accuracy and its traceback). The sweep is
// also timed against the three passes it replaces (decoding in place, optimal accuracy over the Forward matrix,
// null2), as HMMER runs them. Each thread rescores its own copy of an envelope of the model's consensus with
// substitutions, as cudp-hmmsearch's workers do at once, so that running it with 1 and with all threads shows what
// sharing the caches and memory costs.
// Usage: cudp-envelope-bench MODEL.hmm [LENGTH [THREADS [ROUNDS]]]   (defaults: the model's length, also for 0; 1; 5)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "cudp/hmmer/hmm_file.hpp"
#include "cudp/hmmer/null_model.hpp"
#include "cudp/hmmer/plan7_envelope.hpp"
#include "cudp/hmmer/plan7_profile.hpp"

using namespace cudp::hmmer;

namespace {

struct PhaseTimes {
  double forward = 0, backward = 0, posteriors = 0, apart = 0;  // seconds, the fastest round of each
};

PhaseTimes rescore(const Plan7Profile& profile, const Plan7Alphabet& alphabet, int length, int rounds,
                   unsigned seed) {
  use_hmmer_float_mode();
  StripedOddsProfile om(profile);
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> x(static_cast<std::size_t>(length));
  for (int i = 0; i < length; ++i) {  // the consensus, one residue in four replaced at random
    const int k = 1 + i % profile.M;
    int best = 0;
    for (int c = 1; c < alphabet.K; ++c) best = profile.match_score(k, c) > profile.match_score(k, best) ? c : best;
    x[static_cast<std::size_t>(i)] =
        static_cast<std::uint8_t>(rng() % 4 == 0 ? static_cast<int>(rng() % static_cast<unsigned>(alphabet.K)) : best);
  }
  om.set_mode(false, length);
  StripedMatrix fwd, bck, oa_matrix;
  EnvelopeScratch scratch;
  std::vector<float> null2;
  OptimalAccuracyResult oa;
  PhaseTimes best{1e9, 1e9, 1e9, 1e9};
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point a, clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  for (int r = 0; r <= rounds; ++r) {  // round 0 touches the matrices' pages first
    const auto t0 = clock::now();
    striped_forward(om, x.data(), length, fwd, true);
    const auto t1 = clock::now();
    striped_backward(om, x.data(), length, fwd, bck, true);
    const auto t2 = clock::now();
    envelope_posteriors(om, alphabet, fwd, bck, scratch, oa_matrix, oa, &null2, nullptr);
    const auto t3 = clock::now();
    if (posterior_decoding(om, fwd, bck, bck)) {
      optimal_accuracy(om, bck, fwd, nullptr);
      null2_by_expectation(om, alphabet, bck, null2);
    }
    const auto t4 = clock::now();
    if (r == 0) continue;
    best.apart = std::min(best.apart, seconds(t3, t4));
    best.forward = std::min(best.forward, seconds(t0, t1));
    best.backward = std::min(best.backward, seconds(t1, t2));
    best.posteriors = std::min(best.posteriors, seconds(t2, t3));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.hmm [LENGTH [THREADS [ROUNDS]]]\n", argv[0]);
    return 2;
  }
  const std::vector<HmmModel> models = read_hmm_file(argv[1]);
  const HmmModel& hmm = models.at(0);
  const Plan7Alphabet& alphabet = plan7_alphabet_of(hmm.alphabet);
  const Plan7Profile profile = configure_profile(hmm, default_null_model(alphabet));
  const int length = argc > 2 && std::atoi(argv[2]) > 0 ? std::atoi(argv[2]) : profile.M;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 5;
  std::vector<PhaseTimes> times(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      times[static_cast<std::size_t>(t)] = rescore(profile, alphabet, length, rounds, static_cast<unsigned>(t) + 1);
    });
  }
  for (std::thread& t : pool) t.join();
  PhaseTimes mean;
  for (const PhaseTimes& t : times) {
    mean.forward += t.forward / threads;
    mean.backward += t.backward / threads;
    mean.posteriors += t.posteriors / threads;
    mean.apart += t.apart / threads;
  }
  const double cells = static_cast<double>(length) * profile.M;
  std::printf("%s: %d nodes, envelope of %d residues, %d thread(s): forward %.1f ms (%.2f Gcells/s), backward %.1f ms, "
              "posterior sweep %.1f ms (%.1f ms in three passes)\n",
              hmm.name.c_str(), profile.M, length, threads, mean.forward * 1e3, cells / mean.forward / 1e9,
              mean.backward * 1e3, mean.posteriors * 1e3, mean.apart * 1e3);
  return 0;
}
