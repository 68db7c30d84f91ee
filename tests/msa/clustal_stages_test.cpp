#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cudp/io/error.hpp"
#include "cudp/msa/clustal_distances.hpp"
#include "cudp/msa/clustal_sequences.hpp"
#include "cudp/msa/guide_tree.hpp"
#include "cudp/msa/rooted_guide_tree.hpp"
#include "ktuple_list_reference.hpp"

using namespace cudp::msa;

namespace {

std::vector<int> codes(const std::string& text) { return clustal_encode(text); }

// Best local alignment score with gaps of k residues costing open + k * extend: full matrices, no shortcuts.
int reference_local(const std::vector<int>& a, const std::vector<int>& b, const ClustalTable& t, PairGapCosts g) {
  const std::size_t n = a.size(), m = b.size();
  const int minus_inf = -1000000000;
  std::vector<std::vector<int>> h(n + 1, std::vector<int>(m + 1, 0)), e = h, f = h;
  int best = 0;
  for (std::size_t i = 0; i <= n; ++i) {
    for (std::size_t j = 0; j <= m; ++j) {
      e[i][j] = f[i][j] = minus_inf;
      if (i == 0 || j == 0) continue;
      e[i][j] = std::max(e[i][j - 1], h[i][j - 1] - g.open) - g.extend;
      f[i][j] = std::max(f[i - 1][j], h[i - 1][j] - g.open) - g.extend;
      const int s = t[static_cast<std::size_t>(a[i - 1])][static_cast<std::size_t>(b[j - 1])];
      h[i][j] = std::max({0, h[i - 1][j - 1] + s, e[i][j], f[i][j]});
      best = std::max(best, h[i][j]);
    }
  }
  return best;
}

// ClustalW's box with full matrices: the end is the first cell of the best local score in row-major order; from it
// a backward pass (unfloored, -1 outside, the end cell's diagonal 0) visits rows and columns backwards, and the
// first cell whose score reaches the best is the start.
ClustalBox reference_box(const std::vector<int>& a, const std::vector<int>& b, const ClustalTable& t,
                         PairGapCosts g) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  const int minus_inf = -1000000000;
  auto score = [&](int i, int j) { return t[static_cast<std::size_t>(a[i - 1])][static_cast<std::size_t>(b[j - 1])]; };
  std::vector<std::vector<int>> h(n + 2, std::vector<int>(m + 2, 0)), e = h, f = h;
  ClustalBox box;
  int best = 0;
  for (int i = 1; i <= n; ++i) {
    for (int j = 1; j <= m; ++j) {
      e[i][j] = std::max(j == 1 ? minus_inf : e[i][j - 1], h[i][j - 1] - g.open) - g.extend;
      f[i][j] = std::max(i == 1 ? minus_inf : f[i - 1][j], h[i - 1][j] - g.open) - g.extend;
      h[i][j] = std::max({0, h[i - 1][j - 1] + score(i, j), e[i][j], f[i][j]});
      if (h[i][j] > best) {
        best = h[i][j];
        box.end1 = i;
        box.end2 = j;
      }
    }
  }
  box.start1 = box.start2 = 1;
  if (best == 0) return box;
  for (auto& row : h) std::fill(row.begin(), row.end(), -1);
  for (int i = box.end1; i >= 1; --i) {
    for (int j = box.end2; j >= 1; --j) {
      const int diag = i == box.end1 && j == box.end2 ? 0 : h[i + 1][j + 1];
      e[i][j] = std::max(j == box.end2 ? minus_inf : e[i][j + 1], h[i][j + 1] - g.open) - g.extend;
      f[i][j] = std::max(i == box.end1 ? minus_inf : f[i + 1][j], h[i + 1][j] - g.open) - g.extend;
      h[i][j] = std::max({diag + score(i, j), e[i][j], f[i][j]});
      if (h[i][j] >= best) {
        box.start1 = i;
        box.start2 = j;
        return box;
      }
    }
  }
  return box;
}

std::string random_protein(std::mt19937& rng, std::size_t n) {
  static const std::string letters = "ACDEFGHIKLMNPQRSTVWY";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += letters[rng() % letters.size()];
  return s;
}

