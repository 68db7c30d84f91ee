#pragma once
// The host backend in CPU vector lanes: one query against every target, one target per lane of 8-bit vectors,
// then 16-bit ones for the targets they cannot hold, then the 32-bit host tier for the rest (the overflow cascade
// of the GPU, one step longer). The vector kernels of a policy are compiled once per instruction set, the best
// instruction set the CPU has chosen when the program runs, and found here by the policy's type.
//
// Any policy that meets the policy contract gets kernels the same way, in one translation unit of the program:
//
//   #define CUDP_HOST_VECTOR_POLICIES mine::Edit, mine::Other   // policy templates, as for score<Policy>
//   #include <cudp/engine/host_vector_kernels-inl.hpp>
//
// (engine/host_vector_kernels-inl.hpp; link cudp::host_vector, which brings Google Highway and defines
// CUDP_HAS_HOST_VECTOR). src/host_vector.cpp does exactly that for the policies the library ships: Gotoh in its
// three modes and Levenshtein. The kernels register themselves while the program starts; score<Policy> and the front
// door (cudp/scorer.hpp) look them up. A policy without kernels runs in the 32-bit host tier, and
// `has_kernels<Policy>()` (or `DatabaseScorer::uses_vector_lanes()`) says which it is.
#include <cstdint>
#include <numeric>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "../lanes/s32.hpp"
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
  CascadeStats* stats = nullptr;  // the 8-bit lanes' counts, and the 16-bit lanes' in stats->second_step
};

// The instruction set a unit of kernels runs in now (Highway's name: "AVX3" is AVX-512), and whether it has vector
// lanes at all (on a CPU Highway only emulates vectors for, every target goes to the 32-bit tier).
struct TargetInfo {
  const char* name = "none";
  bool vectors = false;
};

// One policy's kernels: `narrow(params, job)` scores job.order in 8- then 16-bit lanes and returns the targets that
// need the 32-bit lane, longest first; `params` points to the policy's Params. `target()` is the instruction set
// they run in.
struct Kernels {
  std::vector<std::uint32_t> (*narrow)(const void* params, const NarrowJob& job) = nullptr;
  TargetInfo (*target)() = nullptr;
};

#if defined(CUDP_HAS_HOST_VECTOR)
// Defined in src/host_vector.cpp (cudp::host_vector). The registry of kernels by the type of the policy's s32
// instantiation: register_kernels is called by engine/host_vector_kernels-inl.hpp while the program starts (the
// first registration of a type is kept); find_kernels returns null for a type with none.
void register_kernels(const std::type_info& wide_policy, const Kernels& kernels);
const Kernels* find_kernels(const std::type_info& wide_policy);
// The instruction set the library's own kernels run in.
const char* instruction_set();
#endif

// The kernels of Policy, or null: none registered, or a program without cudp::host_vector.
template <template <class> class Policy>
const Kernels* kernels_of() {
#if defined(CUDP_HAS_HOST_VECTOR)
  return find_kernels(typeid(Policy<lanes::s32>));
#else
  return nullptr;
#endif
}

// Whether Policy runs in vector lanes here: kernels are registered for it and the CPU has vectors they run in.
template <template <class> class Policy>
bool has_kernels() {
  const Kernels* k = kernels_of<Policy>();
  return k != nullptr && k->target().vectors;
}

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
  if (const Kernels* kernels = kernels_of<Policy>()) {
    if (auto classes = tiers::ColumnClasses::of(run.profile.view(), query_length); classes && query_length > 0) {
      const NarrowJob job{run.shape, classes->view(), db, wide.data(), wide.size(), threads, run.scores.data(), &st};
      wide = kernels->narrow(&params, job);
      in_vectors = true;
    }
  }
  if (!in_vectors) st.wide_only += wide.size();
  run.score_wide(params, db, wide, threads);
  return std::move(run.scores);
}

}  // namespace cudp::engine::host_vector
