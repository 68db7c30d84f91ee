#include "cudp/phylo/newick.hpp"

#include <catch2/catch.hpp>

#include "../support/temp_dir.hpp"
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using cudp::io::InputError;
using cudp::phylo::Tree;
using cudp::phylo::TreeNode;
using cudp::test::TempDir;

namespace {

Tree parse(const std::string& text) { return cudp::phylo::parse_newick(text, "t.nwk"); }

// The message of the InputError that parsing throws, or a marker when it does not throw one.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

const TreeNode& node(const Tree& tree, int index) { return tree.nodes[static_cast<std::size_t>(index)]; }

std::vector<std::string> tip_labels(const Tree& tree) {
  std::vector<std::string> labels;
  for (const int tip : tree.tips()) labels.push_back(node(tree, tip).label);
  return labels;
}

// The child of `parent` at `k`.
int child(const Tree& tree, int parent, std::size_t k) { return node(tree, parent).children.at(k); }

// Same shape, labels and lengths, node by node in postorder (indices may differ).
void require_same_tree(const Tree& a, const Tree& b) {
  const std::vector<int> pa = a.postorder();
  const std::vector<int> pb = b.postorder();
  REQUIRE(pa.size() == pb.size());
  REQUIRE(pa.size() == a.nodes.size());
  for (std::size_t i = 0; i < pa.size(); ++i) {
    const TreeNode& x = node(a, pa[i]);
    const TreeNode& y = node(b, pb[i]);
    REQUIRE(x.children.size() == y.children.size());
    REQUIRE(x.label == y.label);
    REQUIRE(x.has_length == y.has_length);
    REQUIRE(x.length == y.length);
    REQUIRE((x.parent < 0) == (y.parent < 0));
  }
}

// Structure every parsed tree must have: parent links agree with child lists, node 0 is the root.
void require_consistent(const Tree& tree) {
  REQUIRE(tree.root == 0);
  REQUIRE(node(tree, 0).parent == -1);
  for (int i = 0; i < static_cast<int>(tree.nodes.size()); ++i) {
    for (const int c : node(tree, i).children) REQUIRE(node(tree, c).parent == i);
    if (i != tree.root) {
      const auto& siblings = node(tree, node(tree, i).parent).children;
      REQUIRE(std::count(siblings.begin(), siblings.end(), i) == 1);
    }
  }
}

void write_gzip(const std::string& path, const std::string& contents) {
  gzFile file = gzopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  REQUIRE(gzwrite(file, contents.data(), static_cast<unsigned>(contents.size())) == static_cast<int>(contents.size()));
  REQUIRE(gzclose(file) == Z_OK);
}

// A random tree: tips t0..t(n-1) (some with awkward names), random binary and multifurcating splits, random
// lengths on some branches and labels on some internal nodes.
Tree random_tree(std::mt19937& rng, int tips) {
  Tree tree;
  const auto add = [&](int parent) {
    const int id = static_cast<int>(tree.nodes.size());
    tree.nodes.emplace_back();
    tree.nodes.back().parent = parent;
    if (parent >= 0) tree.nodes[static_cast<std::size_t>(parent)].children.push_back(id);
    return id;
  };
  tree.root = add(-1);
  // Grow by replacing a random tip with a cherry, or adding a child to a random internal node.
  std::vector<int> leaves{tree.root};
  while (static_cast<int>(leaves.size()) < tips) {
    const std::size_t pick = rng() % leaves.size();
    const int at = leaves[pick];
    const int a = add(at);
    const int b = add(at);
    leaves[pick] = a;
    leaves.push_back(b);
    if (rng() % 4 == 0 && static_cast<int>(leaves.size()) < tips) leaves.push_back(add(at));
  }
  static const std::vector<std::string> odd = {"a b", "it's", "x(y)", "p:q", "s;t", "u,v", "[w]", "snake_case",
                                               "tab\there", "quote''twice"};
  int next = 0;
  for (TreeNode& n : tree.nodes) {
    if (n.children.empty()) {
      n.label = "t" + std::to_string(next++);
      if (rng() % 5 == 0) n.label += odd[rng() % odd.size()];
    } else if (rng() % 3 == 0) {
      n.label = std::to_string(rng() % 101);
    }
    if (rng() % 4 != 0) {
      n.has_length = true;
      n.length = std::uniform_real_distribution<double>(0, 2)(rng);
      if (rng() % 7 == 0) n.length = 0;
      if (rng() % 11 == 0) n.length = 1e-300 * (1 + rng() % 10);
    }
  }
  return tree;
}

}  // namespace

