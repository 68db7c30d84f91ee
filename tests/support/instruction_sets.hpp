#pragma once
// Host vector kernels under test in every instruction set the CPU and the build both have (Highway's targets).
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <hwy/targets.h>

#include <cudp/engine/host_vector.hpp>

namespace cudp::test {

// Runs `body(scalar)` once per instruction set, with the kernels made to run in it; `scalar`: one without vectors
// (Highway's scalar and emulated targets). The choice is Highway's own again afterwards.
template <class Body>
void in_every_instruction_set(Body body) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  REQUIRE(!targets.empty());
  for (std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    const std::string name = hwy::TargetName(target);
    INFO("instruction set " << name);
    REQUIRE(name == engine::host_vector::instruction_set());
    body(target == HWY_SCALAR || target == HWY_EMU128);
  }
  hwy::SetSupportedTargetsForTest(0);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}

}  // namespace cudp::test
