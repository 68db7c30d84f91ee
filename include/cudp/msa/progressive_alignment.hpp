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

inline int residue_count(const std::vector<int>& row, int length) {
  int count = 0;
  for (int j = 0; j < length && j < static_cast<int>(row.size()); ++j)
    if (row[static_cast<std::size_t>(j)] != clustal_gap_new && row[static_cast<std::size_t>(j)] != clustal_gap_old)
      ++count;
  return count;
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
  double pcid = 0.0;
  int pairs = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (group[i] != 1) continue;
    for (std::size_t j = 0; j < n; ++j)
      if (group[j] == 2) {
        ++pairs;
        pcid += similarity(i, j);
      }
  }
  pcid = pcid / static_cast<float>(pairs);

  std::vector<std::vector<int>> members;
  std::vector<int> member_weights;
  const int length1 = detail::gather_side(rows, group, 1, members, member_weights, weights, false);
  const int nseqs1 = static_cast<int>(members.size());
  const int length2 = detail::gather_side(rows, group, 2, members, member_weights, weights, true);
  const int nseqs2 = static_cast<int>(members.size()) - nseqs1;

  int residues1 = 0, residues2 = 0;
  for (int s = 0; s < nseqs1; ++s) residues1 += detail::residue_count(members[static_cast<std::size_t>(s)], length1);
  for (int s = nseqs1; s < nseqs1 + nseqs2; ++s)
    residues2 += detail::residue_count(members[static_cast<std::size_t>(s)], length2);
  const int len1 = static_cast<int>(residues1 / static_cast<float>(nseqs1));
  const int len2 = static_cast<int>(residues2 / static_cast<float>(nseqs2));

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

// The whole progressive stage. `sequences`: residue codes (clustal_encode); see the file comment for the rest.
inline MultipleAlignment progressive_align(const std::vector<std::vector<int>>& sequences,
                                           const std::vector<ProgressiveStep>& steps, std::vector<int> weights,
                                           const phylo::DistanceMatrix& similarity, const ClustalParameters& p,
                                           bool distance_tree = true) {
  const std::size_t n = sequences.size();
  if (n < 2) throw std::invalid_argument("progressive_align: a multiple alignment needs two sequences or more");
  MultipleAlignment result;
  result.rows = sequences;
  const bool input_order = p.output_order == OutputOrder::input;
  std::vector<int> order(n, 0);
  std::size_t placed = 0;
  auto place = [&](std::size_t s) {
    if (input_order) {
      order[s] = static_cast<int>(s);
    } else {
      order[placed] = static_cast<int>(s);
    }
    ++placed;
  };

  // Each sequence's best identity to any other, truncated as ClustalW stores it.
  std::vector<int> best(n, -1);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (j != i && best[i] < similarity(i, j)) best[i] = static_cast<int>(similarity(i, j));

  std::vector<char> aligned(n, 0);
  for (const ProgressiveStep& step : steps) {
    int entries = 0;
    for (std::size_t s = 0; s < n; ++s) {
      if (step[s] == 0 || best[s] <= p.divergence_cutoff) continue;
      ++entries;
      if (!aligned[s]) {
        place(s);
        aligned[s] = 1;
      }
    }
    if (entries > 0) align_profiles_step(result.rows, step, aligned, weights, similarity, p, distance_tree);
  }

  const std::vector<int> tree_weights = weights;
  if (placed == 0) {
    // Everything was delayed: start from the first sequence of the closest pair.
    int closest = -1;
    std::size_t start = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j)
        if (closest < similarity(i, j)) {
          closest = static_cast<int>(similarity(i, j));
          start = i;
        }
    aligned[start] = 1;
    place(start);
  }
  while (placed < n) {
    for (std::size_t i = 0; i < n; ++i) {
      if (aligned[i]) continue;
      best[i] = -1;
      for (std::size_t j = 0; j < n; ++j)
        if (best[i] < similarity(i, j) && aligned[j]) best[i] = static_cast<int>(similarity(i, j));
    }
    int closest = -1;
    std::size_t next = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (!aligned[i] && best[i] > closest) {
        closest = best[i];
        next = i;
      }
    if (!p.no_weights) {
      // The aligned sequences count by their tree weight times their identity with the newcomer.
      for (std::size_t j = 0; j < n; ++j)
        if (aligned[j]) weights[j] = static_cast<int>(tree_weights[j] * similarity(j, next));
      long long sum = 0;
      for (std::size_t j = 0; j < n; ++j)
        if (aligned[j]) sum += weights[j];
      if (sum == 0) {
        for (int& w : weights) w = 1;
        sum = static_cast<long long>(n);
      }
      for (std::size_t j = 0; j < n; ++j) {
        if (!aligned[j]) continue;
        weights[j] = static_cast<int>(static_cast<long long>(weights[j]) * clustal_weight_scale / sum);
        if (weights[j] < 1) weights[j] = 1;
      }
    }
    std::vector<int> group(n, 0);
    for (std::size_t j = 0; j < n; ++j) group[j] = aligned[j] ? 1 : j == next ? 2 : 0;
    aligned[next] = 1;
    align_profiles_step(result.rows, group, aligned, weights, similarity, p, distance_tree);
    place(next);
  }
  result.order = std::move(order);
  return result;
}

}  // namespace cudp::msa
