// cudp's libhmsbeagle.so.1 driven through BEAGLE's C API on its host resource, against references that share no
// code with it (beagle_problems.hpp): root, edge and per-site log-likelihoods, ambiguous tips given as partials,
// missing data, several categories, several models at once, pattern partitions, deep trees that need rescaling with
// and without MrBayes' use of scale buffers, and the errors of what the library does not do.
#include <catch2/catch.hpp>
#include <cstring>
#include <tuple>

#include "beagle_problems.hpp"

namespace {

using namespace beagle_test;

constexpr long cpu_double = BEAGLE_FLAG_PROCESSOR_CPU | BEAGLE_FLAG_PRECISION_DOUBLE;
constexpr long cpu_single = BEAGLE_FLAG_PROCESSOR_CPU | BEAGLE_FLAG_PRECISION_SINGLE;

int node_count(const Problem& p) { return static_cast<int>(p.tree.nodes.size()); }

// An instance on the host resource with room for the problem (and `extra` more buffers and matrices).
Instance make_instance(const Problem& p, long flags, int extra = 0, int models = 1, int scales = 0) {
  const int n = node_count(p) + extra;
  return Instance(p.tree.tips, n, p.tree.tips, p.model.states, p.patterns, models, n * models,
                  static_cast<int>(p.model.rates.size()), scales, flags, 0, 0);
}

double root_log_likelihood(int id, int root, int model = 0, int cumulative = BEAGLE_OP_NONE) {
  double lnl = 0;
  REQUIRE(beagleCalculateRootLogLikelihoods(id, &root, &model, &model, &cumulative, 1, &lnl) == BEAGLE_SUCCESS);
  return lnl;
}

std::vector<double> site_logs(int id, int patterns) {
  std::vector<double> out(static_cast<std::size_t>(patterns));
  REQUIRE(beagleGetSiteLogLikelihoods(id, out.data()) == BEAGLE_SUCCESS);
  return out;
}

}  // namespace

TEST_CASE("the library loaded is cudp's, with its host resource first", "[beagle]") {
  const BeagleResourceList* list = beagleGetResourceList();
  REQUIRE(list != nullptr);
  REQUIRE(list->length >= 1);
  CHECK(std::strstr(list->list[0].name, "cudp") != nullptr);
  CHECK((list->list[0].supportFlags & BEAGLE_FLAG_PROCESSOR_CPU) != 0);
  CHECK((list->list[0].supportFlags & BEAGLE_FLAG_PRECISION_DOUBLE) != 0);
  for (int r = 1; r < list->length; ++r) CHECK((list->list[r].supportFlags & BEAGLE_FLAG_FRAMEWORK_CUDA) != 0);
  CHECK(std::string(beagleGetVersion()).rfind("3.", 0) == 0);
  // MrBayes' automatic choice with beagledevice=cpu: the host comes first.
  const BeagleBenchmarkedResourceList* bench =
      beagleGetBenchmarkedResourceList(5, 5, 4, 100, 4, nullptr, 0, cpu_double, 0, 1, 1, 0, 0);
  REQUIRE(bench != nullptr);
  REQUIRE(bench->length >= 1);
  CHECK(bench->list[0].number == 0);
  CHECK(beagleGetBenchmarkedResourceList(5, 5, 5, 100, 4, nullptr, 0, cpu_double, 0, 1, 1, 0, 0) == nullptr);
}

