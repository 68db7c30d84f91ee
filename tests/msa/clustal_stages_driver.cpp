// Stages 1 and 2 of ClustalW's multiple alignment from the command line, for the oracle test (the cudp-msa app comes
// later): prints each pair's score line as clustalw does ("Sequences (i:j) Aligned. Score: ..."), then writes the
// guide tree to TREE. With --dump=FILE the tree is read back and rooted as ClustalW's progressive stage does, and FILE
// gets its steps ("step" and a 1 or 2 per sequence in either profile, 0 elsewhere) and the similarity matrix ("sim",
// one row per sequence).
//   clustal_stages_driver IN.fa TREE.dnd [--quicktree] [--upgma] [--type=protein|dna] [--dump=FILE]
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>

#include "cudp/msa/clustal_distances.hpp"
#include "cudp/msa/clustal_sequences.hpp"
#include "cudp/msa/guide_tree.hpp"
#include "cudp/msa/rooted_guide_tree.hpp"

int main(int argc, char** argv) {
  try {
    if (argc < 3) {
      std::fprintf(stderr, "usage: %s IN.fa TREE.dnd [--quicktree] [--upgma] [--type=protein|dna]\n", argv[0]);
      return 2;
    }
    bool quick = false;
    std::string dump;
    auto method = cudp::msa::ClusterMethod::neighbor_joining;
    cudp::msa::ClustalSequences seqs = cudp::msa::read_clustal_fasta(argv[1]);
    for (int a = 3; a < argc; ++a) {
      if (!std::strcmp(argv[a], "--quicktree")) {
        quick = true;
      } else if (!std::strcmp(argv[a], "--upgma")) {
        method = cudp::msa::ClusterMethod::upgma;
      } else if (!std::strcmp(argv[a], "--type=dna")) {
        seqs.dna = true;
      } else if (!std::strncmp(argv[a], "--dump=", 7)) {
        dump = argv[a] + 7;
      } else if (!std::strcmp(argv[a], "--type=protein")) {
        seqs.dna = false;
      } else {
        std::fprintf(stderr, "unknown option %s\n", argv[a]);
        return 2;
      }
    }
    const auto settings = cudp::msa::PairwiseDistanceSettings::defaults(seqs.dna, quick);
    const std::size_t n = seqs.size();
    cudp::phylo::DistanceMatrix d(n);
    // One pair at a time here, to print ClustalW's reported scores; clustal_distances gives the same matrix.
    int longest = 0;
    for (const auto& s : seqs.residues) longest = std::max(longest, static_cast<int>(s.size()));
    cudp::msa::FullPairwiseAligner aligner;
    cudp::msa::KtupleScorer scorer(settings.ktuple);
    const auto scoring = settings.full.scoring();
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        const auto& a = seqs.residues[i];
        const auto& b = seqs.residues[j];
        const int la = static_cast<int>(a.size()), lb = static_cast<int>(b.size());
        if (quick) {
          const double score = scorer.reported_score(a.data(), la, b.data(), lb, longest);
          d.set(i, j, (100.0 - score) / 100.0);
          if (score > 0.1) {
            std::printf("Sequences (%zu:%zu) Aligned. Score: %lg\n", i + 1, j + 1, score);
          } else {
            std::printf("Sequences (%zu:%zu) Not Aligned\n", i + 1, j + 1);
          }
        } else {
          const float percent = aligner.percent(a.data(), la, b.data(), lb, settings.full, scoring);
          d.set(i, j, cudp::msa::full_pairwise_distance(percent));
          std::printf("Sequences (%zu:%zu) Aligned. Score:  %d\n", i + 1, j + 1, static_cast<int>(percent));
        }
      }
    }
    const cudp::phylo::DistanceMatrix all = cudp::msa::clustal_distances(seqs.residues, settings, 2);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        if (all(i, j) != d(i, j)) {
          std::fprintf(stderr, "clustal_distances differs from the pair loop at (%zu, %zu)\n", i + 1, j + 1);
          return 1;
        }
      }
    }
    const cudp::msa::GuideTree guide = cudp::msa::clustal_guide_tree(d, seqs.names, method);
    std::ofstream(argv[2], std::ios::binary) << guide.dnd;
    if (!dump.empty()) {
      std::FILE* out = std::fopen(dump.c_str(), "w");
      if (!out) throw std::runtime_error("cannot write " + dump);
      const auto tree = cudp::msa::read_clustal_guide_tree(guide.dnd, seqs.names, argv[2]);
      const auto steps = method == cudp::msa::ClusterMethod::upgma ? cudp::msa::progressive_steps(guide.upgma, n)
                                                                    : cudp::msa::progressive_steps(tree);
      for (const auto& step : steps) {
        std::fprintf(out, "step");
        for (const int mark : step) std::fprintf(out, " %d", mark);
        std::fprintf(out, "\n");
      }
      const auto sim = cudp::msa::tree_similarities(tree);
      for (std::size_t i = 0; i < n; ++i) {
        std::fprintf(out, "sim");
        for (std::size_t j = 0; j < n; ++j) std::fprintf(out, " %.17g", sim(i, j));
        std::fprintf(out, "\n");
      }
      std::fclose(out);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
