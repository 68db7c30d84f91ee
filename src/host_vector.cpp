// cudp::host_vector: the registry of host vector kernels (engine/host_vector.hpp), and the kernels of the policies
// the library ships, Gotoh in its three modes and Levenshtein, compiled the way any program compiles its own
// (engine/host_vector_kernels-inl.hpp: name the policies, include the header).
#include <map>
#include <mutex>
#include <typeindex>
#include <typeinfo>

#include <cudp/engine/host_vector.hpp>
#include <cudp/recurrences/gotoh.hpp>
#include <cudp/recurrences/levenshtein.hpp>

namespace cudp::engine::host_vector {

// The registry lives here, not inline in the header, for the linker's sake: every use of the host backend calls
// find_kernels, which pulls this object out of the static library cudp::host_vector, and with it the static
// initialisers that register the library's own kernels (an object that nothing refers to is left out).
namespace {
struct Registry {
  std::mutex lock;
  std::map<std::type_index, Kernels> kernels;
};
// Built on first use, so that registrations from any unit's static initialisers find it.
Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace

void register_kernels(const std::type_info& wide_policy, const Kernels& kernels) {
  Registry& r = registry();
  std::lock_guard<std::mutex> hold(r.lock);
  r.kernels.emplace(std::type_index(wide_policy), kernels);  // the first registration of a type is kept
}

const Kernels* find_kernels(const std::type_info& wide_policy) {
  Registry& r = registry();
  std::lock_guard<std::mutex> hold(r.lock);
  const auto found = r.kernels.find(std::type_index(wide_policy));
  return found == r.kernels.end() ? nullptr : &found->second;  // std::map never moves its entries
}

template <class L>
using LocalGotoh = recurrences::Gotoh<recurrences::AlignMode::Local, L>;
template <class L>
using GlobalGotoh = recurrences::Gotoh<recurrences::AlignMode::Global, L>;
template <class L>
using SemiGlobalGotoh = recurrences::Gotoh<recurrences::AlignMode::SemiGlobal, L>;

}  // namespace cudp::engine::host_vector

#define CUDP_HOST_VECTOR_POLICIES                                                                          \
  cudp::engine::host_vector::LocalGotoh, cudp::engine::host_vector::GlobalGotoh,                           \
      cudp::engine::host_vector::SemiGlobalGotoh, cudp::recurrences::Levenshtein
#include <cudp/engine/host_vector_kernels-inl.hpp>

namespace cudp::engine::host_vector {
const char* instruction_set() { return registered::this_unit_target().name; }
}  // namespace cudp::engine::host_vector
