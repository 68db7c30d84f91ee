// The progressive stage's pieces against independent references: the guide tree read back (rooted_guide_tree.hpp)
// against hand-computed weights, steps and identities, and against the repository's Newick parser for path lengths
// after rooting; the profile
// Myers-Miller against a full-matrix dynamic program over the same costs; the matrix series against the tables;
// the .aln text against a hand-written block. Byte equality with clustalw itself is stage3_vs_clustalw.py's job.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cudp/msa/clustal_matrices.hpp"
#include "cudp/msa/clustal_output.hpp"
#include "cudp/msa/profile_alignment.hpp"
#include "cudp/msa/progressive_alignment.hpp"
#include "cudp/msa/rooted_guide_tree.hpp"
#include "cudp/msa/sequence_weights.hpp"
#include "cudp/phylo/newick.hpp"

using namespace cudp::msa;

TEST_CASE("a rooted guide tree gives hand-computed weights, steps and identities", "[msa]") {
  // ((A:0.1,B:0.3):0.2,C:0.4): A weighs 0.1 + 0.2/2, B 0.3 + 0.2/2, C 0.4; sum 1.0, scaled to 1000.
  const RootedGuideTree tree = read_clustal_guide_tree("((A:0.1,B:0.3):0.2,C:0.4);", {"C", "a", "B"});
  CHECK(tree.nodes[static_cast<std::size_t>(tree.root)].order == 3);
  CHECK(sequence_weights(tree) == std::vector<int>{400, 200, 400});
  CHECK(sequence_weights(tree, true) == std::vector<int>{333, 333, 333});
  // Post-order: the (A, B) node first, then the root; sides follow the input order C, a, B.
  CHECK(progressive_steps(tree) == std::vector<ProgressiveStep>{{0, 1, 2}, {2, 1, 1}});
  const cudp::phylo::DistanceMatrix s = tree_similarities(tree);
  CHECK(s(1, 2) == Approx(60.0).margin(1e-4));  // A-B: 0.4
  CHECK(s(0, 1) == Approx(30.0).margin(1e-4));  // C-A: 0.7
  CHECK(s(0, 2) == Approx(10.0).margin(1e-4));  // C-B: 0.9
  CHECK(s(0, 0) == 0.0);
}

TEST_CASE("UPGMA weights count each internal node's parent height, the root its own", "[msa]") {
  // Joins: (0, 1) at 0.1, then (0, 2) at 0.3. The (0, 1) node counts the root's 0.3 over its 2 leaves, the root
  // 0.3 over 3: sequences 0 and 1 weigh 0.1 + 0.15, sequence 2 weighs 0.1; x100 -> 25, 25, 10; scaled to 1000.
  const std::vector<cudp::phylo::UpgmaJoin> joins = {{0, 1, 0.1}, {0, 2, 0.3}};
  CHECK(upgma_sequence_weights(joins, 3) == std::vector<int>{416, 416, 166});
  CHECK(upgma_sequence_weights(joins, 3, true) == std::vector<int>{333, 333, 333});
  CHECK(upgma_sequence_weights({}, 2) == std::vector<int>{500, 500});
}

TEST_CASE("guide tree lengths clamp to [0.01, 1] and names match as ClustalW matches them", "[msa]") {
  const RootedGuideTree tree = read_clustal_guide_tree("(seq_one:0.001,SEQ_TWO:2.5);", {"SEQ ONE", "seq_two"});
  CHECK(tree_similarities(tree)(0, 1) == Approx(0.0).margin(1e-9));
  const RootedGuideTree close = read_clustal_guide_tree("(x:0.001,y:0.002);", {"x", "y"});
  CHECK(tree_similarities(close)(0, 1) == Approx(99.0).margin(1e-9));
  CHECK_THROWS_AS(read_clustal_guide_tree("(x:0.1,y:0.2);", {"x", "z"}), cudp::io::InputError);
  CHECK_THROWS_AS(read_clustal_guide_tree("(x:0.1,y:0.2);", {"x"}), cudp::io::InputError);
  CHECK_THROWS_AS(read_clustal_guide_tree("x:0.1;", {"x"}), cudp::io::InputError);
}

