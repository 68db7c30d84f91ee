#pragma once
// ClustalW 2.1's "fast" pairwise distance (-QUICKTREE): Wilbur and Lipman's k-tuple score.
//
// For a pair (first, second) every k-tuple shared by the two sequences votes for its diagonal; the TOPDIAGS
// diagonals with most votes, each widened by WINDOW diagonals on either side, are the only ones searched. Walking the
// first sequence's k-tuples in order, each match on a searched diagonal extends the best earlier fragment it may
// follow: a fragment on the same diagonal continues (the score grows by the residues not yet covered), one on another
// diagonal ending before it costs PAIRGAP. The best fragment chain's score, as a percentage of the shorter length
// (-SCORE=PERCENT, the default) or as it is (-SCORE=ABSOLUTE), gives the distance (100 - score) / 100.
//
// What decides equality with clustalw: ClustalW keeps the fragments in a list ordered by score (a new one goes before
// the first it does not fall below, so equal scores read newest first) and searches it from the top for the first
// fragment the match may follow; and it ranks the diagonals by its own descending quicksort, which leaves the last
// diagonal out of the sort yet still looks at it. The list holds at most 4 times the longest sequence's length
// fragments; when it is full, the pair's score is the best found so far ("partial alignment").
//
// The list's first eligible fragment is the one of highest (score, age rank) among those the match may follow, and
// those are the fragments ending k-1 or more residues before the match in both sequences, plus the few on the
// match's own diagonal ending fewer than k residues before it. Fragments are made in order of their first-sequence
// position, so the first kind join a prefix-maximum (Fenwick) tree over the second-sequence position once they are
// far enough behind: each match costs O(log length) instead of a walk down the list, which ClustalW's cost grows with.
//
// k-tuples are words over residue codes 0..24 on protein; on DNA only A, C, G and T/U make words (any other code
// breaks them), each base a 2-bit digit.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "clustal_alphabet.hpp"

namespace cudp::msa {

// -KTUPLE, -WINDOW, -PAIRGAP, -TOPDIAGS, -SCORE; defaults are ClustalW's for the sequence type.
struct KtupleSettings {
  bool dna = false;
  int ktuple = 1;
  int window = 5;
  int window_gap = 3;   // PAIRGAP
  int top_diagonals = 5;
  bool percent = true;  // -SCORE=PERCENT

  static KtupleSettings protein() { return {}; }
  static KtupleSettings nucleotide() { return {true, 2, 4, 5, 4, true}; }
};

// clustalw's command-line rules for the k-tuple options (a value of 0 or less stands for an option not given): a
// KTUPLE above 2 (protein) or 4 (DNA) is ignored, one that is taken also sets PAIRGAP to KTUPLE + 3 (protein) or
// KTUPLE + 4 (DNA); PAIRGAP, TOPDIAGS and WINDOW are then taken only when larger than the k-tuple size. clustalw
// applies them in this order whatever the order on its command line.
inline void apply_clustal_ktuple_options(KtupleSettings& s, int ktuple, int pairgap, int topdiags, int window) {
  if (ktuple > 0 && ktuple <= (s.dna ? 4 : 2)) {
    s.ktuple = ktuple;
    s.window_gap = ktuple + (s.dna ? 4 : 3);
  }
  if (pairgap > s.ktuple) s.window_gap = pairgap;
  if (topdiags > s.ktuple) s.top_diagonals = topdiags;
  if (window > s.ktuple) s.window = window;
}

namespace detail {

// The DNA digit of a residue code (A 0, C 1, G 2, T and U 3), or -1.
inline int ktuple_base(int code) {
  switch (code) {
    case 0: return 0;
    case 2: return 1;
    case 6: return 2;
    case 18:
    case 19: return 3;
    default: return -1;
  }
}

// What ClustalW's fragment chaining reads of a pair: each sequence's k-tuple words by position, and the diagonals
// it searches (the band around the diagonals with the most shared words, ranked by ClustalW's own sort). Positions
// are 1-based as in ClustalW; the diagonal of positions (i, j) is i - j + n2, 1 .. n1 + n2 - 1.
class KtupleDiagonals {
 public:
  explicit KtupleDiagonals(const KtupleSettings& settings) : s_(settings) {
    const int base = s_.dna ? 4 : clustal_max_residue + 1;
    digit_weight_.assign(static_cast<std::size_t>(s_.ktuple) + 1, 0);
    for (int i = 1; i <= s_.ktuple; ++i) digit_weight_[i] = static_cast<int>(std::pow(double(base), double(i - 1)));
    words_ = static_cast<int>(std::pow(double(base), double(s_.ktuple)));
  }

  const KtupleSettings& settings() const { return s_; }

