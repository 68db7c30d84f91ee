// Stages 1 and 2 of ClustalW's multiple alignment from the command line, for the oracle test (the cudp-msa app comes
// later): prints each pair's score line as clustalw does ("Sequences (i:j) Aligned. Score: ..."), then writes the
// guide tree to TREE. With --dump=FILE the tree is read back and rooted as ClustalW's progressive stage does, and FILE
// gets its steps ("step" and a 1 or 2 per sequence in either profile, 0 elsewhere) and the similarity matrix ("sim",
// one row per sequence).
//   clustal_stages_driver IN.fa TREE.dnd [--quicktree] [--upgma] [--type=protein|dna] [--dump=FILE]
//                         [CLUSTALW-OPTION...]
// CLUSTALW-OPTION: clustalw's own spelling of the pairwise settings, applied to the sequence type found:
// -PWMATRIX=GONNET|BLOSUM|PAM|ID, -PWDNAMATRIX=IUB|CLUSTALW, -PWGAPOPEN=f, -PWGAPEXT=f, -TRANSWEIGHT=f, -KTUPLE=n,
// -WINDOW=n, -TOPDIAGS=n, -PAIRGAP=n, -SCORE=PERCENT|ABSOLUTE.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudp/msa/clustal_distances.hpp"
#include "cudp/msa/clustal_sequences.hpp"
#include "cudp/msa/guide_tree.hpp"
#include "cudp/msa/rooted_guide_tree.hpp"

namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The k-tuple options as given (0: not given); clustalw applies them together, after the others.
struct KtupleOptions {
  int ktuple = 0, pairgap = 0, topdiags = 0, window = 0;
};

// Applies one of clustalw's pairwise options; false if `option` is not one.
bool apply_clustal_option(const std::string& option, cudp::msa::PairwiseDistanceSettings& s, KtupleOptions& k) {
  const std::size_t eq = option.find('=');
  if (option.size() < 2 || option[0] != '-' || eq == std::string::npos) return false;
  const std::string key = upper(option.substr(1, eq - 1));
  const std::string value = option.substr(eq + 1);
  const std::string v = upper(value);
  if (key == "PWMATRIX") {
    using M = cudp::msa::PairwiseProteinMatrix;
    s.full.protein_matrix = v == "BLOSUM" ? M::blosum : v == "PAM" ? M::pam : v == "ID" ? M::identity : M::gonnet;
  } else if (key == "PWDNAMATRIX") {
    s.full.dna_matrix = v == "CLUSTALW" ? cudp::msa::PairwiseDnaMatrix::clustalw : cudp::msa::PairwiseDnaMatrix::iub;
  } else if (key == "PWGAPOPEN") {
    s.full.gap_open = std::strtof(value.c_str(), nullptr);
  } else if (key == "PWGAPEXT") {
    s.full.gap_extend = std::strtof(value.c_str(), nullptr);
  } else if (key == "TRANSWEIGHT") {
    s.full.transition_weight = std::strtof(value.c_str(), nullptr);
  } else if (key == "KTUPLE") {
    k.ktuple = std::atoi(value.c_str());
  } else if (key == "WINDOW") {
    k.window = std::atoi(value.c_str());
  } else if (key == "TOPDIAGS") {
    k.topdiags = std::atoi(value.c_str());
  } else if (key == "PAIRGAP") {
    k.pairgap = std::atoi(value.c_str());
  } else if (key == "SCORE") {
    s.ktuple.percent = v != "ABSOLUTE";
  } else {
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 3) {
      std::fprintf(stderr, "usage: %s IN.fa TREE.dnd [--quicktree] [--upgma] [--type=protein|dna]\n", argv[0]);
      return 2;
    }
    bool quick = false;
    std::string dump;
    std::vector<std::string> clustal_options;
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
      } else if (argv[a][0] == '-' && argv[a][1] != '-') {
        clustal_options.emplace_back(argv[a]);
      } else {
        std::fprintf(stderr, "unknown option %s\n", argv[a]);
        return 2;
      }
    }
    auto settings = cudp::msa::PairwiseDistanceSettings::defaults(seqs.dna, quick);
    KtupleOptions ktuple_options;
    for (const std::string& option : clustal_options) {
      if (!apply_clustal_option(option, settings, ktuple_options)) {
        std::fprintf(stderr, "unknown clustalw option %s\n", option.c_str());
        return 2;
      }
    }
    cudp::msa::apply_clustal_ktuple_options(settings.ktuple, ktuple_options.ktuple, ktuple_options.pairgap,
                                            ktuple_options.topdiags, ktuple_options.window);
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