namespace {

// A random unrooted Newick text with a three-way top node, lengths small enough that no path reaches the clamps.
std::string random_unrooted_tree(std::mt19937& rng, int leaves, std::vector<std::string>& names) {
  std::uniform_real_distribution<double> length(0.006, 0.09);
  std::vector<std::string> parts;
  for (int k = 0; k < leaves; ++k) {
    names.push_back("s" + std::to_string(k));
    parts.push_back(names.back());
  }
  auto with_length = [&](const std::string& s) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, ":%.5f", length(rng));
    return s + buffer;
  };
  while (parts.size() > 3) {
    std::uniform_int_distribution<std::size_t> pick(0, parts.size() - 1);
    const std::size_t a = pick(rng);
    std::string left = parts[a];
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(a));
    std::uniform_int_distribution<std::size_t> pick2(0, parts.size() - 1);
    const std::size_t b = pick2(rng);
    const std::string joined = "(" + with_length(left) + "," + with_length(parts[b]) + ")";
    parts[b] = joined;
  }
  return "(" + with_length(parts[0]) + "," + with_length(parts[1]) + "," + with_length(parts[2]) + ");";
}

// Leaf-to-leaf path lengths on the repository's Newick parser's tree (no rooting involved).
double path_length(const cudp::phylo::Tree& t, int a, int b) {
  std::vector<double> up(t.nodes.size(), -1.0);
  double d = 0;
  for (int p = a; p >= 0; p = t.nodes[static_cast<std::size_t>(p)].parent) {
    up[static_cast<std::size_t>(p)] = d;
    d += t.nodes[static_cast<std::size_t>(p)].length;
  }
  d = 0;
  int p = b;
  while (up[static_cast<std::size_t>(p)] < 0) {
    d += t.nodes[static_cast<std::size_t>(p)].length;
    p = t.nodes[static_cast<std::size_t>(p)].parent;
  }
  return d + up[static_cast<std::size_t>(p)];
}

}  // namespace

TEST_CASE("rooting an unrooted guide tree keeps every leaf-to-leaf path and makes it binary", "[msa]") {
  std::mt19937 rng(50);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<std::string> names;
    const std::string text = random_unrooted_tree(rng, 3 + trial % 12, names);
    INFO(text);
    const RootedGuideTree tree = read_clustal_guide_tree(text, names);
    const GuideTreeNode& root = tree.nodes[static_cast<std::size_t>(tree.root)];
    REQUIRE(root.parent == -1);
    CHECK(root.order == static_cast<int>(names.size()));
    const cudp::phylo::Tree reference = cudp::phylo::parse_newick(text, "test");
    std::vector<int> tip(names.size());
    for (std::size_t k = 0; k < reference.nodes.size(); ++k) {
      if (!reference.is_tip(static_cast<int>(k))) continue;
      tip[std::stoul(reference.nodes[k].label.substr(1))] = static_cast<int>(k);
    }
    const cudp::phylo::DistanceMatrix s = tree_similarities(tree);
    for (std::size_t i = 0; i < names.size(); ++i)
      for (std::size_t j = 0; j < i; ++j) {
        const double d = path_length(reference, tip[i], tip[j]);
        CHECK(s(i, j) == Approx(100.0 - 100.0 * d).margin(2e-4));
      }
    // Every step splits a set of sequences in two; the last one covers them all.
    const std::vector<ProgressiveStep> steps = progressive_steps(tree);
    CHECK(steps.size() == names.size() - 1);
    for (const int side : steps.back()) CHECK(side != 0);
  }
}

namespace {

ColumnProfile random_profile(std::mt19937& rng, int length, bool first) {
  ColumnProfile p(length);
  std::uniform_int_distribution<int> value(0, first ? 300 : 10);
  std::uniform_int_distribution<int> open(1, 900), extend(1, 40);
  for (int i = 1; i <= length; ++i) {
    for (int r = 0; r <= clustal_max_residue; ++r)
      p.rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(r)] = r < 4 ? value(rng) : 0;
    p.rows[static_cast<std::size_t>(i)][profile_open_column] = open(rng);
    p.rows[static_cast<std::size_t>(i)][profile_extend_column] = extend(rng);
  }
  p.rows[0][profile_open_column] = open(rng);
  p.rows[0][profile_extend_column] = extend(rng);
  return p;
}