TEST_CASE("root log-likelihoods equal the brute-force sum over internal states", "[beagle]") {
  std::mt19937 rng(17);
  for (int round = 0; round < 4; ++round) {
    const int states = round == 3 ? 20 : 4;
    const int tips = round == 3 ? 3 : 5;
    const Problem p = random_problem(rng, random_tree(rng, tips), 25, states, round + 1, round == 0 ? 0 : 2);
    const std::vector<double> expected = logs_of(brute_force_sites(p));
    for (const long flags : {cpu_double, cpu_single}) {
      Instance in = make_instance(p, flags);
      REQUIRE(in.id >= 0);
      CHECK(std::strstr(in.details.resourceName, "cudp") != nullptr);
      const auto ops = load(in.id, p);
      REQUIRE(beagleUpdatePartials(in.id, ops.data(), static_cast<int>(ops.size()), BEAGLE_OP_NONE) == BEAGLE_SUCCESS);
      const double tolerance = flags == cpu_double ? 1e-12 : 1e-5;
      INFO("round " << round << (flags == cpu_double ? " double" : " single"));
      CHECK(root_log_likelihood(in.id, p.tree.root()) == Approx(weighted_log_sum(p, expected)).epsilon(tolerance));
      double last = 0;
      REQUIRE(beagleGetLogLikelihood(in.id, &last) == BEAGLE_SUCCESS);
      CHECK(last == Approx(weighted_log_sum(p, expected)).epsilon(tolerance));
      const std::vector<double> sites = site_logs(in.id, p.patterns);
      for (int q = 0; q < p.patterns; ++q)
        CHECK(sites[static_cast<std::size_t>(q)] ==
              Approx(expected[static_cast<std::size_t>(q)]).epsilon(tolerance * 10));
    }
  }
}

TEST_CASE("edge log-likelihoods, with an internal child and with a tip child", "[beagle]") {
  std::mt19937 rng(23);
  // Tips 0-4; V joins 0, 1 and 2; the root joins V, 3 and 4 (an unrooted tree).
  Tree t;
  t.tips = 5;
  t.nodes.resize(5);
  for (Node& n : t.nodes) n.length = std::uniform_real_distribution<double>(0.05, 0.6)(rng);
  t.nodes.push_back({{0, 1}, 0.2});     // 5
  t.nodes.push_back({{5, 2}, 0.35});    // 6 = V
  t.nodes.push_back({{6, 3, 4}, 0.0});  // 7 = root
  for (const int categories : {1, 4}) {
    const Problem p = random_problem(rng, t, 30, 4, categories, 2);
    const std::vector<double> expected = logs_of(brute_force_sites(p));
    Instance in = make_instance(p, cpu_double, 2);
    REQUIRE(in.id >= 0);
    auto ops = load(in.id, p);
    // U = tips 3 and 4 (the upper side of V's edge), W = V and tip 3 (the upper side of tip 4's edge).
    ops.push_back({8, BEAGLE_OP_NONE, BEAGLE_OP_NONE, 3, 3, 4, 4});
    ops.push_back({9, BEAGLE_OP_NONE, BEAGLE_OP_NONE, 6, 6, 3, 3});
    REQUIRE(beagleUpdatePartials(in.id, ops.data(), static_cast<int>(ops.size()), BEAGLE_OP_NONE) == BEAGLE_SUCCESS);
    const int model = 0, none = BEAGLE_OP_NONE;
    for (const auto& [parent, child] : {std::pair<int, int>{8, 6}, std::pair<int, int>{9, 4}}) {
      double lnl = 0;
      REQUIRE(beagleCalculateEdgeLogLikelihoods(in.id, &parent, &child, &child, nullptr, nullptr, &model, &model, &none,
                                                1, &lnl, nullptr, nullptr) == BEAGLE_SUCCESS);
      INFO("parent " << parent << " child " << child << ", " << categories << " categories");
      CHECK(lnl == Approx(weighted_log_sum(p, expected)).epsilon(1e-12));
      const std::vector<double> sites = site_logs(in.id, p.patterns);
      for (int q = 0; q < p.patterns; ++q)
        CHECK(sites[static_cast<std::size_t>(q)] == Approx(expected[static_cast<std::size_t>(q)]).epsilon(1e-11));
    }
  }
}

