#pragma once
// ClustalW 2.1's progressive stage: the guide tree's steps in order, each aligning the profile of the sequences
// under one child with the profile under the other; sequences at most MAXDIV % identical to every other sequence
// are left out of the steps and added one at a time afterwards, closest first, to the alignment built so far.
//
// What the stage takes from the earlier ones, for a guide tree read back from its .dnd (rooted_guide_tree.hpp):
//   steps        progressive_steps(tree): per step, each sequence marked 1 or 2 (the two profiles) or 0
//   weights      sequence_weights(tree): integer weights summing to about 1000
//   similarity   percent identities, n x n: tree_similarities(tree) for every neighbour-joining or -USETREE run
//                (ClustalW replaces the pairwise distances by the guide tree's path lengths), or
//                similarities_from_distances(pairwise distances) for a UPGMA run
//   distance_tree tree.has_distances (without branch lengths each matrix series is one member)
// So a run from a .dnd needs nothing from the pairwise stage.
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../phylo/distance_trees.hpp"
#include "clustal_alphabet.hpp"
#include "clustal_matrices.hpp"
#include "clustal_parameters.hpp"
#include "column_profiles.hpp"
#include "profile_alignment.hpp"
#include "sequence_weights.hpp"

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

// The mean residue count of member rows [first, last), truncated (ClustalW's profile "length" for gap costs and
// the Gonnet choice).
inline int mean_residues(const std::vector<std::vector<int>>& members, int first, int last, int length) {
  int count = 0;
  for (int s = first; s < last; ++s) {
    const std::vector<int>& row = members[static_cast<std::size_t>(s)];
    for (int j = 0; j < length && j < static_cast<int>(row.size()); ++j) {
      const int code = row[static_cast<std::size_t>(j)];
      if (code != clustal_gap_new && code != clustal_gap_old) ++count;
    }
  }
  return static_cast<int>(count / static_cast<float>(last - first));
}

// The mean identity over pairs across the two sides, summed in double and divided by a float count.
inline double mean_identity(const std::vector<int>& group, const phylo::DistanceMatrix& similarity) {
  double sum = 0.0;
  int pairs = 0;
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (group[i] != 1) continue;
    for (std::size_t j = 0; j < group.size(); ++j) {
      if (group[j] != 2) continue;
      ++pairs;
      sum += similarity(i, j);
    }
  }
  return sum / static_cast<float>(pairs);
}

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

// Copies one side's sequences into profile rows padded to the side's longest, with room past the end.
inline int gather_side(const std::vector<std::vector<int>>& rows, const std::vector<int>& group, int side,
                       std::vector<std::vector<int>>& out, std::vector<int>& out_weights,
                       const std::vector<int>& weights, bool mark_end) {
  int length = 0;
  for (std::size_t s = 0; s < rows.size(); ++s)
    if (group[s] == side && static_cast<int>(rows[s].size()) > length) length = static_cast<int>(rows[s].size());
  for (std::size_t s = 0; s < rows.size(); ++s) {
    if (group[s] != side) continue;
    std::vector<int> row(rows[s]);
    row.resize(static_cast<std::size_t>(length) + 2, 0);
    for (std::size_t j = rows[s].size(); j < static_cast<std::size_t>(length); ++j) row[j] = clustal_gap_new;
    if (mark_end) row[static_cast<std::size_t>(length)] = clustal_end_of_alignment;
    out.push_back(std::move(row));
    out_weights.push_back(weights[s]);
  }
  return length;
}

inline std::vector<int> apply_path(const std::vector<int>& row, int length, const std::vector<PathStep>& path,
                                   PathStep own_gap) {
  std::vector<int> out;
  out.reserve(path.size());
  int at = 0;
  for (const PathStep step : path) {
    if (step == own_gap) {
      out.push_back(clustal_gap_new);
    } else {
      out.push_back(at < length ? row[static_cast<std::size_t>(at)] : clustal_end_of_alignment);
      ++at;
    }
  }
  return out;
}

}  // namespace detail

// One progressive step: aligns the sequences with group 1 against those with group 2 (groups of sequences not yet
// `aligned` count as 0) and rewrites their rows. Returns ClustalW's step score (0 when a side is empty).
inline int align_profiles_step(std::vector<std::vector<int>>& rows, std::vector<int> group,
                               const std::vector<char>& aligned, const std::vector<int>& weights,
                               const phylo::DistanceMatrix& similarity, const ClustalParameters& p,
                               bool distance_tree = true) {
  const std::size_t n = rows.size();
  int count1 = 0, count2 = 0;
  for (std::size_t s = 0; s < n; ++s) {
    if (!aligned[s]) group[s] = 0;
    count1 += group[s] == 1;
    count2 += group[s] == 2;
  }
  if (count1 == 0 || count2 == 0) return 0;
  if (count2 > count1) {
    // The larger side becomes the matrix profile.
    for (int& g : group) g = g == 1 ? 2 : g == 2 ? 1 : 0;
  }
  const double pcid = detail::mean_identity(group, similarity);
  std::vector<std::vector<int>> members;
  std::vector<int> member_weights;
  const int length1 = detail::gather_side(rows, group, 1, members, member_weights, weights, false);
  const int nseqs1 = static_cast<int>(members.size());
  const int length2 = detail::gather_side(rows, group, 2, members, member_weights, weights, true);
  const int nseqs2 = static_cast<int>(members.size()) - nseqs1;
  const int len1 = detail::mean_residues(members, 0, nseqs1, length1);
  const int len2 = detail::mean_residues(members, nseqs1, nseqs1 + nseqs2, length2);

  const ProfileMatrix matrix = profile_matrix(p, pcid, len1 < len2 ? len1 : len2, distance_tree);
  int open = 0, extend = 0;
  detail::step_gap_costs(p, matrix, len1, len2, open, extend);

  const ProfileMembers side1{&members, 0, nseqs1, length1};
  const ProfileMembers side2{&members, nseqs1, nseqs1 + nseqs2, length2};
  ColumnProfile first(length1), second(length2);
  const std::vector<int> gaps1 = set_gap_costs(first, side1, p, open, extend);
  fill_matrix_profile(first, side1, gaps1, matrix, member_weights);
  set_gap_costs(second, side2, p, open, extend);
  fill_frequency_profile(second, side2, member_weights);

  int score = 0;
  const std::vector<PathStep> path = align_clustal_profiles(first, second, p.end_gap_penalties, &score);

  std::size_t next = 0;
  for (const int side : {1, 2}) {
    const int length = side == 1 ? length1 : length2;
    const PathStep own_gap = side == 1 ? PathStep::second_only : PathStep::first_only;
    for (std::size_t s = 0; s < n; ++s)
      if (group[s] == side) rows[s] = detail::apply_path(members[next++], length, path, own_gap);
  }
  return score / 100;
}