// The full-matrix optimum under the costs the linear-space passes use: a gap in the first profile (second's
// columns alone) in row i from column j+1 costs open1(i, j+1) + the extend1 of each column; in the second profile,
// rows i+1.. at column j cost open2(i+1, j) + each row's extend2; the edges as ClustalW's passes start them.
int full_matrix_score(const ClustalProfileCosts& c, int m, int n) {
  const int minus_inf = -1000000000;
  std::vector<std::vector<int>> h(static_cast<std::size_t>(m) + 1, std::vector<int>(static_cast<std::size_t>(n) + 1));
  std::vector<std::vector<int>> e = h;  // ending in a gap of the second profile (vertical)
  for (int j = 1; j <= n; ++j) {
    h[0][static_cast<std::size_t>(j)] = -c.open1(0, 1) - j * c.extend1(0, 1);
    e[0][static_cast<std::size_t>(j)] = h[0][static_cast<std::size_t>(j)] - c.open2(1, j);
  }
  const int go1 = c.first.open(0);
  for (int i = 1; i <= m; ++i) {
    auto& hi = h[static_cast<std::size_t>(i)];
    hi[0] = (go1 == 0 ? 0 : -c.open2(1, 0)) - i * c.extend2(1, 0);
    int f = minus_inf;
    for (int j = 1; j <= n; ++j) {
      const std::size_t uj = static_cast<std::size_t>(j);
      f = std::max(hi[uj - 1] - c.open1(i, j) - c.extend1(i, j), f - c.extend1(i, j));
      const int up = std::max(h[static_cast<std::size_t>(i) - 1][uj] - c.open2(i, j) - c.extend2(i, j),
                              e[static_cast<std::size_t>(i) - 1][uj] - c.extend2(i, j));
      e[static_cast<std::size_t>(i)][uj] = up;
      hi[uj] = std::max({h[static_cast<std::size_t>(i) - 1][uj - 1] + c.score(i, j), f, up});
    }
  }
  return h[static_cast<std::size_t>(m)][static_cast<std::size_t>(n)];
}

// The score of a path under the same costs.
int rescore(const ClustalProfileCosts& c, const std::vector<PathStep>& path) {
  int i = 0, j = 0, total = 0;
  std::size_t k = 0;
  while (k < path.size()) {
    if (path[k] == PathStep::both) {
      total += c.score(++i, ++j);
      ++k;
      continue;
    }
    const PathStep kind = path[k];
    int run = 0;
    while (k < path.size() && path[k] == kind) {
      ++run;
      ++k;
    }
    if (kind == PathStep::second_only) {
      if (i == 0) {
        total -= c.open1(0, 1) + run * c.extend1(0, 1);
      } else {
        total -= c.open1(i, j + 1);
        for (int x = 1; x <= run; ++x) total -= c.extend1(i, j + x);
      }
      j += run;
    } else {
      if (j == 0) {
        total -= (c.first.open(0) == 0 ? 0 : c.open2(1, 0)) + run * c.extend2(1, 0);
      } else {
        total -= c.open2(i + 1, j);
        for (int x = 1; x <= run; ++x) total -= c.extend2(i + x, j);
      }
      i += run;
    }
  }
  return total;
}

}  // namespace

// With end gaps free (ClustalW 2.1's setting; its command line cannot charge them) the path is optimal. Charged end
// gaps are another matter: the forward pass prices a gap along its first row with one column's extension cost
// throughout, the reverse pass with each column's own, so a midpoint can miss the optimum; those trials only check
// that the path is whole.
TEST_CASE("the profile Myers-Miller path scores the full-matrix optimum", "[msa]") {
  std::mt19937 rng(7);
  int paths = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int m = 1 + trial % 13, n = 1 + (trial * 7) % 11;
    const bool end_gaps = trial % 3 == 0;
    ColumnProfile first = random_profile(rng, m, true), second = random_profile(rng, n, false);
    if (!end_gaps) {
      first.rows[0][profile_open_column] = first.rows[0][profile_extend_column] = 0;
      first.rows[static_cast<std::size_t>(m)][profile_open_column] = 0;
    }
    const ClustalProfileCosts costs{first, second, end_gaps};
    int score = 0;
    const std::vector<PathStep> path = align_clustal_profiles(first, second, end_gaps, &score);
    INFO("trial " << trial << " m " << m << " n " << n);
    int used_first = 0, used_second = 0;
    for (const PathStep s : path) {
      used_first += s != PathStep::second_only;
      used_second += s != PathStep::first_only;
    }
    REQUIRE(used_first == m);
    REQUIRE(used_second == n);
    if (!end_gaps) {
      const int optimum = full_matrix_score(costs, m, n);
      CHECK(rescore(costs, path) == optimum);
      CHECK(score == optimum);
      ++paths;
    }
  }
  CHECK(paths == 266);
}

