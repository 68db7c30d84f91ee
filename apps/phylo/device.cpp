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

std::unique_ptr<cudp::phylo::LikelihoodEngine> make_gpu_engine(const cudp::phylo::TraversalPlan& plan,
                                                               const cudp::phylo::SitePatterns& data,
                                                               const cudp::phylo::LikelihoodModel& model,
                                                               bool single_precision, int buffers) {
  if (single_precision)
    return std::make_unique<cudp::phylo::DeviceTreeLikelihood<float>>(plan, data, model, std::nullopt, buffers);
  return std::make_unique<cudp::phylo::DeviceTreeLikelihood<double>>(plan, data, model, std::nullopt, buffers);
}

#else

bool gpu_available() { return false; }

std::unique_ptr<cudp::phylo::LikelihoodEngine> make_gpu_engine(const cudp::phylo::TraversalPlan&,
                                                               const cudp::phylo::SitePatterns&,
                                                               const cudp::phylo::LikelihoodModel&, bool, int) {
  throw std::runtime_error("this cudp-phylo was built without CUDA");
}

#endif

}  // namespace phylo_app
