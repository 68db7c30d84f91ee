#pragma once
// HMMER's Forward and Backward parsers (p7_ForwardParser, p7_BackwardParser) on the GPU, bit for bit as the host's
// striped_forward / striped_backward (plan7_posterior.hpp) compute them, for the targets that passed the filters:
// domain definition then starts from their special-state rows instead of computing both passes on the host.
//
// Exactness decides the mapping. Each SSE lane of HMMER's striped layout becomes one thread, four threads a target,
// and every lane runs the host's operations in the host's order: the same vector loop over q, the same D->D passes
// (with the same early exit, decided by the four together), shifts across lanes through shuffles, and the
// horizontal sums in HMMER's (a0 + a1) + (a2 + a3) pattern. Every arithmetic operation is written as the PTX
// instruction it must be: correctly rounded, never fused into a multiply-add, and flushing subnormal inputs and
// results to zero as HMMER's SSE code does under its flush-to-zero and denormals-are-zero mode; so the kernel is
// exact whatever flags its translation unit is compiled with.
// Scale factors come back in the rows; their logs are summed on the host (adopt_parser_specials), where the
// library's log is the one HMMER's numbers came from.
//
// Memory: two rows of cells per target (96 Q bytes) beside its 2 (L + 1) special rows (48 bytes each); targets go
// in waves that fit in the room given.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../engine/cuda_check.cuh"
#include "../engine/device_buffer.cuh"
#include "plan7_odds_layout.hpp"

namespace cudp::hmmer {

namespace device_parsers {

// The three cells of a striped vector in the scratch rows, and the special rows' numbering.
enum Cell : int { kM = 0, kD = 1, kI = 2 };
enum Special : int {
  kE = kSpecialE,
  kN = kSpecialN,
  kJ = kSpecialJ,
  kB = kSpecialB,
  kC = kSpecialC,
  kScale = kSpecialScale,
  kSpecials = kSpecialCount
};

// The odds profile as float arrays of four lanes per striped vector: match [x][q][4], transitions [q][7][4] in
// OddsTransition order, dd [q][4].
struct Tables {
  const float* match;
  const float* transitions;
  const float* dd;
  int M, Q;
};

// One target of a wave: where its residues, special rows and scratch rows lie, and its length model.
struct Task {
  std::uint64_t residues;  // offset into the wave's residues
  std::uint64_t rows;      // offset of its row 0 in the wave's special rows (in rows)
  std::uint64_t scratch;   // offset of its two rows of cells (in floats)
  std::uint32_t length;
  OddsSpecials xf;
};

// The four threads of one target. Lane r holds lane r of every striped vector.
class Quad {
 public:
  __device__ Quad() : lane_(static_cast<int>(threadIdx.x & 3u)), mask_(0xFu << (threadIdx.x & 28u)) {}
  __device__ int lane() const { return lane_; }
  // esl_sse_rightshift_ps with 0: lane r takes lane r-1's value (node k-1).
  __device__ float shift_up(float v) const {
    const float u = __shfl_up_sync(mask_, v, 1, 4);
    return lane_ == 0 ? 0.0f : u;
  }
  // The Backward's left shift: lane r takes lane r+1's value (node k+1), lane 3 takes 0.
  __device__ float shift_down(float v) const {
    const float d = __shfl_down_sync(mask_, v, 1, 4);
    return lane_ == 3 ? 0.0f : d;
  }
  // HMMER's horizontal sum, (a0 + a1) + (a2 + a3), the same on all four.
  __device__ float sum(float v) const;
  __device__ bool any(bool p) const { return __any_sync(mask_, p) != 0; }
  __device__ void sync() const { __syncwarp(mask_); }