TEST_CASE("topology, labels and lengths", "[newick]") {
  const Tree tree = parse("((A:0.1,B:0.2)AB:0.3,C:4e-1,(D)E)root;");
  require_consistent(tree);
  REQUIRE(tree.nodes.size() == 7);
  CHECK(node(tree, tree.root).label == "root");
  CHECK_FALSE(node(tree, tree.root).has_length);
  REQUIRE(node(tree, tree.root).children.size() == 3);
  const int ab = child(tree, tree.root, 0);
  CHECK(node(tree, ab).label == "AB");
  CHECK(node(tree, ab).length == 0.3);
  CHECK(node(tree, child(tree, ab, 0)).label == "A");
  CHECK(node(tree, child(tree, ab, 0)).length == 0.1);
  CHECK(node(tree, child(tree, ab, 1)).length == 0.2);
  CHECK(node(tree, child(tree, tree.root, 1)).length == 0.4);
  const int e = child(tree, tree.root, 2);
  CHECK(node(tree, e).label == "E");
  CHECK(node(tree, e).children.size() == 1);  // a node with one child is kept as it is
  CHECK_FALSE(node(tree, e).has_length);
  CHECK(tip_labels(tree) == std::vector<std::string>{"A", "B", "C", "D"});
  CHECK(tree.tip_count() == 4);
  CHECK(tree.is_tip(child(tree, ab, 0)));
  CHECK_FALSE(tree.is_tip(ab));
}

TEST_CASE("whitespace, newlines and comments between tokens", "[newick]") {
  const Tree plain = parse("((A:1,B:2)x:3,C:0.5);");
  require_same_tree(parse(" \n( ( A : 1 ,\tB:2 ) x : 3 ,\r\n C:0.5 ) ; \n"), plain);
  require_same_tree(parse("[&R] ([c1]([c2]A[c3]:[c4]1[c5],B:2)x[&&NHX:S=1]:3,C:0.5[multi\nline])[c];"), plain);
  // Lines are counted through comments and blanks.
  CHECK(error_of("(A,\n[one\nline]\n  B C);") == "t.nwk:4:5: expected ')' or ',' after a subtree, got 'C'");
  CHECK(error_of("(A,\r\nB)\r\n;x") == "(no error)");
  CHECK(error_of("(A,B) [never closed;") == "t.nwk:1:7: unterminated comment: '[' without a closing ']'");
}

TEST_CASE("labels: quoted, unquoted kept as written, internal", "[newick]") {
  const Tree tree = parse("('Homo sapiens':1,'it''s':2,Mus_musculus,'(x;y)',\"dq\")'95':0;");
  CHECK(tip_labels(tree) == std::vector<std::string>{"Homo sapiens", "it's", "Mus_musculus", "(x;y)", "\"dq\""});
  CHECK(node(tree, tree.root).label == "95");
  CHECK(node(tree, tree.root).has_length);
  CHECK(node(tree, tree.root).length == 0);
  // Non-ASCII bytes are label bytes like any other.
  CHECK(tip_labels(parse("(Bär,Ø);")) == std::vector<std::string>{"Bär", "Ø"});
  // Underscores stay underscores; '' in a quoted label is one quote.
  CHECK(tip_labels(parse("(a_b,'c_d''e');")) == std::vector<std::string>{"a_b", "c_d'e"});
}

TEST_CASE("empty quoted tip label is an error", "[newick]") {
  CHECK(error_of("(A,'');") == "t.nwk:1:4: empty tip label ''");
}