// A copy of s with substitutions and small indels at rate p.
std::string mutated(std::mt19937& rng, const std::string& s, double p) {
  std::uniform_real_distribution<double> u(0, 1);
  std::string out;
  for (const char c : s) {
    const double r = u(rng);
    if (r < p / 3) continue;
    if (r < 2 * p / 3) out += random_protein(rng, 1 + rng() % 3);
    out += r < p ? random_protein(rng, 1)[0] : c;
  }
  return out;
}


// ClustalW's similarities as first written here: for every pair, a walk up from one tip that searches the other
// tip's whole path at each step. The library meets the paths in O(1) a pair; the numbers must not change.
cudp::phylo::DistanceMatrix reference_tree_similarities(const RootedGuideTree& tree) {
  const std::size_t n = tree.tip_of_sequence.size();
  cudp::phylo::DistanceMatrix s(n);
  const auto& nodes = tree.nodes;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<int> path;
    std::vector<float> to_node;
    float dist = 0;
    for (int p = tree.tip_of_sequence[i]; p >= 0; p = nodes[static_cast<std::size_t>(p)].parent) {
      path.push_back(p);
      dist += nodes[static_cast<std::size_t>(p)].dist;
      to_node.push_back(dist);
    }
    for (std::size_t j = 0; j < i; ++j) {
      int p = tree.tip_of_sequence[j];
      dist = 0;
      bool found = false;
      std::size_t meet = 0;
      while (!found && nodes[static_cast<std::size_t>(p)].parent >= 0) {
        for (std::size_t k = 0; k < path.size(); ++k) {
          if (nodes[static_cast<std::size_t>(p)].parent == path[k]) {
            found = true;
            meet = k;
          }
        }
        dist += nodes[static_cast<std::size_t>(p)].dist;
        p = nodes[static_cast<std::size_t>(p)].parent;
      }
      double length = static_cast<float>(dist + to_node[meet - 1]);
      if (length < 0.01) length = 0.01;
      if (length > 1.0) length = 1.0;
      s.set(i, j, 100.0 - length * 100.0);
    }
  }
  return s;
}

}  // namespace

TEST_CASE("ClustalW's FASTA reading: names, kept and dropped characters, sequence type", "[msa]") {
  const auto s = parse_clustal_fasta(">  first word rest\nac-gT*1 .j\n>second\r\nACGTNACGTU\n\n>third\nMKV\n", "t");
  REQUIRE(s.size() == 3);
  CHECK(s.names[0] == "first");
  CHECK(s.names[1] == "second");
  // Lower case kept upper-cased, '-' a gap, '*', digits, '.', blanks and J dropped.
  CHECK(s.residues[0] == std::vector<int>{0, 2, clustal_gap_old, 6, 18});
  CHECK(s.dna);  // decided by the second sequence alone
  CHECK_FALSE(parse_clustal_fasta(">a\nACGT\n>b\nMKVL\n", "t").dna);
  CHECK_FALSE(parse_clustal_fasta(">a\nACGT\n", "t").dna);  // one sequence: protein, as in ClustalW
  CHECK_FALSE(parse_clustal_fasta(">a\nM\n>b\nACGTACGTXXX\n", "t").dna);  // 8 of 11 bases: below 85%
  CHECK_THROWS_AS(parse_clustal_fasta(">a\nACGT\n>empty\n123\n", "t"), cudp::io::InputError);
  CHECK_THROWS_AS(parse_clustal_fasta("ACGT\n", "t"), cudp::io::InputError);
}