 private:
  int lane_;
  unsigned mask_;
};

__device__ inline float add(float a, float b) {
  float c;
  asm("add.rn.ftz.f32 %0, %1, %2;" : "=f"(c) : "f"(a), "f"(b));
  return c;
}
__device__ inline float mul(float a, float b) {
  float c;
  asm("mul.rn.ftz.f32 %0, %1, %2;" : "=f"(c) : "f"(a), "f"(b));
  return c;
}
__device__ inline float divide(float a, float b) {
  float c;
  asm("div.rn.ftz.f32 %0, %1, %2;" : "=f"(c) : "f"(a), "f"(b));
  return c;
}
// (float)(1.0 / (double)x), as the host computes a row's inverse scale.
__device__ inline float inverse(float x) {
  float c;
  asm("cvt.rn.ftz.f32.f64 %0, %1;" : "=f"(c) : "d"(__ddiv_rn(1.0, static_cast<double>(x))));
  return c;
}

__device__ inline float Quad::sum(float v) const {
  const float a0 = __shfl_sync(mask_, v, 0, 4), a1 = __shfl_sync(mask_, v, 1, 4);
  const float a2 = __shfl_sync(mask_, v, 2, 4), a3 = __shfl_sync(mask_, v, 3, 4);
  return add(add(a0, a1), add(a2, a3));
}

// One row of cells in the scratch: vector q's cell c, this thread's lane.
struct Row {
  float* base;
  int lane;
  __device__ float& at(int q, int c) const { return base[(q * 3 + c) * 4 + lane]; }
};

__device__ inline void write_specials(float* row, float xE, float xN, float xJ, float xB, float xC, float scale) {
  row[kE] = xE;
  row[kN] = xN;
  row[kJ] = xJ;
  row[kB] = xB;
  row[kC] = xC;
  row[kScale] = scale;
}

__device__ inline void scale_row(const Row& row, int Q, float factor) {
  for (int q = 0; q < Q; ++q) {
    row.at(q, kM) = mul(row.at(q, kM), factor);
    row.at(q, kD) = mul(row.at(q, kD), factor);
    row.at(q, kI) = mul(row.at(q, kI), factor);
  }
}

// striped_forward(..., keep_all_rows = false), one lane.
__device__ inline void forward(const Tables& om, const Quad& g, const Task& t, const std::uint8_t* dsq, float* rows,
                               float* scratch) {
  const int Q = om.Q, r = g.lane();
  const auto tr = [&](int q, int k) { return om.transitions[(q * 7 + k) * 4 + r]; };
  const OddsSpecials& xf = t.xf;
  const int L = static_cast<int>(t.length);
  Row pp{scratch, r}, pc{scratch + Q * 12, r};
  for (int q = 0; q < Q; ++q) pp.at(q, kM) = pp.at(q, kD) = pp.at(q, kI) = 0.0f;
  float xE = 0.0f, xN = 1.0f, xJ = 0.0f, xB = xf.n_move, xC = 0.0f;
  if (r == 0) write_specials(rows, xE, xN, xJ, xB, xC, 1.0f);
  for (int i = 1; i <= L; ++i) {
    const float* rp = om.match + static_cast<std::size_t>(dsq[i - 1]) * Q * 4 + r;
    float dcv = 0.0f, xEv = 0.0f;
    float mpv = g.shift_up(pp.at(Q - 1, kM));
    float dpv = g.shift_up(pp.at(Q - 1, kD));
    float ipv = g.shift_up(pp.at(Q - 1, kI));
    for (int q = 0; q < Q; ++q) {
      float sv = mul(xB, tr(q, kOddsBM));
      sv = add(sv, mul(mpv, tr(q, kOddsMM)));
      sv = add(sv, mul(ipv, tr(q, kOddsIM)));
      sv = add(sv, mul(dpv, tr(q, kOddsDM)));
      sv = mul(sv, rp[q * 4]);
      xEv = add(xEv, sv);
      mpv = pp.at(q, kM);
      dpv = pp.at(q, kD);
      ipv = pp.at(q, kI);
      pc.at(q, kM) = sv;
      pc.at(q, kD) = dcv;
      dcv = mul(sv, tr(q, kOddsMD));
      pc.at(q, kI) = add(mul(mpv, tr(q, kOddsMI)), mul(ipv, tr(q, kOddsII)));
    }
    dcv = g.shift_up(dcv);
    pc.at(0, kD) = 0.0f;
    for (int q = 0; q < Q; ++q) {
      pc.at(q, kD) = add(dcv, pc.at(q, kD));
      dcv = mul(pc.at(q, kD), om.dd[q * 4 + r]);
    }
    for (int j = 1; j < 4; ++j) {
      dcv = g.shift_up(dcv);
      bool changed = false;
      for (int q = 0; q < Q; ++q) {
        const float sv = add(dcv, pc.at(q, kD));
        changed = changed || sv > pc.at(q, kD);
        pc.at(q, kD) = sv;
        dcv = mul(dcv, om.dd[q * 4 + r]);
      }
      // Models under 100 nodes always take all three passes.
      if (om.M >= 100 && !g.any(changed)) break;
    }
    for (int q = 0; q < Q; ++q) xEv = add(pc.at(q, kD), xEv);
    xE = g.sum(xEv);
    xN = mul(xN, xf.n_loop);
    xC = add(mul(xC, xf.c_loop), mul(xE, xf.e_move));
    xJ = add(mul(xJ, xf.j_loop), mul(xE, xf.e_loop));
    xB = add(mul(xJ, xf.j_move), mul(xN, xf.n_move));
    float scale = 1.0f;
    if (xE > 1.0e4f) {
      xN = divide(xN, xE);
      xC = divide(xC, xE);
      xJ = divide(xJ, xE);
      xB = divide(xB, xE);
      scale_row(pc, Q, inverse(xE));
      scale = xE;
      xE = 1.0f;
    }
    if (r == 0) write_specials(rows + static_cast<std::size_t>(i) * kSpecials, xE, xN, xJ, xB, xC, scale);
    const Row swap = pp;
    pp = pc;
    pc = swap;
  }
}

// finish_backward_deletes, one lane.
__device__ inline void finish_backward_deletes(const Tables& om, const Quad& g, const Row& dpc, float dcv) {
  const int Q = om.Q, r = g.lane();
  for (int j = 1; j < 4; ++j) {
    dcv = g.shift_down(dcv);
    for (int q = Q - 1; q >= 0; --q) {
      dcv = mul(dcv, om.dd[q * 4 + r]);
      dpc.at(q, kD) = add(dpc.at(q, kD), dcv);
    }
  }
  dcv = g.shift_down(dpc.at(0, kD));
  for (int q = Q - 1; q >= 0; --q) {
    dpc.at(q, kM) = add(dpc.at(q, kM), mul(dcv, om.transitions[(q * 7 + kOddsMD) * 4 + r]));
    dcv = dpc.at(q, kD);
  }
}

// striped_backward(..., keep_all_rows = false), one lane; `fwd` holds the Forward's rows. Returns whether the
// Backward switched to its own scale factors.
__device__ inline bool backward(const Tables& om, const Quad& g, const Task& t, const std::uint8_t* dsq,
                                const float* fwd, float* rows, float* scratch) {
  const int Q = om.Q, r = g.lane();
  const auto tr = [&](int q, int k) { return om.transitions[(q * 7 + k) * 4 + r]; };
  const auto match = [&](int x) { return om.match + static_cast<std::size_t>(x) * Q * 4 + r; };
  const OddsSpecials& xf = t.xf;
  const int L = static_cast<int>(t.length);
  Row dpc{scratch + (L & 1) * Q * 12, r};
  float xJ = 0.0f, xB = 0.0f, xN = 0.0f;
  float xC = xf.c_move;
  float xE = mul(xC, xf.e_move);
  for (int q = 0; q < Q; ++q) {
    dpc.at(q, kM) = dpc.at(q, kD) = xE;
    dpc.at(q, kI) = 0.0f;
  }
  float dcv = 0.0f;
  float dpv = g.shift_down(dpc.at(Q - 1, kD));
  for (int q = Q - 1; q >= 0; --q) {
    dcv = mul(dpv, om.dd[q * 4 + r]);
    dpc.at(q, kD) = add(dpc.at(q, kD), dcv);
    dpv = dpc.at(q, kD);
  }
  finish_backward_deletes(om, g, dpc, dcv);
  const float scale_L = fwd[static_cast<std::size_t>(L) * kSpecials + kScale];
  if (scale_L > 1.0f) {
    xE = divide(xE, scale_L);
    xN = divide(xN, scale_L);
    xC = divide(xC, scale_L);
    xJ = divide(xJ, scale_L);
    xB = divide(xB, scale_L);
    scale_row(dpc, Q, inverse(scale_L));
  }
  if (r == 0) write_specials(rows + static_cast<std::size_t>(L) * kSpecials, xE, xN, xJ, xB, xC, scale_L);

  bool own_scales = false;
  for (int i = L - 1; i >= 1; --i) {
    const Row dpp{scratch + ((i + 1) & 1) * Q * 12, r};
    dpc = Row{scratch + (i & 1) * Q * 12, r};
    const float* rp = match(dsq[i]);  // residue i+1
    float tmmv = g.shift_down(tr(0, kOddsMM));
    float timv = g.shift_down(tr(0, kOddsIM));
    float tdmv = g.shift_down(tr(0, kOddsDM));
    float mpv = g.shift_down(mul(dpp.at(0, kM), rp[0]));
    float xBv = 0.0f;
    for (int q = Q - 1; q >= 0; --q) {
      const float ipv = dpp.at(q, kI);
      dpc.at(q, kI) = add(mul(ipv, tr(q, kOddsII)), mul(mpv, timv));
      dpc.at(q, kD) = mul(mpv, tdmv);
      const float mcv = add(mul(ipv, tr(q, kOddsMI)), mul(mpv, tmmv));
      mpv = mul(dpp.at(q, kM), rp[q * 4]);
      dpc.at(q, kM) = mcv;
      tdmv = tr(q, kOddsDM);
      timv = tr(q, kOddsIM);
      tmmv = tr(q, kOddsMM);
      xBv = add(xBv, mul(mpv, tr(q, kOddsBM)));
    }
    xB = g.sum(xBv);
    xC = mul(xC, xf.c_loop);
    xJ = add(mul(xB, xf.j_move), mul(xJ, xf.j_loop));
    xN = add(mul(xB, xf.n_move), mul(xN, xf.n_loop));
    xE = add(mul(xC, xf.e_move), mul(xJ, xf.e_loop));
    dpv = g.shift_down(add(dpc.at(0, kD), xE));
    for (int q = Q - 1; q >= 0; --q) {
      dcv = mul(dpv, om.dd[q * 4 + r]);
      dpc.at(q, kD) = add(dpc.at(q, kD), add(dcv, xE));
      dpv = dpc.at(q, kD);
      dpc.at(q, kM) = add(dpc.at(q, kM), xE);
    }
    finish_backward_deletes(om, g, dpc, dcv);
    if (xB > 1.0e16f) own_scales = true;
    const float scale =
        own_scales ? (xB > 1.0e4f ? xB : 1.0f) : fwd[static_cast<std::size_t>(i) * kSpecials + kScale];
    if (scale > 1.0f) {
      xE = divide(xE, scale);
      xN = divide(xN, scale);
      xJ = divide(xJ, scale);
      xB = divide(xB, scale);
      xC = divide(xC, scale);
      scale_row(dpc, Q, inverse(scale));
    }
    if (r == 0) write_specials(rows + static_cast<std::size_t>(i) * kSpecials, xE, xN, xJ, xB, xC, scale);
  }
  // Row 0: only N and B.
  const Row dpp{scratch + Q * 12, r};  // row 1
  const float* rp = match(dsq[0]);
  float xBv = 0.0f;
  for (int q = 0; q < Q; ++q) xBv = add(xBv, mul(mul(dpp.at(q, kM), rp[q * 4]), tr(q, kOddsBM)));
  xB = g.sum(xBv);
  xN = add(mul(xB, xf.n_move), mul(xN, xf.n_loop));
  if (r == 0) write_specials(rows, 0.0f, xN, 0.0f, xB, 0.0f, 1.0f);
  return own_scales;
}

// Four threads a target; blockDim.x a multiple of 32. (A template only so that every translation unit that
// includes this header may have it.)
template <class Unused = void>
__global__ void parsers_kernel(Tables om, const Task* tasks, int count, const std::uint8_t* residues, float* forward,
                               float* backward, float* scratch, std::uint8_t* own_scales) {
  const std::size_t target = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 4;
  if (target >= static_cast<std::size_t>(count)) return;
  const Quad g;
  const Task t = tasks[target];
  const std::uint8_t* dsq = residues + t.residues;
  float* fwd = forward + t.rows * kSpecials;
  float* cells = scratch + t.scratch;
  device_parsers::forward(om, g, t, dsq, fwd, cells);
  g.sync();  // lane 0 wrote the Forward's scale factors that the Backward reads
  const bool own = device_parsers::backward(om, g, t, dsq, fwd, backward + t.rows * kSpecials, cells);
  if (g.lane() == 0) own_scales[target] = own ? 1 : 0;
}

}  // namespace device_parsers

// The parsers of one model over lists of targets, in waves that fit in `room_bytes` of device memory.
class DevicePlan7Parsers {
 public:
  explicit DevicePlan7Parsers(std::uint64_t room_bytes = std::uint64_t{512} << 20) : room_(room_bytes) {}