TEST_CASE("matrix series pick ClustalW's member and scale", "[msa]") {
  ClustalParameters p;
  auto same = [](const ProfileMatrix& a, const ProfileMatrix& b) { return a.score == b.score; };
  const std::string_view order = tables::protein_order;
  CHECK(same(profile_matrix(p, 50.0, 50), detail::expand_clustal_triangle(tables::gonnet80, order, 10, false)));
  CHECK(same(profile_matrix(p, 30.0, 50), detail::expand_clustal_triangle(tables::gonnet250, order, 10, false)));
  CHECK(same(profile_matrix(p, 30.0, 100), detail::expand_clustal_triangle(tables::gonnet120, order, 10, false)));
  CHECK(same(profile_matrix(p, 20.0, 99), detail::expand_clustal_triangle(tables::gonnet350, order, 10, false)));
  CHECK(same(profile_matrix(p, 20.0, 100), detail::expand_clustal_triangle(tables::gonnet160, order, 10, false)));
  CHECK(profile_matrix(p, 50.0, 50).scale == 0.1875f);
  p.protein_series = ProteinSeries::blosum;
  CHECK(same(profile_matrix(p, 81.0, 50), detail::expand_clustal_triangle(tables::blosum80, order, 100, false)));
  CHECK(profile_matrix(p, 35.0, 50).scale == 0.5f);
  p.negative_matrix = true;
  CHECK(same(profile_matrix(p, 81.0, 50), detail::expand_clustal_triangle(tables::blosum40, order, 100, true)));

  // Gonnet 250's W-W entry is 14.2, its lowest -5.2 (W-D): shifted by 52 at scale 10.
  const ProfileMatrix g = detail::expand_clustal_triangle(tables::gonnet250, order, 10, false);
  const int w = clustal_code('W'), d = clustal_code('D');
  CHECK(g.score[w][w] == 1420 + 520);
  CHECK(g.score[w][d] == 0);
  CHECK(g.score[w][clustal_gap_new] == 0);
  CHECK(g.score[clustal_code('O')][clustal_code('O')] == 0);  // letters outside the table keep zeros

  ClustalParameters dna;
  dna.dna = true;
  const ProfileMatrix iub = profile_matrix(dna, 50.0, 50);
  const int a = clustal_code('A'), gg = clustal_code('G'), c = clustal_code('C'), t = clustal_code('T');
  CHECK(iub.score[a][a] == 1900);  // 10 shifted by the lowest, -9, at scale 100
  CHECK(iub.score[a][gg] == 950);  // transitions: half of a match
  CHECK(iub.score[c][t] == 950);
  CHECK(iub.score[a][c] == 0);
}

TEST_CASE("the .aln text: name width, blocks of 60, conservation marks", "[msa]") {
  MultipleAlignment aln;
  aln.rows = {clustal_encode("MKV-L"), clustal_encode("MKIAL"), clustal_encode("MRV-L")};
  aln.order = {1, 0, 2};
  const std::string expected =
      "CLUSTAL 2.1 multiple sequence alignment\n\n"
      "\n"
      "bb              MKIAL\n"
      "a               MKV-L\n"
      "c               MRV-L\n"
      "                *:: *\n";
  CHECK(clustal_aln_text({"a", "bb", "c"}, aln, false) == expected);
  // The same columns as DNA letters get no group marks.
  CHECK(clustal_aln_text({"a", "bb", "c"}, aln, true).substr(expected.size() - 6) == "*   *\n");

  // 70 columns: a block of 60 and one of 10; a 25-character name cuts the width to 80 - 25 -> 50.
  MultipleAlignment wide;
  wide.rows = {std::vector<int>(70, clustal_code('A')), std::vector<int>(70, clustal_code('S'))};
  wide.order = {0, 1};
  const std::string text = clustal_aln_text({"x", "y"}, wide, false);
  CHECK(text.find("x               " + std::string(60, 'A') + "\n") != std::string::npos);
  CHECK(text.find("x               " + std::string(10, 'A') + "\n") != std::string::npos);
  CHECK(text.find(std::string(16, ' ') + std::string(60, ':') + "\n") != std::string::npos);  // A, S: strong STA
  const std::string long_name(25, 'n');
  const std::string narrow = clustal_aln_text({long_name, "y"}, wide, false);
  CHECK(narrow.find(long_name + "      " + std::string(50, 'A') + "\n") != std::string::npos);
}

