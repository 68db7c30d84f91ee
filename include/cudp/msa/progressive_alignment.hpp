#pragma once
// ClustalW 2.1's progressive stage: the guide tree's steps in order, each aligning the profile of the sequences
// under one child with the profile under the other; sequences at most MAXDIV % identical to every other sequence
// are left out of the steps and added one at a time afterwards, closest first, to the alignment built so far.
//
// What the stage takes from the earlier ones, for a guide tree read back from its .dnd (rooted_guide_tree.hpp):
//   steps        progressive_step_ranges(tree), or progressive_steps(tree): per step, each sequence marked 1 or 2
//                (the two profiles) or 0
//   weights      sequence_weights(tree): integer weights summing to about 1000
//   similarity   percent identities (similarities.hpp): TreeSimilarities(tree), or the matrix tree_similarities(tree),
//                for every neighbour-joining or -USETREE run (ClustalW replaces the pairwise distances by the guide
//                tree's path lengths), or similarities_from_distances(pairwise distances) for a UPGMA run
//   distance_tree tree.has_distances (without branch lengths each matrix series is one member)
// So a run from a .dnd needs nothing from the pairwise stage.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "../host/host_cores.hpp"
#include "../host/parallel_for.hpp"

#include "../phylo/distance_trees.hpp"
#include "clustal_alphabet.hpp"
#include "clustal_matrices.hpp"
#include "clustal_parameters.hpp"
#include "column_profiles.hpp"
#include "growing_alignment.hpp"
#include "profile_alignment.hpp"
#include "progressive_steps.hpp"
#include "sequence_weights.hpp"
#include "similarities.hpp"