TEST_CASE("pairwise tables and gap costs in ClustalW's units", "[msa]") {
  const PairwiseScoring gonnet = pairwise_scoring(PairwiseProteinMatrix::gonnet);
  CHECK(gonnet.int_scale == 10);
  CHECK(gonnet.table[static_cast<std::size_t>(clustal_code('W'))][static_cast<std::size_t>(clustal_code('W'))] ==
        1420);
  CHECK(gonnet.average_mismatch > 0);
  const PairwiseScoring iub = pairwise_scoring(PairwiseDnaMatrix::iub);
  const auto at = [&](char x, char y) {
    return iub.table[static_cast<std::size_t>(clustal_code(x))][static_cast<std::size_t>(clustal_code(y))];
  };
  CHECK(at('A', 'A') == 1000);
  CHECK(at('A', 'G') == -900);  // the transition weight lands elsewhere ...
  CHECK(at('C', 'N') == 500);   // ... on C/N, C/M and A/E
  CHECK(at('C', 'M') == 500);
  CHECK(at('G', 'N') == 1000);
  // 6.66 * 100 in float arithmetic is 666 (665.99999... in double would give 665).
  const PairGapCosts dna = pairwise_gap_costs(FullPairwiseSettings::nucleotide(), iub, 100, 200);
  CHECK(dna.open == 3000);
  CHECK(dna.extend == 666);
  const PairGapCosts protein = pairwise_gap_costs(FullPairwiseSettings::protein(), gonnet, 141, 146);
  CHECK(protein.extend == 1);
  CHECK(protein.open == static_cast<int>(2 * gonnet.average_mismatch * (10.0f + std::log(141.0))));
}

TEST_CASE("full distances set from identities a slice at a time equal clustal_distances", "[msa]") {
  // As the GPU hands them back: pairs of the sequences sorted longest first, identities by pair number, any slices.
  std::mt19937 rng(41);
  std::vector<std::vector<int>> seqs;
  for (int s = 0; s < 37; ++s) seqs.push_back(codes(random_protein(rng, s % 9 == 4 ? 0 : 1 + rng() % 90)));
  seqs.push_back(codes("----"));  // no residues, not empty
  const auto settings = PairwiseDistanceSettings::defaults(false);
  const auto want = clustal_distances(seqs, settings, 2);
  const std::size_t n = seqs.size();
  std::vector<int> order(n), lengths(n), residues(n);
  for (std::size_t s = 0; s < n; ++s) {
    order[s] = static_cast<int>(s);
    lengths[s] = static_cast<int>(seqs[s].size());
    residues[s] = residue_count(seqs[s].data(), lengths[s]);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lengths[a] > lengths[b]; });
  const PairwiseScoring scoring = settings.full.scoring();
  FullPairwiseAligner aligner;
  std::vector<int> identities(cudp::align::pair_count(n));
  for (std::size_t p = 0; p < identities.size(); ++p) {
    const auto [i, j] = cudp::align::pair_at(p, n);
    const int x = std::min(order[i], order[j]), y = std::max(order[i], order[j]);
    const auto& a = seqs[static_cast<std::size_t>(x)];
    const auto& b = seqs[static_cast<std::size_t>(y)];
    const int la = static_cast<int>(a.size()), lb = static_cast<int>(b.size());
    if (la > 0 && lb > 0)
      identities[p] = aligner.identities(a.data(), la, b.data(), lb, scoring.table,
                                         pairwise_gap_costs(settings.full, scoring, la, lb));
  }
  for (const std::size_t slice : {identities.size(), std::size_t{100}, std::size_t{7}}) {
    cudp::phylo::DistanceMatrix got(n);
    for (std::size_t from = 0; from < identities.size(); from += slice) {
      const std::size_t to = std::min(identities.size(), from + slice);
      set_full_distances(got, order, lengths, residues, identities.data() + from, from, to, 3);
    }
    INFO("slice " << slice);
    CHECK(std::memcmp(got.cells().data(), want.cells().data(), sizeof(double) * want.cells().size()) == 0);
  }
}