TEST_CASE("two sequences align in one step; the first sequence leads the output", "[msa]") {
  const RootedGuideTree tree = read_clustal_guide_tree("(p:0.2,q:0.3);", {"p", "q"});
  const std::vector<std::vector<int>> seqs = {clustal_encode("MKVLAAGW"), clustal_encode("MKVAGW")};
  ClustalParameters params;
  const MultipleAlignment aln = progressive_align(seqs, progressive_steps(tree), sequence_weights(tree),
                                                  tree_similarities(tree), params);
  REQUIRE(aln.rows.size() == 2);
  CHECK(aln.rows[0].size() == aln.rows[1].size());
  CHECK(aln.order == std::vector<int>{0, 1});
  std::string second;
  for (const int code : aln.rows[1]) second += clustal_letter(code);
  CHECK(second.size() == 8);
  CHECK(std::count(second.begin(), second.end(), '-') == 2);
}

namespace {

// A family evolved down a random binary guide tree: substitutions, and short insertions and deletions, in
// proportion to the branch lengths; returns the .dnd text and fills `names` and `sequences` (residue codes).
std::string evolved_family(std::mt19937& rng, int count, int length, std::vector<std::string>& names,
                           std::vector<std::vector<int>>& sequences) {
  const std::string letters = "ACDEFGHIKLMNPQRSTVWY";
  std::uniform_int_distribution<int> letter(0, 19);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto mutate = [&](const std::string& parent, double branch) {
    std::string child;
    for (const char c : parent) {
      const double u = unit(rng);
      if (u < branch * 0.05) continue;  // deletion
      child += u < branch ? letters[static_cast<std::size_t>(letter(rng))] : c;
      if (unit(rng) < branch * 0.05) child += letters[static_cast<std::size_t>(letter(rng))];  // insertion
    }
    return child.empty() ? std::string(1, 'A') : child;
  };
  struct Node {
    std::string text, sequence;
  };
  std::string root;
  for (int i = 0; i < length; ++i) root += letters[static_cast<std::size_t>(letter(rng))];
  // Split `count` leaves top down: uneven splits make both deep caterpillar-like and bushy parts.
  std::function<std::string(int, const std::string&)> grow = [&](int leaves, const std::string& seq) -> std::string {
    if (leaves == 1) {
      names.push_back("s" + std::to_string(names.size()));
      sequences.push_back(clustal_encode(seq));
      return names.back();
    }
    const int left = 1 + static_cast<int>(unit(rng) * (leaves - 1));
    const double b1 = 0.02 + unit(rng) * 0.25, b2 = 0.02 + unit(rng) * 0.25;
    const std::string l = grow(left, mutate(seq, b1));
    const std::string r = grow(leaves - left, mutate(seq, b2));
    return "(" + l + ":" + std::to_string(b1) + "," + r + ":" + std::to_string(b2) + ")";
  };
  return grow(count, root) + ";";
}

// The progressive stage's rows and order on the tree `dnd`: the steps as marks and the identities as ClustalW's
// matrix, or (`computed`) the steps as ranges and the identities computed from the tree when asked.
std::vector<std::vector<int>> aligned_rows(const std::vector<std::vector<int>>& sequences, const std::string& dnd,
                                           const std::vector<std::string>& names, const ClustalParameters& p,
                                           int threads, std::size_t growing_from = growing_alignment_from,
                                           bool computed = false) {
  const RootedGuideTree tree = read_clustal_guide_tree(dnd, names);
  MultipleAlignment aln =
      computed ? progressive_align(sequences, progressive_step_ranges(tree), sequence_weights(tree, p.no_weights),
                                   TreeSimilarities(tree), p, tree.has_distances, threads, growing_from)
               : progressive_align(sequences, progressive_steps(tree), sequence_weights(tree, p.no_weights),
                                   tree_similarities(tree), p, tree.has_distances, threads, growing_from);
  aln.rows.push_back(aln.order);  // the order counts too
  return aln.rows;
}

// A single sequence's frequency profile: one residue (or an input gap) a column at 10, as fill_frequency_profile
// makes it.
ColumnProfile one_sequence_profile(std::mt19937& rng, int length) {
  ColumnProfile p = random_profile(rng, length, false);
  std::uniform_int_distribution<int> code(0, clustal_max_residue + 1);
  for (int j = 1; j <= length; ++j) {
    auto& row = p.rows[static_cast<std::size_t>(j)];
    for (int r = 0; r < profile_open_column; ++r) row[static_cast<std::size_t>(r)] = 0;
    const int c = code(rng);
    row[static_cast<std::size_t>(c > clustal_max_residue ? clustal_gap_old : c)] = 10;
  }
  return p;
}

// A profile whose every residue and gap code is non-zero (the table's dense loop).
ColumnProfile dense_profile(std::mt19937& rng, int length) {
  ColumnProfile p(length);
  std::uniform_int_distribution<int> value(1, 10);
  std::uniform_int_distribution<int> open(1, 900), extend(1, 40);
  for (int i = 1; i <= length; ++i) {
    auto& row = p.rows[static_cast<std::size_t>(i)];
    for (int r = 0; r <= clustal_max_residue; ++r) row[static_cast<std::size_t>(r)] = value(rng);
    row[clustal_gap_new] = value(rng);
    row[clustal_gap_old] = value(rng);
    row[profile_open_column] = open(rng);
    row[profile_extend_column] = extend(rng);
  }
  p.rows[0][profile_open_column] = p.rows[0][profile_extend_column] = 0;
  p.rows[static_cast<std::size_t>(length)][profile_open_column] = 0;
  return p;
}

}  // namespace