TEST_CASE("branch lengths: accepted forms", "[newick]") {
  const auto length = [](const std::string& text) {
    const Tree tree = parse("(A:" + text + ",B);");
    return node(tree, child(tree, 0, 0)).length;
  };
  CHECK(length("1") == 1);
  CHECK(length("+2.5") == 2.5);
  CHECK(length("0.125") == 0.125);
  CHECK(length(".5") == 0.5);
  CHECK(length("3.") == 3);
  CHECK(length("1e-3") == 1e-3);
  CHECK(length("1.5E+2") == 150);
  CHECK(length("2e3") == 2000);
  CHECK(length("0") == 0);
  const double zero = length("-0");
  CHECK(zero == 0);
  CHECK_FALSE(std::signbit(zero));
  CHECK(length("0.1000000000000000055511151231257827") == 0.1);
  // Blanks and comments around the number.
  CHECK(length(" [x] 7 [y] ") == 7);
}

TEST_CASE("branch lengths: rejected forms", "[newick]") {
  CHECK(error_of("(A:1.2.3,B);") == "t.nwk:1:4: invalid branch length '1.2.3'");
  CHECK(error_of("(A:nan,B);") == "t.nwk:1:4: invalid branch length 'nan'");
  CHECK(error_of("(A:NaN,B);") == "t.nwk:1:4: invalid branch length 'NaN'");
  CHECK(error_of("(A:inf,B);") == "t.nwk:1:4: invalid branch length 'inf'");
  CHECK(error_of("(A:-inf,B);") == "t.nwk:1:4: invalid branch length '-inf'");
  CHECK(error_of("(A:Infinity,B);") == "t.nwk:1:4: invalid branch length 'Infinity'");
  CHECK(error_of("(A:0x1p3,B);") == "t.nwk:1:4: invalid branch length '0x1p3'");
  CHECK(error_of("(A:1e,B);") == "t.nwk:1:4: invalid branch length '1e'");
  CHECK(error_of("(A:1e+,B);") == "t.nwk:1:4: invalid branch length '1e+'");
  CHECK(error_of("(A:.,B);") == "t.nwk:1:4: invalid branch length '.'");
  CHECK(error_of("(A:+-1,B);") == "t.nwk:1:4: invalid branch length '+-1'");
  CHECK(error_of("(A:1.5abc,B);") == "t.nwk:1:4: invalid branch length '1.5abc'");
  CHECK(error_of("(A:1,B:2)C:1_000;") == "t.nwk:1:12: invalid branch length '1_000'");
  CHECK(error_of("(A:-1,B);") == "t.nwk:1:4: negative branch length -1");
  CHECK(error_of("(A,B:-0.5e-3);") == "t.nwk:1:6: negative branch length -0.5e-3");
  CHECK(error_of("(A,B)C:-2;") == "t.nwk:1:8: negative branch length -2");
  CHECK(error_of("(A:1e999,B);") == "t.nwk:1:4: branch length '1e999' is out of range");
  CHECK(error_of("(A:,B);") == "t.nwk:1:4: missing branch length after ':', got ','");
  CHECK(error_of("(A:)") == "t.nwk:1:4: missing branch length after ':', got ')'");
  CHECK(error_of("(A,B):") == "t.nwk:1:7: missing branch length after ':', got the end of the input");
  CHECK(error_of("(A:1:2,B);") == "t.nwk:1:5: expected ')' or ',' after a subtree, got ':'");
  // A very long bad number is cut short in the message.
  CHECK(error_of("(A:" + std::string(1000, '9') + "x,B);") ==
        "t.nwk:1:4: invalid branch length '" + std::string(40, '9') + "...'");
}