TEST_CASE("full pairwise: the box alignment scores the best local alignment; identities", "[msa]") {
  std::mt19937 rng(3);
  const FullPairwiseSettings settings = FullPairwiseSettings::protein();
  const PairwiseScoring scoring = settings.scoring();
  FullPairwiseAligner aligner;
  for (int rep = 0; rep < 60; ++rep) {
    const std::string x = random_protein(rng, 1 + rng() % 120);
    const std::string y = rep % 3 == 0 ? random_protein(rng, 1 + rng() % 120) : mutated(rng, x, 0.3);
    if (y.empty()) continue;
    const auto a = codes(x), b = codes(y);
    const PairGapCosts costs = pairwise_gap_costs(settings, scoring, static_cast<int>(a.size()),
                                                  static_cast<int>(b.size()));
    const int identities = aligner.identities(a.data(), static_cast<int>(a.size()), b.data(),
                                              static_cast<int>(b.size()), scoring.table, costs);
    CHECK(aligner.last_score() == reference_local(a, b, scoring.table, costs));
    CHECK(identities >= 0);
    CHECK(identities <= static_cast<int>(std::min(a.size(), b.size())));
  }
  const auto a = codes("MKVLAAGIVGLLLAWQSTRE");
  CHECK(aligner.distance(a.data(), 20, a.data(), 20, settings, scoring) == 0.0);
  const auto gap = codes("MKVLA-AGIVG");
  CHECK(residue_count(gap.data(), static_cast<int>(gap.size())) == 10);
  // 7 identities of 9 in float steps: (100 - 700 / 9) / 100.
  CHECK(full_pairwise_distance(full_pairwise_percent(7, 9, 12)) == static_cast<double>((100.0f - 700.0f / 9.0f) /
                                                                                        100.0f));
}

// One pair through the core with strips of Strip rows: identities, box score and box.
struct StripResult {
  int identities, score;
  ClustalBox box;
  bool operator==(const StripResult& o) const {
    return identities == o.identities && score == o.score && box == o.box;
  }
};

template <int Strip>
StripResult strip_core(const std::vector<int>& a, const std::vector<int>& b, const ClustalTable& table,
                       PairGapCosts costs) {
  const std::size_t row = std::max(a.size(), b.size()) + 1;
  std::vector<int> scratch(4 * row);
  ClustalFullPairwiseCore<int, ClustalTableScores, 1, Strip> core(a.data(), b.data(), ClustalTableScores{&table},
                                                                  costs, scratch.data(), scratch.data() + row,
                                                                  scratch.data() + 2 * row, scratch.data() + 3 * row);
  const int identities = core.identities(static_cast<int>(a.size()), static_cast<int>(b.size()));
  return {identities, core.box_score(), core.box()};
}

// Pairs whose cells tie often: short sequences (fewer rows than a strip), motifs repeated a few rows apart (equal
// scores ending and starting inside one strip), free gaps (many equal paths) and unrelated pairs.
struct TieRichPair {
  int rep;
  std::string x, y;
  PairGapCosts costs;
};

std::vector<TieRichPair> tie_rich_pairs(std::mt19937& rng, int count, const FullPairwiseSettings& settings,
                                        const PairwiseScoring& scoring) {
  std::vector<TieRichPair> pairs;
  for (int rep = 0; rep < count; ++rep) {
    std::string x = random_protein(rng, 1 + rng() % 70);
    std::string y = rep % 3 == 0 ? random_protein(rng, 1 + rng() % 70) : mutated(rng, x, 0.3);
    if (rep % 2 == 1) {
      const std::string motif = random_protein(rng, 3 + rng() % 8);
      x = random_protein(rng, rng() % 4);
      for (std::size_t k = 1 + rng() % 6; k > 0; --k) x += motif + random_protein(rng, rng() % 3);
      y = random_protein(rng, rng() % 5) + motif + random_protein(rng, rng() % 5);
      if (rep % 4 == 1) std::swap(x, y);
    }
    if (y.empty()) continue;
    PairGapCosts costs = pairwise_gap_costs(settings, scoring, static_cast<int>(codes(x).size()),
                                            static_cast<int>(codes(y).size()));
    if (rep % 8 == 7) costs = PairGapCosts{0, 0};
    if (rep % 8 == 3) costs = PairGapCosts{2, 0};
    pairs.push_back({rep, x, y, costs});
  }
  return pairs;
}

