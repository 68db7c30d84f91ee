#pragma once
// Stage 1 of ClustalW 2.1's multiple alignment on its own: the distance matrix of a set of sequences, every pair
// scored by the full pairwise alignment (the default) or by k-tuples (-QUICKTREE). Only the N(N-1)/2 pairs i < j
// are computed, on worker threads; the matrix is symmetric with a zero diagonal.
//
//   auto seqs = cudp::msa::read_clustal_fasta("globins.fa");
//   auto d = cudp::msa::clustal_distances(seqs.residues, cudp::msa::PairwiseDistanceSettings::defaults(seqs.dna));
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include "../align/all_pairs.hpp"
#include "../host/parallel_for.hpp"
#include "../phylo/distance_trees.hpp"
#include "clustal_full_pairwise.hpp"
#include "clustal_ktuple.hpp"

namespace cudp::msa {

struct PairwiseDistanceSettings {
  bool quick = false;  // -QUICKTREE: k-tuple scores instead of full alignments
  FullPairwiseSettings full;
  KtupleSettings ktuple;

  // ClustalW's defaults for protein or DNA.
  static PairwiseDistanceSettings defaults(bool dna, bool quick = false) {
    PairwiseDistanceSettings s;
    s.quick = quick;
    s.full = dna ? FullPairwiseSettings::nucleotide() : FullPairwiseSettings::protein();
    s.ktuple = dna ? KtupleSettings::nucleotide() : KtupleSettings::protein();
    return s;
  }
};

// The distances between `sequences` (residue codes, gaps included) on `threads` threads (0: all usable cores).
// `pairs_done`, when given, counts the pairs finished, for a progress display read from another thread.
inline phylo::DistanceMatrix clustal_distances(const std::vector<std::vector<int>>& sequences,
                                               const PairwiseDistanceSettings& settings, int threads = 0,
                                               std::atomic<std::size_t>* pairs_done = nullptr) {
  const std::size_t n = sequences.size();
  phylo::DistanceMatrix d(n);
  const auto length = [&](std::size_t i) { return static_cast<int>(sequences[i].size()); };
  if (settings.quick) {
    int longest = 0;
    for (std::size_t i = 0; i < n; ++i) longest = std::max(longest, length(i));
    align::for_all_pairs(
        n, threads, [&] { return KtupleScorer(settings.ktuple); },
        [&](KtupleScorer& scorer, std::size_t i, std::size_t j) {
          d.set(i, j, scorer.distance(sequences[i].data(), length(i), sequences[j].data(), length(j), longest));
          if (pairs_done != nullptr) pairs_done->fetch_add(1, std::memory_order_relaxed);
        });
  } else {
    const PairwiseScoring scoring = settings.full.scoring();
    align::for_all_pairs(
        n, threads, [] { return FullPairwiseAligner(); },
        [&](FullPairwiseAligner& aligner, std::size_t i, std::size_t j) {
          d.set(i, j, aligner.distance(sequences[i].data(), length(i), sequences[j].data(), length(j), settings.full,
                                       scoring));
          if (pairs_done != nullptr) pairs_done->fetch_add(1, std::memory_order_relaxed);
        });
  }
  return d;
}

// Pairs [from, to) of full alignments set in `d` as ClustalW's distances, from their identical residues: the pairs
// of n sequences taken in the order `order` (pair p is align::pair_at(p, n) over positions of `order`, identities
// in `identities[p - from]`), `lengths` and `residues` (residue_count) by input sequence; a pair with an empty
// sequence is 1 apart. `threads` (0: all cores) share the pairs, a run of consecutive pairs each. (The GPU's
// alignments come back this way, a slice of the pairs at a time.)
inline void set_full_distances(phylo::DistanceMatrix& d, const std::vector<int>& order, const std::vector<int>& lengths,
                               const std::vector<int>& residues, const int* identities, std::size_t from,
                               std::size_t to, int threads = 0) {
  const std::size_t n = order.size();
  if (from >= to) return;
  const std::size_t runs = std::min<std::size_t>(to - from, 256);
  host::parallel_for(runs, threads, [] { return 0; }, [&](int, std::size_t k) {
    const std::size_t begin = from + (to - from) * k / runs, end = from + (to - from) * (k + 1) / runs;
    auto [i, j] = align::pair_at(begin, n);
    for (std::size_t p = begin; p < end; ++p) {
      const auto x = static_cast<std::size_t>(order[i]), y = static_cast<std::size_t>(order[j]);
      d.set(x, y, lengths[x] == 0 || lengths[y] == 0
                      ? 1.0
                      : full_pairwise_distance(full_pairwise_percent(identities[p - from], residues[x], residues[y])));
      if (++j == n) {
        ++i;
        j = i + 1;
      }
    }
  });
}

}  // namespace cudp::msa