TEST_CASE("deep trees rescale by powers of two, with and without scale buffers", "[beagle]") {
  std::mt19937 rng(29);
  for (const auto& [tips, flags] : {std::tuple<int, long>{1200, cpu_double}, std::tuple<int, long>{150, cpu_single}}) {
    const Problem p = random_problem(rng, random_tree(rng, tips, true), 40, 4, 4, 3);
    const double expected = weighted_log_sum(p, pruned_site_logs(p));
    // In nats: single precision's error here is 4.2e-6, and a bound relative to the log-likelihood (2e-5 of 2.8e4 is
    // 0.5) would come near hiding a rescale off by one power of two, ln 2 = 0.69.
    const double tolerance = flags == cpu_double ? 1e-10 * std::abs(expected) : 1e-2;
    const int scales = node_count(p) + 1;
    Instance in = make_instance(p, flags, 0, 1, scales);
    REQUIRE(in.id >= 0);
    INFO(tips << " tips");
    // No scale buffers at all.
    auto ops = load(in.id, p);
    REQUIRE(beagleUpdatePartials(in.id, ops.data(), static_cast<int>(ops.size()), BEAGLE_OP_NONE) == BEAGLE_SUCCESS);
    CHECK(std::abs(root_log_likelihood(in.id, p.tree.root()) - expected) <= tolerance);
    // MrBayes' "always" scheme: each node writes its scale buffer, summed into a cumulative one for the root.
    const int cumulative = scales - 1;
    ops = load(in.id, p, 0, true);
    REQUIRE(beagleResetScaleFactors(in.id, cumulative) == BEAGLE_SUCCESS);
    REQUIRE(beagleUpdatePartials(in.id, ops.data(), static_cast<int>(ops.size()), cumulative) == BEAGLE_SUCCESS);
    std::vector<int> written;
    for (const BeagleOperation& op : ops) written.push_back(op.destinationScaleWrite);
    REQUIRE(beagleRemoveScaleFactors(in.id, written.data(), 3, cumulative) == BEAGLE_SUCCESS);
    REQUIRE(beagleAccumulateScaleFactors(in.id, written.data(), 3, cumulative) == BEAGLE_SUCCESS);
    CHECK(std::abs(root_log_likelihood(in.id, p.tree.root(), 0, cumulative) - expected) <= tolerance);
    // The "dynamic" scheme: later traversals read the scale buffers written before instead of writing them.
    for (BeagleOperation& op : ops) std::swap(op.destinationScaleRead, op.destinationScaleWrite);
    REQUIRE(beagleUpdatePartials(in.id, ops.data(), static_cast<int>(ops.size()), BEAGLE_OP_NONE) == BEAGLE_SUCCESS);
    CHECK(std::abs(root_log_likelihood(in.id, p.tree.root(), 0, cumulative) - expected) <= tolerance);
    // Every factor is 1: the exponents live with the partials.
    std::vector<double> factors(static_cast<std::size_t>(p.patterns), -1.0);
    REQUIRE(beagleGetScaleFactors(in.id, cumulative, factors.data()) == BEAGLE_SUCCESS);
    for (const double f : factors) CHECK(f == 0.0);
    // The true partials come back, so a caller may scale them itself: the root's are far below double's range.
    std::vector<double> partials(static_cast<std::size_t>(p.patterns) * 4 * 4);
    REQUIRE(beagleGetPartials(in.id, p.tree.root(), BEAGLE_OP_NONE, partials.data()) == BEAGLE_SUCCESS);
    if (flags == cpu_double) CHECK(*std::max_element(partials.begin(), partials.end()) < 1e-300);
  }
}

