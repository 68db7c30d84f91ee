// BEAGLE's public C API (libhmsbeagle/beagle.h, version 3.1) on cudp's pruning tiers: every function the header
// declares, so that a program linked against libhmsbeagle.so.1 (MrBayes, BEAST's JNI wrapper, ...) loads this
// library instead. Resource 0 is the host (tiers::prune_on_host); each CUDA device, when this build has CUDA and the
// machine a GPU, is a resource after it (tiers::launch_pruning). What the library does not do returns BEAGLE's
// error code and prints one line to stderr naming the function.
#include <libhmsbeagle/beagle.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include <cudp/host/host_cores.hpp>

#include "instance.hpp"

using cudp_beagle::Backend;
using cudp_beagle::Failure;
using cudp_beagle::Instance;

namespace {

constexpr const char* version = "3.1.2";
constexpr const char* citation =
    "Using cudp's BEAGLE-compatible library (BEAGLE 3.1 API) on cudp's pruning tiers. BEAGLE: Ayres et al. (2012) "
    "Systematic Biology 61: 170-173, doi:10.1093/sysbio/syr100\n";

constexpr long common_flags = BEAGLE_FLAG_PRECISION_SINGLE | BEAGLE_FLAG_PRECISION_DOUBLE |
                              BEAGLE_FLAG_COMPUTATION_SYNCH | BEAGLE_FLAG_EIGEN_REAL | BEAGLE_FLAG_SCALING_MANUAL |
                              BEAGLE_FLAG_SCALING_AUTO | BEAGLE_FLAG_SCALING_ALWAYS | BEAGLE_FLAG_SCALING_DYNAMIC |
                              BEAGLE_FLAG_SCALERS_RAW | BEAGLE_FLAG_SCALERS_LOG | BEAGLE_FLAG_INVEVEC_STANDARD |
                              BEAGLE_FLAG_INVEVEC_TRANSPOSED | BEAGLE_FLAG_VECTOR_NONE;

struct Resource {
  std::string name, description;
  long support, required;
  int gpu;  // CUDA device ordinal; -1 for the host
};

const std::vector<Resource>& resources() {
  static const std::vector<Resource> list = [] {
    std::vector<Resource> out;
    const unsigned cores = static_cast<unsigned>(cudp::host::usable_cores());
    out.push_back({"CPU (cudp host tier)", "cudp's host pruning tier, up to " + std::to_string(cores) + " threads",
                   common_flags | BEAGLE_FLAG_PROCESSOR_CPU | BEAGLE_FLAG_THREADING_NONE | BEAGLE_FLAG_THREADING_CPP |
                       BEAGLE_FLAG_FRAMEWORK_CPU,
                   BEAGLE_FLAG_PROCESSOR_CPU, -1});
    const std::vector<cudp_beagle::GpuInfo> gpus = cudp_beagle::gpus();
    for (std::size_t d = 0; d < gpus.size(); ++d)
      out.push_back({gpus[d].name, gpus[d].description,
                     common_flags | BEAGLE_FLAG_PROCESSOR_GPU | BEAGLE_FLAG_THREADING_NONE | BEAGLE_FLAG_FRAMEWORK_CUDA,
                     BEAGLE_FLAG_PROCESSOR_GPU | BEAGLE_FLAG_FRAMEWORK_CUDA, static_cast<int>(d)});
    return out;
  }();
  return list;
}

struct Entry {
  std::unique_ptr<Instance> instance;
  long flags = 0;
  bool gpu = false;
};

std::mutex registry_lock;
std::vector<Entry> registry;
std::deque<std::string> names;  // implementation names handed out; a deque keeps their addresses

const char* interned(const std::string& s) {
  for (const std::string& n : names)
    if (n == s) return n.c_str();
  names.push_back(s);
  return names.back().c_str();
}

Entry& entry(int index) {
  const std::lock_guard<std::mutex> hold(registry_lock);
  if (index < 0 || index >= static_cast<int>(registry.size()) || !registry[static_cast<std::size_t>(index)].instance)
    throw Failure{BEAGLE_ERROR_UNINITIALIZED_INSTANCE, ""};
  return registry[static_cast<std::size_t>(index)];
}

Instance& instance(int index) { return *entry(index).instance; }

template <class Body>
int guarded(const char* function, Body&& body) {
  try {
    return body();
  } catch (const Failure& f) {
    if (!f.message.empty()) std::fprintf(stderr, "cudp-beagle: %s: %s\n", function, f.message.c_str());
    return f.code;
  } catch (const std::bad_alloc&) {
    return BEAGLE_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudp-beagle: %s: %s\n", function, e.what());
    return BEAGLE_ERROR_GENERAL;
  } catch (...) {
    return BEAGLE_ERROR_UNIDENTIFIED_EXCEPTION;
  }
}

int unsupported(const char* function, const char* what = "not supported by cudp's BEAGLE library") {
  std::fprintf(stderr, "cudp-beagle: %s: %s\n", function, what);
  return BEAGLE_ERROR_NO_IMPLEMENTATION;
}

std::string flag_names(long flags) {
  static const std::pair<long, const char*> table[] = {{BEAGLE_FLAG_PRECISION_SINGLE, "PRECISION_SINGLE"},
                                                       {BEAGLE_FLAG_PRECISION_DOUBLE, "PRECISION_DOUBLE"},
                                                       {BEAGLE_FLAG_COMPUTATION_SYNCH, "COMPUTATION_SYNCH"},
                                                       {BEAGLE_FLAG_COMPUTATION_ASYNCH, "COMPUTATION_ASYNCH"},
                                                       {BEAGLE_FLAG_EIGEN_REAL, "EIGEN_REAL"},
                                                       {BEAGLE_FLAG_EIGEN_COMPLEX, "EIGEN_COMPLEX"},
                                                       {BEAGLE_FLAG_SCALING_MANUAL, "SCALING_MANUAL"},
                                                       {BEAGLE_FLAG_SCALING_AUTO, "SCALING_AUTO"},
                                                       {BEAGLE_FLAG_SCALING_ALWAYS, "SCALING_ALWAYS"},
                                                       {BEAGLE_FLAG_SCALING_DYNAMIC, "SCALING_DYNAMIC"},
                                                       {BEAGLE_FLAG_SCALERS_RAW, "SCALERS_RAW"},
                                                       {BEAGLE_FLAG_SCALERS_LOG, "SCALERS_LOG"},
                                                       {BEAGLE_FLAG_INVEVEC_STANDARD, "INVEVEC_STANDARD"},
                                                       {BEAGLE_FLAG_INVEVEC_TRANSPOSED, "INVEVEC_TRANSPOSED"},
                                                       {BEAGLE_FLAG_VECTOR_SSE, "VECTOR_SSE"},
                                                       {BEAGLE_FLAG_VECTOR_AVX, "VECTOR_AVX"},
                                                       {BEAGLE_FLAG_VECTOR_NONE, "VECTOR_NONE"},
                                                       {BEAGLE_FLAG_THREADING_CPP, "THREADING_CPP"},
                                                       {BEAGLE_FLAG_THREADING_OPENMP, "THREADING_OPENMP"},
                                                       {BEAGLE_FLAG_THREADING_NONE, "THREADING_NONE"},
                                                       {BEAGLE_FLAG_PROCESSOR_CPU, "PROCESSOR_CPU"},
                                                       {BEAGLE_FLAG_PROCESSOR_GPU, "PROCESSOR_GPU"},
                                                       {BEAGLE_FLAG_PROCESSOR_FPGA, "PROCESSOR_FPGA"},
                                                       {BEAGLE_FLAG_PROCESSOR_CELL, "PROCESSOR_CELL"},
                                                       {BEAGLE_FLAG_PROCESSOR_PHI, "PROCESSOR_PHI"},
                                                       {BEAGLE_FLAG_PROCESSOR_OTHER, "PROCESSOR_OTHER"},
                                                       {BEAGLE_FLAG_FRAMEWORK_CUDA, "FRAMEWORK_CUDA"},
                                                       {BEAGLE_FLAG_FRAMEWORK_OPENCL, "FRAMEWORK_OPENCL"},
                                                       {BEAGLE_FLAG_FRAMEWORK_CPU, "FRAMEWORK_CPU"},
                                                       {BEAGLE_FLAG_PARALLELOPS_STREAMS, "PARALLELOPS_STREAMS"},
                                                       {BEAGLE_FLAG_PARALLELOPS_GRID, "PARALLELOPS_GRID"}};
  std::string out;
  for (const auto& [flag, name] : table)
    if (flags & flag) out += (out.empty() ? "" : " ") + std::string(name);
  return out;
}

// BEAGLE's choice: the resources allowed (all, or the caller's list) that have every required flag, best first by
// the number of preferred flags they have, ties in the order given.
std::vector<int> ranked(const int* list, int count, long preference, long requirement) {
  const auto& all = resources();
  std::vector<int> candidates;
  if (list == nullptr || count <= 0) {
    for (int r = 0; r < static_cast<int>(all.size()); ++r) candidates.push_back(r);
  } else {
    for (int i = 0; i < count; ++i) {
      if (list[i] < 0 || list[i] >= static_cast<int>(all.size())) throw Failure{BEAGLE_ERROR_OUT_OF_RANGE, ""};
      candidates.push_back(list[i]);
    }
  }
  long offered = 0;
  for (const Resource& r : all) offered |= r.support;
  if (requirement & ~offered)
    throw Failure{BEAGLE_ERROR_NO_RESOURCE, "required flags not supported: " + flag_names(requirement & ~offered)};
  candidates.erase(
      std::remove_if(candidates.begin(), candidates.end(),
                     [&](int r) { return (all[static_cast<std::size_t>(r)].support & requirement) != requirement; }),
      candidates.end());
  if (candidates.empty())
    throw Failure{BEAGLE_ERROR_NO_RESOURCE,
                  "no resource (of those allowed) offers every required flag: " + flag_names(requirement)};
  const auto score = [&](int r) { return __builtin_popcountl(all[static_cast<std::size_t>(r)].support & preference); };
  std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) { return score(a) > score(b); });
  return candidates;
}