TEST_CASE("full pairwise: strips of any height take the row-by-row passes' cells and ties", "[msa]") {
  // Every strip height against the full-matrix reference: the same end, start, score and identities.
  std::mt19937 rng(5);
  const FullPairwiseSettings settings = FullPairwiseSettings::protein();
  const PairwiseScoring scoring = settings.scoring();
  for (const TieRichPair& pair : tie_rich_pairs(rng, 600, settings, scoring)) {
    const auto a = codes(pair.x), b = codes(pair.y);
    const PairGapCosts costs = pair.costs;
    const auto rows = strip_core<1>(a, b, scoring.table, costs);
    INFO("pair " << pair.rep << ": " << pair.x << " / " << pair.y);
    CAPTURE(rows.box.start1, rows.box.start2, rows.box.end1, rows.box.end2);
    CHECK(rows.score == reference_local(a, b, scoring.table, costs));
    CHECK(rows.box == reference_box(a, b, scoring.table, costs));
    CHECK(strip_core<2>(a, b, scoring.table, costs) == rows);
    CHECK(strip_core<3>(a, b, scoring.table, costs) == rows);
    CHECK(strip_core<4>(a, b, scoring.table, costs) == rows);
    CHECK(strip_core<8>(a, b, scoring.table, costs) == rows);
    CHECK(strip_core<16>(a, b, scoring.table, costs) == rows);
  }
}

// The core's three steps one by one, each on its own scratch (as the GPU's kernels run them): the end, the box and
// the identities of identities() and of the full-matrix references.
template <int Strip>
void require_steps(const std::vector<int>& a, const std::vector<int>& b, const ClustalTable& table,
                   PairGapCosts costs) {
  using Core = ClustalFullPairwiseCore<int, ClustalTableScores, 1, Strip>;
  const std::size_t row = std::max(a.size(), b.size()) + 1;
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  const auto core = [&](std::vector<int>& scratch) {
    scratch.assign(4 * row, -7);
    return Core(a.data(), b.data(), ClustalTableScores{&table}, costs, scratch.data(), scratch.data() + row,
                scratch.data() + 2 * row, scratch.data() + 3 * row);
  };
  std::vector<int> first, second, third, whole;
  const ClustalEnd end = core(first).end_cell(n, m);
  const ClustalBox box = core(second).box_from_end(end);
  Core steps = core(third);
  const int identities = steps.box_identities(box);
  Core together = core(whole);
  CHECK(together.identities(n, m) == identities);
  CHECK(together.box() == box);
  CHECK(steps.box() == box);
  CHECK(together.box_score() == steps.box_score());
  const ClustalBox reference = reference_box(a, b, table, costs);
  const int best = reference_local(a, b, table, costs);
  CHECK(end == ClustalEnd{best, reference.end1, reference.end2});
  CHECK(box == reference);
  CHECK(steps.box_score() == best);
}

TEST_CASE("full pairwise: the end, box and identities steps make identities", "[msa]") {
  std::mt19937 rng(5);
  const FullPairwiseSettings settings = FullPairwiseSettings::protein();
  const PairwiseScoring scoring = settings.scoring();
  const std::vector<TieRichPair> pairs = tie_rich_pairs(rng, 600, settings, scoring);
  REQUIRE(pairs.size() > 500);
  for (const TieRichPair& pair : pairs) {
    const auto a = codes(pair.x), b = codes(pair.y);
    INFO("pair " << pair.rep << ": " << pair.x << " / " << pair.y);
    require_steps<1>(a, b, scoring.table, pair.costs);
    require_steps<4>(a, b, scoring.table, pair.costs);
    require_steps<16>(a, b, scoring.table, pair.costs);
  }
  // No cell above 0: end 0, 0 and the box from 1, 1, as identities() has them.
  const auto none_a = codes("W"), none_b = codes("G");
  const PairGapCosts costs = pairwise_gap_costs(settings, scoring, 1, 1);
  REQUIRE(reference_local(none_a, none_b, scoring.table, costs) == 0);
  require_steps<4>(none_a, none_b, scoring.table, costs);
}

TEST_CASE("k-tuple scores: identical, unrelated and shifted sequences", "[msa]") {
  KtupleScorer protein(KtupleSettings::protein());
  const auto a = codes("MKVLAAGIVGLLLAWQSTRE");
  const int n = static_cast<int>(a.size());
  CHECK(protein.score(a.data(), n, a.data(), n, n) == n);
  CHECK(protein.distance(a.data(), n, a.data(), n, n) == 0.0);
  const auto none = codes("CCCCCCCC");
  CHECK(protein.score(a.data(), n, none.data(), 8, n) == 0);
  CHECK(protein.distance(a.data(), n, none.data(), 8, n) == 1.0);
  KtupleScorer dna(KtupleSettings::nucleotide());
  const auto x = codes("ACGTTGCAACGGTACCGTAA"), y = codes("TTACGTTGCAACGGTACCGTAA");
  CHECK(dna.score(x.data(), 20, y.data(), 22, 22) == 20);  // the whole of x on one diagonal
  // N breaks DNA words: no 2-tuple exists.
  const auto ns = codes("NNNNNNNN");
  CHECK(dna.score(ns.data(), 8, ns.data(), 8, 8) == 0);
}