TEST_CASE("pattern partitions: each with its own model, operations and sums", "[beagle]") {
  std::mt19937 rng(31);
  const Tree tree = random_tree(rng, 6);
  const int patterns = 60, parts = 3;
  Problem whole = random_problem(rng, tree, patterns, 4, 4, 2);
  std::vector<int> partition(static_cast<std::size_t>(patterns));
  for (int q = 0; q < patterns; ++q) partition[static_cast<std::size_t>(q)] = (q * 7) % parts;  // interleaved
  std::vector<Model> models{whole.model};
  for (int k = 1; k < parts; ++k) models.push_back(random_model(rng, 4, 4));
  const int n = node_count(whole);
  Instance in(tree.tips, n, tree.tips, 4, patterns, parts, n * parts, 4, 0, cpu_double, 0, 0);
  REQUIRE(in.id >= 0);
  load(in.id, whole);
  REQUIRE(beagleSetPatternPartitions(in.id, parts, partition.data()) == BEAGLE_SUCCESS);
  // Partition k: model k, matrices k * n + v, the same partials buffers as the others (as MrBayes does).
  const std::vector<BeagleOperationByPartition> ops = load_partitions(in.id, tree, models);
  REQUIRE(beagleUpdatePartialsByPartition(in.id, ops.data(), static_cast<int>(ops.size())) == BEAGLE_SUCCESS);
  // Expected: each partition's patterns alone under its model.
  std::vector<double> expected_sum(parts, 0.0), expected_site(static_cast<std::size_t>(patterns));
  for (int k = 0; k < parts; ++k) {
    Problem part = whole;
    part.model = models[static_cast<std::size_t>(k)];
    const std::vector<double> sites = logs_of(brute_force_sites(part));
    for (int q = 0; q < patterns; ++q)
      if (partition[static_cast<std::size_t>(q)] == k) {
        expected_site[static_cast<std::size_t>(q)] = sites[static_cast<std::size_t>(q)];
        expected_sum[static_cast<std::size_t>(k)] +=
            whole.pattern_weights[static_cast<std::size_t>(q)] * sites[static_cast<std::size_t>(q)];
      }
  }
  const std::vector<int> roots(parts, tree.root()), list{0, 1, 2}, none(parts, BEAGLE_OP_NONE);
  std::vector<double> by_partition(parts);
  double total = 0;
  REQUIRE(beagleCalculateRootLogLikelihoodsByPartition(in.id, roots.data(), list.data(), list.data(), none.data(),
                                                       list.data(), parts, 1, by_partition.data(),
                                                       &total) == BEAGLE_SUCCESS);
  double sum = 0;
  for (int k = 0; k < parts; ++k) {
    CHECK(by_partition[static_cast<std::size_t>(k)] ==
          Approx(expected_sum[static_cast<std::size_t>(k)]).epsilon(1e-12));
    sum += expected_sum[static_cast<std::size_t>(k)];
  }
  CHECK(total == Approx(sum).epsilon(1e-12));
  const std::vector<double> sites = site_logs(in.id, patterns);
  for (int q = 0; q < patterns; ++q)
    CHECK(sites[static_cast<std::size_t>(q)] == Approx(expected_site[static_cast<std::size_t>(q)]).epsilon(1e-11));
  // Partitions 2 and 0 only, in that order: sums in the order asked.
  const int sub[] = {2, 0}, parents[] = {tree.root(), tree.root()}, models_used[] = {2, 0};
  REQUIRE(beagleCalculateRootLogLikelihoodsByPartition(in.id, parents, models_used, models_used, none.data(), sub, 2, 1,
                                                       by_partition.data(), &total) == BEAGLE_SUCCESS);
  CHECK(by_partition[0] == Approx(expected_sum[2]).epsilon(1e-12));
  CHECK(by_partition[1] == Approx(expected_sum[0]).epsilon(1e-12));
  CHECK(total == Approx(expected_sum[2] + expected_sum[0]).epsilon(1e-12));
  // The plain calls still cover every pattern: model 0 everywhere is the unpartitioned problem.
  std::vector<BeagleOperation> plain;
  for (int v = tree.tips; v < n; ++v) {
    const auto& c = tree.nodes[static_cast<std::size_t>(v)].children;
    plain.push_back({v, BEAGLE_OP_NONE, BEAGLE_OP_NONE, c[0], c[0], c[1], c[1]});
  }
  REQUIRE(beagleUpdatePartials(in.id, plain.data(), static_cast<int>(plain.size()), BEAGLE_OP_NONE) == BEAGLE_SUCCESS);
  CHECK(root_log_likelihood(in.id, tree.root()) ==
        Approx(weighted_log_sum(whole, logs_of(brute_force_sites(whole)))).epsilon(1e-12));
  int bad = parts;
  CHECK(beagleResetScaleFactorsByPartition(in.id, 0, bad) == BEAGLE_ERROR_OUT_OF_RANGE);
}

