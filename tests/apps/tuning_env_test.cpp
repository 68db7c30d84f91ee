// CUDP_TIERS and CUDP_WARP_SHAPE as the example and benchmark programs read them (apps/kit/tuning_env.hpp):
// the same parsing the library did before the overrides moved out of it.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "kit/tuning_env.hpp"

using cudp::apps::dispatch_options_from_env;

namespace {
struct Env {
  Env(const char* tiers, const char* shape) {
    set("CUDP_TIERS", tiers);
    set("CUDP_WARP_SHAPE", shape);
  }
  ~Env() {
    unsetenv("CUDP_TIERS");
    unsetenv("CUDP_WARP_SHAPE");
  }
  static void set(const char* name, const char* value) {
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
};
}  // namespace

TEST_CASE("no tuning variables: no overrides", "[examples][tuning]") {
  Env env(nullptr, nullptr);
  auto options = dispatch_options_from_env();
  CHECK(!options.thresholds);
  CHECK(!options.warp_shape);
  CHECK(options.sm_arch == 0);
}

TEST_CASE("CUDP_TIERS=THREAD_MAX,WARP_MAX sets both thresholds; without a comma it is ignored", "[examples][tuning]") {
  {
    Env env("0,100000", nullptr);
    auto options = dispatch_options_from_env();
    REQUIRE(options.thresholds);
    CHECK(options.thresholds->thread_max_length == 0);
    CHECK(options.thresholds->warp_max_length == 100000);
  }
  {
    Env env("1024", nullptr);
    CHECK(!dispatch_options_from_env().thresholds);
  }
}

TEST_CASE("CUDP_WARP_SHAPE=G,R forces a shape; G alone reads R as 0 (in no menu: the scorer refuses it)",
          "[examples][tuning]") {
  {
    Env env(nullptr, "8,32");
    auto options = dispatch_options_from_env();
    REQUIRE(options.warp_shape);
    CHECK(options.warp_shape->group == 8);
    CHECK(options.warp_shape->columns == 32);
  }
  {
    Env env(nullptr, "8");
    auto options = dispatch_options_from_env();
    REQUIRE(options.warp_shape);
    CHECK(options.warp_shape->group == 8);
    CHECK(options.warp_shape->columns == 0);
  }
}
