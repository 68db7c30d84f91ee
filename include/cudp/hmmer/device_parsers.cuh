#pragma once
// HMMER's Forward and Backward parsers (p7_ForwardParser, p7_BackwardParser) on the GPU, bit for bit as the host's
// striped_forward / striped_backward (plan7_posterior.hpp) compute them, for the targets that passed the filters:
// domain definition then starts from their special-state rows instead of computing both passes on the host.
//
// Exactness decides the mapping. A block takes a target, its 128 threads as the four SSE lanes of HMMER's striped
// layout times 32 runs of vectors, with the target's two rows of cells in shared memory. What HMMER computes
// vector by vector without a dependence between vectors (M and I from the previous row, the first D values, the
// scaling) the runs compute side by side; what is a chain in HMMER's order (the D->D passes with their early
// exit, the sums of E and B over the row) four threads walk in that order, one a lane. Shifts across lanes read
// the neighbouring lane's cell, and the horizontal sums keep HMMER's (a0 + a1) + (a2 + a3). Every arithmetic
// operation is written as the PTX instruction it must be: correctly rounded, never fused into a multiply-add, and
// flushing subnormal inputs and results to zero as HMMER's SSE code does in its flush-to-zero and
// denormals-are-zero mode; so the kernel is exact whatever flags its translation unit is compiled with. Scale
// factors come back in the rows; their logs are summed on the host (adopt_parser_specials), where the library's
// log is the one HMMER's numbers came from.
//
// Memory: 128 Q bytes of shared memory per target (models up to about 7000 nodes), and its 2 (L + 1) special rows
// (24 bytes each) in device memory; targets go in waves that fit in the room given. Asked to, the passes also keep
// every row's cells (48 Q bytes a row, two matrices), as the host's full-matrix passes do for an envelope.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../engine/cuda_check.cuh"
#include "../engine/device_buffer.cuh"
#include "../engine/quiet_wait.cuh"
#include "plan7_odds_layout.hpp"

