#pragma once
// Two sequence sets are the same: names, descriptions and residues, field by field so a failure says which.
#include <catch2/catch.hpp>

#include "cudp/io/sequence_set.hpp"

namespace cudp::test {

inline void require_same(const io::SequenceSet& a, const io::SequenceSet& b) {
  REQUIRE(a.size() == b.size());
  CHECK(a.names == b.names);
  CHECK(a.descriptions == b.descriptions);
  CHECK(a.offsets == b.offsets);
  CHECK(a.residues == b.residues);
}

}  // namespace cudp::test
