#pragma once
// The boundary between cudp-phylo (plain C++) and the one translation unit that may evaluate on the GPU, compiled by
// nvcc when the CUDA toolkit is present (device.cpp).
#include <cudp/phylo/tree_likelihood.hpp>

namespace phylo_app {

// Whether this build has the GPU path and a device is present.
bool gpu_available();

// One evaluation on the GPU in single or double precision. Throws when there is no GPU path.
cudp::phylo::LikelihoodResult evaluate_on_gpu(const cudp::phylo::TraversalPlan& plan,
                                              const cudp::phylo::SitePatterns& data,
                                              const cudp::phylo::LikelihoodModel& model, bool single_precision);

}  // namespace phylo_app
