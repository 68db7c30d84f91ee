// The vector kernels of the tutorial's policy, compiled the way docs/tutorial-recurrence.md says a program compiles
// its own (the snippet below is shown there verbatim; tests/docs/snippets_match.py checks it).
// [snippet:tutorial-vector-kernels]
// edit_kernels.cpp: the one translation unit of the program that compiles vector kernels, once per instruction set.
#include "tutorial_policy.hpp"  // template <class L> struct mine::Edit, the tutorial's policy

#define CUDP_HOST_VECTOR_POLICIES mine::Edit  // every policy that gets kernels, separated by commas
#include <cudp/engine/host_vector_kernels-inl.hpp>
// [/snippet]
