// The GPU code of docs/tutorial-recurrence.md and README.md, compiled (CI, no GPU) and run (label gpu). The regions
// between the snippet markers are shown verbatim in those files (tests/docs/snippets_match.py checks it). Results
// are compared with distances and scores worked out by hand, as in tutorial_test.cpp and readme_test.cpp.
#include <catch2/catch.hpp>

#include <string>

#include <cudp/bio/alphabet.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/recurrences/gotoh.hpp>

// [snippet:tutorial-device]
#include <cudp/engine/device_scorer.cuh>
#include <cudp/recurrences/levenshtein.hpp>

using namespace cudp;

std::vector<std::int32_t> device_distances(const engine::SequencesView& db, const std::vector<std::uint8_t>& query) {
  // Sorts the targets by length on the device, splits them among the tiers of the device architecture's tuning,
  // packs and uploads them. The second argument is the pad code: one past the last residue code.
  engine::DeviceScorer<recurrences::Levenshtein, lanes::s16x2> scorer(db, /*pad_code=*/4);

  engine::CascadeStats cascade;
  return scorer.score({}, 0, /*alphabet_size=*/4, query.data(), static_cast<int>(query.size()), &cascade);
}
// [/snippet]

template <class L> using LocalSW = cudp::recurrences::Gotoh<cudp::recurrences::AlignMode::Local, L>;

// [snippet:readme-device]
std::vector<std::int32_t> search_on_gpu(const cudp::io::SubstitutionMatrix& matrix, const std::uint8_t* query, int m,
                                        const cudp::engine::SequencesView& db) {
  cudp::engine::DeviceScorer<LocalSW, cudp::lanes::s16x2> gpu(db, matrix.size);  // GPU, tuned for its architecture
  return gpu.score({11, 1}, matrix, matrix.size, query, m);
}
// [/snippet]

TEST_CASE("tutorial: running it on the GPU gives the hand-computed distances") {
  // ACGT and ACCTG against ACGT: 0, and 2 (C->G, drop the final G); codes A=0 C=1 G=2 T=3.
  std::vector<std::uint8_t> residues = {0, 1, 2, 3, 0, 1, 1, 3, 2};
  std::vector<std::uint64_t> offsets = {0, 4, 9};
  engine::SequencesView db{residues.data(), offsets.data(), 2};
  CHECK(device_distances(db, {0, 1, 2, 3}) == std::vector<std::int32_t>{0, 2});
}

TEST_CASE("readme: the GPU search gives hand-computed BLOSUM62 scores") {
  const auto& alphabet = cudp::bio::protein();
  auto codes = [&](const std::string& s) {
    std::vector<std::uint8_t> c;
    for (char r : s) c.push_back(static_cast<std::uint8_t>(alphabet.encode(r)));
    return c;
  };
  const auto matrix = cudp::io::load_matrix("BLOSUM62", alphabet);
  const auto query = codes("HEAGAWGHEE");
  std::vector<std::uint8_t> residues;
  std::vector<std::uint64_t> offsets{0};
  for (const char* t : {"HEAGAWGHEE", "AGAW", "PPPP", "WW"}) {
    const auto c = codes(t);
    residues.insert(residues.end(), c.begin(), c.end());
    offsets.push_back(residues.size());
  }
  const cudp::engine::SequencesView db{residues.data(), offsets.data(), 4};
  // See readme_test.cpp for the sums: 62 (itself), 25 (AGAW), 0 (nothing positive), 11 (W/W).
  CHECK(search_on_gpu(matrix, query.data(), static_cast<int>(query.size()), db) ==
        std::vector<std::int32_t>{62, 25, 0, 11});
}
