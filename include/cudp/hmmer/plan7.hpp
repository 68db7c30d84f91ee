#pragma once
// HMMER3 Plan7 profiles on the host: Easel-ordered alphabets, the null model, profile configuration for hmmsearch's
// local multihit mode, and the reference Viterbi and Forward algorithms with HMMER's score statistics.
#include "null_model.hpp"
#include "plan7_alphabet.hpp"
#include "plan7_profile.hpp"
#include "plan7_reference.hpp"
