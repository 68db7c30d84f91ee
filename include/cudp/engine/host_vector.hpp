#pragma once
// The host backend in CPU vector lanes: one query against every target, one target per lane of 8-bit vectors,
// then 16-bit ones for the targets they cannot hold, then the 32-bit host tier for the rest (the overflow cascade
// of the GPU, one step longer). The vector kernels are compiled once per instruction set in src/host_vector.cpp
// (the library target cudp::host_vector, built where Google Highway is found), which defines CUDP_HAS_HOST_VECTOR
// for its users; the best instruction set the CPU has is chosen when the program runs.
//
// Kernels are compiled for Gotoh in its three modes and for Levenshtein. A policy of one's own gets them the same
// way: a translation unit that includes lanes/host_vector-inl.hpp and tiers/host_vector-inl.hpp per target, as
// src/host_vector.cpp does (docs/tutorial-recurrence.md).
#include <cstdint>
#include <numeric>
#include <vector>

#include "../lanes/s32.hpp"
#include "../recurrences/gotoh.hpp"
#include "../recurrences/levenshtein.hpp"
#include "../tiers/column_classes.hpp"
#include "cascade.hpp"
#include "host_scorer.hpp"
#include "sequences.hpp"

namespace cudp::engine::host_vector {

// What the vector kernels are handed: the targets to score (longest first), where their scores go.
struct NarrowJob {
  recurrences::ProblemShape shape;
  tiers::ColumnClassesView classes;
  SequencesView db;
  const std::uint32_t* order = nullptr;
  std::size_t count = 0;
  int threads = 0;
  std::int32_t* scores = nullptr;
  CascadeStats* stats = nullptr;  // narrow_targets: ran in 8 bits; rescored_overflow: then again, wider
};

#if defined(CUDP_HAS_HOST_VECTOR)
// Defined in src/host_vector.cpp. Each scores job.order in 8- then 16-bit lanes and returns the targets that need
// the 32-bit lane, longest first.
std::vector<std::uint32_t> score_gotoh(recurrences::AlignMode mode, const recurrences::GapCosts& gaps, const NarrowJob& job);
std::vector<std::uint32_t> score_levenshtein(const NarrowJob& job);
// The instruction set the kernels run in ("AVX3" is AVX-512, as Highway names it).
const char* instruction_set();
#endif

// Which wide policies have vector kernels: the cascade's s32 instantiation names the recurrence.
template <class WidePolicy>
struct Kernels {
  static constexpr bool compiled = false;
};
#if defined(CUDP_HAS_HOST_VECTOR)
template <recurrences::AlignMode Mode>
struct Kernels<recurrences::Gotoh<Mode, lanes::s32>> {
  static constexpr bool compiled = true;
  static std::vector<std::uint32_t> narrow(const recurrences::GapCosts& gaps, const NarrowJob& job) {
    return score_gotoh(Mode, gaps, job);
  }
};
template <>
struct Kernels<recurrences::Levenshtein<lanes::s32>> {
  static constexpr bool compiled = true;
  static std::vector<std::uint32_t> narrow(const recurrences::LevenshteinParams&, const NarrowJob& job) {
    return score_levenshtein(job);
  }
};
#endif

template <template <class> class Policy>
inline constexpr bool has_kernels_v = Kernels<Policy<lanes::s32>>::compiled;

// Scores one query against every target: in vector lanes where the policy has kernels and the query's scores fit
// a byte table, in the 32-bit host tier otherwise and for what the vector lanes cannot hold.
template <template <class> class Policy, class Matrix>
std::vector<std::int32_t> score(const typename Policy<lanes::s32>::Params& params, const Matrix& matrix, int alphabet_size,
                                const std::uint8_t* query, int query_length, const SequencesView& db, int threads = 0,
                                CascadeStats* stats = nullptr) {
  using Wide = Policy<lanes::s32>;
  CascadeStats local_stats;
  CascadeStats& st = stats ? *stats : local_stats;
  HostQuery<Wide> run(params, matrix, alphabet_size, query, query_length, db, st);

  std::vector<std::uint32_t> wide(db.count);
  std::iota(wide.begin(), wide.end(), 0u);
  sort_longest_first(db, wide);
  bool in_vectors = false;
  if constexpr (Kernels<Wide>::compiled) {
    if (auto classes = tiers::ColumnClasses::of(run.profile.view(), query_length); classes && query_length > 0) {
      const NarrowJob job{run.shape, classes->view(), db, wide.data(), wide.size(), threads, run.scores.data(), &st};
      wide = Kernels<Wide>::narrow(params, job);
      in_vectors = true;
    }
  }
  if (!in_vectors) st.wide_only += wide.size();
  run.score_wide(params, db, wide, threads);
  return std::move(run.scores);
}

}  // namespace cudp::engine::host_vector