TEST_CASE("the progressive stage gives the same rows on any number of threads", "[msa]") {
  std::mt19937 rng(11);
  std::vector<std::string> names;
  std::vector<std::vector<int>> sequences;
  const std::string dnd = evolved_family(rng, 240, 90, names, sequences);
  for (const int variant : {0, 1, 2}) {
    ClustalParameters p;
    if (variant == 1) p.use_end_gaps = true;
    if (variant == 2) p.divergence_cutoff = 60;  // many sequences delayed to the second pass
    INFO("variant " << variant);
    const std::vector<std::vector<int>> one = aligned_rows(sequences, dnd, names, p, 1);
    CHECK(one.front().size() > 90);
    CHECK(aligned_rows(sequences, dnd, names, p, 2) == one);
    CHECK(aligned_rows(sequences, dnd, names, p, 4) == one);
  }
}

TEST_CASE("delayed sequences joining a growing alignment give the rows rewritten at every join", "[msa]") {
  std::mt19937 rng(23);
  std::vector<std::string> names;
  std::vector<std::vector<int>> sequences;
  const std::string dnd = evolved_family(rng, 160, 70, names, sequences);
  sequences[7].insert(sequences[7].begin() + 5, clustal_gap_old);  // an input gap
  for (const int variant : {0, 1, 2, 3, 4}) {
    ClustalParameters p;
    p.divergence_cutoff = 60;  // most sequences delayed
    if (variant == 1) p.use_end_gaps = true;
    if (variant == 2) p.end_gap_penalties = true;
    if (variant == 3) p.no_weights = true;
    if (variant == 4) p.divergence_cutoff = 101;  // every sequence delayed
    INFO("variant " << variant);
    const std::vector<std::vector<int>> rewritten = aligned_rows(sequences, dnd, names, p, 1, SIZE_MAX);
    CHECK(aligned_rows(sequences, dnd, names, p, 1, 3) == rewritten);
    CHECK(aligned_rows(sequences, dnd, names, p, 3, 3) == rewritten);
  }
}

TEST_CASE("steps as ranges and identities computed from the tree give the matrix run's rows", "[msa]") {
  std::mt19937 rng(31);
  std::vector<std::string> names;
  std::vector<std::vector<int>> sequences;
  const std::string dnd = evolved_family(rng, 150, 60, names, sequences);
  for (const int variant : {0, 1, 2, 3}) {
    ClustalParameters p;
    if (variant == 1) p.divergence_cutoff = 60;   // most sequences delayed
    if (variant == 2) p.divergence_cutoff = 101;  // every sequence delayed: the closest pair starts
    if (variant == 3) p.no_weights = true;
    INFO("variant " << variant);
    const std::vector<std::vector<int>> matrix = aligned_rows(sequences, dnd, names, p, 1);
    CHECK(aligned_rows(sequences, dnd, names, p, 1, growing_alignment_from, true) == matrix);
    CHECK(aligned_rows(sequences, dnd, names, p, 3, 3, true) == matrix);
  }
}