  // Uploads a model's odds tables (StripedOddsProfile::tables()); each target gets its own length model.
  void set_model(const OddsTables& om) {
    om_ = om.xf;
    M_ = om.M;
    Q_ = om.Q;
    match_.upload(om.match);
    transitions_.upload(om.transitions);
    dd_.upload(om.dd);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(0));
  }

  // The parser rows of targets[j] = (residues, length), every length >= 1, in order.
  void run(const std::vector<const std::uint8_t*>& residues, const std::vector<std::uint32_t>& lengths,
           ParserRowsBatch& out, cudaStream_t stream = cudaStreamPerThread) {
    const std::size_t n = lengths.size();
    out.first_row.assign(n, 0);
    out.backward_own_scales.assign(n, 0);
    std::uint64_t total_rows = 0;
    for (std::size_t j = 0; j < n; ++j) {
      out.first_row[j] = total_rows;
      total_rows += std::uint64_t{lengths[j]} + 1;
    }
    out.forward.assign(total_rows * kSpecialCount, 0.0f);
    out.backward.assign(total_rows * kSpecialCount, 0.0f);
    const std::uint64_t cells_bytes = std::uint64_t{96} * static_cast<std::uint64_t>(Q_);
    for (std::size_t begin = 0; begin < n;) {
      // A wave: as many targets as fit (at least one).
      std::size_t end = begin;
      std::uint64_t bytes = 0;
      while (end < n) {
        const std::uint64_t need = cells_bytes + (std::uint64_t{lengths[end]} + 1) * 2 * 24 + lengths[end] + 64;
        if (end > begin && bytes + need > room_) break;
        bytes += need;
        ++end;
      }
      run_wave(residues, lengths, begin, end, out, stream);
      begin = end;
    }
  }

