// One level of linear-space row passes on the GPU (align/device_row_passes.cuh), timed: either a few huge boxes
// (the top levels of one long pair) or many small ones (the deep levels), over random DNA (+2/-3, gaps 5/2) whose
// target is a mutated copy of the query. Prints kernel time and GCUPS; --check compares with the host backend.
//
//   cudp-row-passes-bench long COLUMNS ROWS PASSES [--wide] [--check]
//   cudp-row-passes-bench many COUNT SIDE [--wide] [--check]
//
// --wide adds strips of 32 columns per lane (1024 per warp) to the default menu, whose widest is 16.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cudp/align/device_row_passes.cuh>
#include <cudp/align/row_passes.hpp>

namespace {

struct Dna {
  int operator()(int a, int b) const { return a == b ? 2 : -3; }
};

struct Sequences {
  std::vector<std::uint8_t> q, qr, t, tr;
};

Sequences make(std::size_t m, std::size_t n) {
  std::mt19937_64 rng(42);
  Sequences s;
  s.q.resize(m);
  for (auto& c : s.q) c = static_cast<std::uint8_t>(rng() % 4);
  for (std::size_t k = 0; s.t.size() < n; k = (k + 1) % m) {
    const unsigned roll = rng() % 100;
    if (roll < 4) continue;
    if (roll < 8) s.t.push_back(static_cast<std::uint8_t>(rng() % 4));
    s.t.push_back(roll < 12 ? static_cast<std::uint8_t>(rng() % 4) : s.q[k]);
  }
  s.t.resize(n);
  s.qr.assign(s.q.rbegin(), s.q.rend());
  s.tr.assign(s.t.rbegin(), s.t.rend());
  return s;
}

template <class Shapes>
int bench(const Sequences& s, const std::vector<cudp::align::RowPass>& passes, bool check) {
  using namespace cudp;
  const align::SequencePair pair{s.q.data(), s.qr.data(), static_cast<std::int64_t>(s.q.size()),
                                 s.t.data(), s.tr.data(), static_cast<std::int64_t>(s.t.size())};
  std::size_t entries = 0;
  for (const auto& p : passes) entries = std::max(entries, p.out + static_cast<std::size_t>(p.columns) + 1);
  std::vector<std::int32_t> h(entries), f(entries);
  align::DeviceRowPasses<align::GlobalS32, Shapes> device(pair, Dna{});
  const recurrences::GapCosts gaps{5, 2};
  device.run(passes, gaps, {h.data(), f.data()});  // warm-up
  for (int rep = 0; rep < 3; ++rep) {
    device.run(passes, gaps, {h.data(), f.data()});
    const auto& r = device.last_run();
    std::printf("%zu passes, %zu strips, %.3g cells, %d wave(s), %.1f MiB working: %.2f ms, %.1f GCUPS\n", r.passes,
                r.strips, r.cells, r.waves, r.device_bytes / 1048576.0, r.kernel_ms, r.cells / r.kernel_ms / 1e6);
  }
  if (!check) return 0;
  std::vector<std::int32_t> hh(entries), hf(entries);
  align::run_row_passes_on_host(passes, pair, Dna{}, gaps, {hh.data(), hf.data()});
  const bool same = hh == h && hf == f;
  std::printf("host check: %s\n", same ? "identical" : "DIFFERENT");
  return same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool wide = false, check = false;
  std::vector<std::string> rest;
  for (const auto& a : args) {
    if (a == "--wide") wide = true;
    else if (a == "--check") check = true;
    else rest.push_back(a);
  }
  std::vector<cudp::align::RowPass> passes;
  Sequences s;
  if (rest.size() == 4 && rest[0] == "long") {
    const int columns = std::atoi(rest[1].c_str()), rows = std::atoi(rest[2].c_str()), count = std::atoi(rest[3].c_str());
    s = make(static_cast<std::size_t>(columns), static_cast<std::size_t>(rows));
    for (int k = 0; k < count; ++k) {
      cudp::align::RowPass p;
      p.columns = columns;
      p.rows = rows;
      p.reversed = k % 2 == 1;
      p.out = static_cast<std::size_t>(k) * (static_cast<std::size_t>(columns) + 1);
      passes.push_back(p);
    }
  } else if (rest.size() == 3 && rest[0] == "many") {
    const int count = std::atoi(rest[1].c_str()), side = std::atoi(rest[2].c_str());
    s = make(static_cast<std::size_t>(side) * 64, static_cast<std::size_t>(side) * 64);
    std::mt19937_64 rng(7);
    for (int k = 0; k < count; ++k) {
      cudp::align::RowPass p;
      p.columns = side;
      p.rows = side;
      p.query_begin = static_cast<std::int64_t>(rng() % (s.q.size() - side));
      p.target_begin = static_cast<std::int64_t>(rng() % (s.t.size() - side));
      p.reversed = k % 2 == 1;
      p.out = static_cast<std::size_t>(k) * (static_cast<std::size_t>(side) + 1);
      passes.push_back(p);
    }
  } else {
    std::fprintf(stderr, "usage: %s long COLUMNS ROWS PASSES [--wide] [--check] | many COUNT SIDE [--wide] [--check]\n", argv[0]);
    return 2;
  }
  return wide ? bench<cudp::align::StripShapes<1, 2, 4, 8, 16, 32>>(s, passes, check)
              : bench<cudp::align::DefaultStripShapes>(s, passes, check);
}
