// Tree log-likelihoods on the host against a brute-force sum over every assignment of states to the internal
// nodes (no pruning, no rescaling), and the properties any correct evaluation has: the root's place does not
// matter for a reversible model, float agrees with double, deep trees do not underflow.
#include "cudp/phylo/host_tree_likelihood.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cudp/phylo/discrete_gamma.hpp"
#include "cudp/phylo/eigen_decomposition.hpp"
#include "cudp/phylo/model_spec.hpp"
#include "cudp/phylo/newick.hpp"

namespace {

namespace phylo = cudp::phylo;

struct Case {
  phylo::CharacterAlignment alignment;
  phylo::Tree tree;
  phylo::SitePatterns data;
  phylo::TraversalPlan plan;
  phylo::LikelihoodModel model;
};

Case make_case(const std::string& newick, const std::vector<std::string>& names, const std::vector<std::string>& rows,
               const std::string& model_text, const phylo::CharacterCoding& coding = phylo::CharacterCoding::dna()) {
  Case c;
  c.alignment.source = "test";
  c.alignment.names = names;
  c.alignment.rows = rows;
  c.alignment.lines.assign(names.size(), 1);
  c.tree = phylo::parse_newick(newick, "tree");
  c.data = phylo::compress_sites(c.alignment, coding);
  c.plan = phylo::plan_traversal(c.tree, names, "tree", "test");
  const phylo::ModelSpec spec = phylo::parse_model(model_text);
  c.model.coding = &coding;
  c.model.model = phylo::make_model(spec, coding, c.data);
  c.model.eigen = phylo::decompose(c.model.model);
  c.model.rates = phylo::make_rate_categories(spec.gamma_categories, spec.alpha.value_or(1.0),
                                              spec.invariant ? spec.invariant_proportion.value_or(0.0) : 0.0);
  return c;
}

// Sum over all internal states, site by site, straight from the definition.
double brute_force(const Case& c) {
  const auto& tree = c.tree;
  const auto& m = c.model;
  const int n = m.model.states;
  std::vector<int> internal;
  for (int v = 0; v < static_cast<int>(tree.nodes.size()); ++v)
    if (!tree.is_tip(v)) internal.push_back(v);
  std::vector<int> taxon_of(tree.nodes.size(), -1);
  for (const int v : tree.tips())
    for (std::size_t t = 0; t < c.alignment.names.size(); ++t)
      if (c.alignment.names[t] == tree.nodes[static_cast<std::size_t>(v)].label)
        taxon_of[static_cast<std::size_t>(v)] = static_cast<int>(t);
  double total = 0;
  for (std::size_t site = 0; site < c.alignment.sites(); ++site) {
    double variable = 0;
    for (std::size_t cat = 0; cat < m.rates.rates.size(); ++cat) {
      std::vector<std::vector<double>> p(tree.nodes.size());
      for (std::size_t v = 0; v < tree.nodes.size(); ++v) {
        p[v].resize(static_cast<std::size_t>(n * n));
        m.eigen.transition_matrix(tree.nodes[v].length * m.rates.rates[cat], p[v].data());
      }
      std::vector<int> state(tree.nodes.size(), 0);
      const long combos = static_cast<long>(std::pow(n, internal.size()));
      double sum = 0;
      for (long k = 0; k < combos; ++k) {
        long rest = k;
        for (const int v : internal) {
          state[static_cast<std::size_t>(v)] = static_cast<int>(rest % n);
          rest /= n;
        }
        double prob = m.model.frequencies[static_cast<std::size_t>(state[static_cast<std::size_t>(tree.root)])];
        for (std::size_t v = 0; v < tree.nodes.size(); ++v) {
          const int parent = tree.nodes[v].parent;
          if (parent < 0) continue;
          const int from = state[static_cast<std::size_t>(parent)];
          if (tree.is_tip(static_cast<int>(v))) {
            const char letter = c.alignment.rows[static_cast<std::size_t>(taxon_of[v])][site];
            const std::uint64_t mask = m.coding->mask(m.coding->code(letter));
            double allowed = 0;
            for (int x = 0; x < n; ++x)
              if ((mask >> x) & 1) allowed += p[v][static_cast<std::size_t>(from * n + x)];
            prob *= allowed;
          } else {
            prob *= p[v][static_cast<std::size_t>(from * n + state[v])];
          }
        }
        sum += prob;
      }
      variable += m.rates.weights[cat] * sum;
    }
    std::uint64_t common = m.coding->all_states();
    for (const auto& row : c.alignment.rows) common &= m.coding->mask(m.coding->code(row[site]));
    double invariable = 0;
    for (int s = 0; s < n; ++s)
      if ((common >> s) & 1) invariable += m.model.frequencies[static_cast<std::size_t>(s)];
    total += std::log(variable + m.rates.invariant * invariable);
  }
  return total;
}

std::vector<std::string> random_rows(std::mt19937& rng, std::size_t taxa, std::size_t sites,
                                     const std::string& letters) {
  std::vector<std::string> rows(taxa, std::string(sites, 'A'));
  std::uniform_int_distribution<std::size_t> pick(0, letters.size() - 1);
  for (auto& row : rows)
    for (char& ch : row) ch = letters[pick(rng)];
  return rows;
}

// Float against double, in nats: a bound relative to the log-likelihood grows with the tree until it hides a
// rescale off by one power of two (ln 2 = 0.69 per pattern), so these are absolute, set from the error float
// reaches (2.1e-6 on the brute-force cases, 2.1e-4 on the caterpillar) with a wide margin, and far below ln 2.
constexpr double float_nats_small = 1e-4, float_nats_caterpillar = 1e-2;

}  // namespace