namespace detail {

// Each sequence's best identity to another (aligned ones only, when `among` is given), truncated as ClustalW
// stores it; -1 when there is none.
inline int best_identity(const phylo::DistanceMatrix& similarity, std::size_t i, const std::vector<char>* among) {
  int best = -1;
  for (std::size_t j = 0; j < similarity.size(); ++j) {
    if (j == i || (among && !(*among)[j])) continue;
    if (best < similarity(i, j)) best = static_cast<int>(similarity(i, j));
  }
  return best;
}

// When every sequence was delayed: the first sequence of the most similar pair starts the alignment.
inline std::size_t closest_pair_start(const phylo::DistanceMatrix& similarity) {
  int closest = -1;
  std::size_t start = 0;
  for (std::size_t i = 0; i < similarity.size(); ++i)
    for (std::size_t j = i + 1; j < similarity.size(); ++j)
      if (closest < similarity(i, j)) {
        closest = static_cast<int>(similarity(i, j));
        start = i;
      }
  return start;
}

// The delayed sequence closest to the aligned ones (the first on ties).
inline std::size_t closest_delayed(const phylo::DistanceMatrix& similarity, const std::vector<char>& aligned) {
  int closest = -1;
  std::size_t next = 0;
  for (std::size_t i = 0; i < aligned.size(); ++i) {
    if (aligned[i]) continue;
    const int best = best_identity(similarity, i, &aligned);
    if (best > closest) {
      closest = best;
      next = i;
    }
  }
  return next;
}

// Before a delayed sequence joins, the aligned sequences count by their tree weight times their identity with it,
// rescaled to sum to about 1000; the others keep their weights (all become 1 when every product is 0).
inline void weigh_for_newcomer(std::vector<int>& weights, const std::vector<int>& tree_weights,
                               const std::vector<char>& aligned, const phylo::DistanceMatrix& similarity,
                               std::size_t newcomer) {
  long long sum = 0;
  for (std::size_t j = 0; j < weights.size(); ++j) {
    if (!aligned[j]) continue;
    weights[j] = static_cast<int>(tree_weights[j] * similarity(j, newcomer));
    sum += weights[j];
  }
  if (sum == 0) {
    for (int& w : weights) w = 1;
    sum = static_cast<long long>(weights.size());
  }
  for (std::size_t j = 0; j < weights.size(); ++j) {
    if (!aligned[j]) continue;
    weights[j] = static_cast<int>(static_cast<long long>(weights[j]) * clustal_weight_scale / sum);
    if (weights[j] < 1) weights[j] = 1;
  }
}

}  // namespace detail

// The whole progressive stage. `sequences`: residue codes (clustal_encode); see the file comment for the rest.
inline MultipleAlignment progressive_align(const std::vector<std::vector<int>>& sequences,
                                           const std::vector<ProgressiveStep>& steps, std::vector<int> weights,
                                           const phylo::DistanceMatrix& similarity, const ClustalParameters& p,
                                           bool distance_tree = true) {
  const std::size_t n = sequences.size();
  if (n < 2) throw std::invalid_argument("progressive_align: a multiple alignment needs two sequences or more");
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

  // First pass: the guide tree's steps, leaving out sequences no more than MAXDIV % identical to any other.
  std::vector<int> best(n);
  for (std::size_t i = 0; i < n; ++i) best[i] = detail::best_identity(similarity, i, nullptr);
  for (const ProgressiveStep& step : steps) {
    int entries = 0;
    for (std::size_t s = 0; s < n; ++s) {
      if (step[s] == 0 || best[s] <= p.divergence_cutoff) continue;
      ++entries;
      if (!aligned[s]) join(s);
    }
    if (entries > 0) align_profiles_step(result.rows, step, aligned, weights, similarity, p, distance_tree);
  }

  // Second pass: the delayed sequences one by one, closest first.
  const std::vector<int> tree_weights = weights;
  if (placed == 0) join(detail::closest_pair_start(similarity));
  while (placed < n) {
    const std::size_t next = detail::closest_delayed(similarity, aligned);
    if (!p.no_weights) detail::weigh_for_newcomer(weights, tree_weights, aligned, similarity, next);
    std::vector<int> group(n, 0);
    for (std::size_t j = 0; j < n; ++j) group[j] = aligned[j] ? 1 : j == next ? 2 : 0;
    join(next);
    align_profiles_step(result.rows, group, aligned, weights, similarity, p, distance_tree);
  }
  result.weights = weights;
  return result;
}

}  // namespace cudp::msa
