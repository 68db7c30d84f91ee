// libFuzzer target for the alignment reader (NEXUS, relaxed PHYLIP and aligned FASTA, told apart by their first
// bytes). Each input is read as it is and once more behind a "#NEXUS" line, so that mutations that break the header
// still exercise the NEXUS reader. Malformed input must end in io::InputError; any other exception, a crash, a hang
// or a sanitizer report is a bug, and so is an alignment that breaks the invariants below.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>

#include "cudp/phylo/character_alignment.hpp"

namespace {

bool valid_state(char c, char gap, char missing) {
  if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  if (c == '-' || c == '?' || c == '.' || c == '*' || c == '~') return true;
  return c == gap || c == missing;
}

void check(const cudp::phylo::CharacterAlignment& a) {
  const std::size_t taxa = a.names.size();
  if (taxa == 0 || a.rows.size() != taxa || a.lines.size() != taxa || a.taxa() != taxa) __builtin_trap();
  if (a.sites() == 0 || a.source.empty()) __builtin_trap();
  std::unordered_set<std::string> names;
  for (std::size_t t = 0; t < taxa; ++t) {
    if (a.names[t].empty() || !names.insert(a.names[t]).second) __builtin_trap();
    if (a.rows[t].size() != a.sites()) __builtin_trap();
    if (a.lines[t] == 0 || (t > 0 && a.lines[t] < a.lines[t - 1])) __builtin_trap();
    for (const char c : a.rows[t]) {
      if (!valid_state(c, a.gap, a.missing)) __builtin_trap();
    }
  }
  if (a.gap == a.missing) __builtin_trap();
}

void read(std::string_view text) {
  try {
    check(cudp::phylo::parse_alignment(text, "fuzz.nex"));
  } catch (const cudp::io::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  read(text);
  read("#NEXUS\n" + std::string(text));
  return 0;
}
