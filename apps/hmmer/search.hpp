#pragma once
// One model against the whole database through cudp::hmmer::Plan7Pipeline: on host threads only, or with the MSV and
// Viterbi filters on the GPU (DeviceFilters) and every decision and the stages after the filters on host threads.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <cudp/hmmer/plan7_pipeline.hpp>
#include <cudp/io/sequence_set.hpp>

#include "device_filters.hpp"

namespace hmmsearch {

struct SearchOutcome {
  std::vector<cudp::hmmer::Plan7SequenceHit> hits;  // in database order, target set
  cudp::hmmer::Plan7PipelineCounts counts;
  // With count_per_target: each target's filter passes (1 or 0) in the order MSV, bias, Viterbi, Forward. hmmscan
  // reports them per query sequence, where the search runs one model over all the sequences.
  std::vector<std::array<std::uint8_t, 4>> passed;
};

// threads: 0 runs everything on the calling thread (hmmsearch --cpu 0); otherwise that many workers. When
// `progress` is given, it counts the targets done (for a progress display on another thread).
SearchOutcome search_on_host(const cudp::hmmer::Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db,
                             int threads, std::atomic<std::uint64_t>* progress = nullptr,
                             bool count_per_target = false);

// The filters on the device, the rest on `threads` host workers. Same results as search_on_host. `progress`
// counts the targets whose filter decisions are made. `msv`, when given, holds the model's MSV filter results
// for every target, computed beforehand (DeviceFilters::msv of several models at once).
SearchOutcome search_with_device(const cudp::hmmer::Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db,
                                 DeviceFilters& filters, int threads, std::atomic<std::uint64_t>* progress = nullptr,
                                 bool count_per_target = false,
                                 const cudp::hmmer::FilterSurvivors* msv = nullptr);

// search_with_device in two halves, so that one model's later stages can run beside the next model's filters (they
// use the device's other filters): filter_with_device runs the MSV, bias and Viterbi filters and their decisions,
// finish_with_device the Forward filter and everything after it. Two models' halves of the same kind must not run
// at once on one DeviceFilters.
class FilteredSearch;
struct FilteredSearchDeleter {
  void operator()(FilteredSearch* f) const;
};
using FilteredSearchPtr = std::unique_ptr<FilteredSearch, FilteredSearchDeleter>;
FilteredSearchPtr filter_with_device(const cudp::hmmer::Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db,
                                     DeviceFilters& filters, int threads,
                                     std::atomic<std::uint64_t>* progress = nullptr,
                                     const cudp::hmmer::FilterSurvivors* msv = nullptr);
SearchOutcome finish_with_device(const cudp::hmmer::Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db,
                                 DeviceFilters& filters, FilteredSearch& filtered);

}  // namespace hmmsearch