TEST_CASE("k-tuple scores: the prefix-maximum search finds ClustalW's list's fragment, score for score", "[msa]") {
  // Related, unrelated and repetitive pairs (many fragments of equal score), protein k = 1, 2 and DNA k = 1..4,
  // wide and narrow bands, and a small `longest` so that the fragment list fills up (ClustalW's partial alignment).
  std::mt19937 rng(11);
  const std::string dna_letters = "ACGTACGTACGTN";
  const auto random_dna = [&](std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += dna_letters[rng() % dna_letters.size()];
    return s;
  };
  std::vector<KtupleSettings> settings;
  for (const int k : {1, 2}) {
    KtupleSettings p = KtupleSettings::protein();
    cudp::msa::apply_clustal_ktuple_options(p, k, 0, 0, 0);
    settings.push_back(p);
    p.window = 1 + static_cast<int>(rng() % 12);
    p.top_diagonals = 1 + static_cast<int>(rng() % 12);
    p.window_gap = static_cast<int>(rng() % 8);
    settings.push_back(p);
  }
  for (const int k : {1, 2, 3, 4}) {
    KtupleSettings d = KtupleSettings::nucleotide();
    cudp::msa::apply_clustal_ktuple_options(d, k, 0, 0, 0);
    settings.push_back(d);
  }
  int compared = 0, partial = 0;
  for (const KtupleSettings& setting : settings) {
    KtupleScorer fast(setting);
    cudp_test::ListKtupleScorer list(setting);
    for (int rep = 0; rep < 120; ++rep) {
      const auto make = [&](std::size_t n) { return setting.dna ? random_dna(n) : random_protein(rng, n); };
      std::string x = make(1 + rng() % 150);
      std::string y = rep % 3 == 0 ? make(1 + rng() % 150) : mutated(rng, x, 0.2 + 0.1 * (rep % 4));
      if (setting.dna && rep % 3 != 0) {
        for (char& c : y)
          if (std::string("ACGTN").find(c) == std::string::npos) c = dna_letters[rng() % 4];
      }
      if (rep % 5 == 1) {
        const std::string motif = make(1 + rng() % 6);
        x.clear();
        for (std::size_t r = 1 + rng() % 30; r > 0; --r) x += motif;
        y = make(rng() % 10) + x.substr(0, x.size() / 2) + make(rng() % 10);
      }
      if (y.empty()) continue;
      const auto a = codes(x), b = codes(y);
      const int n1 = static_cast<int>(a.size()), n2 = static_cast<int>(b.size());
      for (const int longest : {std::max(n1, n2), 1 + static_cast<int>(rng() % 20)}) {
        const int expected = list.score(a.data(), n1, b.data(), n2, longest);
        INFO("k " << setting.ktuple << (setting.dna ? " dna " : " protein ") << x << " / " << y << ", longest "
                  << longest);
        REQUIRE(fast.score(a.data(), n1, b.data(), n2, longest) == expected);
        ++compared;
        partial += longest < std::max(n1, n2);
      }
    }
  }
  CHECK(compared > 1500);
  CHECK(partial > 500);
}

TEST_CASE("clustal_distances: symmetric, zero diagonal, the same on any number of threads", "[msa]") {
  std::mt19937 rng(5);
  std::vector<std::vector<int>> seqs;
  const std::string base = random_protein(rng, 80);
  for (int k = 0; k < 9; ++k) seqs.push_back(codes(mutated(rng, base, 0.1 * k)));
  for (const bool quick : {false, true}) {
    const auto settings = PairwiseDistanceSettings::defaults(false, quick);
    const auto one = clustal_distances(seqs, settings, 1);
    const auto many = clustal_distances(seqs, settings, 4);
    for (std::size_t i = 0; i < seqs.size(); ++i) {
      CHECK(one(i, i) == 0.0);
      for (std::size_t j = 0; j < seqs.size(); ++j) {
        CHECK(one(i, j) == one(j, i));
        CHECK(one(i, j) == many(i, j));
      }
    }
  }
}

