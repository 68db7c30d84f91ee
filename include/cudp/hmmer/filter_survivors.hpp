#pragma once
// A filter's answer for the few targets that may pass it. The MSV filter reads every target of a database, and two
// in a hundred pass it: where a test of certain failure is known (Plan7Pipeline::msv_may_pass), the filter sets the
// certain failures aside where it computes them (on the GPU: hmmer/device_filters.cuh) and hands back the rest, so
// that neither the copy nor the pipeline's decisions grow with the database.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "plan7_filter_reference.hpp"

namespace cudp::hmmer {

// Whether a target of `length` residues whose MSV filter score is `nats` may pass the MSV stage: false only where
// it certainly fails. Non-decreasing in nats for every length, so a filter can turn it into a least score per length.
using MsvMayPass = std::function<bool(std::uint32_t length, float nats)>;

// The results of the targets that may pass (positions: their places in the list of targets the filter was given,
// ascending); every target not listed certainly fails.
struct FilterSurvivors {
  std::vector<std::uint32_t> positions;
  std::vector<FilterResult> results;

  std::size_t size() const { return positions.size(); }
};

// The survivors among the results of every target: results[i] belongs to a target of length_of(i) residues.
template <class LengthOf>
FilterSurvivors keep_may_pass(const std::vector<FilterResult>& results, LengthOf length_of,
                              const MsvMayPass& may_pass) {
  FilterSurvivors out;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (may_pass(static_cast<std::uint32_t>(length_of(i)), results[i].nats)) {
      out.positions.push_back(static_cast<std::uint32_t>(i));
      out.results.push_back(results[i]);
    }
  }
  return out;
}

}  // namespace cudp::hmmer
