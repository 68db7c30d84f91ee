// cudp-phylo's GPU path: compiled as CUDA when the toolkit is present, as plain C++ (no GPU path) otherwise.
#include "device.hpp"

#include <stdexcept>

#if defined(__CUDACC__)
#include <cudp/phylo/device_tree_likelihood.cuh>
#endif

namespace phylo_app {

#if defined(__CUDACC__)

bool gpu_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

cudp::phylo::LikelihoodResult evaluate_on_gpu(const cudp::phylo::TraversalPlan& plan,
                                              const cudp::phylo::SitePatterns& data,
                                              const cudp::phylo::LikelihoodModel& model, bool single_precision) {
  if (single_precision) return cudp::phylo::DeviceTreeLikelihood<float>(plan, data, model).evaluate();
  return cudp::phylo::DeviceTreeLikelihood<double>(plan, data, model).evaluate();
}

#else

bool gpu_available() { return false; }

cudp::phylo::LikelihoodResult evaluate_on_gpu(const cudp::phylo::TraversalPlan&, const cudp::phylo::SitePatterns&,
                                              const cudp::phylo::LikelihoodModel&, bool) {
  throw std::runtime_error("this cudp-phylo was built without CUDA");
}

#endif

}  // namespace phylo_app