bool single_precision(long preference, long requirement) {
  const long both = BEAGLE_FLAG_PRECISION_SINGLE | BEAGLE_FLAG_PRECISION_DOUBLE;
  if ((requirement & both) == both)
    throw Failure{BEAGLE_ERROR_NO_IMPLEMENTATION, "an instance is single or double precision, not both"};
  if (requirement & both) return requirement & BEAGLE_FLAG_PRECISION_SINGLE;
  if ((preference & both) == BEAGLE_FLAG_PRECISION_SINGLE) return true;
  return false;
}

std::string states_built(bool gpu) {
  const std::vector<int>& counts = gpu ? cudp_beagle::device_state_counts() : cudp_beagle::host_state_counts();
  std::string out;
  for (const int n : counts) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out.empty() ? "none" : out;
}

std::string implementation_name(bool gpu, int states, bool single) {
  return std::string(gpu ? "cudp-CUDA-" : "cudp-host-") + std::to_string(states) + "State-" +
         (single ? "Single" : "Double");
}

long instance_flags(const Resource& r, long preference, long requirement, bool single) {
  const long asked = preference | requirement;
  long flags = BEAGLE_FLAG_COMPUTATION_SYNCH | BEAGLE_FLAG_EIGEN_REAL | BEAGLE_FLAG_VECTOR_NONE;
  flags |= single ? BEAGLE_FLAG_PRECISION_SINGLE : BEAGLE_FLAG_PRECISION_DOUBLE;
  long scaling = BEAGLE_FLAG_SCALING_MANUAL;
  for (const long s : {BEAGLE_FLAG_SCALING_ALWAYS, BEAGLE_FLAG_SCALING_AUTO, BEAGLE_FLAG_SCALING_DYNAMIC})
    if (asked & s) {
      scaling = s;
      break;
    }
  flags |= scaling;
  const bool raw = (asked & BEAGLE_FLAG_SCALERS_RAW) && !(asked & BEAGLE_FLAG_SCALERS_LOG);
  flags |= raw ? BEAGLE_FLAG_SCALERS_RAW : BEAGLE_FLAG_SCALERS_LOG;
  flags |= (asked & BEAGLE_FLAG_INVEVEC_TRANSPOSED) ? BEAGLE_FLAG_INVEVEC_TRANSPOSED : BEAGLE_FLAG_INVEVEC_STANDARD;
  if (r.gpu < 0)
    flags |= BEAGLE_FLAG_PROCESSOR_CPU | BEAGLE_FLAG_FRAMEWORK_CPU | BEAGLE_FLAG_THREADING_CPP;
  else
    flags |= BEAGLE_FLAG_PROCESSOR_GPU | BEAGLE_FLAG_FRAMEWORK_CUDA | BEAGLE_FLAG_THREADING_NONE;
  return flags;
}

