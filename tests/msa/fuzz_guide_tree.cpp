// libFuzzer target for the guide tree reader (rooted_guide_tree.hpp) and what is built on the tree. Malformed input
// must end in io::InputError; any other exception, a crash, a hang or a sanitizer report is a bug, and so is a tree
// whose steps or similarities break the invariants below. Names are tips "a" to "e"; the first byte picks how many.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cudp/msa/rooted_guide_tree.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::vector<std::string> all{"a", "b", "c", "d", "e"};
  const std::vector<std::string> names(all.begin(), all.begin() + 1 + data[0] % 5);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const cudp::msa::RootedGuideTree tree = cudp::msa::read_clustal_guide_tree(text, names, "fuzz");
    if (tree.tip_of_sequence.size() != names.size()) __builtin_trap();
    const auto steps = cudp::msa::progressive_steps(tree);
    for (const auto& step : steps) {
      if (step.size() != names.size()) __builtin_trap();
      for (const int mark : step) {
        if (mark < 0 || mark > 2) __builtin_trap();
      }
    }
    const auto sim = cudp::msa::tree_similarities(tree);
    for (std::size_t i = 0; i < names.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (!(sim(i, j) >= 0.0 && sim(i, j) <= 99.0) && sim(i, j) == sim(i, j)) __builtin_trap();
      }
    }
  } catch (const cudp::io::InputError&) {
  }
  return 0;
}