TEST_CASE("the .dnd text as ClustalW writes it", "[msa]") {
  cudp::phylo::DistanceMatrix d(3);
  d.set(0, 1, 0.3);
  d.set(0, 2, 0.4);
  d.set(1, 2, 0.5);
  CHECK(clustal_guide_tree(d, {"a", "b", "c"}).dnd == "(\na:0.10000,\nb:0.20000,\nc:0.30000);\n");
  cudp::phylo::DistanceMatrix u(3);
  u.set(0, 1, 0.2);
  u.set(0, 2, 0.6);
  u.set(1, 2, 0.6);
  CHECK(clustal_guide_tree(u, {"a", "b", "c"}, ClusterMethod::upgma).dnd ==
        "(\n(\na:0.1,\nb:0.1):0.3,\nc:0.3):0.3;\n");
  cudp::phylo::DistanceMatrix two(2);
  two.set(0, 1, 0.56738);
  CHECK(clustal_guide_tree(two, {"x", "y"}).dnd == "(x:0.28369,y:0.28369);\n");
  cudp::phylo::DistanceMatrix four(4);
  four.set(0, 1, 0.1);
  four.set(0, 2, 0.9);
  four.set(0, 3, 0.9);
  four.set(1, 2, 0.9);
  four.set(1, 3, 0.9);
  four.set(2, 3, 0.8);
  const std::string text = clustal_guide_tree(four, {"p", "q", "r", "s"}).dnd;
  // A cherry nests with "(\n" and ")\n", children in order of their smallest sequence number.
  CHECK(text.rfind("(\n(\np:0.05000,\nq:0.05000)\n:", 0) == 0);
  CHECK_THROWS_AS(clustal_guide_tree(cudp::phylo::DistanceMatrix(1), {"x"}), std::invalid_argument);
}

TEST_CASE("guide tree similarities: ClustalW's path walks, on trees of tie-rich distances", "[msa]") {
  std::mt19937 rng(99);
  for (const int n : {3, 4, 5, 8, 13, 30, 77, 200}) {
    for (const int levels : {2, 5, 0}) {
      cudp::phylo::DistanceMatrix d(static_cast<std::size_t>(n));
      std::uniform_int_distribution<int> level(0, levels);
      std::uniform_real_distribution<double> any(0.0, 1.2);
      for (std::size_t i = 0; i < d.size(); ++i) {
        for (std::size_t j = i + 1; j < d.size(); ++j) d.set(i, j, levels > 0 ? level(rng) * 0.3 : any(rng));
      }
      std::vector<std::string> names;
      for (int i = 0; i < n; ++i) names.push_back("s" + std::to_string(i));
      const std::string dnd = clustal_guide_tree(d, names).dnd;
      // A name given twice matches the same tip: the pair's path is that tip's branch, twice.
      std::vector<std::string> wanted = names;
      if (n > 3) wanted[1] = "S0";
      for (const auto& seqs : {names, wanted}) {
        INFO("n = " << n << ", levels = " << levels);
        const RootedGuideTree tree = read_clustal_guide_tree(dnd, seqs);
        const auto got = tree_similarities(tree);
        const auto want = reference_tree_similarities(tree);
        bool same = true;
        for (std::size_t i = 0; i < got.size(); ++i) {
          for (std::size_t j = 0; j < got.size(); ++j) same = same && got(i, j) == want(i, j);
        }
        CHECK(same);
      }
    }
  }
}

