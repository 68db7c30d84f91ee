// --gpus as the example programs read it (apps/kit/gpu_choice.hpp): a lone process takes every GPU it sees
// unless told otherwise, a process under mpirun one; process r of a node takes the N GPUs from r*N on, wrapping
// around; asking for more GPUs than are visible is a usage error.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "kit/gpu_choice.hpp"

using cudp::apps::choose_gpus;
using cudp::apps::kGpusAll;
using cudp::apps::kGpusUnset;
using cudp::apps::parse_gpus;
using V = std::vector<int>;

TEST_CASE("--gpus: values", "[examples][gpus]") {
  REQUIRE(parse_gpus("--gpus", "all") == kGpusAll);
  REQUIRE(parse_gpus("--gpus", "3") == 3);
  REQUIRE_THROWS_AS(parse_gpus("--gpus", "0"), std::invalid_argument);
  REQUIRE_THROWS_AS(parse_gpus("--gpus", "-2"), std::invalid_argument);
  REQUIRE_THROWS_AS(parse_gpus("--gpus", "two"), std::invalid_argument);
}

TEST_CASE("--gpus: which devices a process takes", "[examples][gpus]") {
  // Alone: all by default, or the first N.
  REQUIRE(choose_gpus(kGpusUnset, 4, 0, 1) == V{0, 1, 2, 3});
  REQUIRE(choose_gpus(kGpusAll, 2, 0, 1) == V{0, 1});
  REQUIRE(choose_gpus(2, 4, 0, 1) == V{0, 1});
  // Under mpirun: one each by default, process r on GPU r, wrapping past the last.
  REQUIRE(choose_gpus(kGpusUnset, 4, 2, 4) == V{2});
  REQUIRE(choose_gpus(kGpusUnset, 2, 3, 4) == V{1});
  REQUIRE(choose_gpus(2, 4, 1, 2) == V{2, 3});
  REQUIRE(choose_gpus(2, 3, 1, 2) == V{2, 0});
  // No device: none by default or with all; a number asked for is an error, never a quiet run on the host.
  REQUIRE(choose_gpus(kGpusUnset, 0, 0, 1).empty());
  REQUIRE(choose_gpus(kGpusAll, 0, 0, 1).empty());
  REQUIRE_THROWS_WITH(choose_gpus(4, 0, 0, 1), Catch::Contains("--gpus 4: "));
  REQUIRE_THROWS_AS(choose_gpus(1, 0, 2, 4), std::invalid_argument);
  // More than there are.
  REQUIRE_THROWS_AS(choose_gpus(3, 2, 0, 1), std::invalid_argument);
}