bool supports_states(const Resource& r, int states) {
  const std::vector<int>& counts = r.gpu < 0 ? cudp_beagle::host_state_counts() : cudp_beagle::device_state_counts();
  return std::find(counts.begin(), counts.end(), states) != counts.end();
}

// The three ways to ask for a root or edge log-likelihood share one path.
int likelihood(const char* function, int index, const int* parents, const int* children, const int* matrices,
               const int* first_derivatives, const int* second_derivatives, const int* weights, const int* frequencies,
               const int* scales, const int* partitions, int partition_count, int count, double* by_partition,
               double* total) {
  return guarded(function, [&] {
    if (first_derivatives != nullptr || second_derivatives != nullptr)
      throw Failure{BEAGLE_ERROR_NO_IMPLEMENTATION, "derivatives are not supported"};
    double sum = 0;
    const int code = instance(index).log_likelihood(parents, children, matrices, weights, frequencies, scales,
                                                    partitions, partition_count, count, &sum, by_partition);
    if (total != nullptr) *total = sum;
    return code;
  });
}

}  // namespace

extern "C" {

const char* beagleGetVersion(void) { return version; }

const char* beagleGetCitation(void) { return citation; }

BeagleResourceList* beagleGetResourceList(void) {
  static BeagleResourceList list{};
  static std::vector<BeagleResource> entries;
  static std::once_flag once;
  std::call_once(once, [] {
    for (const Resource& r : resources())
      entries.push_back(
          {const_cast<char*>(r.name.c_str()), const_cast<char*>(r.description.c_str()), r.support, r.required});
    list.list = entries.data();
    list.length = static_cast<int>(entries.size());
  });
  return &list;
}

// Nothing is timed: the resources that could run the problem come back in BEAGLE's order of preference, each with
// a result of 0 ms, so that a caller taking the fastest takes the first. A preferred processor (CPU or GPU) that
// some resource has narrows the list to it, as MrBayes' `beagledevice` means.
BeagleBenchmarkedResourceList* beagleGetBenchmarkedResourceList(int, int, int stateCount, int, int, int* resourceList,
                                                                int resourceCount, long preferenceFlags,
                                                                long requirementFlags, int, int,
                                                                int calculateDerivatives, long) {
  static BeagleBenchmarkedResourceList list{};
  static std::vector<BeagleBenchmarkedResource> entries;
  const std::lock_guard<std::mutex> hold(registry_lock);
  std::vector<int> candidates;
  const int code = guarded("beagleGetBenchmarkedResourceList", [&] {
    if (calculateDerivatives) throw Failure{BEAGLE_ERROR_NO_IMPLEMENTATION, "derivatives are not supported"};
    candidates = ranked(resourceList, resourceCount, preferenceFlags, requirementFlags);
    return BEAGLE_SUCCESS;
  });
  if (code != BEAGLE_SUCCESS) return nullptr;
  const auto& all = resources();
  candidates.erase(
      std::remove_if(candidates.begin(), candidates.end(),
                     [&](int r) { return !supports_states(all[static_cast<std::size_t>(r)], stateCount); }),
      candidates.end());
  const long processors = preferenceFlags & (BEAGLE_FLAG_PROCESSOR_CPU | BEAGLE_FLAG_PROCESSOR_GPU);
  if (processors != 0 && std::any_of(candidates.begin(), candidates.end(), [&](int r) {
        return (all[static_cast<std::size_t>(r)].support & processors) != 0;
      }))
    candidates.erase(
        std::remove_if(candidates.begin(), candidates.end(),
                       [&](int r) { return (all[static_cast<std::size_t>(r)].support & processors) == 0; }),
        candidates.end());
  if (candidates.empty()) return nullptr;
  bool single = false;
  try {
    single = single_precision(preferenceFlags, requirementFlags);
  } catch (const Failure&) {
    return nullptr;
  }
  entries.clear();
  for (const int r : candidates) {
    const Resource& res = all[static_cast<std::size_t>(r)];
    BeagleBenchmarkedResource b{};
    b.number = r;
    b.name = const_cast<char*>(res.name.c_str());
    b.description = const_cast<char*>(res.description.c_str());
    b.supportFlags = res.support;
    b.requiredFlags = res.required;
    b.returnCode = BEAGLE_SUCCESS;
    b.implName = const_cast<char*>(interned(implementation_name(res.gpu >= 0, stateCount, single)));
    b.benchedFlags = instance_flags(res, preferenceFlags, requirementFlags, single);
    b.benchmarkResult = 0.0;
    b.performanceRatio = 1.0;
    entries.push_back(b);
  }
  list.list = entries.data();
  list.length = static_cast<int>(entries.size());
  return &list;
}

int beagleCreateInstance(int tipCount, int partialsBufferCount, int compactBufferCount, int stateCount,
                         int patternCount, int eigenBufferCount, int matrixBufferCount, int categoryCount,
                         int scaleBufferCount, int* resourceList, int resourceCount, long preferenceFlags,
                         long requirementFlags, BeagleInstanceDetails* returnInfo) {
  return guarded("beagleCreateInstance", [&] {
    if (tipCount < 0 || partialsBufferCount < 0 || compactBufferCount < 0 || compactBufferCount > tipCount ||
        stateCount < 2 || patternCount < 1 || eigenBufferCount < 0 || matrixBufferCount < 0 || categoryCount < 1 ||
        scaleBufferCount < 0)
      throw Failure{BEAGLE_ERROR_OUT_OF_RANGE, ""};
    if (stateCount > 254) throw Failure{BEAGLE_ERROR_NO_IMPLEMENTATION, "more than 254 states are not supported"};
    const bool single = single_precision(preferenceFlags, requirementFlags);
    cudp_beagle::Dimensions d;
    d.tips = tipCount;
    d.partials = partialsBufferCount;
    d.compact = compactBufferCount;
    d.states = stateCount;
    d.patterns = patternCount;
    d.eigens = std::max(eigenBufferCount, 1);
    d.matrices = matrixBufferCount;
    d.categories = categoryCount;
    d.scales = scaleBufferCount;
    cudp_beagle::Layout layout;
    layout.tips = tipCount;
    layout.slots = partialsBufferCount;
    layout.states = stateCount;
    layout.categories = categoryCount;
    layout.start = {0, patternCount};
    const auto& all = resources();
    std::string why;
    for (const int r : ranked(resourceList, resourceCount, preferenceFlags, requirementFlags)) {
      const Resource& res = all[static_cast<std::size_t>(r)];
      std::unique_ptr<Backend> backend;
      try {
        backend = res.gpu < 0 ? cudp_beagle::make_host_backend(stateCount, single, layout, matrixBufferCount, d.eigens)
                              : cudp_beagle::make_device_backend(res.gpu, stateCount, single, layout, matrixBufferCount,
                                                                 d.eigens);
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const std::exception& e) {
        why += std::string(why.empty() ? "" : "; ") + res.name + ": " + e.what();
        continue;
      }
      if (!backend) {
        why += std::string(why.empty() ? "" : "; ") + res.name + " builds " + states_built(res.gpu >= 0) +
               " states, not " + std::to_string(stateCount);
        continue;
      }
      const long flags = instance_flags(res, preferenceFlags, requirementFlags, single);
      auto made = std::make_unique<Instance>(d, (flags & BEAGLE_FLAG_INVEVEC_TRANSPOSED) != 0, std::move(backend));
      int index = 0;
      {
        const std::lock_guard<std::mutex> hold(registry_lock);
        registry.push_back({std::move(made), flags, res.gpu >= 0});
        index = static_cast<int>(registry.size()) - 1;
        if (returnInfo != nullptr) {
          returnInfo->resourceNumber = r;
          returnInfo->resourceName = const_cast<char*>(res.name.c_str());
          returnInfo->implName = const_cast<char*>(interned(implementation_name(res.gpu >= 0, stateCount, single)));
          returnInfo->implDescription = const_cast<char*>(
              "cudp pruning tiers; partials rescaled by powers of two with per-buffer cumulative exponents, scale "
              "buffers hold log factor 0");
          returnInfo->flags = flags;
        }
      }
      return index;
    }
    throw Failure{BEAGLE_ERROR_NO_IMPLEMENTATION, why};
  });
}

int beagleFinalizeInstance(int instance) {
  return guarded("beagleFinalizeInstance", [&] {
    entry(instance);
    std::unique_ptr<Instance> gone;
    {
      const std::lock_guard<std::mutex> hold(registry_lock);
      gone = std::move(registry[static_cast<std::size_t>(instance)].instance);
    }
    return BEAGLE_SUCCESS;
  });
}

int beagleFinalize(void) {
  return guarded("beagleFinalize", [&] {
    std::vector<Entry> gone;
    {
      const std::lock_guard<std::mutex> hold(registry_lock);
      gone.swap(registry);
      // Indices stay taken, as BEAGLE never hands one out twice.
      registry.resize(gone.size());
    }
    return BEAGLE_SUCCESS;
  });
}

int beagleSetCPUThreadCount(int instance, int threadCount) {
  return guarded("beagleSetCPUThreadCount", [&] {
    Entry& e = entry(instance);
    if (threadCount < 1) throw Failure{BEAGLE_ERROR_OUT_OF_RANGE, ""};
    if (!e.gpu) e.instance->set_threads(threadCount);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetTipStates(int instance, int tipIndex, const int* inStates) {
  return guarded("beagleSetTipStates", [&] {
    ::instance(instance).set_tip_states(tipIndex, inStates);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetTipPartials(int instance, int tipIndex, const double* inPartials) {
  return guarded("beagleSetTipPartials", [&] {
    ::instance(instance).set_tip_partials(tipIndex, inPartials);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetPartials(int instance, int bufferIndex, const double* inPartials) {
  return guarded("beagleSetPartials", [&] {
    ::instance(instance).set_partials(bufferIndex, inPartials);
    return BEAGLE_SUCCESS;
  });
}

int beagleGetPartials(int instance, int bufferIndex, int scaleIndex, double* outPartials) {
  return guarded("beagleGetPartials", [&] {
    ::instance(instance).get_partials(bufferIndex, scaleIndex, outPartials);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetEigenDecomposition(int instance, int eigenIndex, const double* inEigenVectors,
                                const double* inInverseEigenVectors, const double* inEigenValues) {
  return guarded("beagleSetEigenDecomposition", [&] {
    ::instance(instance).set_eigen(eigenIndex, inEigenVectors, inInverseEigenVectors, inEigenValues);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetStateFrequencies(int instance, int stateFrequenciesIndex, const double* inStateFrequencies) {
  return guarded("beagleSetStateFrequencies", [&] {
    ::instance(instance).set_frequencies(stateFrequenciesIndex, inStateFrequencies);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetCategoryWeights(int instance, int categoryWeightsIndex, const double* inCategoryWeights) {
  return guarded("beagleSetCategoryWeights", [&] {
    ::instance(instance).set_category_weights(categoryWeightsIndex, inCategoryWeights);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetCategoryRates(int instance, const double* inCategoryRates) {
  return guarded("beagleSetCategoryRates", [&] {
    ::instance(instance).set_category_rates(0, inCategoryRates);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetCategoryRatesWithIndex(int instance, int categoryRatesIndex, const double* inCategoryRates) {
  return guarded("beagleSetCategoryRatesWithIndex", [&] {
    ::instance(instance).set_category_rates(categoryRatesIndex, inCategoryRates);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetPatternWeights(int instance, const double* inPatternWeights) {
  return guarded("beagleSetPatternWeights", [&] {
    ::instance(instance).set_pattern_weights(inPatternWeights);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetPatternPartitions(int instance, int partitionCount, const int* inPatternPartitions) {
  return guarded("beagleSetPatternPartitions", [&] {
    ::instance(instance).set_pattern_partitions(partitionCount, inPatternPartitions);
    return BEAGLE_SUCCESS;
  });
}

int beagleConvolveTransitionMatrices(int instance, const int*, const int*, const int*, int) {
  return guarded("beagleConvolveTransitionMatrices", [&] {
    entry(instance);
    return unsupported("beagleConvolveTransitionMatrices");
  });
}

int beagleUpdateTransitionMatrices(int instance, int eigenIndex, const int* probabilityIndices,
                                   const int* firstDerivativeIndices, const int* secondDerivativeIndices,
                                   const double* edgeLengths, int count) {
  return guarded("beagleUpdateTransitionMatrices", [&] {
    ::instance(instance).update_matrices(&eigenIndex, nullptr, true, probabilityIndices, firstDerivativeIndices,
                                         secondDerivativeIndices, edgeLengths, count);
    return BEAGLE_SUCCESS;
  });
}

int beagleUpdateTransitionMatricesWithMultipleModels(int instance, const int* eigenIndices,
                                                     const int* categoryRateIndices, const int* probabilityIndices,
                                                     const int* firstDerivativeIndices,
                                                     const int* secondDerivativeIndices, const double* edgeLengths,
                                                     int count) {
  return guarded("beagleUpdateTransitionMatricesWithMultipleModels", [&] {
    ::instance(instance).update_matrices(eigenIndices, categoryRateIndices, false, probabilityIndices,
                                         firstDerivativeIndices, secondDerivativeIndices, edgeLengths, count);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetTransitionMatrix(int instance, int matrixIndex, const double* inMatrix, double) {
  return guarded("beagleSetTransitionMatrix", [&] {
    ::instance(instance).set_matrix(matrixIndex, inMatrix);
    return BEAGLE_SUCCESS;
  });
}

int beagleGetTransitionMatrix(int instance, int matrixIndex, double* outMatrix) {
  return guarded("beagleGetTransitionMatrix", [&] {
    ::instance(instance).get_matrix(matrixIndex, outMatrix);
    return BEAGLE_SUCCESS;
  });
}

int beagleSetTransitionMatrices(int instance, const int* matrixIndices, const double* inMatrices, const double*,
                                int count) {
  return guarded("beagleSetTransitionMatrices", [&] {
    Instance& in = ::instance(instance);
    const auto d = in.dimensions();
    const std::size_t size = static_cast<std::size_t>(d.categories) * d.states * d.states;
    for (int i = 0; i < count; ++i) in.set_matrix(matrixIndices[i], inMatrices + static_cast<std::size_t>(i) * size);
    return BEAGLE_SUCCESS;
  });
}

int beagleUpdatePartials(const int instance, const BeagleOperation* operations, int operationCount,
                         int cumulativeScaleIndex) {
  return guarded("beagleUpdatePartials", [&] {
    ::instance(instance).update_partials(operations, operationCount, cumulativeScaleIndex);
    return BEAGLE_SUCCESS;
  });
}

int beagleUpdatePartialsByPartition(const int instance, const BeagleOperationByPartition* operations,
                                    int operationCount) {
  return guarded("beagleUpdatePartialsByPartition", [&] {
    ::instance(instance).update_partials_by_partition(operations, operationCount);
    return BEAGLE_SUCCESS;
  });
}

int beagleWaitForPartials(const int instance, const int*, int) {
  return guarded("beagleWaitForPartials", [&] {
    entry(instance);  // every call is synchronous
    return BEAGLE_SUCCESS;
  });
}

// Scale buffers all hold log factor 0 (instance.hpp): these only check their indices.
int beagleAccumulateScaleFactors(int instance, const int* scaleIndices, int count, int cumulativeScaleIndex) {
  return guarded("beagleAccumulateScaleFactors", [&] {
    Instance& in = ::instance(instance);
    in.check_scale(cumulativeScaleIndex, false);
    for (int i = 0; i < count; ++i) in.check_scale(scaleIndices[i], false);
    return BEAGLE_SUCCESS;
  });
}

int beagleAccumulateScaleFactorsByPartition(int instance, const int* scaleIndices, int count, int cumulativeScaleIndex,
                                            int partitionIndex) {
  return guarded("beagleAccumulateScaleFactorsByPartition", [&] {
    Instance& in = ::instance(instance);
    in.check_partition(partitionIndex);
    in.check_scale(cumulativeScaleIndex, false);
    for (int i = 0; i < count; ++i) in.check_scale(scaleIndices[i], false);
    return BEAGLE_SUCCESS;
  });
}

int beagleRemoveScaleFactors(int instance, const int* scaleIndices, int count, int cumulativeScaleIndex) {
  return beagleAccumulateScaleFactors(instance, scaleIndices, count, cumulativeScaleIndex);
}

int beagleRemoveScaleFactorsByPartition(int instance, const int* scaleIndices, int count, int cumulativeScaleIndex,
                                        int partitionIndex) {
  return beagleAccumulateScaleFactorsByPartition(instance, scaleIndices, count, cumulativeScaleIndex, partitionIndex);
}

int beagleResetScaleFactors(int instance, int cumulativeScaleIndex) {
  return guarded("beagleResetScaleFactors", [&] {
    ::instance(instance).check_scale(cumulativeScaleIndex, false);
    return BEAGLE_SUCCESS;
  });
}

int beagleResetScaleFactorsByPartition(int instance, int cumulativeScaleIndex, int partitionIndex) {
  return guarded("beagleResetScaleFactorsByPartition", [&] {
    Instance& in = ::instance(instance);
    in.check_partition(partitionIndex);
    in.check_scale(cumulativeScaleIndex, false);
    return BEAGLE_SUCCESS;
  });
}

int beagleCopyScaleFactors(int instance, int destScalingIndex, int srcScalingIndex) {
  return guarded("beagleCopyScaleFactors", [&] {
    Instance& in = ::instance(instance);
    in.check_scale(destScalingIndex, false);
    in.check_scale(srcScalingIndex, false);
    return BEAGLE_SUCCESS;
  });
}

int beagleGetScaleFactors(int instance, int srcScalingIndex, double* outScaleFactors) {
  return guarded("beagleGetScaleFactors", [&] {
    Entry& e = entry(instance);
    e.instance->get_scale_factors(srcScalingIndex, outScaleFactors, (e.flags & BEAGLE_FLAG_SCALERS_RAW) != 0);
    return BEAGLE_SUCCESS;
  });
}

int beagleCalculateRootLogLikelihoods(int instance, const int* bufferIndices, const int* categoryWeightsIndices,
                                      const int* stateFrequenciesIndices, const int* cumulativeScaleIndices, int count,
                                      double* outSumLogLikelihood) {
  return likelihood("beagleCalculateRootLogLikelihoods", instance, bufferIndices, nullptr, nullptr, nullptr, nullptr,
                    categoryWeightsIndices, stateFrequenciesIndices, cumulativeScaleIndices, nullptr, 1, count, nullptr,
                    outSumLogLikelihood);
}

int beagleCalculateRootLogLikelihoodsByPartition(int instance, const int* bufferIndices,
                                                 const int* categoryWeightsIndices, const int* stateFrequenciesIndices,
                                                 const int* cumulativeScaleIndices, const int* partitionIndices,
                                                 int partitionCount, int count, double* outSumLogLikelihoodByPartition,
                                                 double* outSumLogLikelihood) {
  return likelihood("beagleCalculateRootLogLikelihoodsByPartition", instance, bufferIndices, nullptr, nullptr, nullptr,
                    nullptr, categoryWeightsIndices, stateFrequenciesIndices, cumulativeScaleIndices, partitionIndices,
                    partitionCount, count, outSumLogLikelihoodByPartition, outSumLogLikelihood);
}

int beagleCalculateEdgeLogLikelihoods(int instance, const int* parentBufferIndices, const int* childBufferIndices,
                                      const int* probabilityIndices, const int* firstDerivativeIndices,
                                      const int* secondDerivativeIndices, const int* categoryWeightsIndices,
                                      const int* stateFrequenciesIndices, const int* cumulativeScaleIndices, int count,
                                      double* outSumLogLikelihood, double*, double*) {
  return likelihood("beagleCalculateEdgeLogLikelihoods", instance, parentBufferIndices, childBufferIndices,
                    probabilityIndices, firstDerivativeIndices, secondDerivativeIndices, categoryWeightsIndices,
                    stateFrequenciesIndices, cumulativeScaleIndices, nullptr, 1, count, nullptr, outSumLogLikelihood);
}

int beagleCalculateEdgeLogLikelihoodsByPartition(int instance, const int* parentBufferIndices,
                                                 const int* childBufferIndices, const int* probabilityIndices,
                                                 const int* firstDerivativeIndices, const int* secondDerivativeIndices,
                                                 const int* categoryWeightsIndices, const int* stateFrequenciesIndices,
                                                 const int* cumulativeScaleIndices, const int* partitionIndices,
                                                 int partitionCount, int count, double* outSumLogLikelihoodByPartition,
                                                 double* outSumLogLikelihood, double*, double*, double*, double*) {
  return likelihood("beagleCalculateEdgeLogLikelihoodsByPartition", instance, parentBufferIndices, childBufferIndices,
                    probabilityIndices, firstDerivativeIndices, secondDerivativeIndices, categoryWeightsIndices,
                    stateFrequenciesIndices, cumulativeScaleIndices, partitionIndices, partitionCount, count,
                    outSumLogLikelihoodByPartition, outSumLogLikelihood);
}

int beagleGetLogLikelihood(int instance, double* outSumLogLikelihood) {
  return guarded("beagleGetLogLikelihood", [&] {
    *outSumLogLikelihood = ::instance(instance).last_log_likelihood();
    return BEAGLE_SUCCESS;
  });
}

int beagleGetDerivatives(int instance, double*, double*) {
  return guarded("beagleGetDerivatives", [&] {
    entry(instance);
    return unsupported("beagleGetDerivatives", "derivatives are not supported");
  });
}

int beagleGetSiteLogLikelihoods(int instance, double* outLogLikelihoods) {
  return guarded("beagleGetSiteLogLikelihoods", [&] {
    ::instance(instance).get_site_log_likelihoods(outLogLikelihoods);
    return BEAGLE_SUCCESS;
  });
}

int beagleGetSiteDerivatives(int instance, double*, double*) {
  return guarded("beagleGetSiteDerivatives", [&] {
    entry(instance);
    return unsupported("beagleGetSiteDerivatives", "derivatives are not supported");
  });
}

}  // extern "C"