TEST_CASE("the column-pair score table equals the scores, and the paths with and without it agree", "[msa]") {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 12; ++trial) {
    const int m = 40 + trial * 23, n = 30 + trial * 19;
    // random_profile: four codes a column (the sparse loop); dense; or one sequence's (one code a column at 10).
    const int kind = trial % 3;
    const ColumnProfile first = kind == 2 ? dense_profile(rng, m) : random_profile(rng, m, true);
    ColumnProfile second = kind == 0 ? random_profile(rng, n, false) : kind == 1 ? dense_profile(rng, n)
                                                                                  : one_sequence_profile(rng, n);
    const ClustalProfileCosts costs{first, second, false};
    const std::vector<int> table = clustal_score_table(first, second);
    bool same = true;
    for (int i = 1; i <= m; ++i)
      for (int j = 1; j <= n; ++j)
        same = same && table[static_cast<std::size_t>(i) * static_cast<std::size_t>(n + 1) +
                             static_cast<std::size_t>(j)] == costs.score(i, j);
    INFO("trial " << trial << " m " << m << " n " << n);
    CHECK(same);
    int with_table = 0, without = 0, split = 0;
    const std::vector<PathStep> a = align_clustal_profiles(first, second, false, &with_table, 1);
    const std::vector<PathStep> b = align_clustal_profiles(first, second, false, &without, 1, 0);
    const std::vector<PathStep> c = align_clustal_profiles(first, second, false, &split, 2);
    // The bare policy: scores and gap costs read from the profiles' rows, cell by cell.
    LinearSpaceProfileAligner<ClustalProfileCosts> bare(costs, m, n);
    CHECK(bare.align(first.open(0), first.open(m)) == with_table);
    CHECK(bare.path() == a);
    CHECK(a == b);
    CHECK(a == c);
    CHECK(with_table == without);
    CHECK(with_table == split);
  }
  // Tables large enough to be filled on several threads.
  const ColumnProfile first = random_profile(rng, 640, true), second = dense_profile(rng, 520);
  CHECK(clustal_score_table(first, second, 2) == clustal_score_table(first, second, 1));
  const ColumnProfile one = one_sequence_profile(rng, 520), four = random_profile(rng, 520, false);
  const ColumnProfile every = dense_profile(rng, 640);
  CHECK(clustal_score_table(every, one, 3) == clustal_score_table(every, one, 1));
  CHECK(clustal_score_table(first, four, 3) == clustal_score_table(first, four, 1));
}

