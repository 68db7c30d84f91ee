#pragma once
// Random HMMER3 core models and target sequences for the Plan7 tests: models with peaked emissions (so that real
// hits and overflows happen), optionally with long delete chains (so that Lazy-F has to close D->D paths), and
// targets mixing background residues, runs of the model's consensus and degenerate codes.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cudp/hmmer/plan7.hpp"
#include "cudp/hmmer/hmm_file.hpp"

namespace cudp::test {

struct RandomModelOptions {
  int M = 100;
  bool sticky_deletes = false;  // D->D near 1: deletion chains that beat entering from B
  std::uint32_t seed = 1;
};

inline hmmer::HmmModel random_hmm(const RandomModelOptions& o) {
  std::mt19937 rng(o.seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  hmmer::HmmModel m;
  m.name = "random" + std::to_string(o.M) + "_" + std::to_string(o.seed);
  m.alphabet = hmmer::HmmAlphabet::Amino;
  m.length = o.M;
  const int K = m.residues();
  const auto nodes = static_cast<std::size_t>(o.M) + 1;
  m.match.assign(nodes * static_cast<std::size_t>(K), 0.0f);
  m.insert.assign(nodes * static_cast<std::size_t>(K), 1.0f / static_cast<float>(K));
  m.transitions.assign(nodes * hmmer::kTransitionCount, 0.0f);
  for (int k = 1; k <= o.M; ++k) {
    float sum = 0;
    std::vector<float> p(static_cast<std::size_t>(K));
    const int favourite = static_cast<int>(rng() % static_cast<unsigned>(K));
    for (int x = 0; x < K; ++x) {
      const float r = u(rng);
      p[static_cast<std::size_t>(x)] = r * r * r + 0.002f + (x == favourite ? 2.0f * u(rng) : 0.0f);
      sum += p[static_cast<std::size_t>(x)];
    }
    for (int x = 0; x < K; ++x) m.match[static_cast<std::size_t>(k * K + x)] = p[static_cast<std::size_t>(x)] / sum;
  }
  auto set = [&](int k, hmmer::HmmTransition t, float v) {
    m.transitions[static_cast<std::size_t>(k) * hmmer::kTransitionCount + t] = v;
  };
  for (int k = 0; k < o.M; ++k) {
    const float mi = 0.005f + 0.05f * u(rng), md = 0.005f + (o.sticky_deletes ? 0.3f : 0.05f) * u(rng);
    set(k, hmmer::kMM, 1.0f - mi - md);
    set(k, hmmer::kMI, mi);
    set(k, hmmer::kMD, md);
    const float ii = 0.1f + 0.6f * u(rng);
    set(k, hmmer::kIM, 1.0f - ii);
    set(k, hmmer::kII, ii);
    const float dd = o.sticky_deletes ? 0.9f + 0.099f * u(rng) : 0.05f + 0.5f * u(rng);
    set(k, hmmer::kDM, 1.0f - dd);
    set(k, hmmer::kDD, dd);
  }
  set(o.M, hmmer::kMM, 1.0f);  // node M: everything leaves to E
  set(o.M, hmmer::kIM, 1.0f);
  set(o.M, hmmer::kDM, 1.0f);
  return m;
}

// Targets for a model: background residues, with some holding consensus runs (strong hits, overflow) and
// degenerate codes; lengths from 1 up to max_length.
inline std::vector<std::vector<std::uint8_t>> random_targets(const hmmer::Plan7Profile& p, int count, int max_length,
                                                             std::uint32_t seed) {
  std::mt19937 rng(seed);
  const hmmer::Plan7Alphabet& a = *p.alphabet;
  std::vector<std::vector<std::uint8_t>> targets;
  std::vector<std::uint8_t> consensus(static_cast<std::size_t>(p.M));
  for (int k = 1; k <= p.M; ++k) {
    int best = 0;
    for (int x = 1; x < a.K; ++x) best = p.match_score(k, x) > p.match_score(k, best) ? x : best;
    consensus[static_cast<std::size_t>(k) - 1] = static_cast<std::uint8_t>(best);
  }
  for (int t = 0; t < count; ++t) {
    const int length = t == 0 ? 1 : 1 + static_cast<int>(rng() % static_cast<unsigned>(max_length));
    std::vector<std::uint8_t> s(static_cast<std::size_t>(length));
    for (auto& c : s) c = static_cast<std::uint8_t>(rng() % static_cast<unsigned>(a.K));
    const int kind = t % 4;
    if (kind >= 2 && length > 2) {  // a consensus stretch, whole or partial, once or repeated
      const int copies = kind == 3 ? 1 + static_cast<int>(rng() % 4u) : 1;
      for (int c = 0; c < copies; ++c) {
        const int from = static_cast<int>(rng() % static_cast<unsigned>(p.M));
        const int span = std::min<int>(p.M - from, 1 + static_cast<int>(rng() % static_cast<unsigned>(p.M)));
        const int at = static_cast<int>(rng() % static_cast<unsigned>(length));
        for (int i = 0; i < span && at + i < length; ++i) {
          s[static_cast<std::size_t>(at + i)] = consensus[static_cast<std::size_t>(from + i)];
        }
      }
    }
    if (kind == 1) {  // degenerate codes (B, Z, X...) sprinkled in
      for (auto& c : s) {
        if (rng() % 16u == 0) c = static_cast<std::uint8_t>(a.K + 1 + static_cast<int>(rng() % static_cast<unsigned>(a.Kp - a.K - 3)));
      }
    }
    targets.push_back(std::move(s));
  }
  return targets;
}

}  // namespace cudp::test