TEST_CASE("host likelihoods equal the brute-force sum over internal states", "[phylo][likelihood]") {
  std::mt19937 rng(7);
  const std::vector<std::string> names{"a", "b", "c", "d", "e"};
  const std::string letters = "ACGTACGTACGTRYN-?";
  const char* trees[] = {"((a:0.1,b:0.25):0.05,(c:0.3,d:0.02):0.4,e:0.7);",
                         "((((a:0.1,b:0.2):0.3,c:0.4):0.01,d:1.5):0.2,e:0.0);", "(a:0.1,b:0.2,c:0.3,d:0.4,e:0.5);"};
  const char* models[] = {"JC",
                          "K80{3}",
                          "HKY{2.5}+F{0.1,0.2,0.3,0.4}+G4{0.6}",
                          "GTR{1.2,3.4,0.5,0.8,4.1}+F{0.3,0.2,0.2,0.3}+G3{1.7}+I{0.3}",
                          "F81+I{0.5}",
                          "TN93{2,5}+F"};
  for (const char* tree : trees)
    for (const char* model : models) {
      const Case c = make_case(tree, names, random_rows(rng, names.size(), 40, letters), model);
      const double expected = brute_force(c);
      const auto got = phylo::evaluate_on_host<double>(c.plan, c.data, c.model, 2);
      INFO(tree << " " << model);
      CHECK(got.log_likelihood == Approx(expected).epsilon(1e-12));
      const auto single = phylo::evaluate_on_host<float>(c.plan, c.data, c.model, 1);
      CHECK(std::abs(single.log_likelihood - expected) <= float_nats_small);
    }
}

TEST_CASE("protein likelihoods equal the brute force with ambiguity codes", "[phylo][likelihood]") {
  std::mt19937 rng(11);
  const std::vector<std::string> names{"p", "q", "r"};
  const Case c = make_case("(p:0.2,q:0.5,r:0.9);", names, random_rows(rng, 3, 30, "ARNDCQEGHILKMFPSTWYVBZJX-"),
                           "Poisson+G4{0.9}+I{0.1}", phylo::CharacterCoding::protein());
  CHECK(phylo::evaluate_on_host<double>(c.plan, c.data, c.model).log_likelihood ==
        Approx(brute_force(c)).epsilon(1e-12));
}

