#pragma once
// ClustalW's k-tuple fragment chaining as clustalw writes it, walking its score-ordered fragment list for every match:
// the reference that clustal_ktuple.hpp's prefix-maximum search must agree with, score for score (both chain over
// the same words and searched diagonals, clustal_ktuple.hpp's KtupleDiagonals).
#include <vector>

#include "cudp/msa/clustal_ktuple.hpp"

namespace cudp_test {

using cudp::msa::KtupleSettings;

class ListKtupleScorer {
 public:
  explicit ListKtupleScorer(const KtupleSettings& settings) : diagonals_(settings) {}

  // The fragment chain score of (first, second); `longest` is the longest sequence of the whole set, which bounds
  // the fragment list as in ClustalW. The words and searched diagonals are the library's; the chaining is the
  // list walk.
  int score(const int* first, int n1, const int* second, int n2, int longest) {
    diagonals_.prepare(first, n1, second, n2);
    return chain(first, n1, n2, n1 + n2 - 1, 4 * longest);
  }

 private:
  const KtupleSettings& settings() const { return diagonals_.settings(); }

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
    return f1 + settings().ktuple - 1 < i1 && f2 + settings().ktuple - 1 < i2;
  }

  // The score of a fragment grown from `f` to a k-tuple at i1 on the same diagonal.
  int grown(const Fragment& f, int i1) const {
    return i1 > f.pos1 + (settings().ktuple - 1) ? f.score + settings().ktuple : f.score + (i1 - f.pos1);
  }

  int chain(const int* first, int n1, int n2, int diagonals, int capacity) {
    frags_.assign(1, Fragment{});
    last_on_diagonal_.assign(static_cast<std::size_t>(diagonals) + 1, 0);
    best_ = 0;
    for (int i = 1; i <= n1 - settings().ktuple + 1; ++i) {
      const int w = diagonals_.word_at(first, i);
      if (w < 0) continue;
      for (int j = diagonals_.last_in_second(w); j != 0; j = diagonals_.previous_in_second(j)) {
        const int diagonal = i - j + n2;
        if (!diagonals_.searched(diagonal)) continue;
        int score = settings().ktuple;
        int before = 0;
        for (int f = best_; f != 0; f = frags_[f].next) {
          const Fragment& frag = frags_[f];
          if (!may_follow(i, j, frag.pos1, frag.pos2)) continue;
          if (i - j == frag.pos1 - frag.pos2) {
            score = grown(frag, i);
            before = f;
          } else {
            const int last = last_on_diagonal_[diagonal];
            const int along = last == 0 ? settings().ktuple : grown(frags_[last], i);
            const int across = frag.score - settings().window_gap + settings().ktuple;
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

  cudp::msa::detail::KtupleDiagonals diagonals_;
  std::vector<Fragment> frags_;
  std::vector<int> last_on_diagonal_;
  int best_ = 0;
};

}  // namespace cudp_test
