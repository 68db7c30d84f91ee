// cudp's libhmsbeagle.so.1 on its CUDA resource against its host resource (and the references of
// beagle_problems.hpp where they are cheap): every state count the GPU builds, one and four categories, double and
// single precision, root, edge and per-site log-likelihoods, deep trees, several buffers at a root, pattern
// partitions with operations by partition, and buffers set and read back.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>

#include "beagle_problems.hpp"

namespace {

using namespace beagle_test;

int gpu_resource() {
  const BeagleResourceList* list = beagleGetResourceList();
  for (int r = 0; r < list->length; ++r)
    if (list->list[r].supportFlags & BEAGLE_FLAG_FRAMEWORK_CUDA) return r;
  return -1;
}

struct Result {
  double log_likelihood = 0;
  std::vector<double> sites;
};

// The problem's root log-likelihood and per-site values on one resource.
Result evaluate(const Problem& p, int resource, long precision) {
  const int n = static_cast<int>(p.tree.nodes.size());
  Instance in(p.tree.tips, n, p.tree.tips, p.model.states, p.patterns, 1, n, static_cast<int>(p.model.rates.size()), 0,
              precision, 0, resource);
  REQUIRE(in.id >= 0);
  INFO(in.details.resourceName << " " << in.details.implName);
  CHECK((in.details.flags & (resource == 0 ? BEAGLE_FLAG_FRAMEWORK_CPU : BEAGLE_FLAG_FRAMEWORK_CUDA)) != 0);
  const auto ops = load(in.id, p);
  REQUIRE(beagleUpdatePartials(in.id, ops.data(), static_cast<int>(ops.size()), BEAGLE_OP_NONE) == BEAGLE_SUCCESS);
  Result r;
  const int model = 0, none = BEAGLE_OP_NONE, top = p.tree.root();
  REQUIRE(beagleCalculateRootLogLikelihoods(in.id, &top, &model, &model, &none, 1, &r.log_likelihood) ==
          BEAGLE_SUCCESS);
  r.sites.resize(static_cast<std::size_t>(p.patterns));
  REQUIRE(beagleGetSiteLogLikelihoods(in.id, r.sites.data()) == BEAGLE_SUCCESS);
  return r;
}

// Single precision on the GPU against double on the host, in nats. The host resource's single precision on these
// problems differs from its double by 5.5e-4 at most in a sum and 4.7e-6 at most in a site (the scenario of
// partitions below: 9.3e-6 and 3.9e-7); the GPU's float rounds in its own order, as much again. A bound relative to
// the log-likelihood (1e-4 of -2.8e5 is 28 nats) would hide a rescale off by one power of two, ln 2 = 0.69; these are
// 35 and 690 times below it.
constexpr double single_sum_nats = 2e-2, single_site_nats = 1e-3;

// Double to `tolerance` relative (sites to ten times that), single to the bounds above; the largest differences are
// printed for the record.
void compare(const Result& gpu, const Result& host, double tolerance, bool single, const char* what) {
  const double sum = std::abs(gpu.log_likelihood - host.log_likelihood);
  INFO("GPU " << gpu.log_likelihood << ", host " << host.log_likelihood);
  CHECK(sum <= (single ? single_sum_nats : tolerance * std::abs(host.log_likelihood)));
  double site = 0;
  for (std::size_t q = 0; q < host.sites.size(); ++q) {
    const double d = std::abs(gpu.sites[q] - host.sites[q]);
    site = std::max(site, d);
    CHECK(d <= (single ? single_site_nats : tolerance * 10 * std::abs(host.sites[q]) + tolerance));
  }
  std::printf("%s, %s: GPU - host double, %.1e nats in the sum, at most %.1e in a site\n", what,
              single ? "single" : "double", sum, site);
}

constexpr long dbl = BEAGLE_FLAG_PRECISION_DOUBLE;
constexpr long sgl = BEAGLE_FLAG_PRECISION_SINGLE;

}  // namespace

TEST_CASE("the CUDA resource is listed and chosen for the GPU", "[beagle][gpu]") {
  const int gpu = gpu_resource();
  REQUIRE(gpu > 0);
  const BeagleResourceList* list = beagleGetResourceList();
  CHECK(std::strstr(list->list[gpu].name, "cudp") != nullptr);
  // MrBayes' beagledevice=gpu prefers PROCESSOR_GPU; the benchmark list then leads with the GPU.
  const BeagleBenchmarkedResourceList* bench =
      beagleGetBenchmarkedResourceList(5, 5, 4, 100, 4, nullptr, 0, BEAGLE_FLAG_PROCESSOR_GPU | dbl, 0, 1, 1, 0, 0);
  REQUIRE(bench != nullptr);
  CHECK(bench->list[0].number == gpu);
  Instance in(4, 8, 4, 4, 10, 1, 8, 1, 0, BEAGLE_FLAG_PROCESSOR_GPU, 0);
  REQUIRE(in.id >= 0);
  CHECK(in.details.resourceNumber == gpu);
  CHECK(beagleSetCPUThreadCount(in.id, 4) == BEAGLE_SUCCESS);  // no effect on a GPU, as in BEAGLE
}

