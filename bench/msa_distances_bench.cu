// ClustalW's stage 1 (full pairwise distances, device_clustal_distances.cuh) on the GPU against the host's
// clustal_distances on all host threads, over random families: a few random ancestors, each member a mutated copy
// (substitutions and small indels at rate 0.3) of one, MIN..MAX residues. Prints the times, cells/s (cells: the sum
// of n * m over the pairs, the local pass's matrix; the backward pass and Myers-Miller add about as much again) and
// whether every distance is the same double.
//
//   cudp-msa-distances-bench N MIN MAX [protein|dna] [--threads=T] [--repeat=R] [--no-host] [--seed=S]
//                            [--strips=8,4,...]   (DeviceClustalLimits::strip_rows, each timed; default 8)
#include "gpu_bench_main.cuh"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudp/host/host_cores.hpp"
#include "cudp/msa/clustal_distances.hpp"
#include "cudp/msa/device_clustal_distances.cuh"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::vector<std::vector<int>> make_families(int n, int shortest, int longest, bool dna, unsigned seed) {
  const std::string letters = dna ? "ACGT" : "ACDEFGHIKLMNPQRSTVWY";
  std::mt19937 rng(seed);
  const auto letter = [&] { return letters[rng() % letters.size()]; };
  std::vector<std::string> roots;
  for (int r = 0; r < std::max(1, n / 20); ++r) {
    std::string s(static_cast<std::size_t>(shortest + static_cast<int>(rng() % (longest - shortest + 1))), 'A');
    for (char& c : s) c = letter();
    roots.push_back(s);
  }
  std::uniform_real_distribution<double> u(0, 1);
  const double p = 0.3;
  std::vector<std::vector<int>> seqs;
  for (int k = 0; k < n; ++k) {
    const std::string& root = roots[rng() % roots.size()];
    std::string out;
    for (const char c : root) {
      const double r = u(rng);
      if (r < p / 3) continue;
      if (r < 2 * p / 3) out += letter();
      out += r < p ? letter() : c;
    }
    if (static_cast<int>(out.size()) > longest) out.resize(static_cast<std::size_t>(longest));
    while (static_cast<int>(out.size()) < shortest) out += letter();
    seqs.push_back(cudp::msa::clustal_encode(out));
  }
  return seqs;
}

int bench_main(int argc, char** argv) {
  if (argc < 4) throw std::invalid_argument("expected N MIN MAX");
  const int n = std::atoi(argv[1]), shortest = std::atoi(argv[2]), longest = std::atoi(argv[3]);
  if (n < 2 || shortest < 1 || longest < shortest) throw std::invalid_argument("need N >= 2 and 1 <= MIN <= MAX");
  bool dna = false, host = true;
  int threads = 0, repeat = 3;
  unsigned seed = 1;
  std::vector<int> strips;
  for (int a = 4; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "dna") {
      dna = true;
    } else if (arg == "protein") {
      dna = false;
    } else if (arg.rfind("--threads=", 0) == 0) {
      threads = std::atoi(arg.c_str() + 10);
    } else if (arg.rfind("--repeat=", 0) == 0) {
      repeat = std::max(1, std::atoi(arg.c_str() + 9));
    } else if (arg.rfind("--seed=", 0) == 0) {
      seed = static_cast<unsigned>(std::atoi(arg.c_str() + 7));
    } else if (arg.rfind("--strips=", 0) == 0) {
      std::stringstream list(arg.substr(9));
      for (std::string item; std::getline(list, item, ',');) strips.push_back(std::atoi(item.c_str()));
    } else if (arg == "--no-host") {
      host = false;
    } else {
      throw std::invalid_argument("unknown argument " + arg);
    }
  }
  if (threads <= 0) threads = cudp::host::usable_cores();
  const auto seqs = make_families(n, shortest, longest, dna, seed);
  double cells = 0;
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    for (std::size_t j = i + 1; j < seqs.size(); ++j) cells += static_cast<double>(seqs[i].size() * seqs[j].size());
  }
  const auto settings = cudp::msa::PairwiseDistanceSettings::defaults(dna);
  double gpu_seconds = 1e30;
  std::printf("msa_distances: N=%d lengths %d..%d %s, %zu pairs, %.3g cells\n", n, shortest, longest,
              dna ? "dna" : "protein", seqs.size() * (seqs.size() - 1) / 2, cells);

  if (strips.empty()) strips.push_back(cudp::msa::DeviceClustalLimits{}.strip_rows);
  cudp::phylo::DistanceMatrix device;
  std::size_t strips_differ = 0;
  for (const int strip : strips) {
    cudp::msa::DeviceClustalLimits limits;
    limits.strip_rows = strip;
    auto t = Clock::now();
    cudp::msa::DeviceClustalDistances gpu(seqs, limits);
    const double upload = seconds_since(t);
    cudp::phylo::DistanceMatrix d;
    double best = 1e30;
    for (int r = 0; r < repeat; ++r) {
      t = Clock::now();
      d = gpu.distances(settings.full);
      best = std::min(best, seconds_since(t));
    }
    std::size_t differ = 0;
    if (device.size() == d.size()) {
      for (std::size_t i = 0; i < seqs.size(); ++i)
        for (std::size_t j = 0; j < seqs.size(); ++j) differ += device(i, j) != d(i, j);
    }
    strips_differ += differ;
    std::printf("gpu, strips of %d rows: %.4f s (best of %d; upload %.4f s), %.2f Gcells/s%s\n", strip, best, repeat,
                upload, cells / best / 1e9, differ == 0 ? "" : " (DISTANCES DIFFER from the first strip size)");
    gpu_seconds = std::min(gpu_seconds, best);
    if (device.size() != d.size()) device = std::move(d);
  }
  if (strips_differ != 0) return 2;
  if (!host) return 0;
  auto t = Clock::now();
  const auto reference = cudp::msa::clustal_distances(seqs, settings, threads);
  const double host_seconds = seconds_since(t);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    for (std::size_t j = 0; j < seqs.size(); ++j) differ += device(i, j) != reference(i, j);
  }
  std::printf("host (%d threads): %.4f s, %.2f Gcells/s; gpu speedup %.1fx; distances equal: %s\n", threads,
              host_seconds, cells / host_seconds / 1e9, host_seconds / gpu_seconds,
              differ == 0 ? "yes" : ("NO, " + std::to_string(differ) + " differ").c_str());
  return differ == 0 ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  constexpr const char* usage =
      "usage: cudp-msa-distances-bench N MIN MAX [protein|dna] [--threads=T] [--repeat=R] [--no-host] [--seed=S]\n";
  return run_gpu_bench("cudp-msa-distances-bench", usage, argc, argv, [&] { return bench_main(argc, argv); });
}