namespace cudp::hmmer {

namespace device_parsers {

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
constexpr int kRuns = 32;  // runs of vectors per lane: a block is 4 lanes x 32 runs
constexpr int kThreads = 4 * kRuns;
constexpr unsigned kChainThreads = 0x0000000Fu;  // threads 0-3: the chains of lanes 0-3

// The odds profile as float arrays of four lanes per striped vector: match [x][q][4], transitions [q][7][4] in
// OddsTransition order, dd [q][4].
struct Tables {
  const float* __restrict__ match;
  const float* __restrict__ transitions;
  const float* dd;
  int M, Q;
  __device__ float transition(int q, int t, int r) const { return __ldg(transitions + (q * 7 + t) * 4 + r); }
  __device__ float delete_delete(int q, int r) const { return dd[q * 4 + r]; }  // dd: the block's shared copy
  __device__ const float* match_of(int x) const { return match + static_cast<std::size_t>(x) * Q * 4; }
};

// One target of a wave: where its residues and special rows lie, and its length model.
struct Task {
  std::uint64_t residues;  // offset into the wave's residues
  std::uint64_t rows;      // offset of its row 0 in the wave's special rows (in rows)
  std::uint64_t cells;     // offset of its row 0 in the wave's cell matrices (in floats), when they are kept
  std::uint32_t length;
  OddsSpecials xf;
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

// A row of cells in shared memory: vector q's cell c of lane r.
struct Row {
  float* base;
  __device__ float& at(int q, int c, int r) const { return base[(q * 3 + c) * 4 + r]; }
};

// Where this thread stands in its block: lane r of the striped vectors, run of vectors [first, last).
struct Place {
  int thread, r, first, last;
  __device__ Place(int Q) : thread(static_cast<int>(threadIdx.x)), r(thread & 3) {
    const int per_run = (Q + kRuns - 1) / kRuns;
    first = min(Q, (thread >> 2) * per_run);
    last = min(Q, first + per_run);
  }
  __device__ bool chain() const { return thread < 4; }
  // In the second warp, so that a row's first sum runs beside the chains rather than after them.
  __device__ bool sums() const { return thread >= 32 && thread < 36; }
};

// The block's shared memory besides the two rows: per lane scratch for one value of each vector, and four floats
// through which the lanes' sums meet.
struct Scratch {
  float* per_vector;  // [q][4]
  float* lanes;       // [4]
};

// HMMER's horizontal sum of the four lanes' values v held by the `holder` threads, on every thread of the block.
__device__ inline float sum_lanes(float v, bool holder, int r, const Scratch& s) {
  if (holder) s.lanes[r] = v;
  __syncthreads();
  return add(add(s.lanes[0], s.lanes[1]), add(s.lanes[2], s.lanes[3]));
}

// A chain along one lane's D cells, in HMMER's order (vector 0 up, or Q-1 down): step(d, dd) on each cell with
// its D->D transition, one after the other, until a step returns false (that cell and the rest left as they are).
// The cells go through registers eight at a time, the next eight loaded while this eight's steps run, so that the
// chain waits on arithmetic rather than on memory.
template <bool kDown, class Step>
__device__ inline void walk_deletes(const Tables& om, const Row& row, int r, Step step) {
  constexpr int kBlock = 8;
  const int Q = om.Q;
  float d[kBlock], w[kBlock], next_d[kBlock], next_w[kBlock];
  const auto load = [&](int b, float* cells, float* weights) {
#pragma unroll
    for (int k = 0; k < kBlock; ++k) {
      if (b + k >= Q) break;
      const int q = kDown ? Q - 1 - (b + k) : b + k;
      cells[k] = row.at(q, kD, r);
      weights[k] = om.delete_delete(q, r);
    }
  };
  load(0, d, w);
  for (int b = 0; b < Q; b += kBlock) {
    if (b + kBlock < Q) load(b + kBlock, next_d, next_w);
    bool going = true;
#pragma unroll
    for (int k = 0; k < kBlock; ++k) {
      if (b + k >= Q || !(going = step(d[k], w[k]))) break;
      row.at(kDown ? Q - 1 - (b + k) : b + k, kD, r) = d[k];
    }
    if (!going) return;
#pragma unroll
    for (int k = 0; k < kBlock; ++k) {
      d[k] = next_d[k];
      w[k] = next_w[k];
    }
  }
}

__device__ inline void write_specials(float* row, float xE, float xN, float xJ, float xB, float xC, float scale) {
  row[kE] = xE;
  row[kN] = xN;
  row[kJ] = xJ;
  row[kB] = xB;
  row[kC] = xC;
  row[kScale] = scale;
}

// Finished row i of cells copied to row i of `matrix` (Q vectors of M, D, I cells of 4 lanes a row), by the whole
// block, when the passes keep their matrices (`matrix` not null).
__device__ inline void keep_row(const Row& row, int Q, float* matrix, int i) {
  if (matrix == nullptr) return;
  float* to = matrix + static_cast<std::size_t>(i) * Q * 12;
  for (int f = static_cast<int>(threadIdx.x); f < Q * 12; f += kThreads) to[f] = row.base[f];
}

// HMMER's rescaling of a row by `scale`: N, J, B and C divided by it, the cells multiplied by its inverse (E is
// the caller's: the Forward sets it to 1, the Backward divides it too).
__device__ inline void rescale_row(float scale, float& xN, float& xJ, float& xB, float& xC, const Row& row,
                                   const Place& p) {
  xN = divide(xN, scale);
  xJ = divide(xJ, scale);
  xB = divide(xB, scale);
  xC = divide(xC, scale);
  const float factor = inverse(scale);
  for (int q = p.first; q < p.last; ++q) {
    row.at(q, kM, p.r) = mul(row.at(q, kM, p.r), factor);
    row.at(q, kD, p.r) = mul(row.at(q, kD, p.r), factor);
    row.at(q, kI, p.r) = mul(row.at(q, kI, p.r), factor);
  }
}

// Whether the host has called the batch off (`cancel`: page-locked host memory, read every 32 rows), the same
// answer on every thread of the block. The caller then drops whatever the kernel wrote.
__device__ inline bool called_off(const volatile int* cancel, int i) {
  __shared__ int stop;
  if (cancel == nullptr || (i & 31) != 0) return false;
  if (threadIdx.x == 0) stop = *cancel;
  __syncthreads();
  const bool off = stop != 0;
  __syncthreads();  // read by every thread before thread 0 may write it again
  return off;
}

// striped_forward(..., keep_all_rows = false) of one target by one block; `cells` holds two rows.
// With `matrix`, every row's cells are kept there too (striped_forward(..., keep_all_rows = true)).
// Returns false where the batch was called off (`cancel`).
__device__ inline bool forward(const Tables& om, const Task& t, const std::uint8_t* dsq, float* rows, float* cells,
                               const Scratch& scratch, float* matrix, const volatile int* cancel) {
  const int Q = om.Q;
  const Place p(Q);
  const int r = p.r;
  const OddsSpecials& xf = t.xf;
  const int L = static_cast<int>(t.length);
  Row pp{cells}, pc{cells + Q * 12};
  for (int q = p.first; q < p.last; ++q) pp.at(q, kM, r) = pp.at(q, kD, r) = pp.at(q, kI, r) = 0.0f;
  float xE = 0.0f, xN = 1.0f, xJ = 0.0f, xB = xf.n_move, xC = 0.0f;
  if (p.thread == 0) write_specials(rows, xE, xN, xJ, xB, xC, 1.0f);
  __syncthreads();
  keep_row(pp, Q, matrix, 0);
  for (int i = 1; i <= L; ++i) {
    if (called_off(cancel, i)) return false;
    const float* rp = om.match_of(dsq[i - 1]);
    // M and I of every vector from the previous row; vector 0 takes lane r-1's last vector (nothing in lane 0).
    if (p.first < p.last) {
      float mpv, dpv, ipv;
      if (p.first == 0) {
        mpv = r == 0 ? 0.0f : pp.at(Q - 1, kM, r - 1);
        dpv = r == 0 ? 0.0f : pp.at(Q - 1, kD, r - 1);
        ipv = r == 0 ? 0.0f : pp.at(Q - 1, kI, r - 1);
      } else {
        mpv = pp.at(p.first - 1, kM, r);
        dpv = pp.at(p.first - 1, kD, r);
        ipv = pp.at(p.first - 1, kI, r);
      }
#pragma unroll 4
      for (int q = p.first; q < p.last; ++q) {
        float sv = mul(xB, om.transition(q, kOddsBM, r));
        sv = add(sv, mul(mpv, om.transition(q, kOddsMM, r)));
        sv = add(sv, mul(ipv, om.transition(q, kOddsIM, r)));
        sv = add(sv, mul(dpv, om.transition(q, kOddsDM, r)));
        sv = mul(sv, __ldg(rp + q * 4 + r));
        mpv = pp.at(q, kM, r);
        dpv = pp.at(q, kD, r);
        ipv = pp.at(q, kI, r);
        pc.at(q, kM, r) = sv;
        pc.at(q, kI, r) = add(mul(mpv, om.transition(q, kOddsMI, r)), mul(ipv, om.transition(q, kOddsII, r)));
      }
    }
    __syncthreads();
    // D from M->D of the vector before; vector 0's comes in the first D->D pass below.
    for (int q = max(p.first, 1); q < p.last; ++q)
      pc.at(q, kD, r) = mul(pc.at(q - 1, kM, r), om.transition(q - 1, kOddsMD, r));
    __syncthreads();
    float xEv = 0.0f;
    if (p.chain()) {
      // The D->D passes, in HMMER's order: one along the lane, then up to three more carrying across lanes.
      float dcv = r == 0 ? 0.0f : mul(pc.at(Q - 1, kM, r - 1), om.transition(Q - 1, kOddsMD, r - 1));
      pc.at(0, kD, r) = 0.0f;
      walk_deletes<false>(om, pc, r, [&](float& d, float dd) {
        d = add(dcv, d);
        dcv = mul(d, dd);
        return true;
      });
      for (int j = 1; j < 4; ++j) {
        const float carried = __shfl_up_sync(kChainThreads, dcv, 1, 4);
        dcv = r == 0 ? 0.0f : carried;
        bool changed = false;
        // Once the carried value is 0 it adds nothing and stays 0: HMMER's pass would leave the rest as it is.
        walk_deletes<false>(om, pc, r, [&](float& d, float dd) {
          if (dcv == 0.0f) return false;
          const float sv = add(dcv, d);
          changed = changed || sv > d;
          d = sv;
          dcv = mul(dcv, dd);
          return true;
        });
        // Models under 100 nodes always take all three passes.
        if (om.M >= 100 && !__any_sync(kChainThreads, changed)) break;
      }
    } else if (p.sums()) {
#pragma unroll 8
      for (int q = 0; q < Q; ++q) xEv = add(xEv, pc.at(q, kM, r));  // E from M, while the chains run
    }
    __syncthreads();
    if (p.sums()) {
#pragma unroll 8
      for (int q = 0; q < Q; ++q) xEv = add(pc.at(q, kD, r), xEv);
    }
    xE = sum_lanes(xEv, p.sums(), r, scratch);
    xN = mul(xN, xf.n_loop);
    xC = add(mul(xC, xf.c_loop), mul(xE, xf.e_move));
    xJ = add(mul(xJ, xf.j_loop), mul(xE, xf.e_loop));
    xB = add(mul(xJ, xf.j_move), mul(xN, xf.n_move));
    float scale = 1.0f;
    if (xE > 1.0e4f) {
      rescale_row(xE, xN, xJ, xB, xC, pc, p);
      scale = xE;
      xE = 1.0f;
    }
    if (p.thread == 0) write_specials(rows + static_cast<std::size_t>(i) * kSpecials, xE, xN, xJ, xB, xC, scale);
    const Row done = pp;
    pp = pc;
    pc = done;
    __syncthreads();
    // Only read from here on: the next row writes the other buffer.
    keep_row(pp, Q, matrix, i);
  }
  return true;
}

// The D->D chains of a Backward row extended three more times across the lanes (finish_backward_deletes' first
// part), on the chain threads; dcv is the first pass's last value.
__device__ inline void extend_backward_deletes(const Tables& om, const Row& dpc, int r, float dcv) {
  for (int j = 1; j < 4; ++j) {
    const float carried = __shfl_down_sync(kChainThreads, dcv, 1, 4);
    dcv = r == 3 ? 0.0f : carried;
    // Once the carried value is 0 it adds nothing and stays 0: HMMER's pass would leave the rest as it is.
    walk_deletes<true>(om, dpc, r, [&](float& d, float dd) {
      if (dcv == 0.0f) return false;
      dcv = mul(dcv, dd);
      d = add(d, dcv);
      return true;
    });
  }
}

// finish_backward_deletes' second part, on every thread once the chains are done: M picks up M->D into the D of
// the next node (vector Q-1 from lane r+1's vector 0).
__device__ inline void add_backward_match_deletes(const Tables& om, const Row& dpc, const Place& p) {
  const int Q = om.Q, r = p.r;
  for (int q = p.first; q < p.last; ++q) {
    const float next = q + 1 < Q ? dpc.at(q + 1, kD, r) : (r == 3 ? 0.0f : dpc.at(0, kD, r + 1));
    dpc.at(q, kM, r) = add(dpc.at(q, kM, r), mul(next, om.transition(q, kOddsMD, r)));
  }
}

// striped_backward(..., keep_all_rows = false) of one target by one block; `fwd` holds the Forward's rows. Returns
// whether the Backward switched to its own scale factors.
// With `matrix`, rows 1..L of cells are kept there too (striped_backward(..., keep_all_rows = true)).
__device__ inline bool backward(const Tables& om, const Task& t, const std::uint8_t* dsq, const float* fwd,
                                float* rows, float* cells, const Scratch& scratch, float* matrix,
                                const volatile int* cancel) {
  const int Q = om.Q;
  const Place p(Q);
  const int r = p.r;
  const OddsSpecials& xf = t.xf;
  const int L = static_cast<int>(t.length);
  const auto row = [&](int i) { return Row{cells + (i & 1) * Q * 12}; };
  Row dpc = row(L);
  float xJ = 0.0f, xB = 0.0f, xN = 0.0f;
  float xC = xf.c_move;
  float xE = mul(xC, xf.e_move);
  for (int q = p.first; q < p.last; ++q) {
    dpc.at(q, kM, r) = dpc.at(q, kD, r) = xE;
    dpc.at(q, kI, r) = 0.0f;
  }
  __syncthreads();
  if (p.chain()) {
    float dpv = r == 3 ? 0.0f : dpc.at(Q - 1, kD, r + 1), dcv = 0.0f;
    walk_deletes<true>(om, dpc, r, [&](float& d, float dd) {
      dcv = mul(dpv, dd);
      d = add(d, dcv);
      dpv = d;
      return true;
    });
    extend_backward_deletes(om, dpc, r, dcv);
  }
  __syncthreads();
  add_backward_match_deletes(om, dpc, p);
  __syncthreads();  // every D read before the scaling below
  const float scale_L = fwd[static_cast<std::size_t>(L) * kSpecials + kScale];
  if (scale_L > 1.0f) {
    xE = divide(xE, scale_L);
    rescale_row(scale_L, xN, xJ, xB, xC, dpc, p);
  }
  if (p.thread == 0) write_specials(rows + static_cast<std::size_t>(L) * kSpecials, xE, xN, xJ, xB, xC, scale_L);
  __syncthreads();
  // A row's buffer is written again two rows on, with synchronisations in between: the copies are done by then.
  keep_row(row(L), Q, matrix, L);

  bool own_scales = false;
  for (int i = L - 1; i >= 1; --i) {
    if (called_off(cancel, i)) return false;
    const Row dpp = row(i + 1);
    dpc = row(i);
    const float* rp = om.match_of(dsq[i]);  // residue i+1
    // Every vector from the next row: M(q+1) with its emission, and the transitions into node k+1 (vector Q-1
    // takes lane r+1's vector 0, nothing in lane 3).
#pragma unroll 4
    for (int q = p.first; q < p.last; ++q) {
      float mpv, tmmv, timv, tdmv;
      if (q + 1 < Q) {
        mpv = mul(dpp.at(q + 1, kM, r), __ldg(rp + (q + 1) * 4 + r));
        tmmv = om.transition(q + 1, kOddsMM, r);
        timv = om.transition(q + 1, kOddsIM, r);
        tdmv = om.transition(q + 1, kOddsDM, r);
      } else if (r < 3) {
        mpv = mul(dpp.at(0, kM, r + 1), __ldg(rp + r + 1));
        tmmv = om.transition(0, kOddsMM, r + 1);
        timv = om.transition(0, kOddsIM, r + 1);
        tdmv = om.transition(0, kOddsDM, r + 1);
      } else {
        mpv = tmmv = timv = tdmv = 0.0f;
      }
      const float ipv = dpp.at(q, kI, r);
      dpc.at(q, kI, r) = add(mul(ipv, om.transition(q, kOddsII, r)), mul(mpv, timv));
      dpc.at(q, kD, r) = mul(mpv, tdmv);
      dpc.at(q, kM, r) = add(mul(ipv, om.transition(q, kOddsMI, r)), mul(mpv, tmmv));
      // M->B terms, summed below
      scratch.per_vector[q * 4 + r] = mul(mul(dpp.at(q, kM, r), __ldg(rp + q * 4 + r)), om.transition(q, kOddsBM, r));
    }
    __syncthreads();
    // B from every M of the next row, summed from the last vector down as HMMER does.
    float xBv = 0.0f;
    if (p.sums()) {
#pragma unroll 8
      for (int q = Q - 1; q >= 0; --q) xBv = add(xBv, scratch.per_vector[q * 4 + r]);
    }
    xB = sum_lanes(xBv, p.sums(), r, scratch);
    xC = mul(xC, xf.c_loop);
    xJ = add(mul(xB, xf.j_move), mul(xJ, xf.j_loop));
    xN = add(mul(xB, xf.n_move), mul(xN, xf.n_loop));
    xE = add(mul(xC, xf.e_move), mul(xJ, xf.e_loop));
    // {M,D}->E and the D->D chains on the chain threads; M->E on every thread meanwhile (M alone).
    if (p.chain()) {
      const float d0 = r == 3 ? 0.0f : add(dpc.at(0, kD, r + 1), xE);
      float dpv = d0, dcv = 0.0f;
      walk_deletes<true>(om, dpc, r, [&](float& d, float dd) {
        dcv = mul(dpv, dd);
        d = add(d, add(dcv, xE));
        dpv = d;
        return true;
      });
      extend_backward_deletes(om, dpc, r, dcv);
    }
    for (int q = p.first; q < p.last; ++q) dpc.at(q, kM, r) = add(dpc.at(q, kM, r), xE);
    __syncthreads();
    add_backward_match_deletes(om, dpc, p);
    __syncthreads();  // every D read before the scaling below
    // In rare cases the Forward's factors cannot contain the Backward values; HMMER then switches to its own.
    if (xB > 1.0e16f) own_scales = true;
    const float scale =
        own_scales ? (xB > 1.0e4f ? xB : 1.0f) : fwd[static_cast<std::size_t>(i) * kSpecials + kScale];
    if (scale > 1.0f) {
      xE = divide(xE, scale);
      rescale_row(scale, xN, xJ, xB, xC, dpc, p);
    }
    if (p.thread == 0) write_specials(rows + static_cast<std::size_t>(i) * kSpecials, xE, xN, xJ, xB, xC, scale);
    __syncthreads();
    keep_row(row(i), Q, matrix, i);
  }
  // Row 0: only N and B.
  const Row dpp = row(1);
  const float* rp = om.match_of(dsq[0]);
  for (int q = p.first; q < p.last; ++q)
    scratch.per_vector[q * 4 + r] = mul(mul(dpp.at(q, kM, r), __ldg(rp + q * 4 + r)), om.transition(q, kOddsBM, r));
  __syncthreads();
  float xBv = 0.0f;
  if (p.sums()) {
#pragma unroll 8
    for (int q = 0; q < Q; ++q) xBv = add(xBv, scratch.per_vector[q * 4 + r]);
  }
  xB = sum_lanes(xBv, p.sums(), r, scratch);
  xN = add(mul(xB, xf.n_move), mul(xN, xf.n_loop));
  if (p.thread == 0) write_specials(rows, 0.0f, xN, 0.0f, xB, 0.0f, 1.0f);
  return own_scales;
}

// One block of kThreads a target, with 128 Q + 16 bytes of dynamic shared memory: two rows of cells, the D->D
// transitions, a value per vector, the lanes' sums. (A template only so that every translation unit that includes
// this header may have it.)
template <class Unused = void>
__global__ void __launch_bounds__(kThreads) parsers_kernel(Tables om, const Task* tasks, const std::uint8_t* residues,
                                                            float* forward, float* backward,
                                                            std::uint8_t* own_scales, float* forward_cells,
                                                            float* backward_cells, const volatile int* cancel) {
  extern __shared__ float shared[];
  const int Q = om.Q;
  float* cells = shared;
  float* dd = cells + Q * 24;
  const Scratch scratch{dd + Q * 4, dd + Q * 8};
  for (int i = static_cast<int>(threadIdx.x); i < Q * 4; i += kThreads) dd[i] = __ldg(om.dd + i);
  om.dd = dd;
  __syncthreads();
  const Task t = tasks[blockIdx.x];
  const std::uint8_t* dsq = residues + t.residues;
  float* fwd = forward + t.rows * kSpecials;
  const bool keep = forward_cells != nullptr;
  if (!device_parsers::forward(om, t, dsq, fwd, cells, scratch, keep ? forward_cells + t.cells : nullptr, cancel))
    return;
  __syncthreads();  // thread 0 wrote the Forward's scale factors that the Backward reads
  const bool own = device_parsers::backward(om, t, dsq, fwd, backward + t.rows * kSpecials, cells, scratch,
                                            keep ? backward_cells + t.cells : nullptr, cancel);
  if (threadIdx.x == 0) own_scales[blockIdx.x] = own ? 1 : 0;
}

}  // namespace device_parsers

// The parsers of one model over lists of targets, in waves whose rows fit in `room_bytes` of device memory.
class DevicePlan7Parsers {
 public:
  explicit DevicePlan7Parsers(std::uint64_t room_bytes = std::uint64_t{512} << 20) : room_(room_bytes) {}

