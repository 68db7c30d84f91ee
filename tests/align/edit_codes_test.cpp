// Edit codes (include/cudp/align/edit_codes.hpp): codes written last first, as a device walk writes them, decode to
// the runs a plain run-length count of the same codes gives, at every length around the word boundaries, with runs
// longer than a word, and when appended to edits whose last run they continue.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "cudp/align/edit_codes.hpp"

using cudp::align::EditOp;
using cudp::align::EditRun;

namespace {

// Codes in the alignment's order, packed in the walk's order (the last code first).
std::vector<std::uint32_t> walk_words(const std::vector<std::uint32_t>& codes) {
  std::vector<std::uint32_t> words(static_cast<std::size_t>(cudp::align::edit_code_words(codes.size())), 0);
  for (std::size_t f = 0; f < codes.size(); ++f) {
    const std::size_t k = codes.size() - 1 - f;
    words[k / 16] |= codes[f] << (2 * (k % 16));
  }
  return words;
}

EditOp op_of(std::uint32_t code) {
  switch (code) {
    case cudp::align::kCodeMatch: return EditOp::Match;
    case cudp::align::kCodeMismatch: return EditOp::Mismatch;
    case cudp::align::kCodeInsertion: return EditOp::Insertion;
    default: return EditOp::Deletion;
  }
}

std::vector<EditRun> counted(std::vector<EditRun> edits, const std::vector<std::uint32_t>& codes) {
  for (std::uint32_t c : codes) cudp::align::append(edits, op_of(c));
  return edits;
}

}  // namespace

TEST_CASE("edit codes: decoded runs equal the codes' run-length count", "[align]") {
  std::mt19937_64 rng(77);
  for (int length = 0; length <= 80; ++length) {
    for (int trial = 0; trial < 40; ++trial) {
      // Runs of mixed lengths: some trials mostly one code (runs past a word), some alternating.
      const unsigned stay = trial % 4 == 0 ? 97 : (trial % 4 == 1 ? 0 : 60);
      std::vector<std::uint32_t> codes;
      std::uint32_t code = static_cast<std::uint32_t>(rng() % 4);
      for (int f = 0; f < length; ++f) {
        if (rng() % 100 >= stay) code = static_cast<std::uint32_t>(rng() % 4);
        codes.push_back(code);
      }
      const std::vector<std::uint32_t> words = walk_words(codes);
      std::vector<EditRun> decoded;
      cudp::align::append_coded_edits(words.data(), length, decoded);
      REQUIRE(decoded == counted({}, codes));
      // Appended after a run that the first code may continue.
      const std::vector<EditRun> before{{EditOp::Deletion, 2}, {op_of(static_cast<std::uint32_t>(rng() % 4)), 3}};
      std::vector<EditRun> appended = before;
      cudp::align::append_coded_edits(words.data(), length, appended);
      REQUIRE(appended == counted(before, codes));
    }
  }
}

TEST_CASE("edit codes: one long run and a run changing at every code", "[align]") {
  const std::vector<std::uint32_t> same(1000, cudp::align::kCodeMatch);
  std::vector<EditRun> decoded;
  cudp::align::append_coded_edits(walk_words(same).data(), 1000, decoded);
  CHECK(decoded == std::vector<EditRun>{{EditOp::Match, 1000}});
  std::vector<std::uint32_t> alternating;
  for (int f = 0; f < 99; ++f) alternating.push_back(f % 2 ? cudp::align::kCodeMismatch : cudp::align::kCodeDeletion);
  decoded.clear();
  cudp::align::append_coded_edits(walk_words(alternating).data(), 99, decoded);
  REQUIRE(decoded.size() == 99);
  CHECK(decoded.front() == EditRun{EditOp::Deletion, 1});
  CHECK(decoded[1] == EditRun{EditOp::Mismatch, 1});
  CHECK(decoded.back() == EditRun{EditOp::Deletion, 1});
}
