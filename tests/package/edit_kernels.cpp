// The consumer's own policy in the host's vector lanes: the one-step route of an installed cudp.
#include "edit.hpp"

#define CUDP_HOST_VECTOR_POLICIES consumer::Edit
#include <cudp/engine/host_vector_kernels-inl.hpp>