  // Uploads a model's odds tables (StripedOddsProfile::tables()); each target gets its own length model.
  void set_model(const OddsTables& om) {
    om_ = om.xf;
    M_ = om.M;
    Q_ = om.Q;
    // On the calling thread's stream, in its order: the legacy stream, and growth by cudaFree, would wait for the
    // other threads' kernels (the next model's MSV filter).
    match_.upload_in_order(om.match, cudaStreamPerThread);
    transitions_.upload_in_order(om.transitions, cudaStreamPerThread);
    dd_.upload_in_order(om.dd, cudaStreamPerThread);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  }

  // Whether the model's rows fit in one block's shared memory (models up to about 7000 nodes on Hopper).
  bool fits() const { return shared_bytes() <= static_cast<std::uint64_t>(dynamic_shared_room()); }

  int M() const { return M_; }
  int Q() const { return Q_; }
  const OddsSpecials& multihit_specials() const { return om_; }
  device_parsers::Tables tables() const { return {match_.get(), transitions_.get(), dd_.get(), M_, Q_}; }

  // The kernel over `count` prepared tasks whose buffers are the caller's (a caller that keeps the cells on the
  // device for a pass of its own after this one, as DeviceEnvelopeRescorer does).
  void launch(const device_parsers::Task* tasks, unsigned count, const std::uint8_t* residues, float* forward_rows,
              float* backward_rows, std::uint8_t* own_scales, float* forward_cells, float* backward_cells,
              cudaStream_t stream, const volatile int* cancel = nullptr) const {
    allow_shared_room();
    device_parsers::parsers_kernel<><<<count, device_parsers::kThreads, shared_bytes(), stream>>>(
        tables(), tasks, residues, forward_rows, backward_rows, own_scales, forward_cells, backward_cells, cancel);
    CUDP_CUDA_CHECK(cudaGetLastError());
  }