TEST_CASE("GPU root log-likelihoods equal the host's, every state count built", "[beagle][gpu]") {
  const int gpu = gpu_resource();
  REQUIRE(gpu > 0);
  std::mt19937 rng(51);
  for (const int states : {2, 4, 8, 16, 20, 40, 61})
    for (const int categories : {1, 4}) {
      const int tips = states >= 40 ? 12 : 40, patterns = states >= 40 ? 150 : 700;
      const Problem p = random_problem(rng, random_tree(rng, tips), patterns, states, categories, 3);
      const Result host = evaluate(p, 0, dbl);
      INFO(states << " states, " << categories << " categories");
      const std::string what = std::to_string(states) + " states, " + std::to_string(categories) + " categories";
      compare(evaluate(p, gpu, dbl), host, 1e-11, false, what.c_str());
      compare(evaluate(p, gpu, sgl), host, 0, true, what.c_str());
      if (states == 4 && categories == 4)
        CHECK(host.log_likelihood == Approx(weighted_log_sum(p, pruned_site_logs(p))).epsilon(1e-11));
    }
}

TEST_CASE("GPU deep trees rescale as the host does", "[beagle][gpu]") {
  const int gpu = gpu_resource();
  REQUIRE(gpu > 0);
  std::mt19937 rng(53);
  for (const auto& [tips, precision] : {std::tuple<int, long>{1200, dbl}, std::tuple<int, long>{150, sgl}}) {
    const Problem p = random_problem(rng, random_tree(rng, tips, true), 300, 4, 4, 3);
    const double expected = weighted_log_sum(p, pruned_site_logs(p));
    INFO(tips << " tips");
    const double got = evaluate(p, gpu, precision).log_likelihood;
    INFO("GPU " << got << ", plain pruning " << expected);
    CHECK(std::abs(got - expected) <= (precision == sgl ? single_sum_nats : 1e-10 * std::abs(expected)));
    std::printf("%d-tip caterpillar, %s: GPU - plain pruning %.1e nats\n", tips, precision == sgl ? "single" : "double",
                std::abs(got - expected));
  }
}

