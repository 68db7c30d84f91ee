// The GPU backend in single precision (compiled as CUDA when the toolkit is present, empty otherwise).
#if defined(__CUDACC__)
#include "device_backend.cuh"

namespace cudp_beagle {

std::unique_ptr<Backend> make_device_backend_single(int device, int states, const Layout& layout, int matrices,
                                                    int eigens) {
  return make_backend<DeviceBackend, float>(DeviceStates{}, states, device, layout, matrices, eigens);
}

}  // namespace cudp_beagle
#endif