TEST_CASE("the root's place does not change a reversible model's likelihood", "[phylo][likelihood]") {
  std::mt19937 rng(3);
  const std::vector<std::string> names{"a", "b", "c", "d", "e", "f"};
  const auto rows = random_rows(rng, names.size(), 300, "ACGTACGTN-R");
  const std::string model = "GTR{2,3,0.5,1,4}+F{0.2,0.3,0.1,0.4}+G4{0.4}+I{0.15}";
  // One unrooted tree, written with its root at three different places (a branch split 0.1 + 0.2 = 0.3).
  const Case base = make_case("((a:0.1,b:0.2):0.3,(c:0.15,d:0.25):0.05,(e:0.4,f:0.6):0.2);", names, rows, model);
  const double unrooted = phylo::evaluate_on_host<double>(base.plan, base.data, base.model).log_likelihood;
  for (const char* rooted : {"((a:0.1,b:0.2):0.1,((c:0.15,d:0.25):0.05,(e:0.4,f:0.6):0.2):0.2);",
                             "(a:0.05,(b:0.2,((c:0.15,d:0.25):0.05,(e:0.4,f:0.6):0.2):0.3):0.05);",
                             "((e:0.4,f:0.6):0.0,((a:0.1,b:0.2):0.3,(c:0.15,d:0.25):0.05):0.2);"}) {
    const Case c = make_case(rooted, names, rows, model);
    CHECK(phylo::evaluate_on_host<double>(c.plan, c.data, c.model).log_likelihood == Approx(unrooted).epsilon(1e-12));
  }
}

TEST_CASE("deep trees rescale instead of underflowing, in float and double", "[phylo][likelihood]") {
  // A caterpillar of 1500 tips: the root's partials would be far below float's and near double's range.
  std::mt19937 rng(5);
  const int taxa = 1500;
  std::vector<std::string> names;
  for (int t = 0; t < taxa; ++t) names.push_back("t" + std::to_string(t));
  std::string newick = names[0] + ":0.3";
  for (int t = 1; t < taxa; ++t) newick = "(" + newick + "," + names[static_cast<std::size_t>(t)] + ":0.3):0.01";
  newick += ";";
  const Case c = make_case(newick, names, random_rows(rng, names.size(), 64, "ACGT"), "HKY{2}+F+G4{0.5}");
  const auto d = phylo::evaluate_on_host<double>(c.plan, c.data, c.model);
  const auto f = phylo::evaluate_on_host<float>(c.plan, c.data, c.model);
  REQUIRE(std::isfinite(d.log_likelihood));
  CHECK(d.log_likelihood < -64 * 1000.0);  // every site costs well over log(4) per tip here
  INFO("float " << f.log_likelihood << ", double " << d.log_likelihood);
  CHECK(std::abs(f.log_likelihood - d.log_likelihood) <= float_nats_caterpillar);
}

TEST_CASE("adversarial columns and branch lengths", "[phylo][likelihood]") {
  const std::vector<std::string> names{"a", "b", "c", "d"};
  // All-gap columns have likelihood 1; a one-pattern alignment is that pattern times its weight.
  const Case gaps =
      make_case("((a:0.1,b:0.2):0.3,c:0.4,d:0.5);", names, {"--?N", "-N??", "----", "N-?-"}, "JC+G4{0.5}");
  CHECK(gaps.data.patterns >= 1);
  CHECK(phylo::evaluate_on_host<double>(gaps.plan, gaps.data, gaps.model).log_likelihood == Approx(0.0).margin(1e-13));
  const Case one =
      make_case("((a:0.1,b:0.2):0.3,c:0.4,d:0.5);", names, {"AAAAAA", "AAAAAA", "AAAAAA", "AAAAAA"}, "K80{2}");
  REQUIRE(one.data.patterns == 1);
  CHECK(one.data.weights[0] == 6);
  CHECK(phylo::evaluate_on_host<double>(one.plan, one.data, one.model).log_likelihood ==
        Approx(brute_force(one)).epsilon(1e-12));
  // Lengths of 0 and 10 (past saturation).
  std::mt19937 rng(9);
  const Case edges =
      make_case("((a:0,b:10):0,c:10,d:0);", names, random_rows(rng, 4, 50, "ACGTN"), "GTR{1,2,3,4,5}+F+I{0.2}");
  const auto r = phylo::evaluate_on_host<double>(edges.plan, edges.data, edges.model);
  CHECK(r.log_likelihood == Approx(brute_force(edges)).epsilon(1e-12));
}