TEST_CASE("GPU edge log-likelihoods, several buffers at a root, partitions, buffers read back", "[beagle][gpu]") {
  const int gpu = gpu_resource();
  REQUIRE(gpu > 0);
  std::mt19937 rng(57);
  const Tree tree = random_tree(rng, 9);
  const int patterns = 301, parts = 3, n = static_cast<int>(tree.nodes.size());
  const Problem p = random_problem(rng, tree, patterns, 4, 4, 2);
  std::vector<Model> models{p.model};
  for (int k = 1; k < parts; ++k) models.push_back(random_model(rng, 4, 4));
  std::vector<int> partition(static_cast<std::size_t>(patterns));
  for (int q = 0; q < patterns; ++q) partition[static_cast<std::size_t>(q)] = (q * 5) % parts;

  // One scenario, run on either resource: partitions with their own models; by-partition roots; an edge across
  // the root's first child; a two-buffer root; the root's partials and a matrix read back.
  struct Outputs {
    std::vector<double> by_partition, sites, edge_sites, partials, matrix;
    double total = 0, edge = 0, mixture = 0;
  };
  const auto scenario = [&](int resource, long precision) {
    Outputs o;
    Instance in(tree.tips, n + 2, tree.tips, 4, patterns, parts, n * parts, 4, 0, precision, 0, resource);
    REQUIRE(in.id >= 0);
    load(in.id, p);
    REQUIRE(beagleSetPatternPartitions(in.id, parts, partition.data()) == BEAGLE_SUCCESS);
    const std::vector<BeagleOperationByPartition> ops = load_partitions(in.id, tree, models);
    REQUIRE(beagleUpdatePartialsByPartition(in.id, ops.data(), static_cast<int>(ops.size())) == BEAGLE_SUCCESS);
    const std::vector<int> roots(parts, tree.root()), list{0, 1, 2}, none(parts, BEAGLE_OP_NONE);
    o.by_partition.resize(parts);
    REQUIRE(beagleCalculateRootLogLikelihoodsByPartition(in.id, roots.data(), list.data(), list.data(), none.data(),
                                                         list.data(), parts, 1, o.by_partition.data(),
                                                         &o.total) == BEAGLE_SUCCESS);
    o.sites.resize(static_cast<std::size_t>(patterns));
    REQUIRE(beagleGetSiteLogLikelihoods(in.id, o.sites.data()) == BEAGLE_SUCCESS);
    // The root's two children joined across one edge of their summed lengths (the matrix of the root's own,
    // length-0 edge, remade): partition 0's sum is its root sum, as a reversible model makes it.
    const auto& c = tree.nodes[static_cast<std::size_t>(tree.root())].children;
    const int parent = c[1] >= tree.tips ? c[1] : c[0], child = parent == c[1] ? c[0] : c[1], joined = n - 1;
    const double length =
        tree.nodes[static_cast<std::size_t>(c[0])].length + tree.nodes[static_cast<std::size_t>(c[1])].length;
    REQUIRE(beagleUpdateTransitionMatrices(in.id, 0, &joined, nullptr, nullptr, &length, 1) == BEAGLE_SUCCESS);
    const int model = 0, first = 0;
    double edge_total = 0;
    REQUIRE(beagleCalculateEdgeLogLikelihoodsByPartition(in.id, &parent, &child, &joined, nullptr, nullptr, &model,
                                                         &model, &none[0], &first, 1, 1, &o.edge, &edge_total, nullptr,
                                                         nullptr, nullptr, nullptr) == BEAGLE_SUCCESS);
    CHECK(edge_total == o.edge);
    // Across the same edge for every pattern (model 0's matrix with other partitions' partials: only comparable).
    REQUIRE(beagleCalculateEdgeLogLikelihoods(in.id, &parent, &child, &joined, nullptr, nullptr, &model, &model,
                                              &none[0], 1, &edge_total, nullptr, nullptr) == BEAGLE_SUCCESS);
    o.edge_sites.resize(static_cast<std::size_t>(patterns));
    REQUIRE(beagleGetSiteLogLikelihoods(in.id, o.edge_sites.data()) == BEAGLE_SUCCESS);
    // Two buffers at one root add up, each with its own weights.
    const int two[] = {tree.root(), tree.root()}, weights[] = {0, 1}, nones[] = {BEAGLE_OP_NONE, BEAGLE_OP_NONE};
    REQUIRE(beagleCalculateRootLogLikelihoods(in.id, two, weights, weights, nones, 2, &o.mixture) == BEAGLE_SUCCESS);
    o.partials.resize(static_cast<std::size_t>(4 * patterns * 4));
    REQUIRE(beagleGetPartials(in.id, tree.root(), BEAGLE_OP_NONE, o.partials.data()) == BEAGLE_SUCCESS);
    o.matrix.resize(4 * 16);
    REQUIRE(beagleGetTransitionMatrix(in.id, n + 2, o.matrix.data()) == BEAGLE_SUCCESS);
    return o;
  };
  const Outputs host = scenario(0, dbl);
  for (const long precision : {dbl, sgl}) {
    const bool single = precision == sgl;
    const double tolerance = single ? 1e-4 : 1e-11;
    const Outputs dev = scenario(gpu, precision);
    INFO((single ? "single" : "double"));
    // Sums to single_sum_nats in single precision, sites to single_site_nats.
    double largest_sum = 0, largest_site = 0;
    const auto sum_agrees = [&](double got, double want) {
      largest_sum = std::max(largest_sum, std::abs(got - want));
      return std::abs(got - want) <= (single ? single_sum_nats : tolerance * std::abs(want));
    };
    const auto site_agrees = [&](double got, double want) {
      largest_site = std::max(largest_site, std::abs(got - want));
      return std::abs(got - want) <= (single ? single_site_nats : tolerance * 10 * std::abs(want));
    };
    for (int k = 0; k < parts; ++k)
      CHECK(sum_agrees(dev.by_partition[static_cast<std::size_t>(k)], host.by_partition[static_cast<std::size_t>(k)]));
    CHECK(sum_agrees(dev.total, host.total));
    CHECK(sum_agrees(dev.edge, host.edge));
    CHECK(sum_agrees(dev.mixture, host.mixture));
    for (int q = 0; q < patterns; ++q) {
      CHECK(site_agrees(dev.sites[static_cast<std::size_t>(q)], host.sites[static_cast<std::size_t>(q)]));
      CHECK(site_agrees(dev.edge_sites[static_cast<std::size_t>(q)], host.edge_sites[static_cast<std::size_t>(q)]));
    }
    std::printf("partitions, edges, two-buffer root, %s: GPU - host double, at most %.1e nats in a sum, %.1e in a "
                "site\n", single ? "single" : "double", largest_sum, largest_site);
    for (std::size_t i = 0; i < host.partials.size(); ++i)
      CHECK(dev.partials[i] == Approx(host.partials[i]).epsilon(tolerance * 10).margin(1e-300));
    for (std::size_t i = 0; i < host.matrix.size(); ++i)
      CHECK(dev.matrix[i] == Approx(host.matrix[i]).epsilon(precision == dbl ? 1e-13 : 1e-6).margin(1e-7));
  }
  // The host's sums against the plain pruning, so that agreeing does not mean agreeing wrong.
  CHECK(host.edge == Approx(host.by_partition[0]).epsilon(1e-11));
  for (int k = 0; k < parts; ++k) {
    Problem part = p;
    part.model = models[static_cast<std::size_t>(k)];
    const std::vector<double> sites = pruned_site_logs(part);
    double sum = 0;
    for (int q = 0; q < patterns; ++q)
      if (partition[static_cast<std::size_t>(q)] == k)
        sum += p.pattern_weights[static_cast<std::size_t>(q)] * sites[static_cast<std::size_t>(q)];
    CHECK(host.by_partition[static_cast<std::size_t>(k)] == Approx(sum).epsilon(1e-11));
  }
}
