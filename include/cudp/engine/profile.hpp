#pragma once
// The query profile: for every target residue code (and the pad code) the substitution score against each query
// column, in the lane's scalar type, columns padded with the pad score to a multiple of `column_multiple`.
#include <cstdint>
#include <vector>

#include "../tiers/task_list.hpp"

namespace cudp::engine {

template <class P>
struct Profile {
  using Scalar = typename P::Lane::scalar;
  std::vector<Scalar> data;
  int stride = 0, rows = 0, pad_code = 0;

  tiers::ProfileView<Scalar> view() const { return {data.data(), stride, rows}; }
};

template <class P, class Matrix>
Profile<P> build_profile(const typename P::Params& params, const Matrix& matrix, int alphabet_size,
                         const std::uint8_t* query, int query_length, int column_multiple) {
  Profile<P> prof;
  prof.rows = alphabet_size + 1;
  prof.pad_code = alphabet_size;
  prof.stride = (query_length + column_multiple - 1) / column_multiple * column_multiple;
  if (prof.stride == 0) prof.stride = column_multiple;
  prof.data.assign(static_cast<std::size_t>(prof.rows) * prof.stride, static_cast<typename Profile<P>::Scalar>(P::pad_score));
  for (int a = 0; a < alphabet_size; ++a)
    for (int j = 0; j < query_length; ++j)
      prof.data[static_cast<std::size_t>(a) * prof.stride + j] =
          static_cast<typename Profile<P>::Scalar>(P::substitution(params, matrix, a, query[j]));
  return prof;
}

}  // namespace cudp::engine
