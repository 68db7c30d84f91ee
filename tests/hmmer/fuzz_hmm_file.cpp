// libFuzzer target for the HMMER3 profile reader. Malformed input must end in io::InputError; any other exception,
// a crash, or a sanitizer report is a bug. Models that parse are also configured and scored against a short
// sequence, so that whatever the reader accepts is safe to hand to the Plan7 code.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cudp/hmmer/plan7.hpp"
#include "cudp/hmmer/hmm_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto models = cudp::hmmer::parse_hmm(text, "fuzz.hmm");
    for (const auto& model : models) {
      // Invariants every successful parse must hold.
      const auto K = static_cast<std::size_t>(model.residues());
      const auto nodes = static_cast<std::size_t>(model.length) + 1;
      if (model.length < 1 || model.name.empty()) __builtin_trap();
      if (model.match.size() != nodes * K || model.insert.size() != nodes * K) __builtin_trap();
      if (model.transitions.size() != nodes * cudp::hmmer::kTransitionCount) __builtin_trap();
      if (!model.composition.empty() && model.composition.size() != K) __builtin_trap();
      for (const auto* values : {&model.match, &model.insert, &model.transitions, &model.composition}) {
        for (const float p : *values) {
          if (!(p >= 0.0f) || !std::isfinite(p)) __builtin_trap();
        }
      }
      if (model.length > 300) continue;  // keep each input fast
      const auto& alphabet = cudp::hmmer::plan7_alphabet_of(model.alphabet);
      auto profile = cudp::hmmer::configure_profile(model, cudp::hmmer::default_null_model(alphabet));
      std::vector<std::uint8_t> sequence;
      for (std::size_t i = 0; i < 12; ++i) sequence.push_back(static_cast<std::uint8_t>(i % alphabet.Kp));
      cudp::hmmer::score_target(profile, sequence.data(), sequence.size());
    }
  } catch (const cudp::io::InputError&) {
  }
  return 0;
}
