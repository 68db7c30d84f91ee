// libFuzzer target for the FASTA parser. Malformed input must end in io::InputError; any other exception, a crash,
// or a sanitizer report is a bug. Each input is parsed with both alphabets, whose byte tables differ.
#include <cstddef>
#include <cstdint>

#include "cudp/io/fasta.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto* text = reinterpret_cast<const char*>(data);
  for (const auto* alphabet : {&cudp::bio::protein(), &cudp::bio::dna()}) {
    try {
      const cudp::io::SequenceSet set = cudp::io::parse_fasta(text, size, "fuzz.fa", *alphabet);
      // Invariants every successful parse must hold.
      if (set.size() == 0 || set.offsets.size() != set.size() + 1 || set.offsets.back() != set.residues.size()) {
        __builtin_trap();
      }
      for (std::size_t i = 0; i < set.size(); ++i) {
        if (set.length(i) == 0 || set.names[i].empty()) __builtin_trap();
      }
      for (const std::uint8_t code : set.residues) {
        if (code >= alphabet->size) __builtin_trap();
      }
    } catch (const cudp::io::InputError&) {
    }
  }
  return 0;
}