namespace cudp::msa {

// Rows of residue codes, one per input sequence, all of one length once aligned; `order` lists the input indices
// in the order the .aln prints them.
struct MultipleAlignment {
  std::vector<std::vector<int>> rows;
  std::vector<int> order;
  std::vector<int> weights;  // the weights of the last step, by sequence (GCG output reports them)
};

using ProgressiveStep = std::vector<int>;  // per sequence: 0, 1 or 2

// Distances in [0, 1] (a pairwise stage's) as ClustalW's similarities, for a UPGMA run: 100 - 100 d, diagonal 0.
inline phylo::DistanceMatrix similarities_from_distances(const phylo::DistanceMatrix& distances) {
  phylo::DistanceMatrix s(distances.size());
  for (std::size_t i = 0; i < distances.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) s.set(i, j, 100.0 - distances(i, j) * 100.0);
  return s;
}

namespace detail {

// The step's integer gap opening and extension costs.
inline void step_gap_costs(const ClustalParameters& p, const ProfileMatrix& matrix, int len1, int len2, int& open,
                           int& extend) {
  if (p.dna) {
    open = static_cast<int>(100.0 * p.gap_open() * matrix.scale);
    extend = static_cast<int>(100.0 * p.gap_extend() * matrix.scale);
    return;
  }
  // Longer profiles and profiles of unequal lengths get relatively cheaper openings.
  double log_min = 1.0, log_diff = 1.0;
  const int min_len = len1 < len2 ? len1 : len2;
  if (len1 != 0 && len2 != 0) {
    log_min = 1.0 / std::log10(static_cast<double>(min_len));
    if (len2 < len1) {
      log_diff = 1.0 + 0.5 * std::log10(static_cast<double>(static_cast<float>(len2) / static_cast<float>(len1)));
    } else if (len1 < len2) {
      log_diff = 1.0 + 0.5 * std::log10(static_cast<double>(static_cast<float>(len1) / static_cast<float>(len2)));
    }
    if (log_diff < 0.9) log_diff = 0.9;
  }
  if (p.negative_matrix) {
    open = static_cast<int>(100.0 * static_cast<float>(p.gap_open()));
  } else if (matrix.average_mismatch <= 0) {
    open = static_cast<int>(100.0 * static_cast<float>(p.gap_open() + log_min));
  } else {
    open = static_cast<int>(matrix.scale * static_cast<float>(matrix.average_mismatch) *
                            static_cast<float>(p.gap_open() / (log_diff * log_min)));
  }
  extend = static_cast<int>(100.0 * p.gap_extend());
}

// What a step's profile needs of one side: its members (rows are read only for a two-sequence side's gap kinds),
// which gap costs it gets, and its sums.
struct ProfileSide {
  const ProfileMembers& members;
  const GapCostKinds& kinds;
  const MemberSums& sums;
};

// The step's profiles and their alignment: the path, and ClustalW's score through `score`. `weights` is indexed
// like the sides' member rows.
inline std::vector<PathStep> profiles_path(const ProfileSide& one, const ProfileSide& two,
                                           const std::vector<int>& weights, double pcid, const ClustalParameters& p,
                                           bool distance_tree, int threads, int* score) {
  // The mean residue counts, truncated (ClustalW's profile "lengths" for gap costs and the Gonnet choice).
  const int len1 = static_cast<int>(one.sums.residues / static_cast<float>(one.members.count()));
  const int len2 = static_cast<int>(two.sums.residues / static_cast<float>(two.members.count()));

  const ProfileMatrix matrix = profile_matrix(p, pcid, len1 < len2 ? len1 : len2, distance_tree);
  int open = 0, extend = 0;
  step_gap_costs(p, matrix, len1, len2, open, extend);

  ColumnProfile first(one.members.length), second(two.members.length);
  const std::vector<int> gaps1 = set_gap_costs(first, one.members, p, open, extend, one.kinds, one.sums);
  fill_matrix_profile(first, one.members, gaps1, matrix, weights, one.sums.codes, threads);
  set_gap_costs(second, two.members, p, open, extend, two.kinds, two.sums);
  fill_frequency_profile(second, two.members, weights, two.sums.codes);
  return align_clustal_profiles(first, second, p.end_gap_penalties, score, threads);
}

// One side's member rows, without copies: pointers to the sequences' rows, padded copies (with gap codes) only for
// rows shorter than the side's longest. Returns the side's length.
inline int gather_side(const std::vector<std::vector<int>>& rows, const std::vector<int>& members,
                       std::vector<const int*>& out, std::vector<int>& out_weights, const std::vector<int>& weights,
                       std::vector<std::vector<int>>& padded) {
  int length = 0;
  for (const int s : members)
    length = std::max(length, static_cast<int>(rows[static_cast<std::size_t>(s)].size()));
  for (const int s : members) {
    const std::vector<int>& row = rows[static_cast<std::size_t>(s)];
    if (static_cast<int>(row.size()) == length) {
      out.push_back(row.data());
    } else {
      std::vector<int> copy(row);
      copy.resize(static_cast<std::size_t>(length), clustal_gap_new);
      padded.push_back(std::move(copy));
      out.push_back(padded.back().data());
    }
    out_weights.push_back(weights[static_cast<std::size_t>(s)]);
  }
  return length;
}

// Where each alignment column takes its code from, for one side: the side's column index, or -1 for a gap.
inline std::vector<int> path_sources(int length, const std::vector<PathStep>& path, PathStep own_gap) {
  std::vector<int> from(path.size());
  int at = 0;
  for (std::size_t k = 0; k < path.size(); ++k) {
    if (path[k] == own_gap) {
      from[k] = -1;
    } else {
      from[k] = at < length ? at : length;  // `length`: past the end (ClustalW's end-of-alignment mark)
      ++at;
    }
  }
  return from;
}

inline std::vector<int> apply_path(const int* row, int length, const std::vector<int>& from) {
  std::vector<int> out(from.size());
  for (std::size_t k = 0; k < from.size(); ++k) {
    const int at = from[k];
    out[k] = at < 0 ? clustal_gap_new : at < length ? row[at] : clustal_end_of_alignment;
  }
  return out;
}

// One progressive step: aligns the sequences `one` against the sequences `two` (each in input order, both not
// empty) and rewrites their rows. Returns ClustalW's step score.
inline int align_sides(std::vector<std::vector<int>>& rows, std::vector<int> one, std::vector<int> two,
                       const std::vector<int>& weights, const Similarities& similarity, const ClustalParameters& p,
                       bool distance_tree, int threads) {
  if (two.size() > one.size()) one.swap(two);  // the larger side becomes the matrix profile
  const double pcid = similarity.mean(one, two);

  std::vector<const int*> member_rows;
  std::vector<int> member_weights;
  std::vector<std::vector<int>> padded;
  padded.reserve(one.size() + two.size());  // stable addresses for the pointers
  const int length1 = detail::gather_side(rows, one, member_rows, member_weights, weights, padded);
  const int nseqs1 = static_cast<int>(one.size());
  const int length2 = detail::gather_side(rows, two, member_rows, member_weights, weights, padded);
  const int nseqs2 = static_cast<int>(two.size());
  const ProfileMembers side1{member_rows.data(), 0, nseqs1, length1};
  const ProfileMembers side2{member_rows.data(), nseqs1, nseqs1 + nseqs2, length2};
  const GapCostKinds kinds1 = gap_cost_kinds(side1, p), kinds2 = gap_cost_kinds(side2, p);
  const MemberSums sums1 = member_sums(side1, p, kinds1, &member_weights, threads);
  const MemberSums sums2 = member_sums(side2, p, kinds2, &member_weights, threads);
  int score = 0;
  const std::vector<PathStep> path = detail::profiles_path(
      {side1, kinds1, sums1}, {side2, kinds2, sums2}, member_weights, pcid, p, distance_tree, threads, &score);

  const std::vector<int> from1 = detail::path_sources(length1, path, PathStep::second_only);
  const std::vector<int> from2 = detail::path_sources(length2, path, PathStep::first_only);
  const int members = nseqs1 + nseqs2;
  std::vector<std::vector<int>> out(static_cast<std::size_t>(members));
  auto rewrite = [&](int first_member, int last_member) {
    for (int k = first_member; k < last_member; ++k)
      out[static_cast<std::size_t>(k)] =
          k < nseqs1 ? detail::apply_path(member_rows[static_cast<std::size_t>(k)], length1, from1)
                     : detail::apply_path(member_rows[static_cast<std::size_t>(k)], length2, from2);
  };
  if (threads > 1 && static_cast<long long>(members) * static_cast<long long>(path.size()) >=
                         detail::member_sums_parallel_cells) {
    host::parallel_for(2, 2, [] { return 0; }, [&](int&, std::size_t half) {
      if (half == 0) {
        rewrite(0, members / 2);
      } else {
        rewrite(members / 2, members);
      }
    });
  } else {
    rewrite(0, members);
  }
  for (int k = 0; k < nseqs1; ++k)
    rows[static_cast<std::size_t>(one[static_cast<std::size_t>(k)])] = std::move(out[static_cast<std::size_t>(k)]);
  for (int k = 0; k < nseqs2; ++k)
    rows[static_cast<std::size_t>(two[static_cast<std::size_t>(k)])] =
        std::move(out[static_cast<std::size_t>(nseqs1 + k)]);
  return score / 100;
}

}  // namespace detail

// One progressive step: aligns the sequences with group 1 against those with group 2 (groups of sequences not yet
// `aligned` count as 0) and rewrites their rows. Returns ClustalW's step score (0 when a side is empty). It reads
// and writes the rows of the step's sequences only (and reads weights and similarity), so steps on disjoint sets of
// sequences may run side by side. `threads` (> 1) lets the largest profile alignments split their passes.
inline int align_profiles_step(std::vector<std::vector<int>>& rows, const std::vector<int>& group,
                               const std::vector<char>& aligned, const std::vector<int>& weights,
                               const Similarities& similarity, const ClustalParameters& p, bool distance_tree = true,
                               int threads = 1) {
  std::vector<int> one, two;
  for (std::size_t s = 0; s < rows.size(); ++s) {
    if (!aligned[s]) continue;
    if (group[s] == 1) one.push_back(static_cast<int>(s));
    if (group[s] == 2) two.push_back(static_cast<int>(s));
  }
  if (one.empty() || two.empty()) return 0;
  return detail::align_sides(rows, std::move(one), std::move(two), weights, similarity, p, distance_tree, threads);
}

namespace detail {

// ClustalW's running best identity: folding identities into `best` as best_identity does (its result depends only
// on the set folded, not on the order: -1 when no identity exceeds -1, else the largest truncated).
inline int fold_identity(int best, double identity) { return best < identity ? static_cast<int>(identity) : best; }

// A sequence's best identity to another (aligned ones only, when `among` is given), from its row of identities,
// truncated as ClustalW stores it; -1 when there is none.
inline int best_identity(const std::vector<double>& row, std::size_t i, const std::vector<char>* among) {
  int best = -1;
  for (std::size_t j = 0; j < row.size(); ++j) {
    if (j == i || (among && !(*among)[j])) continue;
    best = fold_identity(best, row[j]);
  }
  return best;
}

// best_identity for the sequences not `skip`ped (all when empty), on `threads` threads; -1 for those skipped.
inline std::vector<int> best_identities(const Similarities& similarity, const std::vector<char>* among,
                                        const std::vector<char>& skip, int threads) {
  std::vector<int> best(similarity.size(), -1);
  host::parallel_for(similarity.size(), threads, [] { return std::vector<double>(); },
                     [&](std::vector<double>& row, std::size_t i) {
    if (!skip.empty() && skip[i]) return;
    similarity.row(i, row);
    best[i] = best_identity(row, i, among);
  });
  return best;
}

// When every sequence was delayed: the first sequence of the most similar pair starts the alignment. (ClustalW keeps
// the best so far truncated, so a later pair wins on a larger fraction: the scan stays in order, the rows are
// computed a block at a time on the threads.)
inline std::size_t closest_pair_start(const Similarities& similarity, int threads) {
  const std::size_t n = similarity.size();
  const std::size_t block = 8 * static_cast<std::size_t>(std::max(1, threads));
  std::vector<std::vector<double>> rows(std::min(n, block));
  int closest = -1;
  std::size_t start = 0;
  for (std::size_t first = 0; first < n; first += block) {
    const std::size_t count = std::min(block, n - first);
    host::parallel_for(count, threads, [] { return 0; },
                       [&](int, std::size_t k) { similarity.row(first + k, rows[k]); });
    for (std::size_t k = 0; k < count; ++k)
      for (std::size_t j = first + k + 1; j < n; ++j)
        if (closest < rows[k][j]) {
          closest = static_cast<int>(rows[k][j]);
          start = first + k;
        }
  }
  return start;
}

// The delayed sequence closest to the aligned ones (the first on ties); `best`: each delayed sequence's
// best_identity to the aligned ones.
inline std::size_t closest_delayed(const std::vector<int>& best, const std::vector<char>& aligned) {
  int closest = -1;
  std::size_t next = 0;
  for (std::size_t i = 0; i < aligned.size(); ++i) {
    if (aligned[i]) continue;
    if (best[i] > closest) {
      closest = best[i];
      next = i;
    }
  }
  return next;
}

// The second pass's per-join loops run over every sequence, O(n) a join and O(n^2) in all: at n = 100,000 they
// would be most of a join done on one thread. They run in blocks of this many sequences on the threads, each block's
// result combined in block order, so that sums and choices are those of one loop.
inline constexpr std::size_t sequence_block = 8192;

inline std::size_t sequence_blocks(std::size_t n) { return (n + sequence_block - 1) / sequence_block; }

template <class Body>
void for_sequence_blocks(std::size_t n, int threads, Body body) {
  const std::size_t blocks = sequence_blocks(n);
  host::parallel_for(blocks, blocks > 1 ? threads : 1, [] { return 0; }, [&](int&, std::size_t b) {
    body(b, b * sequence_block, std::min(n, (b + 1) * sequence_block));
  });
}

// Folds the newcomer's identities into the delayed sequences' best ones, then picks the next delayed sequence as
// closest_delayed does (the first of the best; 0 when none is above -1).
inline std::size_t fold_and_pick_closest(std::vector<int>& best, const std::vector<char>& aligned,
                                         const std::vector<double>& newcomer_row, int threads) {
  const std::size_t n = aligned.size();
  std::vector<std::pair<int, std::size_t>> block_best(sequence_blocks(n), {-1, 0});
  for_sequence_blocks(n, threads, [&](std::size_t b, std::size_t from, std::size_t to) {
    auto& [closest, next] = block_best[b];
    for (std::size_t i = from; i < to; ++i) {
      if (aligned[i]) continue;
      best[i] = fold_identity(best[i], newcomer_row[i]);
      if (best[i] > closest) {
        closest = best[i];
        next = i;
      }
    }
  });
  int closest = -1;
  std::size_t next = 0;
  for (const auto& [value, index] : block_best)
    if (value > closest) {
      closest = value;
      next = index;
    }
  return next;
}

// Before a delayed sequence joins, the aligned sequences count by their tree weight times their identity with it
// (`newcomer_row`: its row of identities), rescaled to sum to about 1000; the others keep their weights (all become
// 1 when every product is 0).
inline void weigh_for_newcomer(std::vector<int>& weights, const std::vector<int>& tree_weights,
                               const std::vector<char>& aligned, const std::vector<double>& newcomer_row,
                               int threads = 1) {
  const std::size_t n = weights.size();
  std::vector<long long> block_sums(sequence_blocks(n), 0);
  for_sequence_blocks(n, threads, [&](std::size_t b, std::size_t from, std::size_t to) {
    for (std::size_t j = from; j < to; ++j) {
      if (!aligned[j]) continue;
      weights[j] = static_cast<int>(tree_weights[j] * newcomer_row[j]);
      block_sums[b] += weights[j];
    }
  });
  long long sum = 0;
  for (const long long s : block_sums) sum += s;
  if (sum == 0) {
    for (int& w : weights) w = 1;
    sum = static_cast<long long>(n);
  }
  for_sequence_blocks(n, threads, [&](std::size_t, std::size_t from, std::size_t to) {
    for (std::size_t j = from; j < to; ++j) {
      if (!aligned[j]) continue;
      weights[j] = static_cast<int>(static_cast<long long>(weights[j]) * clustal_weight_scale / sum);
      if (weights[j] < 1) weights[j] = 1;
    }
  });
}

}  // namespace detail

// Aligned sequences from which the delayed ones join a GrowingAlignment rather than rewritten rows (both give the
// same rows; below this many the rows are cheap to rewrite).
inline constexpr std::size_t growing_alignment_from = 32;

namespace detail {

// align_profiles_step for a delayed sequence `next` joining the growing alignment of the `aligned` ones;
// `next_row`: its row of identities.
inline void join_growing(GrowingAlignment& growing, const std::vector<std::vector<int>>& rows,
                         const std::vector<char>& aligned, std::size_t next, const std::vector<int>& weights,
                         const std::vector<double>& next_row, const ClustalParameters& p, bool distance_tree,
                         int threads) {
  std::vector<int> member_weights;
  double sum = 0.0;  // the mean identity with the aligned sequences, as Similarities::mean sums it
  int pairs = 0;
  for (std::size_t s = 0; s < rows.size(); ++s)
    if (aligned[s]) {
      member_weights.push_back(weights[s]);
      sum += next_row[s];
      ++pairs;
    }
  const double pcid = sum / static_cast<float>(pairs);
  const int count = growing.rows();
  member_weights.push_back(weights[next]);
  std::vector<const int*> member_rows(static_cast<std::size_t>(count) + 1, nullptr);
  member_rows.back() = rows[next].data();
  const ProfileMembers side1{member_rows.data(), 0, count, growing.length()};
  const ProfileMembers side2{member_rows.data(), count, count + 1, static_cast<int>(rows[next].size())};
  const GapCostKinds kinds1 = gap_cost_kinds(side1, p), kinds2 = gap_cost_kinds(side2, p);
  const MemberSums sums1 = growing.sums(p, kinds1, weights, threads);
  const MemberSums sums2 = member_sums(side2, p, kinds2, &member_weights);
  const std::vector<PathStep> path =
      profiles_path({side1, kinds1, sums1}, {side2, kinds2, sums2}, member_weights, pcid, p, distance_tree, threads,
                    nullptr);
  growing.add(static_cast<int>(next), rows[next], path);
}

}  // namespace detail

namespace detail {

// Runs tasks 0..count-1 on `threads` threads (the calling one among them), each once all of its `after` tasks have
// run; run(task, inner) gets `inner` threads to split the task itself when nothing else could run beside it. The
// first exception stops the handing out and is rethrown.
template <class Run>
void run_task_graph(const std::vector<std::vector<int>>& after, int threads, Run run) {
  const std::size_t count = after.size();
  std::vector<int> waiting(count, 0);
  std::vector<std::vector<int>> next(count);
  for (std::size_t k = 0; k < count; ++k) {
    waiting[k] = static_cast<int>(after[k].size());
    for (const int d : after[k]) next[static_cast<std::size_t>(d)].push_back(static_cast<int>(k));
  }
  std::vector<int> ready;  // kept in decreasing order: the earliest task runs first
  for (std::size_t k = count; k-- > 0;)
    if (waiting[k] == 0) ready.push_back(static_cast<int>(k));
  std::mutex lock;
  std::condition_variable changed;
  std::size_t finished = 0;
  int running = 0;
  std::exception_ptr failure;
  auto worker = [&] {
    std::unique_lock<std::mutex> hold(lock);
    while (true) {
      changed.wait(hold, [&] { return !ready.empty() || finished == count || failure; });
      if (finished == count || failure) return;
      const int task = ready.back();
      ready.pop_back();
      const int inner = ready.empty() && running == 0 ? threads : 1;
      ++running;
      hold.unlock();
      std::exception_ptr error;
      try {
        run(task, inner);
      } catch (...) {
        error = std::current_exception();
      }
      hold.lock();
      --running;
      ++finished;
      if (error && !failure) failure = error;
      for (const int k : next[static_cast<std::size_t>(task)])
        if (--waiting[static_cast<std::size_t>(k)] == 0) {
          ready.insert(std::upper_bound(ready.begin(), ready.end(), k, std::greater<int>()), k);
        }
      changed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace detail

namespace detail {

// The whole progressive stage over `step_count` steps, whose sides `sides(k, one, two)` gives (each in input order).
template <class Sides>
MultipleAlignment progressive_align_sides(const std::vector<std::vector<int>>& sequences, std::size_t step_count,
                                          const Sides& sides, std::vector<int> weights,
                                          const Similarities& similarity, const ClustalParameters& p,
                                          bool distance_tree, int threads, std::size_t growing_from,
                                          std::atomic<std::size_t>* placed_count) {
  const std::size_t n = sequences.size();
  if (n < 2) throw std::invalid_argument("progressive_align: a multiple alignment needs two sequences or more");
  if (similarity.size() != n) throw std::invalid_argument("progressive_align: identities for other sequences");
  if (threads <= 0) threads = host::usable_cores();
  MultipleAlignment result;
  result.rows = sequences;
  result.order.assign(n, 0);
  std::vector<char> aligned(n, 0);
  std::size_t placed = 0;
  // Output order: as the sequences join the alignment, or as they came in.
  auto join = [&](std::size_t s) {
    result.order[p.output_order == OutputOrder::input ? s : placed] = static_cast<int>(s);
    aligned[s] = 1;
    ++placed;
  };

  // First pass: the guide tree's steps, leaving out sequences no more than MAXDIV % identical to any other. A
  // sequence in a step joins there if it is not left out, so each step aligns exactly its sequences that are not
  // left out; a step waits only for the last earlier steps on its sequences.
  const std::vector<int> best = best_identities(similarity, nullptr, {}, threads);
  std::vector<char> kept(n);
  for (std::size_t s = 0; s < n; ++s) kept[s] = best[s] > p.divergence_cutoff;
  std::vector<std::size_t> tasks;  // the steps that align something, in order
  std::vector<std::vector<int>> after;
  std::vector<std::size_t> newcomers;  // by task: the sequences it is the first to align
  std::vector<int> last_task(n, -1);
  std::vector<int> one, two, members;
  for (std::size_t k = 0; k < step_count; ++k) {
    sides(k, one, two);
    members.resize(one.size() + two.size());
    std::merge(one.begin(), one.end(), two.begin(), two.end(), members.begin());
    std::vector<int> before;
    int entries = 0;
    const std::size_t placed_before = placed;
    for (const int m : members) {
      const auto s = static_cast<std::size_t>(m);
      if (!kept[s]) continue;
      ++entries;
      if (!aligned[s]) join(s);
      if (last_task[s] >= 0) before.push_back(last_task[s]);
      last_task[s] = static_cast<int>(tasks.size());
    }
    if (entries == 0) continue;
    std::sort(before.begin(), before.end());
    before.erase(std::unique(before.begin(), before.end()), before.end());
    tasks.push_back(k);
    after.push_back(std::move(before));
    newcomers.push_back(placed - placed_before);
  }
  const auto count_placed = [&](std::size_t count) {
    if (placed_count != nullptr) placed_count->fetch_add(count, std::memory_order_relaxed);
  };
  auto run_step = [&](int task, int inner) {
    // The sides again rather than kept from the loop above: kept, they would hold each sequence once for every step
    // above it, N^2 on a deep tree.
    std::vector<int> first, second;
    sides(tasks[static_cast<std::size_t>(task)], first, second);
    const auto left_out = [&](int s) { return !kept[static_cast<std::size_t>(s)]; };
    first.erase(std::remove_if(first.begin(), first.end(), left_out), first.end());
    second.erase(std::remove_if(second.begin(), second.end(), left_out), second.end());
    if (!first.empty() && !second.empty())
      align_sides(result.rows, std::move(first), std::move(second), weights, similarity, p, distance_tree, inner);
    count_placed(newcomers[static_cast<std::size_t>(task)]);
  };
  if (threads <= 1) {
    for (std::size_t t = 0; t < tasks.size(); ++t) run_step(static_cast<int>(t), 1);
  } else {
    run_task_graph(after, threads, run_step);
  }

  // Second pass: the delayed sequences one by one, closest first.
  const std::vector<int> tree_weights = weights;
  if (placed == 0) {
    join(closest_pair_start(similarity, threads));
    count_placed(1);
  }
  std::vector<int> closest = best_identities(similarity, &aligned, aligned, threads);  // to the aligned ones
  std::optional<GrowingAlignment> growing;
  std::vector<double> next_row;
  std::size_t next = closest_delayed(closest, aligned);
  while (placed < n) {
    similarity.row(next, next_row, threads);
    if (!p.no_weights) weigh_for_newcomer(weights, tree_weights, aligned, next_row, threads);
    if (!growing && placed >= std::max<std::size_t>(growing_from, 3)) {
      std::vector<int> in;
      bool representable = true;
      for (std::size_t s = 0; s < n; ++s) {
        if (aligned[s]) in.push_back(static_cast<int>(s));
        representable = representable && GrowingAlignment::representable(result.rows[s]);
      }
      if (representable) growing.emplace(result.rows, in, p);
    }
    if (growing) {
      join_growing(*growing, result.rows, aligned, next, weights, next_row, p, distance_tree, threads);
      join(next);
    } else {
      std::vector<int> in;
      for (std::size_t j = 0; j < n; ++j)
        if (aligned[j]) in.push_back(static_cast<int>(j));
      join(next);
      align_sides(result.rows, std::move(in), {static_cast<int>(next)}, weights, similarity, p, distance_tree,
                  threads);
    }
    count_placed(1);
    if (placed < n) next = fold_and_pick_closest(closest, aligned, next_row, threads);
  }
  if (growing) growing->write_rows(result.rows);
  result.weights = weights;
  return result;
}

}  // namespace detail

// The whole progressive stage. `sequences`: residue codes (clustal_encode); see the file comment for the rest.
// `threads` (0: all cores) runs the guide tree's steps on disjoint sets of sequences side by side, and splits the
// largest alignments; the result is the same for any number. Delayed sequences join a GrowingAlignment once
// `growing_from` sequences (at least 3) are aligned, rows rewritten at every join before that: the same rows.
// Memory beyond the rows grows with the sequences, not with their pairs, when `similarity` computes its values
// (TreeSimilarities). `placed_count`, when given, counts the sequences in the alignment as they join (n in all), for a
// progress display.
inline MultipleAlignment progressive_align(const std::vector<std::vector<int>>& sequences,
                                           const ProgressiveSteps& steps, std::vector<int> weights,
                                           const Similarities& similarity, const ClustalParameters& p,
                                           bool distance_tree = true, int threads = 1,
                                           std::size_t growing_from = growing_alignment_from,
                                           std::atomic<std::size_t>* placed_count = nullptr) {
  if (steps.sequences != sequences.size() && !steps.steps.empty())
    throw std::invalid_argument("progressive_align: steps for other sequences");
  const auto sides = [&](std::size_t k, std::vector<int>& one, std::vector<int>& two) { steps.sides(k, one, two); };
  return detail::progressive_align_sides(sequences, steps.size(), sides, std::move(weights), similarity, p,
                                         distance_tree, threads, growing_from, placed_count);
}

// The same with the steps as marks per sequence (progressive_steps) and the identities as a matrix.
inline MultipleAlignment progressive_align(const std::vector<std::vector<int>>& sequences,
                                           const std::vector<ProgressiveStep>& steps, std::vector<int> weights,
                                           const phylo::DistanceMatrix& similarity, const ClustalParameters& p,
                                           bool distance_tree = true, int threads = 1,
                                           std::size_t growing_from = growing_alignment_from) {
  const auto sides = [&](std::size_t k, std::vector<int>& one, std::vector<int>& two) {
    one.clear();
    two.clear();
    for (std::size_t s = 0; s < steps[k].size(); ++s) {
      if (steps[k][s] == 1) one.push_back(static_cast<int>(s));
      if (steps[k][s] == 2) two.push_back(static_cast<int>(s));
    }
  };
  return detail::progressive_align_sides(sequences, steps.size(), sides, std::move(weights),
                                         MatrixSimilarities(similarity), p, distance_tree, threads, growing_from,
                                         nullptr);
}

}  // namespace cudp::msa