TEST_CASE("one tip without parentheses; one-child nodes; text after the tree", "[newick]") {
  const Tree single = parse("A;");
  REQUIRE(single.nodes.size() == 1);
  CHECK(single.root == 0);
  CHECK(single.is_tip(0));
  CHECK(single.tip_count() == 1);
  CHECK(single.postorder() == std::vector<int>{0});
  CHECK(tip_labels(single) == std::vector<std::string>{"A"});
  const Tree with_length = parse("  'one tip':2.5 ;");
  CHECK(node(with_length, 0).label == "one tip");
  CHECK(node(with_length, 0).length == 2.5);

  const Tree chain = parse("(((A)));");
  require_consistent(chain);
  CHECK(chain.nodes.size() == 4);
  CHECK(chain.tip_count() == 1);
  CHECK(chain.postorder() == std::vector<int>{3, 2, 1, 0});

  // Only the first tree is read; trailing blanks and anything after the ';' are fine.
  CHECK(tip_labels(parse("(A,B);\n(C,D);\n")) == std::vector<std::string>{"A", "B"});
  CHECK(tip_labels(parse("(A,B); \n\t\n")) == std::vector<std::string>{"A", "B"});
  CHECK(tip_labels(parse("(A,B);garbage((")) == std::vector<std::string>{"A", "B"});
}

TEST_CASE("structural errors name the place and the problem", "[newick]") {
  CHECK(error_of("") == "t.nwk:1:1: empty input: no Newick tree found");
  CHECK(error_of(" \n\t\n") == "t.nwk:3:1: empty input: no Newick tree found");
  CHECK(error_of("[just a comment]\n") == "t.nwk:2:1: empty input: no Newick tree found");

  CHECK(error_of("((A,B);") ==
        "t.nwk:1:7: unbalanced parentheses: ';' comes with 1 '(' not closed (the innermost at line 1, column 1)");
  CHECK(error_of("((A,(B)") ==
        "t.nwk:1:8: unbalanced parentheses: the input ends with 2 '(' not closed (the innermost at line 1, column 2)");
  CHECK(error_of("(A,B));") == "t.nwk:1:6: unbalanced parentheses: ')' without a matching '('");
  CHECK(error_of("A);") == "t.nwk:1:2: unbalanced parentheses: ')' without a matching '('");

  CHECK(error_of("(A,B)") == "t.nwk:1:6: missing ';' at the end of the tree");
  CHECK(error_of("(A,B)\n  ") == "t.nwk:2:3: missing ';' at the end of the tree");
  CHECK(error_of("A") == "t.nwk:1:2: missing ';' at the end of the tree");
  CHECK(error_of("(A,B)C:1") == "t.nwk:1:9: missing ';' at the end of the tree");

  CHECK(error_of("(A,B),C;") == "t.nwk:1:6: ',' outside parentheses: a tree has a single root (missing '('?)");
  CHECK(error_of("A,B;") == "t.nwk:1:2: ',' outside parentheses: a tree has a single root (missing '('?)");
  CHECK(error_of("(A,B)(C,D);") == "t.nwk:1:6: expected ';' after the tree, got '('");
  CHECK(error_of("(A,B)x y;") == "t.nwk:1:8: expected ';' after the tree, got 'y'");
  CHECK(error_of("(A B);") == "t.nwk:1:4: expected ')' or ',' after a subtree, got 'B'");
  CHECK(error_of("(A,B;") ==
        "t.nwk:1:5: unbalanced parentheses: ';' comes with 1 '(' not closed (the innermost at line 1, column 1)");
  CHECK(error_of("(A(B,C));") == "t.nwk:1:3: expected ')' or ',' after a subtree, got '('");
  CHECK(error_of("(A,B]);") == "t.nwk:1:5: expected ')' or ',' after a subtree, got ']'");
  CHECK(error_of("('A'B,C);") == "t.nwk:1:5: expected ')' or ',' after a subtree, got 'B'");

  CHECK(error_of("('A,B);") == "t.nwk:1:2: unterminated quoted label: no closing quote");
  CHECK(error_of(std::string("(A\x01,B);")) == "t.nwk:1:3: invalid byte 0x01 in a label");
  CHECK(error_of(std::string("(A,B\0);", 7)) == "t.nwk:1:5: invalid byte 0x00 in a label");
}