TEST_CASE("several buffers at one root add up (MrBayes' omega classes)", "[beagle]") {
  std::mt19937 rng(37);
  const Tree tree = random_tree(rng, 5);
  Problem a = random_problem(rng, tree, 20, 4, 2, 1);
  Problem b = a;
  b.model = random_model(rng, 4, 2);
  const int n = node_count(a);
  // Buffers v (model 0) and n + v (model 1) for internal nodes; tips shared; class weights 0.3 and 0.7.
  Instance in(tree.tips, 2 * n, tree.tips, 4, a.patterns, 2, 2 * n, 2, 0, cpu_double, 0, 0);
  REQUIRE(in.id >= 0);
  // Model 1 first: loading model 0 last leaves matrices [0, n) and category-rate buffer 0 as model 0's.
  load(in.id, b, 1);
  load(in.id, a, 0);
  std::vector<int> indices;
  std::vector<double> lengths;
  for (int v = 0; v < n; ++v) {
    indices.push_back(n + v);
    lengths.push_back(tree.nodes[static_cast<std::size_t>(v)].length);
  }
  // Rate buffer 0 is the one beagleUpdateTransitionMatrices reads.
  REQUIRE(beagleSetCategoryRates(in.id, b.model.rates.data()) == BEAGLE_SUCCESS);
  REQUIRE(beagleUpdateTransitionMatrices(in.id, 1, indices.data(), nullptr, nullptr, lengths.data(), n) ==
          BEAGLE_SUCCESS);
  std::vector<BeagleOperation> ops;
  for (int v = tree.tips; v < n; ++v) {
    const auto& c = tree.nodes[static_cast<std::size_t>(v)].children;
    ops.push_back({v, BEAGLE_OP_NONE, BEAGLE_OP_NONE, c[0], c[0], c[1], c[1]});
    const int c0 = c[0] < tree.tips ? c[0] : n + c[0], c1 = c[1] < tree.tips ? c[1] : n + c[1];
    ops.push_back({n + v, BEAGLE_OP_NONE, BEAGLE_OP_NONE, c0, n + c[0], c1, n + c[1]});
  }
  REQUIRE(beagleUpdatePartials(in.id, ops.data(), static_cast<int>(ops.size()), BEAGLE_OP_NONE) == BEAGLE_SUCCESS);
  std::vector<double> wa = a.model.weights, wb = b.model.weights;
  for (double& w : wa) w *= 0.3;
  for (double& w : wb) w *= 0.7;
  REQUIRE(beagleSetCategoryWeights(in.id, 0, wa.data()) == BEAGLE_SUCCESS);
  REQUIRE(beagleSetCategoryWeights(in.id, 1, wb.data()) == BEAGLE_SUCCESS);
  const std::vector<double> sa = brute_force_sites(a), sb = brute_force_sites(b);
  std::vector<double> mixed;
  for (int q = 0; q < a.patterns; ++q)
    mixed.push_back(std::log(0.3 * sa[static_cast<std::size_t>(q)] + 0.7 * sb[static_cast<std::size_t>(q)]));
  const int roots[] = {tree.root(), n + tree.root()}, model[] = {0, 1}, scales[] = {BEAGLE_OP_NONE, BEAGLE_OP_NONE};
  double lnl = 0;
  REQUIRE(beagleCalculateRootLogLikelihoods(in.id, roots, model, model, scales, 2, &lnl) == BEAGLE_SUCCESS);
  CHECK(lnl == Approx(weighted_log_sum(a, mixed)).epsilon(1e-12));
}