 private:
  void run_wave(const std::vector<const std::uint8_t*>& residues, const std::vector<std::uint32_t>& lengths,
                std::size_t begin, std::size_t end, ParserRowsBatch& out, cudaStream_t stream) {
    using device_parsers::Task;
    std::vector<Task> tasks(end - begin);
    std::uint64_t residue_count = 0, row_count = 0, scratch_floats = 0;
    for (std::size_t j = begin; j < end; ++j) {
      Task& t = tasks[j - begin];
      t.residues = residue_count;
      t.rows = row_count;
      t.scratch = scratch_floats;
      t.length = lengths[j];
      t.xf = specials_for_length(om_, true, lengths[j]);
      residue_count += lengths[j];
      row_count += std::uint64_t{lengths[j]} + 1;
      scratch_floats += std::uint64_t{24} * static_cast<std::uint64_t>(Q_);
    }
    host_residues_.resize(residue_count);
    for (std::size_t j = begin; j < end; ++j)
      std::copy(residues[j], residues[j] + lengths[j], host_residues_.data() + tasks[j - begin].residues);
    tasks_.upload(tasks, stream);
    residues_.upload(host_residues_, stream);
    forward_.reserve(row_count * kSpecialCount);
    backward_.reserve(row_count * kSpecialCount);
    scratch_.reserve(scratch_floats);
    own_scales_.reserve(tasks.size());
    const device_parsers::Tables tables{match_.get(), transitions_.get(), dd_.get(), M_, Q_};
    constexpr int kThreads = 128;
    const auto blocks = static_cast<unsigned>((tasks.size() * 4 + kThreads - 1) / kThreads);
    device_parsers::parsers_kernel<><<<blocks, kThreads, 0, stream>>>(tables, tasks_.get(), static_cast<int>(tasks.size()),
                                                                   residues_.get(), forward_.get(), backward_.get(),
                                                                   scratch_.get(), own_scales_.get());
    CUDP_CUDA_CHECK(cudaGetLastError());
    const std::size_t first = out.first_row[begin] * kSpecialCount;
    forward_.download(out.forward.data() + first, row_count * kSpecialCount, stream);
    backward_.download(out.backward.data() + first, row_count * kSpecialCount, stream);
    own_scales_.download(out.backward_own_scales.data() + begin, tasks.size(), stream);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  std::uint64_t room_;
  OddsSpecials om_;
  int M_ = 0, Q_ = 2;
  engine::DeviceBuffer<float> match_, transitions_, dd_, forward_, backward_, scratch_;
  engine::DeviceBuffer<device_parsers::Task> tasks_;
  engine::DeviceBuffer<std::uint8_t> residues_, own_scales_;
  std::vector<std::uint8_t> host_residues_;
};

}  // namespace cudp::hmmer