TEST_CASE("every tip needs a label", "[newick]") {
  CHECK(error_of("(,A);") == "t.nwk:1:2: empty tip label: expected a tip name or '(', got ','");
  CHECK(error_of("(A,);") == "t.nwk:1:4: empty tip label: expected a tip name or '(', got ')'");
  CHECK(error_of("();") == "t.nwk:1:2: empty tip label: expected a tip name or '(', got ')'");
  CHECK(error_of("(A,:1);") == "t.nwk:1:4: empty tip label: expected a tip name or '(', got ':'");
  CHECK(error_of(";") == "t.nwk:1:1: empty tip label: expected a tip name or '(', got ';'");
  CHECK(error_of("(A,\n  ,B);") == "t.nwk:2:3: empty tip label: expected a tip name or '(', got ','");
  CHECK(error_of("(A,") == "t.nwk:1:4: empty tip label: expected a tip name or '(', got the end of the input");
}

TEST_CASE("duplicate tip labels name both places", "[newick]") {
  CHECK(error_of("(A,B,A);") == "t.nwk:1:6: duplicate tip label 'A' (first at line 1, column 2)");
  CHECK(error_of("((x_1,y),\n ('x_1',z));") == "t.nwk:2:3: duplicate tip label 'x_1' (first at line 1, column 3)");
  // Internal labels (support values) repeat freely, and may equal a tip's.
  CHECK(error_of("((A,B)90,(C,D)90)A;") == "(no error)");
}