TEST_CASE("threads, transposed inverse eigenvectors, set and read matrices and partials", "[beagle]") {
  std::mt19937 rng(41);
  const Problem p = random_problem(rng, random_tree(rng, 30), 3000, 4, 4, 5);
  double one_thread = 0;
  for (const int threads : {1, 3}) {
    Instance in = make_instance(p, cpu_double | BEAGLE_FLAG_THREADING_CPP);
    REQUIRE(in.id >= 0);
    REQUIRE(beagleSetCPUThreadCount(in.id, threads) == BEAGLE_SUCCESS);
    const auto ops = load(in.id, p);
    REQUIRE(beagleUpdatePartials(in.id, ops.data(), static_cast<int>(ops.size()), BEAGLE_OP_NONE) == BEAGLE_SUCCESS);
    const double lnl = root_log_likelihood(in.id, p.tree.root());
    if (threads == 1) one_thread = lnl;
    CHECK(lnl == one_thread);  // patterns never meet: the same arithmetic on any number of threads
  }
  CHECK(one_thread == Approx(weighted_log_sum(p, pruned_site_logs(p))).epsilon(1e-11));
  // The inverse eigenvectors transposed, as BEAGLE_FLAG_INVEVEC_TRANSPOSED says.
  Instance transposed = make_instance(p, cpu_double | BEAGLE_FLAG_INVEVEC_TRANSPOSED);
  REQUIRE(transposed.id >= 0);
  CHECK((transposed.details.flags & BEAGLE_FLAG_INVEVEC_TRANSPOSED) != 0);
  auto ops = load(transposed.id, p);
  std::vector<double> t(16);
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 4; ++j)
      t[static_cast<std::size_t>(j * 4 + k)] = p.model.eigen.inverse[static_cast<std::size_t>(k * 4 + j)];
  REQUIRE(beagleSetEigenDecomposition(transposed.id, 0, p.model.eigen.vectors.data(), t.data(),
                                      p.model.eigen.values.data()) == BEAGLE_SUCCESS);
  std::vector<int> indices;
  std::vector<double> lengths;
  for (int v = 0; v < node_count(p); ++v) {
    indices.push_back(v);
    lengths.push_back(p.tree.nodes[static_cast<std::size_t>(v)].length);
  }
  REQUIRE(beagleSetCategoryRates(transposed.id, p.model.rates.data()) == BEAGLE_SUCCESS);
  REQUIRE(beagleUpdateTransitionMatrices(transposed.id, 0, indices.data(), nullptr, nullptr, lengths.data(),
                                         node_count(p)) == BEAGLE_SUCCESS);
  REQUIRE(beagleUpdatePartials(transposed.id, ops.data(), static_cast<int>(ops.size()), BEAGLE_OP_NONE) ==
          BEAGLE_SUCCESS);
  CHECK(root_log_likelihood(transposed.id, p.tree.root()) == Approx(one_thread).epsilon(1e-13));
  // Matrices read back are P(t r_c); set back as they are, they give the same likelihood.
  std::vector<double> m(4 * 16);
  REQUIRE(beagleGetTransitionMatrix(transposed.id, 3, m.data()) == BEAGLE_SUCCESS);
  const std::vector<double> expected = matrix(p.model, p.tree.nodes[3].length * p.model.rates[2]);
  for (int e = 0; e < 16; ++e)
    CHECK(m[static_cast<std::size_t>(32 + e)] == Approx(expected[static_cast<std::size_t>(e)]).epsilon(1e-13));
  REQUIRE(beagleSetTransitionMatrix(transposed.id, 3, m.data(), 1.0) == BEAGLE_SUCCESS);
  // Partials set by hand (a copy of the root's) are read as they are given.
  std::vector<double> root(static_cast<std::size_t>(4 * p.patterns * 4));
  REQUIRE(beagleGetPartials(transposed.id, p.tree.root(), BEAGLE_OP_NONE, root.data()) == BEAGLE_SUCCESS);
  const int copy = node_count(p) - 1;  // the root's own buffer, overwritten with its values
  REQUIRE(beagleSetPartials(transposed.id, copy, root.data()) == BEAGLE_SUCCESS);
  CHECK(root_log_likelihood(transposed.id, copy) == Approx(one_thread).epsilon(1e-13));
}

