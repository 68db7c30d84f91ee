#pragma once
// Likelihood problems for tests of the BEAGLE API (libhmsbeagle.so.1 built from apps/beagle): a tree, tip data
// (observed states, missing data, ambiguous tips given as partials), a random reversible model with gamma-like
// categories; how to load one into an instance and evaluate it through the API; and two references that share no
// code with the library: the sum over every assignment of states to the internal nodes (small trees) and a plain
// recursive pruning that rescales each node by its largest value (deep trees).
#include <libhmsbeagle/beagle.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudp/phylo/eigen_decomposition.hpp"
#include "cudp/phylo/substitution_model.hpp"

namespace beagle_test {

namespace phylo = cudp::phylo;

struct Node {
  std::vector<int> children;
  double length = 0;  // of the edge above
};

// Nodes [0, tips) are the tips; the root is the last node; children come before their parents.
struct Tree {
  int tips = 0;
  std::vector<Node> nodes;
  int root() const { return static_cast<int>(nodes.size()) - 1; }
};

struct Model {
  int states = 0;
  std::vector<double> frequencies, rates, weights;  // rates and weights per category
  phylo::EigenSystem eigen;
};

struct Problem {
  Tree tree;
  int patterns = 0;
  // [tip][pattern]: a state, or `states` for missing data; for a tip given as partials, -1 and tip_partials.
  std::vector<std::vector<int>> states;
  std::vector<std::vector<double>> tip_partials;  // [tip][pattern * states + state], empty for a compact tip
  std::vector<double> pattern_weights;
  Model model;
};

inline Model random_model(std::mt19937& rng, int states, int categories) {
  std::uniform_real_distribution<double> u(0.2, 3.0);
  phylo::SubstitutionModel m;
  m.states = states;
  m.exchangeabilities.assign(static_cast<std::size_t>(states * states), 0.0);
  for (int i = 0; i < states; ++i)
    for (int j = 0; j < i; ++j)
      m.exchangeabilities[static_cast<std::size_t>(i * states + j)] =
          m.exchangeabilities[static_cast<std::size_t>(j * states + i)] = u(rng);
  double total = 0;
  for (int s = 0; s < states; ++s) total += m.frequencies.emplace_back(u(rng));
  for (double& f : m.frequencies) f /= total;
  Model out;
  out.states = states;
  out.frequencies = m.frequencies;
  out.eigen = phylo::decompose(m);
  double mean = 0;
  for (int c = 0; c < categories; ++c) {
    out.rates.push_back(0.1 + 0.9 * c * c);
    out.weights.push_back(1.0 + c);
  }
  double weight_total = 0;
  for (const double w : out.weights) weight_total += w;
  for (double& w : out.weights) w /= weight_total;
  for (int c = 0; c < categories; ++c)
    mean += out.rates[static_cast<std::size_t>(c)] * out.weights[static_cast<std::size_t>(c)];
  for (double& r : out.rates) r /= mean;
  return out;
}

// A random binary tree: joins two random subtrees until one is left; caterpillar: always the last one and the next
// tip.
inline Tree random_tree(std::mt19937& rng, int tips, bool caterpillar = false) {
  std::uniform_real_distribution<double> length(0.01, 0.5);
  Tree t;
  t.tips = tips;
  t.nodes.resize(static_cast<std::size_t>(tips));
  for (Node& n : t.nodes) n.length = length(rng);
  std::vector<int> open;
  for (int i = 0; i < tips; ++i) open.push_back(i);
  if (caterpillar) {
    int last = 0;
    for (int i = 1; i < tips; ++i) {
      t.nodes.push_back({{last, i}, length(rng)});
      last = t.root();
    }
  } else {
    while (open.size() > 1) {
      std::uniform_int_distribution<std::size_t> pick(0, open.size() - 1);
      const std::size_t a = pick(rng);
      const int first = open[a];
      open.erase(open.begin() + static_cast<std::ptrdiff_t>(a));
      std::uniform_int_distribution<std::size_t> pick2(0, open.size() - 1);
      const std::size_t b = pick2(rng);
      const int second = open[b];
      open.erase(open.begin() + static_cast<std::ptrdiff_t>(b));
      t.nodes.push_back({{first, second}, length(rng)});
      open.push_back(t.root());
    }
  }
  t.nodes.back().length = 0;
  return t;
}

// Tips with states, some missing data; `ambiguous` tips come as partials with random sets of allowed states.
inline Problem random_problem(std::mt19937& rng, const Tree& tree, int patterns, int states, int categories,
                              int ambiguous) {
  Problem p;
  p.tree = tree;
  p.patterns = patterns;
  p.model = random_model(rng, states, categories);
  std::uniform_int_distribution<int> state(0, states - 1), weight(1, 5), coin(0, 9);
  p.states.assign(static_cast<std::size_t>(tree.tips), std::vector<int>(static_cast<std::size_t>(patterns)));
  p.tip_partials.resize(static_cast<std::size_t>(tree.tips));
  for (int t = 0; t < tree.tips; ++t) {
    auto& row = p.states[static_cast<std::size_t>(t)];
    for (int& s : row) s = coin(rng) == 0 ? states : state(rng);
    if (t < ambiguous) {
      auto& partials = p.tip_partials[static_cast<std::size_t>(t)];
      partials.assign(static_cast<std::size_t>(patterns * states), 0.0);
      for (int q = 0; q < patterns; ++q) {
        const int s = row[static_cast<std::size_t>(q)];
        for (int x = 0; x < states; ++x)
          partials[static_cast<std::size_t>(q * states + x)] = (s == states || x == s || coin(rng) < 3) ? 1.0 : 0.0;
        row[static_cast<std::size_t>(q)] = -1;
      }
    }
  }
  for (int q = 0; q < patterns; ++q) p.pattern_weights.push_back(weight(rng));
  return p;
}

// The value a tip gives state x at pattern q: 0 or 1 (or what its partials say).
inline double tip_value(const Problem& p, int tip, int q, int x) {
  const auto& partials = p.tip_partials[static_cast<std::size_t>(tip)];
  if (!partials.empty()) return partials[static_cast<std::size_t>(q * p.model.states + x)];
  const int s = p.states[static_cast<std::size_t>(tip)][static_cast<std::size_t>(q)];
  return s == p.model.states || s == x ? 1.0 : 0.0;
}

inline std::vector<double> matrix(const Model& m, double t) {
  std::vector<double> out(static_cast<std::size_t>(m.states * m.states));
  m.eigen.transition_matrix(t, out.data());
  return out;
}

// Sum over every assignment of states to the internal nodes; the root's children may be any number. Each
// pattern's likelihood (not its log), weighted over categories.
inline std::vector<double> brute_force_sites(const Problem& p) {
  const Tree& t = p.tree;
  const Model& m = p.model;
  const int n = m.states;
  const int internal = static_cast<int>(t.nodes.size()) - t.tips;
  std::vector<int> parent(t.nodes.size(), -1);
  for (std::size_t v = 0; v < t.nodes.size(); ++v)
    for (const int c : t.nodes[v].children) parent[static_cast<std::size_t>(c)] = static_cast<int>(v);
  std::vector<double> sites(static_cast<std::size_t>(p.patterns), 0.0);
  for (std::size_t c = 0; c < m.rates.size(); ++c) {
    std::vector<std::vector<double>> P;
    for (const Node& v : t.nodes) P.push_back(matrix(m, v.length * m.rates[c]));
    long combos = 1;
    for (int i = 0; i < internal; ++i) combos *= n;
    std::vector<int> state(t.nodes.size(), 0);
    for (int q = 0; q < p.patterns; ++q) {
      double sum = 0;
      for (long k = 0; k < combos; ++k) {
        long rest = k;
        for (int v = t.tips; v < static_cast<int>(t.nodes.size()); ++v) {
          state[static_cast<std::size_t>(v)] = static_cast<int>(rest % n);
          rest /= n;
        }
        double prob = m.frequencies[static_cast<std::size_t>(state[static_cast<std::size_t>(t.root())])];
        for (int v = 0; v < static_cast<int>(t.nodes.size()) && prob > 0; ++v) {
          if (v == t.root()) continue;
          const int from = state[static_cast<std::size_t>(parent[static_cast<std::size_t>(v)])];
          const auto& row = P[static_cast<std::size_t>(v)];
          if (v < t.tips) {
            double allowed = 0;
            for (int x = 0; x < n; ++x) allowed += row[static_cast<std::size_t>(from * n + x)] * tip_value(p, v, q, x);
            prob *= allowed;
          } else {
            prob *= row[static_cast<std::size_t>(from * n + state[static_cast<std::size_t>(v)])];
          }
        }
        sum += prob;
      }
      sites[static_cast<std::size_t>(q)] += m.weights[c] * sum;
    }
  }
  return sites;
}

// Plain recursive pruning in double, each node's vector divided by its largest value and the logarithm kept: site
// log-likelihoods of trees of any depth. The root may have any number of children.
inline std::vector<double> pruned_site_logs(const Problem& p) {
  const Tree& t = p.tree;
  const Model& m = p.model;
  const auto n = static_cast<std::size_t>(m.states);
  std::vector<double> out(static_cast<std::size_t>(p.patterns), 0.0);
  for (int q = 0; q < p.patterns; ++q) {
    std::vector<double> per_category;
    std::vector<double> logs;
    for (std::size_t c = 0; c < m.rates.size(); ++c) {
      std::vector<std::vector<double>> vec(t.nodes.size());
      std::vector<double> log_scale(t.nodes.size(), 0.0);
      for (int v = 0; v < static_cast<int>(t.nodes.size()); ++v) {
        auto& here = vec[static_cast<std::size_t>(v)];
        if (v < t.tips) {
          for (std::size_t x = 0; x < n; ++x) here.push_back(tip_value(p, v, q, static_cast<int>(x)));
          continue;
        }
        here.assign(n, 1.0);
        for (const int child : t.nodes[static_cast<std::size_t>(v)].children) {
          const auto P = matrix(m, t.nodes[static_cast<std::size_t>(child)].length * m.rates[c]);
          for (std::size_t s = 0; s < n; ++s) {
            double sum = 0;
            for (std::size_t x = 0; x < n; ++x) sum += P[s * n + x] * vec[static_cast<std::size_t>(child)][x];
            here[s] *= sum;
          }
          log_scale[static_cast<std::size_t>(v)] += log_scale[static_cast<std::size_t>(child)];
        }
        const double top = *std::max_element(here.begin(), here.end());
        if (top > 0) {
          for (double& x : here) x /= top;
          log_scale[static_cast<std::size_t>(v)] += std::log(top);
        }
      }
      double root = 0;
      for (std::size_t s = 0; s < n; ++s) root += m.frequencies[s] * vec[static_cast<std::size_t>(t.root())][s];
      logs.push_back(std::log(m.weights[c] * root) + log_scale[static_cast<std::size_t>(t.root())]);
    }
    const double top = *std::max_element(logs.begin(), logs.end());
    double sum = 0;
    for (const double l : logs) sum += std::exp(l - top);
    out[static_cast<std::size_t>(q)] = top + std::log(sum);
  }
  return out;
}

inline double weighted_log_sum(const Problem& p, const std::vector<double>& site_logs) {
  double total = 0;
  for (int q = 0; q < p.patterns; ++q)
    total += p.pattern_weights[static_cast<std::size_t>(q)] * site_logs[static_cast<std::size_t>(q)];
  return total;
}

inline std::vector<double> logs_of(const std::vector<double>& sites) {
  std::vector<double> out;
  for (const double s : sites) out.push_back(std::log(s));
  return out;
}

// An instance freed at scope exit.
struct Instance {
  int id = -1;
  BeagleInstanceDetails details{};
  Instance(int tips, int partials, int compact, int states, int patterns, int eigens, int matrices, int categories,
           int scales, long preference, long requirement, int resource = -1) {
    id = beagleCreateInstance(tips, partials, compact, states, patterns, eigens, matrices, categories, scales,
                              resource < 0 ? nullptr : &resource, resource < 0 ? 0 : 1, preference, requirement,
                              &details);
  }
  ~Instance() {
    if (id >= 0) beagleFinalizeInstance(id);
  }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
};

// Loads a problem the way MrBayes does: buffers [0, tips) the tips, internal node v is buffer v; matrix v is the
// edge above node v; eigen, weights and frequencies buffer `model`. Returns the operations of the traversal
// (children before parents), writing scale buffer v - tips at each node when `scale_writes`.
inline std::vector<BeagleOperation> load(int id, const Problem& p, int model = 0, bool scale_writes = false) {
  const Tree& t = p.tree;
  const Model& m = p.model;
  for (int tip = 0; tip < t.tips; ++tip) {
    if (!p.tip_partials[static_cast<std::size_t>(tip)].empty()) {
      if (beagleSetTipPartials(id, tip, p.tip_partials[static_cast<std::size_t>(tip)].data()) != BEAGLE_SUCCESS)
        throw std::runtime_error("beagleSetTipPartials");
    } else if (beagleSetTipStates(id, tip, p.states[static_cast<std::size_t>(tip)].data()) != BEAGLE_SUCCESS) {
      throw std::runtime_error("beagleSetTipStates");
    }
  }
  if (beagleSetPatternWeights(id, p.pattern_weights.data()) != BEAGLE_SUCCESS ||
      beagleSetEigenDecomposition(id, model, m.eigen.vectors.data(), m.eigen.inverse.data(), m.eigen.values.data()) !=
          BEAGLE_SUCCESS ||
      beagleSetStateFrequencies(id, model, m.frequencies.data()) != BEAGLE_SUCCESS ||
      beagleSetCategoryWeights(id, model, m.weights.data()) != BEAGLE_SUCCESS ||
      beagleSetCategoryRatesWithIndex(id, model, m.rates.data()) != BEAGLE_SUCCESS)
    throw std::runtime_error("loading the model");
  std::vector<int> indices;
  std::vector<double> lengths;
  for (int v = 0; v < static_cast<int>(t.nodes.size()); ++v) {
    indices.push_back(v);
    lengths.push_back(t.nodes[static_cast<std::size_t>(v)].length);
  }
  const std::vector<int> eigens(indices.size(), model), rates(indices.size(), model);
  if (beagleUpdateTransitionMatricesWithMultipleModels(id, eigens.data(), rates.data(), indices.data(), nullptr,
                                                       nullptr, lengths.data(),
                                                       static_cast<int>(indices.size())) != BEAGLE_SUCCESS)
    throw std::runtime_error("beagleUpdateTransitionMatricesWithMultipleModels");
  std::vector<BeagleOperation> ops;
  for (int v = t.tips; v < static_cast<int>(t.nodes.size()); ++v) {
    const auto& c = t.nodes[static_cast<std::size_t>(v)].children;
    if (c.size() != 2) continue;  // a root with more children is joined by the caller (edge likelihoods)
    ops.push_back({v, scale_writes ? v - t.tips : BEAGLE_OP_NONE, BEAGLE_OP_NONE, c[0], c[0], c[1], c[1]});
  }
  return ops;
}

// Partition k's model into eigen, frequency, weight and rate buffers k, and its matrices at k * n + v for each of the
// tree's n nodes v; then the operations of every internal node for every partition, interleaved by partition as
// MrBayes hands them over (partials buffers are shared, matrices are not).
inline std::vector<BeagleOperationByPartition> load_partitions(int id, const Tree& t, const std::vector<Model>& models) {
  const int n = static_cast<int>(t.nodes.size()), parts = static_cast<int>(models.size());
  std::vector<int> eigens, rates, matrices;
  std::vector<double> lengths;
  for (int k = 0; k < parts; ++k) {
    const Model& m = models[static_cast<std::size_t>(k)];
    if (beagleSetEigenDecomposition(id, k, m.eigen.vectors.data(), m.eigen.inverse.data(), m.eigen.values.data()) !=
            BEAGLE_SUCCESS ||
        beagleSetStateFrequencies(id, k, m.frequencies.data()) != BEAGLE_SUCCESS ||
        beagleSetCategoryWeights(id, k, m.weights.data()) != BEAGLE_SUCCESS ||
        beagleSetCategoryRatesWithIndex(id, k, m.rates.data()) != BEAGLE_SUCCESS)
      throw std::runtime_error("loading partition " + std::to_string(k) + "'s model");
    for (int v = 0; v < n; ++v) {
      eigens.push_back(k);
      rates.push_back(k);
      matrices.push_back(k * n + v);
      lengths.push_back(t.nodes[static_cast<std::size_t>(v)].length);
    }
  }
  if (beagleUpdateTransitionMatricesWithMultipleModels(id, eigens.data(), rates.data(), matrices.data(), nullptr,
                                                       nullptr, lengths.data(),
                                                       static_cast<int>(lengths.size())) != BEAGLE_SUCCESS)
    throw std::runtime_error("beagleUpdateTransitionMatricesWithMultipleModels");
  std::vector<BeagleOperationByPartition> ops;
  for (int v = t.tips; v < n; ++v)
    for (int k = 0; k < parts; ++k) {
      const auto& c = t.nodes[static_cast<std::size_t>(v)].children;
      ops.push_back({v, BEAGLE_OP_NONE, BEAGLE_OP_NONE, c[0], k * n + c[0], c[1], k * n + c[1], k, BEAGLE_OP_NONE});
    }
  return ops;
}

}  // namespace beagle_test