  // Indexes both sequences' words and marks the searched diagonals.
  void prepare(const int* first, int n1, const int* second, int n2) {
    index_words(second, n2, next_second_, head_second_);
    index_words(first, n1, next_first_, head_first_);
    rank_diagonals(n1 + n2 - 1, n2);
  }

  // The word starting at 1-based position i, or -1 if a residue there makes none.
  int word_at(const int* seq, int i) const {
    int code = 0;
    for (int j = 1; j <= s_.ktuple; ++j) {
      const int c = seq[i + j - 2];
      const int digit = s_.dna ? ktuple_base(c) : (c >= 0 && c <= clustal_max_residue ? c : -1);
      if (digit < 0) return -1;
      code += digit * digit_weight_[static_cast<std::size_t>(j)];
    }
    return code + 1;
  }
  // The second sequence's positions of word w, last first: last_in_second(w), then previous_in_second(j) until 0.
  int last_in_second(int w) const { return head_second_[static_cast<std::size_t>(w)]; }
  int previous_in_second(int j) const { return next_second_[static_cast<std::size_t>(j)]; }
  bool searched(int diagonal) const { return searched_[static_cast<std::size_t>(diagonal)] == 1; }

 private:
  // head[w]: the last position of word w; next[i]: the previous position of the word at i (0 ends the chain).
  void index_words(const int* seq, int n, std::vector<int>& next, std::vector<int>& head) const {
    head.assign(static_cast<std::size_t>(words_) + 1, 0);
    next.assign(static_cast<std::size_t>(n) + 1, 0);
    for (int i = 1; i <= n - s_.ktuple + 1; ++i) {
      const int w = word_at(seq, i);
      if (w < 0) continue;
      next[i] = head[w];
      head[w] = i;
    }
  }

  // Votes per diagonal, ClustalW's sort, and the searched band around the top diagonals.
  void rank_diagonals(int diagonals, int n2) {
    votes_.assign(static_cast<std::size_t>(diagonals) + 1, 0);
    order_.resize(static_cast<std::size_t>(diagonals) + 1);
    searched_.assign(static_cast<std::size_t>(diagonals) + 1, 0);
    for (int i = 1; i <= diagonals; ++i) order_[i] = i;
    for (int w = 1; w <= words_; ++w) {
      for (int p1 = head_first_[w]; p1 != 0; p1 = next_first_[p1]) {
        for (int p2 = head_second_[w]; p2 != 0; p2 = next_second_[p2]) ++votes_[p1 - p2 + n2];
      }
    }
    sort_descending(diagonals);
    const int last_ranked = std::max(1, diagonals - s_.top_diagonals + 1);
    for (int i = diagonals; i >= last_ranked; --i) {
      if (votes_[i] <= 0) continue;
      const int d = order_[i];
      for (int k = std::max(1, d - s_.window); k <= std::min(diagonals, d + s_.window); ++k) searched_[k] = 1;
    }
  }

  // ClustalW's quicksort of votes_[1 .. size-1] (ascending, despite its name), carrying order_ along. The element
  // at `size` is outside it.
  void sort_descending(int size) {
    std::array<int, 50> lower{}, upper{};
    lower[1] = 1;
    upper[1] = size - 1;
    int p = 1;
    while (p > 0) {
      if (lower[p] >= upper[p]) {
        --p;
        continue;
      }
      int i = lower[p] - 1;
      int j = upper[p];
      const int pivot = votes_[j];
      while (i < j) {
        for (i = i + 1; votes_[i] < pivot; ++i) {
        }
        for (j = j - 1; j > i; --j) {
          if (votes_[j] <= pivot) break;
        }
        if (i < j) swap_entries(i, j);
      }
      j = upper[p];
      swap_entries(i, j);
      if (i - lower[p] < upper[p] - i) {
        lower[p + 1] = lower[p];
        upper[p + 1] = i - 1;
        lower[p] = i + 1;
      } else {
        lower[p + 1] = i + 1;
        upper[p + 1] = upper[p];
        upper[p] = i - 1;
      }
      ++p;
    }
  }
  void swap_entries(int i, int j) {
    std::swap(votes_[i], votes_[j]);
    std::swap(order_[i], order_[j]);
  }

  KtupleSettings s_;
  std::vector<int> digit_weight_;
  int words_ = 0;
  std::vector<int> next_first_, head_first_, next_second_, head_second_;
  std::vector<int> votes_, order_, searched_;
};

}  // namespace detail

// One thread's scratch for scoring pairs; reuse it across pairs. Sequences are 0-based arrays of codes; the
// arithmetic keeps ClustalW's 1-based positions.
class KtupleScorer {
 public:
  explicit KtupleScorer(const KtupleSettings& settings) : diagonals_(settings) {}