TEST_CASE("what the library does not do fails with BEAGLE's codes", "[beagle]") {
  std::mt19937 rng(43);
  const Problem p = random_problem(rng, random_tree(rng, 4), 10, 4, 2, 1);
  Instance in = make_instance(p, cpu_double, 0, 1, 2);
  REQUIRE(in.id >= 0);
  auto ops = load(in.id, p);
  const int first = 0, second = 1, result = 2;
  CHECK(beagleConvolveTransitionMatrices(in.id, &first, &second, &result, 1) == BEAGLE_ERROR_NO_IMPLEMENTATION);
  const double length = 0.1;
  CHECK(beagleUpdateTransitionMatrices(in.id, 0, &first, &second, nullptr, &length, 1) ==
        BEAGLE_ERROR_NO_IMPLEMENTATION);
  double d1 = 0, d2 = 0;
  CHECK(beagleGetDerivatives(in.id, &d1, &d2) == BEAGLE_ERROR_NO_IMPLEMENTATION);
  CHECK(beagleGetSiteDerivatives(in.id, &d1, &d2) == BEAGLE_ERROR_NO_IMPLEMENTATION);
  // The caller's mistakes.
  CHECK(beagleSetTipStates(in.id + 1000, 0, p.states[1].data()) == BEAGLE_ERROR_UNINITIALIZED_INSTANCE);
  CHECK(beagleSetTipStates(in.id, p.tree.tips, p.states[1].data()) == BEAGLE_ERROR_OUT_OF_RANGE);
  BeagleOperation unset = ops.front();
  unset.child1Partials = p.tree.root();  // never computed
  unset.destinationPartials = p.tree.root() - 1;
  CHECK(beagleUpdatePartials(in.id, &unset, 1, BEAGLE_OP_NONE) == BEAGLE_ERROR_OUT_OF_RANGE);
  BeagleOperation bad_matrix = ops.front();
  bad_matrix.child2TransitionMatrix = 10000;
  CHECK(beagleUpdatePartials(in.id, &bad_matrix, 1, BEAGLE_OP_NONE) == BEAGLE_ERROR_OUT_OF_RANGE);
  CHECK(beagleUpdatePartials(in.id, ops.data(), static_cast<int>(ops.size()), 5) == BEAGLE_ERROR_OUT_OF_RANGE);
  REQUIRE(beagleUpdatePartials(in.id, ops.data(), static_cast<int>(ops.size()), BEAGLE_OP_NONE) == BEAGLE_SUCCESS);
  // A root that is a tip given as states has no partials to sum.
  const int tip = 3, model = 0, none = BEAGLE_OP_NONE;
  double lnl = 0;
  CHECK(beagleCalculateRootLogLikelihoods(in.id, &tip, &model, &model, &none, 1, &lnl) ==
        BEAGLE_ERROR_NO_IMPLEMENTATION);
  // Instances that cannot be made.
  CHECK(beagleCreateInstance(4, 8, 4, 4, 10, 1, 8, 1, 0, nullptr, 0, 0, BEAGLE_FLAG_EIGEN_COMPLEX, nullptr) ==
        BEAGLE_ERROR_NO_RESOURCE);
  CHECK(beagleCreateInstance(4, 8, 4, 5, 10, 1, 8, 1, 0, nullptr, 0, cpu_double, 0, nullptr) ==
        BEAGLE_ERROR_NO_IMPLEMENTATION);
  int missing = 1000;
  CHECK(beagleCreateInstance(4, 8, 4, 4, 10, 1, 8, 1, 0, &missing, 1, 0, 0, nullptr) == BEAGLE_ERROR_OUT_OF_RANGE);
  CHECK(beagleFinalizeInstance(in.id + 1000) == BEAGLE_ERROR_UNINITIALIZED_INSTANCE);
}
