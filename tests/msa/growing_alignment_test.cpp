// GrowingAlignment against rows written out and summed by member_sums: the sums after each join of random paths
// (insertions between hydrophilic residues included), the rows written out, and the whole progressive stage with
// the delayed sequences joining it against the rows rewritten at every join.
#include <catch2/catch.hpp>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "cudp/msa/column_profiles.hpp"
#include "cudp/msa/growing_alignment.hpp"
#include "cudp/msa/progressive_alignment.hpp"

using namespace cudp::msa;

namespace {

// Residues drawn mostly from the hydrophilic letters so that runs of four are common; some input gaps.
int random_code(std::mt19937& rng) {
  const std::string letters = "GPSNDQEKRGPSNDQEKRAVLIFWYCHMTBXZ";
  std::uniform_int_distribution<int> pick(0, static_cast<int>(letters.size()) + 1);
  const int k = pick(rng);
  if (k >= static_cast<int>(letters.size())) return clustal_gap_old;
  return clustal_code(letters[static_cast<std::size_t>(k)]);
}

// A path for a profile of `length` columns and a sequence of `residues` codes, insertions often in runs.
std::vector<PathStep> random_path(std::mt19937& rng, int length, int residues) {
  std::vector<PathStep> path;
  std::uniform_int_distribution<int> step(0, 9);
  int i = 0, j = 0;
  while (i < length || j < residues) {
    const int s = step(rng);
    if (i < length && j < residues && s < 6) {
      path.push_back(PathStep::both);
      ++i;
      ++j;
    } else if (i < length && (j == residues || s < 8)) {
      path.push_back(PathStep::first_only);
      ++i;
    } else {
      path.push_back(PathStep::second_only);
      ++j;
    }
  }
  return path;
}

MemberSums rows_sums(const std::vector<std::vector<int>>& rows, const std::vector<int>& members,
                     const ClustalParameters& p, const GapCostKinds& kinds, const std::vector<int>& weights) {
  std::vector<const int*> pointers;
  std::vector<int> member_weights;
  for (const int s : members) {
    pointers.push_back(rows[static_cast<std::size_t>(s)].data());
    member_weights.push_back(weights[static_cast<std::size_t>(s)]);
  }
  const ProfileMembers m{pointers.data(), 0, static_cast<int>(members.size()),
                         static_cast<int>(rows[static_cast<std::size_t>(members.front())].size())};
  return member_sums(m, p, kinds, &member_weights);
}

}  // namespace

TEST_CASE("a growing alignment keeps member_sums' sums through joins", "[msa]") {
  std::mt19937 rng(17);
  for (int variant = 0; variant < 4; ++variant) {
    ClustalParameters p;
    if (variant == 1) p.use_end_gaps = true;
    if (variant == 2) p.end_gap_penalties = true;
    if (variant == 3) p.hydrophilic_residues = "GPS";
    INFO("variant " << variant);
    const int sequences = 60, start = 5;
    std::uniform_int_distribution<int> length(1, 40), weight(1, 300);
    std::vector<std::vector<int>> raw(static_cast<std::size_t>(sequences));
    for (auto& row : raw) {
      const int n = length(rng);
      for (int k = 0; k < n; ++k) row.push_back(random_code(rng));
    }
    // The first rows as an alignment: each padded with inserted gaps at random places to one length.
    std::vector<std::vector<int>> rows = raw;
    const int width = 50;
    std::vector<int> members;
    for (int s = 0; s < start; ++s) {
      std::vector<int>& row = rows[static_cast<std::size_t>(s)];
      while (static_cast<int>(row.size()) < width) {
        std::uniform_int_distribution<std::size_t> at(0, row.size());
        row.insert(row.begin() + static_cast<std::ptrdiff_t>(at(rng)), clustal_gap_new);
      }
      if (s == 0) row.resize(static_cast<std::size_t>(width - 3));  // shorter rows read as ending in gaps
      members.push_back(s);
    }
    GrowingAlignment growing(rows, members, p);
    rows[0].resize(static_cast<std::size_t>(width), clustal_gap_new);
    std::vector<int> weights(static_cast<std::size_t>(sequences));
    for (int s = start; s < sequences; ++s) {
      // Random weights, or (as on large alignments) nearly all one value.
      for (int& w : weights) w = s % 2 == 0 ? weight(rng) : weight(rng) % 6 == 0 ? weight(rng) : 1;
      for (const int threads : {1, 3}) {
        const GapCostKinds kinds{false, true, true};
        const MemberSums kept = growing.sums(p, kinds, weights, threads);
        const MemberSums summed = rows_sums(rows, members, p, kinds, weights);
        REQUIRE(kept.gaps == summed.gaps);
        REQUIRE(kept.residue == summed.residue);
        REQUIRE(kept.hydrophilic == summed.hydrophilic);
        REQUIRE(kept.codes == summed.codes);
        REQUIRE(kept.residues == summed.residues);
      }
      // Join s along a random path, and rewrite the rows as a progressive step does.
      const std::vector<int>& codes = raw[static_cast<std::size_t>(s)];
      const std::vector<PathStep> path =
          random_path(rng, growing.length(), static_cast<int>(codes.size()));
      growing.add(s, codes, path);
      for (const int m : members) {
        std::vector<int> out;
        std::size_t at = 0;
        for (const PathStep step : path)
          out.push_back(step == PathStep::second_only ? clustal_gap_new : rows[static_cast<std::size_t>(m)][at++]);
        rows[static_cast<std::size_t>(m)] = out;
      }
      std::vector<int> joined;
      std::size_t at = 0;
      for (const PathStep step : path) joined.push_back(step == PathStep::first_only ? clustal_gap_new : codes[at++]);
      rows[static_cast<std::size_t>(s)] = joined;
      members.push_back(s);
    }
    std::vector<std::vector<int>> written(static_cast<std::size_t>(sequences));
    growing.write_rows(written);
    CHECK(written == rows);
  }
}

TEST_CASE("a growing alignment refuses codes it cannot hold and paths that do not fit", "[msa]") {
  ClustalParameters p;
  const std::vector<std::vector<int>> rows = {clustal_encode("ACDE"), clustal_encode("AC-E"), {0, 127, 2}};
  CHECK(GrowingAlignment::representable(rows[1]));
  CHECK_FALSE(GrowingAlignment::representable(rows[2]));
  CHECK_THROWS_AS(GrowingAlignment(rows, {0, 2}, p), std::invalid_argument);
  GrowingAlignment growing(rows, {0, 1}, p);
  CHECK_THROWS_AS(growing.add(2, clustal_encode("AC"), {PathStep::both, PathStep::both}), std::invalid_argument);
  CHECK_THROWS_AS(growing.add(2, clustal_encode("A"), std::vector<PathStep>(4, PathStep::both)),
                  std::invalid_argument);
}