TEST_CASE("postorder: every node once, children before parents, root last", "[newick]") {
  std::mt19937 rng(42);
  for (int round = 0; round < 50; ++round) {
    const Tree tree = parse(write_newick(random_tree(rng, 2 + round * 3)));
    require_consistent(tree);
    const std::vector<int> order = tree.postorder();
    REQUIRE(order.size() == tree.nodes.size());
    REQUIRE(order.back() == tree.root);
    std::vector<int> rank(tree.nodes.size(), -1);
    for (std::size_t i = 0; i < order.size(); ++i) {
      REQUIRE(rank[static_cast<std::size_t>(order[i])] == -1);
      rank[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    }
    for (int i = 0; i < static_cast<int>(tree.nodes.size()); ++i) {
      for (const int c : node(tree, i).children) REQUIRE(rank[static_cast<std::size_t>(c)] < rank[i]);
    }
    // Tips in postorder are the tips left to right, which is the order the parser numbered them in.
    std::vector<int> tips;
    for (const int n : order) {
      if (tree.is_tip(n)) tips.push_back(n);
    }
    REQUIRE(tree.tips() == tips);
    REQUIRE(std::is_sorted(tips.begin(), tips.end()));
    REQUIRE(tree.tip_count() == static_cast<int>(tips.size()));
  }
  CHECK(Tree{}.postorder().empty());
  CHECK(Tree{}.tips().empty());
}

TEST_CASE("write_newick then parse_newick gives the same tree", "[newick]") {
  std::mt19937 rng(2024);
  for (int round = 0; round < 200; ++round) {
    const Tree tree = random_tree(rng, 1 + static_cast<int>(rng() % 40));
    const std::string text = write_newick(tree);
    INFO(text);
    REQUIRE(text.back() == ';');
    require_same_tree(parse(text), tree);
    // And the text is a fixed point.
    REQUIRE(write_newick(parse(text)) == text);
  }
  SECTION("quoting only where needed") {
    const Tree tree = parse("('a b':1,'it''s',plain_name,'x:y')'9 0':0.5;");
    CHECK(write_newick(tree) == "('a b':1,'it''s',plain_name,'x:y')'9 0':0.5;");
    CHECK(write_newick(parse("'tip':1;")) == "tip:1;");
  }
  SECTION("precision") {
    const Tree tree = parse("(A:0.123456789,B:1e-20)C:12345.678;");
    CHECK(write_newick(tree, 4) == "(A:0.1235,B:1e-20)C:1.235e+04;");
    CHECK(write_newick(tree) == "(A:0.123456789,B:1e-20)C:12345.678;");
    CHECK(write_newick(tree, 0) == "(A:0.1,B:1e-20)C:1e+04;");
  }
  SECTION("empty internal labels are left out, an empty tree is ';'") {
    CHECK(write_newick(parse("((A,B),C);")) == "((A,B),C);");
    CHECK(write_newick(Tree{}) == ";");
  }
}

TEST_CASE("a 100000-deep caterpillar and a 100000-tip star, without recursion", "[newick]") {
  constexpr int n = 100000;
  SECTION("caterpillar") {
    std::string text(n - 1, '(');
    text += "t0:1";
    for (int i = 1; i < n; ++i) text += ",t" + std::to_string(i) + ":1):0.5";
    text += ';';
    const Tree tree = parse(text);
    REQUIRE(tree.tip_count() == n);
    REQUIRE(tree.nodes.size() == static_cast<std::size_t>(2 * n - 1));
    const std::vector<int> order = tree.postorder();
    REQUIRE(order.size() == tree.nodes.size());
    REQUIRE(order.back() == tree.root);
    const std::vector<int> tips = tree.tips();
    REQUIRE(node(tree, tips.front()).label == "t0");
    REQUIRE(node(tree, tips.back()).label == "t" + std::to_string(n - 1));
    // The depth of the first tip is n - 1.
    int depth = 0;
    for (int at = tips.front(); node(tree, at).parent >= 0; at = node(tree, at).parent) ++depth;
    REQUIRE(depth == n - 1);
    const std::string written = write_newick(tree);
    require_same_tree(parse(written), tree);
  }
  SECTION("one-child chain") {
    const Tree tree = parse(std::string(n, '(') + "A" + std::string(n, ')') + ";");
    REQUIRE(tree.nodes.size() == static_cast<std::size_t>(n + 1));
    REQUIRE(tree.postorder().size() == static_cast<std::size_t>(n + 1));
    REQUIRE(write_newick(tree) == std::string(n, '(') + "A" + std::string(n, ')') + ";");
  }
  SECTION("unbalanced deep input is an error, not a crash") {
    CHECK(error_of(std::string(n, '(') + "A;") ==
          "t.nwk:1:100002: unbalanced parentheses: ';' comes with 100000 '(' not closed (the innermost at line 1, "
          "column 100000)");
  }
  SECTION("star") {
    std::string text = "(";
    for (int i = 0; i < n; ++i) text += (i ? ",s" : "s") + std::to_string(i) + ":0.25";
    text += ");";
    const Tree tree = parse(text);
    REQUIRE(tree.tip_count() == n);
    REQUIRE(node(tree, tree.root).children.size() == static_cast<std::size_t>(n));
    REQUIRE(tree.tips().size() == static_cast<std::size_t>(n));
    REQUIRE(write_newick(tree) == text);
  }
}

TEST_CASE("files: plain and gzip, missing, errors carry the path", "[newick]") {
  TempDir dir;
  const std::string text = "((A:1,B:2):0.5,C:3);\n";
  const Tree expected = parse(text);
  require_same_tree(cudp::phylo::read_newick(dir.file("plain.nwk", text)), expected);
  const std::string gz = dir / "tree.nwk.gz";
  write_gzip(gz, text);
  require_same_tree(cudp::phylo::read_newick(gz), expected);

  const std::string missing = dir / "missing.nwk";
  CHECK_THROWS_WITH(cudp::phylo::read_newick(missing), missing + ": cannot open: No such file or directory");
  const std::string bad = dir.file("bad.nwk", "(A,\nB:x);");
  CHECK_THROWS_WITH(cudp::phylo::read_newick(bad), bad + ":2:3: invalid branch length 'x'");
  const std::string bad_gz = dir / "bad.nwk.gz";
  write_gzip(bad_gz, "(A,A);");
  CHECK_THROWS_WITH(cudp::phylo::read_newick(bad_gz),
                    bad_gz + ":1:4: duplicate tip label 'A' (first at line 1, column 2)");
}