  // The fragment chain score of (first, second); `longest` is the longest sequence of the whole set, which bounds
  // the fragment list as in ClustalW.
  int score(const int* first, int n1, const int* second, int n2, int longest) {
    diagonals_.prepare(first, n1, second, n2);
    return chain(first, n1, n2, n1 + n2 - 1, 4 * longest);
  }

  // The score ClustalW reports: a percentage of the shorter length with -SCORE=PERCENT.
  double reported_score(const int* first, int n1, const int* second, int n2, int longest) {
    const int best = score(first, n1, second, n2, longest);
    double value = best;
    if (best != 0 && diagonals_.settings().percent) value = value / static_cast<double>(std::min(n1, n2)) * 100.0;
    return value;
  }

  double distance(const int* first, int n1, const int* second, int n2, int longest) {
    return (100.0 - reported_score(first, n1, second, n2, longest)) / 100.0;
  }

 private:
  struct Fragment {
    int score = 0;
    int pos1 = 0;            // where its last k-tuple starts in the first sequence
    int pos2 = 0;            // and in the second
    int before_on_diagonal;  // the previous fragment made on its diagonal (0: none)
  };

  // Fragments ranked as ClustalW's list orders them: higher score first, then the newer (higher number) first.
  static long long rank(int score, int id) { return (static_cast<long long>(score) << 32) | id; }

  // The score of a fragment grown from `f` to a k-tuple at i1 on the same diagonal.
  int grown(const Fragment& f, int i1) const {
    const int k = diagonals_.settings().ktuple;
    return i1 > f.pos1 + (k - 1) ? f.score + k : f.score + (i1 - f.pos1);
  }

  // Prefix maxima of fragment ranks over second-sequence positions 1..n2.
  void tree_add(int pos2, long long r) {
    for (std::size_t x = static_cast<std::size_t>(pos2); x < tree_.size(); x += x & (~x + 1))
      if (tree_[x] < r) tree_[x] = r;
  }
  long long tree_max(int pos2) const {
    long long r = 0;
    for (std::size_t x = static_cast<std::size_t>(std::max(pos2, 0)); x > 0; x -= x & (~x + 1))
      if (r < tree_[x]) r = tree_[x];
    return r;
  }

  int chain(const int* first, int n1, int n2, int diagonals, int capacity) {
    const KtupleSettings& s = diagonals_.settings();
    const int k = s.ktuple;
    frags_.assign(1, Fragment{0, 0, 0, 0});
    last_on_diagonal_.assign(static_cast<std::size_t>(diagonals) + 1, 0);
    tree_.assign(static_cast<std::size_t>(n2) + 1, 0);
    long long best = 0;  // the list's head
    std::size_t in_tree = 1;
    for (int i = 1; i <= n1 - k + 1; ++i) {
      const int w = diagonals_.word_at(first, i);
      if (w < 0) continue;
      // Fragments whose last k-tuple ends before position i of the first sequence.
      for (; in_tree < frags_.size() && frags_[in_tree].pos1 <= i - k; ++in_tree)
        tree_add(frags_[in_tree].pos2, rank(frags_[in_tree].score, static_cast<int>(in_tree)));
      for (int j = diagonals_.last_in_second(w); j != 0; j = diagonals_.previous_in_second(j)) {
        const int diagonal = i - j + n2;
        if (!diagonals_.searched(diagonal)) continue;
        // The first fragment of ClustalW's list the match may follow: ending before it in both sequences, or on
        // its diagonal and ending before it in the first.
        long long found = tree_max(j - k);
        const int last = last_on_diagonal_[diagonal];
        for (int f = last; f != 0 && frags_[f].pos1 > i - k; f = frags_[f].before_on_diagonal)
          found = std::max(found, rank(frags_[f].score, f));
        int score = k;
        if (found != 0) {
          const Fragment& frag = frags_[static_cast<std::size_t>(found & 0xffffffff)];
          if (i - j == frag.pos1 - frag.pos2) {
            score = grown(frag, i);
          } else {
            const int along = last == 0 ? k : grown(frags_[last], i);
            const int across = frag.score - s.window_gap + k;
            score = across > along ? across : along;
          }
        }
        if (static_cast<int>(frags_.size()) >= capacity) return static_cast<int>(best >> 32);
        const int id = static_cast<int>(frags_.size());
        frags_.push_back(Fragment{score, i, j, last});
        last_on_diagonal_[diagonal] = id;
        best = std::max(best, rank(score, id));
      }
    }
    return static_cast<int>(best >> 32);
  }

  detail::KtupleDiagonals diagonals_;
  std::vector<Fragment> frags_;
  std::vector<int> last_on_diagonal_;
  std::vector<long long> tree_;
};

}  // namespace cudp::msa
