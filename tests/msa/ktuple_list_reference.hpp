#pragma once
// ClustalW's k-tuple fragment chaining as clustalw writes it, walking its score-ordered fragment list for every match:
// the reference that clustal_ktuple.hpp's prefix-maximum search must agree with, score for score.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "cudp/msa/clustal_ktuple.hpp"

namespace cudp_test {

using cudp::msa::KtupleSettings;
using cudp::msa::clustal_max_residue;

class ListKtupleScorer {
 public:
  explicit ListKtupleScorer(const KtupleSettings& settings) : s_(settings) {
    const int base = s_.dna ? 4 : clustal_max_residue + 1;
    digit_weight_.assign(static_cast<std::size_t>(s_.ktuple) + 1, 0);
    for (int i = 1; i <= s_.ktuple; ++i) digit_weight_[i] = static_cast<int>(std::pow(double(base), double(i - 1)));
    words_ = static_cast<int>(std::pow(double(base), double(s_.ktuple)));
  }

  // The fragment chain score of (first, second); `longest` is the longest sequence of the whole set, which bounds
  // the fragment list as in ClustalW.
  int score(const int* first, int n1, const int* second, int n2, int longest) {
    index_words(second, n2, next_second_, head_second_);
    index_words(first, n1, next_first_, head_first_);
    const int diagonals = n1 + n2 - 1;
    rank_diagonals(diagonals, n2);
    return chain(first, n1, n2, diagonals, 4 * longest);
  }

  // The score ClustalW reports: a percentage of the shorter length with -SCORE=PERCENT.
  double reported_score(const int* first, int n1, const int* second, int n2, int longest) {
    const int best = score(first, n1, second, n2, longest);
    double value = best;
    if (best != 0 && s_.percent) value = value / static_cast<double>(std::min(n1, n2)) * 100.0;
    return value;
  }

  double distance(const int* first, int n1, const int* second, int n2, int longest) {
    return (100.0 - reported_score(first, n1, second, n2, longest)) / 100.0;
  }

 private:
  // The word starting at 1-based position i, or -1 if a residue there makes none.
  int word_at(const int* seq, int i) const {
    int code = 0;
    for (int j = 1; j <= s_.ktuple; ++j) {
      const int c = seq[i + j - 2];
      const int digit = s_.dna ? cudp::msa::detail::ktuple_base(c) : (c >= 0 && c <= clustal_max_residue ? c : -1);
      if (digit < 0) return -1;
      code += digit * digit_weight_[static_cast<std::size_t>(j)];
    }
    return code + 1;
  }

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

  struct Fragment {
    int score = 0;
    int pos1 = 0;   // where its last k-tuple starts in the first sequence
    int pos2 = 0;   // and in the second
    int before = 0; // the fragment it extends (0: none)
    int next = 0;   // the next lower-scoring fragment in the list
  };

  // May a k-tuple at (i1, i2) follow the fragment ending with a k-tuple at (f1, f2)?
  bool may_follow(int i1, int i2, int f1, int f2) const {
    if (i1 - i2 == f1 - f2) return f1 < i1;
    return f1 + s_.ktuple - 1 < i1 && f2 + s_.ktuple - 1 < i2;
  }

  // The score of a fragment grown from `f` to a k-tuple at i1 on the same diagonal.
  int grown(const Fragment& f, int i1) const {
    return i1 > f.pos1 + (s_.ktuple - 1) ? f.score + s_.ktuple : f.score + (i1 - f.pos1);
  }

  int chain(const int* first, int n1, int n2, int diagonals, int capacity) {
    frags_.assign(1, Fragment{});
    last_on_diagonal_.assign(static_cast<std::size_t>(diagonals) + 1, 0);
    best_ = 0;
    for (int i = 1; i <= n1 - s_.ktuple + 1; ++i) {
      const int w = word_at(first, i);
      if (w < 0) continue;
      for (int j = head_second_[w]; j != 0; j = next_second_[j]) {
        const int diagonal = i - j + n2;
        if (searched_[diagonal] != 1) continue;
        int score = s_.ktuple;
        int before = 0;
        for (int f = best_; f != 0; f = frags_[f].next) {
          const Fragment& frag = frags_[f];
          if (!may_follow(i, j, frag.pos1, frag.pos2)) continue;
          if (i - j == frag.pos1 - frag.pos2) {
            score = grown(frag, i);
            before = f;
          } else {
            const int last = last_on_diagonal_[diagonal];
            const int along = last == 0 ? s_.ktuple : grown(frags_[last], i);
            const int across = frag.score - s_.window_gap + s_.ktuple;
            if (across > along) {
              before = f;
              score = across;
            } else {
              before = last;
              score = along;
            }
          }
          break;
        }
        if (static_cast<int>(frags_.size()) >= capacity) return best_ == 0 ? 0 : frags_[best_].score;
        last_on_diagonal_[diagonal] = static_cast<int>(frags_.size());
        insert(Fragment{score, i, j, before, 0});
      }
    }
    return best_ == 0 ? 0 : frags_[best_].score;
  }

  // Adds a fragment to the list, before the first one it does not score below.
  void insert(Fragment f) {
    const int id = static_cast<int>(frags_.size());
    frags_.push_back(f);
    if (best_ == 0) {
      best_ = id;  // ClustalW's first fragment is number 1
      return;
    }
    if (f.score >= frags_[best_].score) {
      frags_[id].next = best_;
      best_ = id;
      return;
    }
    int previous = best_;
    int at = frags_[best_].next;
    while (at != 0 && f.score < frags_[at].score) {
      previous = at;
      at = frags_[at].next;
    }
    frags_[id].next = at;
    frags_[previous].next = id;
  }

  KtupleSettings s_;
  std::vector<int> digit_weight_;
  int words_ = 0;
  std::vector<int> next_first_, head_first_, next_second_, head_second_;
  std::vector<int> votes_, order_, searched_;
  std::vector<Fragment> frags_;
  std::vector<int> last_on_diagonal_;
  int best_ = 0;
};

}  // namespace cudp_test
