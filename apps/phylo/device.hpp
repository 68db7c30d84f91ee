#pragma once
// The boundary between cudp-phylo (plain C++) and the one translation unit that may run on the GPU, compiled by
// nvcc when the CUDA toolkit is present (device.cpp).
#include <cudp/phylo/likelihood_engine.hpp>
#include <memory>

namespace phylo_app {

// Whether this build has the GPU path and a device is present.
bool gpu_available();

// A GPU engine in single or double precision holding `buffers` buffers. Throws when there is no GPU path.
std::unique_ptr<cudp::phylo::LikelihoodEngine> make_gpu_engine(const cudp::phylo::TraversalPlan& plan,
                                                               const cudp::phylo::SitePatterns& data,
                                                               const cudp::phylo::LikelihoodModel& model,
                                                               bool single_precision, int buffers);

}  // namespace phylo_app