TEST_CASE("guide tree read back: rooting keeps the tree, steps and similarities", "[msa]") {
  const std::vector<std::string> names{"A", "b", "c", "d", "e"};
  // ClustalW's own unrooted output, with a negative branch as NJ may write.
  const std::string text =
      "(\n(\na:0.10000,\nb:-0.00200)\n:0.30000,\nc:0.40000,\n(\nd:0.20000,\ne:0.25000)\n:0.05000);\n";
  const RootedGuideTree tree = read_clustal_guide_tree(text, names);
  REQUIRE(tree.tip_of_sequence.size() == 5);
  CHECK(tree.has_distances);
  const auto& root = tree.nodes[static_cast<std::size_t>(tree.root)];
  CHECK(root.parent < 0);
  CHECK(root.order == 5);
  // Every reachable inner node has two children; the branch lengths add up to the input's.
  float total = 0;
  int tips = 0;
  std::vector<int> stack{tree.root};
  while (!stack.empty()) {
    const int p = stack.back();
    stack.pop_back();
    const auto& node = tree.nodes[static_cast<std::size_t>(p)];
    total += node.dist;
    if (node.leaf) {
      ++tips;
      continue;
    }
    REQUIRE(node.left >= 0);
    REQUIRE(node.right >= 0);
    CHECK(tree.nodes[static_cast<std::size_t>(node.left)].parent == p);
    stack.push_back(node.left);
    stack.push_back(node.right);
  }
  CHECK(tips == 5);
  CHECK(total == Approx(0.1 - 0.002 + 0.3 + 0.4 + 0.2 + 0.25 + 0.05).margin(1e-6));
  const auto steps = progressive_steps(tree);
  REQUIRE(steps.size() == 4);  // n - 1 profile alignments
  for (const auto& step : steps) {
    CHECK(std::count(step.begin(), step.end(), 1) >= 1);
    CHECK(std::count(step.begin(), step.end(), 2) >= 1);
  }
  CHECK(std::count(steps.back().begin(), steps.back().end(), 0) == 0);  // the last step joins everything
  const auto sim = tree_similarities(tree);
  CHECK(sim(0, 1) == Approx(100.0 - 100.0 * 0.098));  // a to b: 0.1 - 0.002
  CHECK(sim(3, 4) == Approx(100.0 - 100.0 * 0.45));
  CHECK(sim(0, 0) == 0.0);
  // A rooted tree stays as it is; names are matched case-insensitively, blanks in sequence names read as '_'.
  const auto rooted = read_clustal_guide_tree("((x_y:0.1,Z:0.2):0.1,w:0.3);", {"X y", "z", "w"});
  CHECK(rooted.nodes[static_cast<std::size_t>(rooted.root)].dist == 0.0f);
  CHECK(progressive_steps(rooted) == std::vector<std::vector<int>>{{1, 2, 0}, {1, 1, 2}});
  CHECK_THROWS_AS(read_clustal_guide_tree("((a:0.1,b:0.2):0.1,c:0.3);", {"a", "b", "x"}), cudp::io::InputError);
  CHECK_THROWS_AS(read_clustal_guide_tree("((a:0.1,b:0.2):0.1,c:0.3);", {"a", "b"}), cudp::io::InputError);
  CHECK_THROWS_AS(read_clustal_guide_tree("a:0.1;", {"a"}), cudp::io::InputError);
  CHECK_FALSE(read_clustal_guide_tree("((a,b),c);", {"a", "b", "c"}).has_distances);
  CHECK_THROWS_AS(read_clustal_guide_tree("(a,b,c);", {"a", "b", "c"}), cudp::io::InputError);
  // Text no ClustalW writes, whose links would make the rooting walk in circles (found by fuzz_guide_tree).
  CHECK_THROWS_AS(read_clustal_guide_tree("((a:0.71,b0.2a:0.1,((c:0.3,d:0.1):0.2,e(:0.1):0.05);",
                                          {"a", "b", "c", "d", "e"}),
                  cudp::io::InputError);
}

TEST_CASE("UPGMA's steps come from its joins", "[msa]") {
  const std::vector<cudp::phylo::UpgmaJoin> joins{{1, 3, 0.1}, {0, 2, 0.2}, {0, 1, 0.3}};
  CHECK(progressive_steps(joins, 4) == std::vector<std::vector<int>>{{0, 1, 0, 2}, {1, 0, 2, 0}, {1, 2, 1, 2}});
  CHECK(progressive_steps(std::vector<cudp::phylo::UpgmaJoin>{{0, 1, 0.1}}, 2).empty());
}