TEST_CASE("site patterns: weights add up to the sites and every site finds its pattern", "[phylo][patterns]") {
  phylo::CharacterAlignment a;
  a.source = "x";
  a.names = {"a", "b", "c"};
  a.rows = {"ACGTACGTAA", "ACGTACGTAC", "ACGTTCGTAA"};
  a.lines = {1, 2, 3};
  const auto p = phylo::compress_sites(a, phylo::CharacterCoding::dna());
  double weight = 0;
  for (const double w : p.weights) weight += w;
  CHECK(weight == 10);
  CHECK(p.patterns == 6);  // the columns AAA, CCC, GGG, TTT, AAT and ACA
  for (std::size_t s = 0; s < 10; ++s)
    for (int t = 0; t < 3; ++t)
      CHECK(p.code(t, p.pattern_of_site[s]) ==
            phylo::CharacterCoding::dna().code(a.rows[static_cast<std::size_t>(t)][s]));
  a.rows[1][4] = 'J';
  try {
    (void)phylo::compress_sites(a, phylo::CharacterCoding::dna());
    FAIL("J is not DNA");
  } catch (const cudp::io::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("x:2: taxon b, site 5: 'J' is not a DNA character"));
  }
}

TEST_CASE("tree tips and alignment taxa must match", "[phylo][likelihood]") {
  const auto tree = phylo::parse_newick("((a:1,b:1):1,c:1);", "t.nwk");
  CHECK_THROWS_WITH(phylo::plan_traversal(tree, {"a", "b", "x"}, "t.nwk", "aln.fa"),
                    Catch::Contains("t.nwk: tip 'c' is not a taxon of aln.fa"));
  CHECK_THROWS_WITH(phylo::plan_traversal(tree, {"a", "b", "c", "d"}, "t.nwk", "aln.fa"),
                    Catch::Contains("aln.fa: taxon 'd' is not a tip of t.nwk"));
  CHECK_THROWS_WITH(phylo::plan_traversal(phylo::parse_newick("((a:1,b):1,c:1);", "t.nwk"), {"a", "b", "c"}, "t.nwk",
                                          "aln.fa"),
                    Catch::Contains("t.nwk: the branch above 'b' has no length"));
  CHECK_THROWS_WITH(phylo::plan_traversal(phylo::parse_newick("((a:1,b:1),c:1);", "t.nwk"), {"a", "b", "c"}, "t.nwk",
                                          "aln.fa"),
                    Catch::Contains("t.nwk: the branch above an internal node has no length"));
}

TEST_CASE("model strings", "[phylo][model]") {
  const auto spec = phylo::parse_model("GTR{1,2,3,4,5}+F{0.1,0.2,0.3,0.4}+G8{0.5}+I{0.2}");
  CHECK(spec.base == "GTR");
  CHECK(spec.base_parameters.size() == 5);
  CHECK(spec.frequencies == phylo::FrequencyChoice::given);
  CHECK(spec.gamma_categories == 8);
  CHECK(*spec.alpha == 0.5);
  CHECK(*spec.invariant_proportion == 0.2);
  CHECK(phylo::parse_model("HKY85+G").gamma_categories == 4);
  CHECK(phylo::parse_model("K2P+FQ").frequencies == phylo::FrequencyChoice::equal);
  CHECK_THROWS_WITH(phylo::parse_model("GTR{1,2,3,4,5,6}"), Catch::Contains("GTR takes 5 parameter(s), got 6"));
  CHECK_THROWS_WITH(phylo::parse_model("WAGX"), Catch::Contains("unknown model 'WAGX'"));
  CHECK_THROWS_WITH(phylo::parse_model("JC+G4{-1}"), Catch::Contains("alpha > 0"));
  CHECK_THROWS_WITH(phylo::parse_model("JC+I{1}"), Catch::Contains("[0, 1)"));
  CHECK_THROWS_WITH(phylo::parse_model("JC+Q"), Catch::Contains("unknown component '+Q'"));
  CHECK_THROWS_WITH(phylo::parse_model("JC{"), Catch::Contains("not closed"));
  CHECK_THROWS_WITH(phylo::parse_model("HKY{x}"), Catch::Contains("'x' is not a number"));
}
