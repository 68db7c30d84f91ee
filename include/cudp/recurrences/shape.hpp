#pragma once
/// \file
/// What a recurrence policy is told about the problem before it runs: the query (columns) length and the range of
/// the substitution scores, from which it derives its lane constants and overflow bounds.

namespace cudp::recurrences {

/// The problem as a policy sees it when it is constructed and when `fits` is asked.
struct ProblemShape {
  int query_length = 0;  ///< the query's residues: the columns
  int max_score = 0;  ///< largest substitution score the profile can hold
  int min_score = 0;  ///< smallest
};

}  // namespace cudp::recurrences