TEST_CASE("the members' column sums are the same on any number of threads", "[msa]") {
  std::mt19937 rng(3);
  const int count = 700, length = 420;  // above member_sums' threshold for threads
  REQUIRE(static_cast<long long>(count) * length >= detail::member_sums_parallel_cells);
  std::uniform_int_distribution<int> code(0, 26);
  std::uniform_int_distribution<int> weight(1, 40);
  std::vector<std::vector<int>> rows(static_cast<std::size_t>(count));
  std::vector<const int*> pointers;
  std::vector<int> weights;
  for (auto& row : rows) {
    for (int j = 0; j < length; ++j) {
      const int c = code(rng);
      row.push_back(c <= clustal_max_residue ? c : c == 25 ? clustal_gap_new : clustal_gap_old);
    }
    pointers.push_back(row.data());
    weights.push_back(weight(rng));
  }
  const ProfileMembers members{pointers.data(), 0, count, length};
  ClustalParameters p;
  const GapCostKinds kinds{false, true, true};
  const MemberSums one = member_sums(members, p, kinds, &weights, 1);
  for (const int threads : {2, 3, 4}) {
    const MemberSums many = member_sums(members, p, kinds, &weights, threads);
    CHECK(many.gaps == one.gaps);
    CHECK(many.residue == one.residue);
    CHECK(many.hydrophilic == one.hydrophilic);
    CHECK(many.codes == one.codes);
    CHECK(many.residues == one.residues);
  }
  // Against the definitions, column by column: residue-specific sums and hydrophilic runs (GPSNDQEKR, four or more).
  bool same = true;
  for (int j = 0; j < length; ++j) {
    int residue = 0, hydrophilic = 0, gaps = 0;
    for (int s = 0; s < count; ++s) {
      const std::vector<int>& row = rows[static_cast<std::size_t>(s)];
      const char c = clustal_letter(row[static_cast<std::size_t>(j)]);
      const std::string pascarella = "ACDEFGHKILMNPQRSTVYW";
      const std::size_t k = clustal_is_residue(row[static_cast<std::size_t>(j)]) ? pascarella.find(c) : std::string::npos;
      if (k != std::string::npos) residue += 180 - detail::pascarella_probability[k];
      auto hyd = [&](int x) {
        return x >= 0 && x < length && clustal_is_residue(row[static_cast<std::size_t>(x)]) &&
               std::string("GPSNDQEKR").find(clustal_letter(row[static_cast<std::size_t>(x)])) != std::string::npos;
      };
      if (hyd(j)) {
        int from = j, to = j;
        while (hyd(from - 1)) --from;
        while (hyd(to + 1)) ++to;
        if (to - from + 1 >= 4) hydrophilic += 100;
      }
      int first = 0, last = length - 1;
      while (first < length && !clustal_is_residue(row[static_cast<std::size_t>(first)])) ++first;
      while (last >= 0 && !clustal_is_residue(row[static_cast<std::size_t>(last)])) --last;
      gaps += j > first && j < last && !clustal_is_residue(row[static_cast<std::size_t>(j)]);
    }
    same = same && one.residue[static_cast<std::size_t>(j)] == residue &&
           one.hydrophilic[static_cast<std::size_t>(j) + 3] == hydrophilic &&
           one.gaps[static_cast<std::size_t>(j)] == gaps;
  }
  CHECK(same);
  // The matrix profile of these members, filled column by column on one thread and in chunks on several.
  ColumnProfile serial(length), threaded(length);
  const std::vector<int> gap_counts = set_gap_costs(serial, members, p, 900, 20, kinds, one);
  set_gap_costs(threaded, members, p, 900, 20, kinds, one);
  const ProfileMatrix matrix = profile_matrix(p, 30.0, 300);
  fill_matrix_profile(serial, members, gap_counts, matrix, weights, one.codes, 1);
  fill_matrix_profile(threaded, members, gap_counts, matrix, weights, one.codes, 3);
  CHECK(threaded.rows == serial.rows);
}

TEST_CASE("the delayed sequences' loops in blocks on threads give one loop's weights and choice", "[msa]") {
  // Three blocks and a bit, as at n = 100,000 where they run on the threads: ClustalW's loops written out here.
  const std::size_t n = 3 * detail::sequence_block + 5;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> identity(0.0, 0.6);
  for (int round = 0; round < 4; ++round) {
    std::vector<char> aligned(n);
    std::vector<int> best(n), tree_weights(n), weights(n, 7);
    std::vector<double> row(n);
    for (std::size_t i = 0; i < n; ++i) {
      aligned[i] = rng() % 3 == 0;
      best[i] = round == 3 ? -1 : static_cast<int>(rng() % 60) - 1;  // round 3: every best -1, every identity 0
      tree_weights[i] = round == 2 ? 0 : static_cast<int>(rng() % 3000);  // round 2: every product 0
      row[i] = round == 3 ? 0.0 : identity(rng);
    }
    std::vector<int> expected_best = best;
    int closest = -1;
    std::size_t expected_next = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (aligned[i]) continue;
      if (expected_best[i] < row[i]) expected_best[i] = static_cast<int>(row[i]);
      if (expected_best[i] > closest) {
        closest = expected_best[i];
        expected_next = i;
      }
    }
    std::vector<int> expected_weights = weights;
    long long sum = 0;
    for (std::size_t j = 0; j < n; ++j)
      if (aligned[j]) sum += expected_weights[j] = static_cast<int>(tree_weights[j] * row[j]);
    if (sum == 0) {
      std::fill(expected_weights.begin(), expected_weights.end(), 1);
      sum = static_cast<long long>(n);
    }
    for (std::size_t j = 0; j < n; ++j)
      if (aligned[j])
        expected_weights[j] = std::max(1, static_cast<int>(expected_weights[j] * 1000LL / sum));
    for (const int threads : {1, 2, 5}) {
      std::vector<int> b = best, w = weights;
      CHECK(detail::fold_and_pick_closest(b, aligned, row, threads) == expected_next);
      CHECK(b == expected_best);
      detail::weigh_for_newcomer(w, tree_weights, aligned, row, threads);
      CHECK(w == expected_weights);
    }
  }
}