  // How many targets of the model the device runs at once (blocks resident on all its multiprocessors): a list
  // of up to that many takes about the time of its longest target, one block's serial chains, so callers that
  // share targets with the host hand the device lists of this size.
  unsigned targets_at_once() const {
    if (!fits()) return 0;
    allow_shared_room();
    int device = 0, processors = 0, blocks = 0;
    CUDP_CUDA_CHECK(cudaGetDevice(&device));
    CUDP_CUDA_CHECK(cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device));
    CUDP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, device_parsers::parsers_kernel<>,
                                                                  device_parsers::kThreads, shared_bytes()));
    return static_cast<unsigned>(std::max(1, blocks * processors));
  }

  static int most_shared_bytes() {
    int device = 0, most = 0;
    CUDP_CUDA_CHECK(cudaGetDevice(&device));
    CUDP_CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return most;
  }
  // The dynamic shared memory the kernel may have: the device's opt-in size less the kernel's own static part.
  static int dynamic_shared_room() {
    cudaFuncAttributes attributes{};
    CUDP_CUDA_CHECK(cudaFuncGetAttributes(&attributes, device_parsers::parsers_kernel<>));
    return most_shared_bytes() - static_cast<int>(attributes.sharedSizeBytes);
  }

  // The parser rows of targets[j] = (residues, length), every length >= 1, in order. Needs fits(). With `cells`,
  // also every row's cells of both passes (full matrices). With `length_models`, target j's special transitions
  // are length_models[j] (an envelope is rescored in unihit mode for its whole target's length); otherwise
  // multihit for its own length. With `cancel` (page-locked host memory the kernel can read), another thread may
  // call the batch off by setting it: the kernel's blocks stop within 32 rows, and `out` is then meaningless.
  void run(const std::vector<const std::uint8_t*>& residues, const std::vector<std::uint32_t>& lengths,
           ParserRowsBatch& out, cudaStream_t stream = cudaStreamPerThread, ParserCellsBatch* cells = nullptr,
           const std::vector<OddsSpecials>* length_models = nullptr, const volatile int* cancel = nullptr) {
    if (!fits()) throw std::length_error("DevicePlan7Parsers: the model's rows do not fit in shared memory");
    const std::size_t n = lengths.size();
    out.first_row.assign(n, 0);
    out.backward_own_scales.assign(n, 0);
    std::uint64_t total_rows = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (lengths[j] == 0) throw std::invalid_argument("DevicePlan7Parsers: a target of length 0");
      out.first_row[j] = total_rows;
      total_rows += std::uint64_t{lengths[j]} + 1;
    }
    out.forward.assign(total_rows * kSpecialCount, 0.0f);
    out.backward.assign(total_rows * kSpecialCount, 0.0f);
    const std::uint64_t row_floats = std::uint64_t{12} * static_cast<std::uint64_t>(Q_);
    if (cells != nullptr) {
      cells->Q = Q_;
      cells->first_float.resize(n);
      for (std::size_t j = 0; j < n; ++j) cells->first_float[j] = out.first_row[j] * row_floats;
      cells->forward.assign(total_rows * row_floats, 0.0f);
      cells->backward.assign(total_rows * row_floats, 0.0f);
    }
    for (std::size_t begin = 0; begin < n;) {
      // A wave: as many targets as fit (at least one).
      std::size_t end = begin;
      std::uint64_t bytes = 0;
      while (end < n) {
        const std::uint64_t rows = std::uint64_t{lengths[end]} + 1;
        const std::uint64_t need = rows * 2 * kSpecialCount * 4 + lengths[end] + 64 +
                                   (cells != nullptr ? kept_cells_bytes(Q_, lengths[end]) : 0);
        if (end > begin && bytes + need > room_) break;
        bytes += need;
        ++end;
      }
      if (cancel != nullptr && *cancel != 0) return;
      run_wave(residues, lengths, begin, end, out, stream, cells, length_models, cancel);
      begin = end;
    }
  }

 private:
  std::uint64_t shared_bytes() const { return std::uint64_t{128} * static_cast<std::uint64_t>(Q_) + 16; }

  // The kernel's limit is the device's whole opt-in size, the same for every model: other threads launch it for
  // their own models at the same time, and a limit set per model would race with their launches.
  static void allow_shared_room() {
    CUDP_CUDA_CHECK(cudaFuncSetAttribute(device_parsers::parsers_kernel<>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic_shared_room()));
  }

  void run_wave(const std::vector<const std::uint8_t*>& residues, const std::vector<std::uint32_t>& lengths,
                std::size_t begin, std::size_t end, ParserRowsBatch& out, cudaStream_t stream,
                ParserCellsBatch* cells, const std::vector<OddsSpecials>* length_models, const volatile int* cancel) {
    using device_parsers::Task;
    std::vector<Task> tasks(end - begin);
    std::uint64_t residue_count = 0, row_count = 0;
    for (std::size_t j = begin; j < end; ++j) {
      Task& t = tasks[j - begin];
      t.residues = residue_count;
      t.rows = row_count;
      t.cells = row_count * 12 * static_cast<std::uint64_t>(Q_);
      t.length = lengths[j];
      t.xf = length_models != nullptr ? (*length_models)[j] : specials_for_length(om_, true, lengths[j]);
      residue_count += lengths[j];
      row_count += std::uint64_t{lengths[j]} + 1;
    }
    host_residues_.resize(residue_count);
    for (std::size_t j = begin; j < end; ++j)
      std::copy(residues[j], residues[j] + lengths[j], host_residues_.data() + tasks[j - begin].residues);
    tasks_.upload_in_order(tasks, stream);
    residues_.upload_in_order(host_residues_, stream);
    forward_.reserve(row_count * kSpecialCount, stream);
    backward_.reserve(row_count * kSpecialCount, stream);
    own_scales_.reserve(tasks.size(), stream);
    const std::uint64_t cell_count = row_count * 12 * static_cast<std::uint64_t>(Q_);
    if (cells != nullptr) {
      forward_cells_.reserve(cell_count, stream);
      backward_cells_.reserve(cell_count, stream);
    }
    launch(tasks_.get(), static_cast<unsigned>(tasks.size()), residues_.get(), forward_.get(), backward_.get(),
           own_scales_.get(), cells != nullptr ? forward_cells_.get() : nullptr,
           cells != nullptr ? backward_cells_.get() : nullptr, stream, cancel);
    // The kernel runs beside the host's workers: wait asleep. A wave called off is no one's: its rows (48 bytes
    // a residue, copied to pageable memory) are not worth the copy, which the caller calling it off would wait for.
    engine::wait_quietly(stream);
    if (cancel != nullptr && *cancel != 0) return;
    const std::size_t first = out.first_row[begin] * kSpecialCount;
    forward_.download(out.forward.data() + first, row_count * kSpecialCount, stream);
    backward_.download(out.backward.data() + first, row_count * kSpecialCount, stream);
    own_scales_.download(out.backward_own_scales.data() + begin, tasks.size(), stream);
    if (cells != nullptr) {
      forward_cells_.download(cells->forward.data() + cells->first_float[begin], cell_count, stream);
      backward_cells_.download(cells->backward.data() + cells->first_float[begin], cell_count, stream);
    }
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  std::uint64_t room_;
  OddsSpecials om_;
  int M_ = 0, Q_ = 2;
  engine::DeviceBuffer<float> match_, transitions_, dd_, forward_, backward_, forward_cells_, backward_cells_;
  engine::DeviceBuffer<device_parsers::Task> tasks_;
  engine::DeviceBuffer<std::uint8_t> residues_, own_scales_;
  std::vector<std::uint8_t> host_residues_;
};

}  // namespace cudp::hmmer
