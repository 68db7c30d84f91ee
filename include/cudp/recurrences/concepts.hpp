#pragma once
/// \file
/// The contracts a recurrence policy signs, written as C++17 detection traits so that a kernel or a scorer handed
/// the wrong type stops at one readable static_assert instead of pages of template errors.
///
/// Two families exist:
///   wavefront policies  (Gotoh, Levenshtein): anti-diagonal sweeps over a pairwise matrix, run by every tier of
///                       tiers/ (thread, warp, block, host) through tiers::ColumnTile;
///   striped-row policies (the Plan7 filters): row-synchronous recurrences whose nodes are striped over a group of
///                       lanes (recurrences/striped.hpp), run by tiers/striped_rows*.
/// A new family (tree pruning, ...) gets its own trait here beside them.
///
/// Each trait checks what the tiers read and nothing more: member types, the calls the tier code makes with the
/// argument types it passes, and the properties kernels rely on (trivially copyable by-value arguments, carries made
/// of 32-bit words so that shuffles can move them). The calls are checked in unevaluated context, so a policy's
/// member function bodies are not instantiated here.
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "shape.hpp"
#include "striped.hpp"

namespace cudp::recurrences {

namespace detail {

// Stand-ins for what the tiers pass a policy. A matrix is anything called as matrix(target_code, query_code).
struct MatrixArchetype {
  int operator()(int, int) const { return 0; }
};

// A group of lanes as tiers/striped_rows*.{cuh,hpp} hand one to a striped-row policy.
struct StripedGroupArchetype {
  static constexpr int size = 1;
  int lane() const { return 0; }
  template <class L>
  typename L::word shift(typename L::word w, typename L::word) const { return w; }
  int max(int v) const { return v; }
  float sum(float v) const { return v; }
  template <class T>
  T up(T v, int) const { return v; }
  bool any(bool p) const { return p; }
};

template <class T>
inline constexpr bool made_of_words_v = std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0;

// --- wavefront members ---------------------------------------------------------------------------------------------
template <class P, class = void>
struct has_wavefront_types : std::false_type {};
template <class P>
struct has_wavefront_types<P, std::void_t<typename P::Lane, typename P::Word, typename P::Params, typename P::Down,
                                          typename P::Right, typename P::Acc>> : std::true_type {};

template <class P, class = void>
struct has_wavefront_constants : std::false_type {};
template <class P>
struct has_wavefront_constants<P, std::void_t<decltype(int{P::pad_score}), decltype(bool{P::observes_edges})>>
    : std::true_type {};

// Both carries hold the cell value `h`, in the policy's word: the tiers read it to form the next diagonal input.
template <class P, class = void>
struct carries_hold_h : std::false_type {};
template <class P>
struct carries_hold_h<P, std::void_t<decltype(std::declval<typename P::Down&>().h),
                                     decltype(std::declval<typename P::Right&>().h)>>
    : std::bool_constant<std::is_same_v<decltype(std::declval<typename P::Down&>().h), typename P::Word> &&
                         std::is_same_v<decltype(std::declval<typename P::Right&>().h), typename P::Word>> {};

template <class P, class = void>
struct has_wavefront_calls : std::false_type {};
template <class P>
struct has_wavefront_calls<
    P, std::void_t<
           decltype(P(std::declval<const typename P::Params&>(), std::declval<const ProblemShape&>())),
           decltype(int{P::substitution(std::declval<const typename P::Params&>(), std::declval<const MatrixArchetype&>(),
                                        0, 0)}),
           decltype(std::declval<typename P::Down&>() = std::declval<const P&>().top(0)),
           decltype(std::declval<typename P::Right&>() = std::declval<const P&>().left(0)),
           decltype(std::declval<typename P::Acc&>() = std::declval<const P&>().init()),
           decltype(std::declval<typename P::Word&>() =
                        std::declval<const P&>().diagonal(std::declval<typename P::Word>(), std::declval<typename P::Word>())),
           decltype(std::declval<const P&>().cell(std::declval<typename P::Down&>(), std::declval<typename P::Right&>(),
                                                  std::declval<typename P::Word>(), std::declval<typename P::Acc&>())),
           decltype(std::declval<const P&>().last_column(std::declval<const typename P::Right&>(), 0,
                                                         std::declval<typename P::Word>(), std::declval<typename P::Acc&>())),
           decltype(std::declval<const P&>().last_row(std::declval<const typename P::Down&>(), 0,
                                                      std::declval<typename P::Word>(), std::declval<typename P::Acc&>())),
           decltype(std::declval<typename P::Acc&>() = std::declval<const P&>().merge(std::declval<const typename P::Acc&>(),
                                                                                      std::declval<const typename P::Acc&>())),
           decltype(std::declval<typename P::Word&>() = std::declval<const P&>().result(std::declval<const typename P::Acc&>())),
           decltype(bool{std::declval<const P&>().overflowed(0)}),
           decltype(bool{P::fits(std::declval<const typename P::Params&>(), std::declval<const ProblemShape&>(), 0L)})>>
    : std::true_type {};

// --- striped-row members -------------------------------------------------------------------------------------------
// Seg as the host tier instantiates it; the device's FixedSegments index the same way.
template <class P>
using HostSegments = DynamicSegments<typename P::Word>;

template <class P, class = void>
struct has_striped_types : std::false_type {};
template <class P>
struct has_striped_types<P, std::void_t<typename P::Lane, typename P::Word, typename P::Model, typename P::Specials,
                                        typename P::Result, typename P::template Columns<HostSegments<P>>,
                                        typename P::template Cells<HostSegments<P>>>> : std::true_type {};

template <class P, class = void>
struct has_striped_calls : std::false_type {};
template <class P>
struct has_striped_calls<
    P, std::void_t<
           decltype(P::begin(std::declval<const typename P::Model&>(), 0u,
                             std::declval<typename P::template Cells<HostSegments<P>>&>(),
                             std::declval<typename P::Specials&>())),
           decltype(P::row(std::declval<const typename P::Model&>(), std::declval<const StripedGroupArchetype&>(),
                           std::declval<const typename P::template Columns<HostSegments<P>>&>(),
                           std::declval<typename P::template Cells<HostSegments<P>>&>(),
                           std::declval<typename P::Specials&>(), 0)),
           decltype(bool{P::finished(std::declval<const typename P::Specials&>())}),
           decltype(std::declval<typename P::Result&>() =
                        P::finish(std::declval<const typename P::Model&>(), std::declval<const StripedGroupArchetype&>(),
                                  std::declval<const typename P::Specials&>()))>> : std::true_type {};

template <class P, bool = has_wavefront_types<P>::value>
struct wavefront_carries_ok : std::false_type {};
template <class P>
struct wavefront_carries_ok<P, true>
    : std::bool_constant<made_of_words_v<typename P::Down> && made_of_words_v<typename P::Right> &&
                         made_of_words_v<typename P::Acc>> {};

}  // namespace detail

/// Whether P is a wavefront policy: every member the tiers and the engine use, with the types they use them with.
template <class P>
struct is_wavefront_policy
    : std::bool_constant<detail::has_wavefront_types<P>::value && detail::has_wavefront_constants<P>::value &&
                         detail::carries_hold_h<P>::value && detail::has_wavefront_calls<P>::value &&
                         detail::wavefront_carries_ok<P>::value && std::is_trivially_copyable_v<P>> {};
/// `is_wavefront_policy<P>::value`.
template <class P>
inline constexpr bool is_wavefront_policy_v = is_wavefront_policy<P>::value;

/// Whether P is a striped-row policy (Model, Columns<Seg>, Cells<Seg>, Specials, Result; begin, row, finished,
/// finish), talking to its group only through lane(), shift<L>(), max(), sum(), up() and any().
template <class P>
struct is_striped_row_policy
    : std::bool_constant<detail::has_striped_types<P>::value && detail::has_striped_calls<P>::value> {};
/// `is_striped_row_policy<P>::value`.
template <class P>
inline constexpr bool is_striped_row_policy_v = is_striped_row_policy<P>::value;

/// The checks kernels and scorers state where they take a policy. Each names the first rule broken, in the order a
/// policy author meets them.
template <class P>
constexpr bool check_wavefront_policy() {
  static_assert(detail::has_wavefront_types<P>::value,
                "a wavefront policy declares Lane, Word, Params, Down, Right and Acc (docs/architecture.md, recurrences/)");
  static_assert(detail::has_wavefront_constants<P>::value,
                "a wavefront policy declares static constexpr int pad_score and bool observes_edges");
  static_assert(detail::carries_hold_h<P>::value,
                "Down and Right each hold the cell value as a member `h` of type Word: the tiers form diagonals from it");
  static_assert(detail::has_wavefront_calls<P>::value,
                "a wavefront policy provides P(Params, ProblemShape), substitution, top, left, init, diagonal, cell, "
                "last_column, last_row, merge, result, overflowed and static fits, with the signatures of the docs");
  static_assert(detail::wavefront_carries_ok<P>::value,
                "Down, Right and Acc are trivially copyable and made of 32-bit words: tiers move them by shuffles");
  static_assert(std::is_trivially_copyable_v<P>, "a policy object is passed to kernels by value: trivially copyable");
  return true;
}

/// A wavefront policy template whose narrow and wide instantiations the cascade hands one Params.
template <template <class> class Policy, class Narrow, class Wide>
constexpr bool check_cascade_pair() {
  static_assert(check_wavefront_policy<Policy<Narrow>>() && check_wavefront_policy<Policy<Wide>>());
  static_assert(std::is_same_v<typename Policy<Narrow>::Params, typename Policy<Wide>::Params>,
                "Params is declared outside the lane template: the overflow cascade rescores with the same Params");
  return true;
}

/// The striped-row counterpart of check_wavefront_policy: each static_assert names the first rule broken.
template <class P>
constexpr bool check_striped_row_policy() {
  static_assert(detail::has_striped_types<P>::value,
                "a striped-row policy declares Lane, Word, Model, Specials, Result and templates Columns<Seg>, Cells<Seg>");
  static_assert(detail::has_striped_calls<P>::value,
                "a striped-row policy provides static begin(Model, length, Cells&, Specials&), row(Model, Group, "
                "Columns, Cells&, Specials&, code), finished(Specials) and finish(Model, Group, Specials)");
  static_assert(std::is_trivially_copyable_v<typename P::Model>,
                "Model is a kernel argument passed by value: trivially copyable");
  static_assert(std::is_trivially_copyable_v<typename P::Result>, "Result is copied back from the device: trivially copyable");
  return true;
}

}  // namespace cudp::recurrences
