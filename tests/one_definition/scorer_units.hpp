#pragma once
// What the two translation units of scorer_one_definition_test share: the scorer type both build, and the functions
// the one compiled by nvcc (scorer_cuda.cu) offers the plain C++ one (scorer_host.cpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <cudp/recurrences/gotoh.hpp>
#include <cudp/scorer.hpp>

namespace one_definition {

template <class L>
using Local = cudp::recurrences::Gotoh<cudp::recurrences::AlignMode::Local, L>;
using Scorer = cudp::DatabaseScorer<Local>;
using Config = Scorer::Config;

// The layout handshake: the type of the argument carries the scorer's size and alignment as the unit that names it
// sees them, and with them the mangled name of the function. The CUDA unit defines it; the C++ unit calls it; a
// DatabaseScorer with members of its own under nvcc makes the two names differ and the program fails to link
// (undefined reference to cuda_unit_layout(Layout<...>)), whatever the compiler.
template <std::size_t Size, std::size_t Align>
struct Layout {};
using ScorerLayout = Layout<sizeof(Scorer), alignof(Scorer)>;
std::size_t cuda_unit_layout(ScorerLayout);  // returns sizeof(Scorer) as the CUDA unit sees it

// Defined in the CUDA unit.
int cuda_runtime_device_count();  // cudaGetDeviceCount itself, 0 on an error
std::unique_ptr<Scorer> build_in_cuda_unit(const cudp::engine::SequencesView& db, const cudp::SubstitutionTable& matrix,
                                           const Config& config);
std::vector<std::vector<std::int32_t>> score_in_cuda_unit(Scorer& scorer, const cudp::engine::SequencesView& queries);

}  // namespace one_definition
