// The host backend's F3 pre-filter in HMMER's exact Forward parser, four targets at a time
// (hmmer/plan7_parser_groups.hpp), apart from host_filters.hpp so that the CUDA translation units that include it
// do not see the host's probability-space lanes.
#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include <cudp/hmmer/float_mode.hpp>
#include <cudp/hmmer/plan7_parser_groups.hpp>

#include "host_filters.hpp"

namespace hmmsearch {

std::optional<std::vector<float>> exact_forward(const cudp::engine::SequencesView& db, int threads,
                                                const cudp::hmmer::Plan7Profile& profile,
                                                const std::vector<std::uint32_t>& ids) {
  namespace hmmer = cudp::hmmer;
  if (hmmer::parser_group_width() != hmmer::kParserGroupSize) return std::nullopt;
  constexpr std::size_t G = hmmer::kParserGroupSize;
  const hmmer::StripedOddsProfile om(profile);
  // Groups of about one length: the longest first, so that the last groups to start are short.
  std::vector<std::size_t> order(ids.size());
  for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return db.length(ids[a]) > db.length(ids[b]); });
  std::vector<float> nats(ids.size(), -std::numeric_limits<float>::infinity());
  cudp::host::parallel_for((ids.size() + G - 1) / G, threads, [] { return 0; }, [&](int, std::size_t g) {
    const hmmer::ScopedHmmerFloatMode float_mode;
    hmmer::ParserGroupTarget group[G];
    std::vector<float> rows[G];
    std::size_t of_group[G];
    int count = 0;
    for (std::size_t k = g * G; k < std::min(ids.size(), g * G + G); ++k) {
      const std::size_t j = order[k];
      const std::uint32_t L = db.length(ids[j]);
      if (L == 0) continue;  // no score: it fails F3, as an empty target passes nothing
      rows[count].resize((static_cast<std::size_t>(L) + 1) * hmmer::kSpecialCount);
      group[count] = {db.data(ids[j]), static_cast<int>(L), rows[count].data(), nullptr, false};
      of_group[count++] = j;
    }
    hmmer::forward_parsers_for_group(om, group, count);
    hmmer::StripedMatrix fwd;
    for (int t = 0; t < count; ++t) {
      hmmer::adopt_parser_specials(fwd, om.M(), om.Q(), group[t].L, rows[t].data(), true, true);
      nats[of_group[t]] = hmmer::forward_parser_score(hmmer::multihit_specials(group[t].L), fwd);
    }
  });
  return nats;
}

}  // namespace hmmsearch
