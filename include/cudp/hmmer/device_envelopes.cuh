#pragma once
// HMMER's rescoring of an envelope alone (rescore_isolated_domain) on the GPU, for a batch of envelopes: the
// Forward and Backward passes keeping every row (device_parsers.cuh), then the posterior sweep of
// plan7_envelope.hpp (decoding, the sums of null2 by expectation, optimal accuracy) and the optimal-accuracy
// traceback, bit for bit as the host computes them. Only small things come back: each envelope's Forward special
// rows (its score is a sum of logs, taken on the host with the library's log), the null2 sums, the traceback's
// coordinates and, when asked, its columns.
//
// Why this order of work is exact. Decoding multiplies each cell by its row's factor: elementwise. Null2's sums
// run down the rows, each cell its own sum, in row order as HMMER adds them. Optimal accuracy takes maxima and
// adds one posterior per cell; the maxima are exact in any order, so its D->D passes (HMMER's one pass along each
// lane and three more across lanes, which together close every chain of deletes) become one segmented max-scan in
// node order across the block, and E one block maximum. Every operation is the PTX instruction the host's SSE code
// performs (device_parsers.cuh's add and mul), never a fused multiply-add.
//
// Memory: the two full matrices of the passes (48 Q bytes a row each) stay on the device; the sweep writes the
// optimal-accuracy rows over the Forward's and the posteriors over the Backward's, which is what the traceback
// reads. A block's shared memory holds two optimal-accuracy rows and the null2 sums: 128 Q bytes, as the passes.
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../engine/quiet_wait.cuh"
#include "device_parsers.cuh"

namespace cudp::hmmer {

namespace device_envelopes {

using device_parsers::add;
using device_parsers::kD;
using device_parsers::kI;
using device_parsers::kM;
using device_parsers::kSpecials;
using device_parsers::mul;
using device_parsers::Tables;

constexpr int kThreads = 256;

// One envelope of a wave: where its passes' rows and cells lie, and where its results go.
struct Sweep {
  const float* forward_rows;   // the Forward's special rows 0..L
  const float* backward_rows;  // the Backward's
  float* forward_cells;        // in: the Forward's cells; out: the optimal-accuracy cells
  float* backward_cells;       // in: the Backward's cells; out: posterior M and I (D left as it was)
  float* decoding;             // scratch, 4 (L + 1) floats: a row's factor and posterior N, J, C
  float* oa_rows;              // scratch, (L + 1) kSpecials floats: the optimal-accuracy special rows
  float* usage;                // out, 8 Q + 3 floats, when null2 is asked for
  EnvelopeColumn* columns;     // out, L + M + 1 columns (traceback order: last first), when asked for
  std::int32_t* result;        // out: sq_from, sq_to, hmm_from, hmm_to, ok, decoded, column count
  float* expected_correct;     // out
  std::uint32_t length;
  OddsSpecials xf;
  bool own_scales;             // the Backward switched to its own scale factors
};

__device__ inline float negative_infinity() { return __int_as_float(static_cast<int>(0xff800000u)); }
__device__ inline float larger(float a, float b) { return a > b ? a : b; }  // _mm_max_ps(a, b)
// HMMER's and-with-compare mask in its optimal-accuracy recursion: v where the transition is possible, else 0.
__device__ inline float gate(float t, float v) { return t > 0.0f ? v : 0.0f; }

// Node k's place in the striped layout: vector q, lane r.
struct Node {
  int q, r;
  __device__ Node(int k, int Q) : q((k - 1) % Q), r((k - 1) / Q) {}
  __device__ int cell(int c) const { return (q * 3 + c) * 4 + r; }
};

// f(x) = keeps ? max(a, x) : a: what the D->D recurrence D[k] = max(D0[k], gate(dd[k-1], D[k-1])) does to the D
// value that comes in, composed over runs of nodes. Exact: maxima only.
struct DeleteRun {
  float a;
  bool keeps;
};
struct ThenRun {
  __device__ DeleteRun operator()(const DeleteRun& first, const DeleteRun& then) const {
    if (!then.keeps) return then;
    return {larger(first.a, then.a), first.keeps};
  }
};
struct Larger {
  __device__ float operator()(float a, float b) const { return larger(a, b); }
};

// decoding_rows on one thread: each row's factor and posterior N, J and C; returns false where HMMER's p7_Decoding
// returns eslERANGE. Also null2's sums of N, C and J.
__device__ inline bool decoding_rows(const Sweep& s, float* totals) {
  const int L = static_cast<int>(s.length);
  const float* fwd = s.forward_rows;
  const float* bck = s.backward_rows;
  const auto f = [&](int i, int x) { return fwd[i * kSpecials + x]; };
  const auto b = [&](int i, int x) { return bck[i * kSpecials + x]; };
  float scaleproduct = device_parsers::inverse(b(0, device_parsers::kN));
  float xN = 0.0f, xC = 0.0f, xJ = 0.0f;
  for (int i = 1; i <= L; ++i) {
    float* d = s.decoding + i * 4;
    d[0] = mul(scaleproduct, f(i, device_parsers::kScale));
    const float n = mul(mul(mul(f(i - 1, device_parsers::kN), b(i, device_parsers::kN)), s.xf.n_loop), scaleproduct);
    const float j = mul(mul(mul(f(i - 1, device_parsers::kJ), b(i, device_parsers::kJ)), s.xf.j_loop), scaleproduct);
    const float c = mul(mul(mul(f(i - 1, device_parsers::kC), b(i, device_parsers::kC)), s.xf.c_loop), scaleproduct);
    d[1] = n;
    d[2] = j;
    d[3] = c;
    if (i == 1) {
      xN = n;
      xC = c;
      xJ = j;
    } else {
      xN = add(xN, n);
      xC = add(xC, c);
      xJ = add(xJ, j);
    }
    if (s.own_scales)
      scaleproduct = mul(scaleproduct, device_parsers::divide(f(i, device_parsers::kScale), b(i, device_parsers::kScale)));
  }
  totals[0] = xN;
  totals[1] = xC;
  totals[2] = xJ;
  return !isinf(scaleproduct);
}

// optimal_accuracy_trace on one thread, through the finished optimal-accuracy cells and rows.
__device__ inline void trace(const Tables& om, const Sweep& s, bool want_columns) {
  const int Q = om.Q, M = om.M, L = static_cast<int>(s.length);
  const OddsSpecials& xf = s.xf;
  const float ninf = negative_infinity();
  const std::size_t row_floats = static_cast<std::size_t>(Q) * 12;
  const auto oa = [&](int i, int k, int c) {
    return k >= 1 ? s.forward_cells[i * row_floats + Node(k, Q).cell(c)] : 0.0f;
  };
  const auto pp = [&](int i, int k, int c) { return s.backward_cells[i * row_floats + Node(k, Q).cell(c)]; };
  const auto x = [&](int i, int sp) { return s.oa_rows[i * kSpecials + sp]; };
  const auto t_into = [&](int k, int t) {
    const Node n(k, Q);
    return __ldg(om.transitions + (n.q * 7 + t) * 4 + n.r);
  };
  const auto dd = [&](int k) {
    const Node n(k, Q);
    return om.dd[n.q * 4 + n.r];
  };
  enum State : int { S = 0, N, B, TM, TD, TI, E, C, J, T };  // TraceState's values
  int i = L, k = 0, state = C, count = 0;
  int sq_from = 0, sq_to = 0, hmm_from = 0, hmm_to = 0;
  bool seen_m = false, finished = false;
  const long long most = 4LL * (L + 2) * (M + 2);
  for (long long guard = 0; guard <= most; ++guard) {
    if (state == S) {
      finished = true;
      break;
    }
    int next = S;
    if (state == TM) {
      const float p3 = t_into(k, kOddsBM) == 0.0f ? ninf : x(i - 1, device_parsers::kB);
      const float p0 = t_into(k, kOddsMM) == 0.0f ? ninf : oa(i - 1, k - 1, kM);
      const float p1 = t_into(k, kOddsIM) == 0.0f ? ninf : oa(i - 1, k - 1, kI);
      const float p2 = t_into(k, kOddsDM) == 0.0f ? ninf : oa(i - 1, k - 1, kD);
      int best = 0;
      float top = p0;
      if (p1 > top) best = 1, top = p1;
      if (p2 > top) best = 2, top = p2;
      if (p3 > top) best = 3;
      const int states[4] = {TM, TI, TD, B};
      next = states[best];
      --k;
      --i;
    } else if (state == TD) {
      const float p0 = k > 1 && t_into(k - 1, kOddsMD) != 0.0f ? oa(i, k - 1, kM) : ninf;
      const float p1 = k > 1 && dd(k - 1) != 0.0f ? oa(i, k - 1, kD) : ninf;
      next = p0 >= p1 ? TM : TD;
      --k;
    } else if (state == TI) {
      const float p0 = t_into(k, kOddsMI) == 0.0f ? ninf : oa(i - 1, k, kM);
      const float p1 = t_into(k, kOddsII) == 0.0f ? ninf : oa(i - 1, k, kI);
      next = p0 >= p1 ? TM : TI;
      --i;
    } else if (state == N) {
      next = i == 0 ? S : N;
    } else if (state == C) {
      const float p0 = xf.c_loop == 0.0f ? ninf : add(x(i - 1, device_parsers::kC), s.decoding[i * 4 + 3]);
      const float p1 = xf.e_move == 0.0f ? ninf : x(i, device_parsers::kE);
      next = p0 > p1 ? C : E;
    } else if (state == J) {
      const float p0 = xf.j_loop == 0.0f ? ninf : add(x(i - 1, device_parsers::kJ), s.decoding[i * 4 + 2]);
      const float p1 = xf.e_loop == 0.0f ? ninf : x(i, device_parsers::kE);
      next = p0 > p1 ? J : E;
    } else if (state == E) {
      float top = ninf;
      int top_state = TM, top_k = 0;
      const float* row = s.forward_cells + i * row_floats;
      for (int q = 0; q < Q; ++q) {
        for (int r = 0; r < 4; ++r) {
          const float v = row[(q * 3 + kM) * 4 + r];
          if (v >= top) top = v, top_state = TM, top_k = r * Q + q + 1;
        }
        for (int r = 0; r < 4; ++r) {
          const float v = row[(q * 3 + kD) * 4 + r];
          if (v > top) top = v, top_state = TD, top_k = r * Q + q + 1;
        }
      }
      k = top_k;
      next = top_state;
    } else if (state == B) {
      const float p0 = xf.n_move == 0.0f ? ninf : x(i, device_parsers::kN);
      const float p1 = xf.j_move == 0.0f ? ninf : x(i, device_parsers::kJ);
      next = p0 > p1 ? N : J;
    } else {
      break;
    }
    if (want_columns && (next == TM || next == TI || (next == TD && seen_m))) {
      const float p = next == TM ? pp(i, k, kM) : next == TI ? pp(i, k, kI) : 0.0f;
      s.columns[count++] = EnvelopeColumn{next, k, next == TD ? 0 : i, p};
    }
    if (next == TM) {
      if (!seen_m) {
        sq_to = i;
        hmm_to = k;
        seen_m = true;
      }
      sq_from = i;
      hmm_from = k;
    }
    if ((next == N || next == J || next == C) && next == state) --i;
    state = next;
  }
  // An unfinished walk keeps what it had and says not ok, as the host's guard does.
  s.result[0] = sq_from;
  s.result[1] = sq_to;
  s.result[2] = hmm_from;
  s.result[3] = hmm_to;
  s.result[4] = finished && seen_m ? 1 : 0;
  s.result[6] = count;
}

// The sweep and the traceback of one envelope by one block, after its passes. Dynamic shared memory: 128 Q bytes
// (two optimal-accuracy rows of 12 Q floats, 8 Q null2 sums).
template <class Unused = void>
__global__ void __launch_bounds__(kThreads) sweep_kernel(Tables om, const Sweep* sweeps, bool want_columns) {
  extern __shared__ float shared[];
  using Scan = cub::BlockScan<DeleteRun, kThreads>;
  using Reduce = cub::BlockReduce<float, kThreads>;
  __shared__ union {
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } temp;
  __shared__ float totals[3];
  __shared__ float row_max;
  __shared__ bool decoded;
  const Sweep s = sweeps[blockIdx.x];
  const int Q = om.Q, L = static_cast<int>(s.length), nodes = 4 * Q;
  const int thread = static_cast<int>(threadIdx.x);
  const std::size_t row_floats = static_cast<std::size_t>(Q) * 12;
  float* prev = shared;
  float* cur = prev + Q * 12;
  float* usage = cur + Q * 12;
  const float ninf = negative_infinity();
  if (thread == 0) {
    decoded = decoding_rows(s, totals);
    float* x0 = s.oa_rows;
    x0[device_parsers::kE] = ninf;
    x0[device_parsers::kN] = 0.0f;
    x0[device_parsers::kJ] = ninf;
    x0[device_parsers::kB] = 0.0f;
    x0[device_parsers::kC] = ninf;
    x0[device_parsers::kScale] = 0.0f;
  }
  for (int f = thread; f < Q * 12; f += kThreads) {
    prev[f] = ninf;
    s.forward_cells[f] = ninf;
  }
  __syncthreads();
  if (!decoded) {
    if (thread == 0) s.result[5] = 0;
    return;
  }
  // This thread's run of nodes for the D->D scan.
  const int per = (nodes + kThreads - 1) / kThreads;
  const int first = min(nodes, thread * per), last = min(nodes, first + per);
  float xB = 0.0f;  // row i-1's B
  for (int i = 1; i <= L; ++i) {
    const float factor = s.decoding[i * 4];
    const float* fr = s.forward_cells + i * row_floats;
    float* br = s.backward_cells + i * row_floats;
    float emax = ninf;
    // M and I of every node from the previous row and this row's posteriors.
    for (int v = thread; v < nodes; v += kThreads) {
      const int q = v >> 2, r = v & 3;
      const int m = (q * 3 + kM) * 4 + r, in = (q * 3 + kI) * 4 + r;
      const float ppm = mul(mul(fr[m], br[m]), factor);
      const float ppi = mul(mul(fr[in], br[in]), factor);
      br[m] = ppm;
      br[in] = ppi;
      float& um = usage[q * 8 + r];
      float& ui = usage[q * 8 + 4 + r];
      um = i == 1 ? ppm : add(ppm, um);
      ui = i == 1 ? ppi : add(ppi, ui);
      // Node k - 1 of the previous row: vector q - 1 of this lane, or lane r - 1's last vector (none for lane 0).
      float mpv = ninf, dpv = ninf, ipv = ninf;
      if (q > 0) {
        mpv = prev[((q - 1) * 3 + kM) * 4 + r];
        dpv = prev[((q - 1) * 3 + kD) * 4 + r];
        ipv = prev[((q - 1) * 3 + kI) * 4 + r];
      } else if (r > 0) {
        mpv = prev[((Q - 1) * 3 + kM) * 4 + r - 1];
        dpv = prev[((Q - 1) * 3 + kD) * 4 + r - 1];
        ipv = prev[((Q - 1) * 3 + kI) * 4 + r - 1];
      }
      const float* t = om.transitions + q * 28 + r;
      float sv = gate(__ldg(t + kOddsBM * 4), xB);
      sv = larger(sv, gate(__ldg(t + kOddsMM * 4), mpv));
      sv = larger(sv, gate(__ldg(t + kOddsIM * 4), ipv));
      sv = larger(sv, gate(__ldg(t + kOddsDM * 4), dpv));
      sv = add(sv, ppm);
      cur[m] = sv;
      emax = larger(emax, sv);
      const float iv = larger(gate(__ldg(t + kOddsMI * 4), prev[m]), gate(__ldg(t + kOddsII * 4), prev[in]));
      cur[in] = add(iv, ppi);
    }
    __syncthreads();
    // D: the D->D recurrence in node order, D[k] = max(D0[k], gate(dd[k-1], D[k-1])) with D0[k] = gate(M->D[k-1],
    // M[k-1]) and D[1] = -inf, as one scan of composed runs.
    const auto element = [&](int v) -> DeleteRun {  // node k = v + 1
      if (v == 0) return {ninf, false};
      const Node before(v, Q);
      const float d0 = gate(__ldg(om.transitions + (before.q * 7 + kOddsMD) * 4 + before.r), cur[before.cell(kM)]);
      const bool keeps = om.dd[before.q * 4 + before.r] > 0.0f;
      return {keeps ? d0 : larger(d0, 0.0f), keeps};
    };
    DeleteRun run{ninf, true};
    for (int v = first; v < last; ++v) run = ThenRun()(run, element(v));
    DeleteRun before;
    Scan(temp.scan).ExclusiveScan(run, before, DeleteRun{ninf, true}, ThenRun());
    float d = before.a;  // the D of the node before this run (any value before node 1, which ignores it)
    for (int v = first; v < last; ++v) {
      const DeleteRun e = element(v);
      d = e.keeps ? larger(e.a, d) : e.a;
      cur[Node(v + 1, Q).cell(kD)] = d;
      emax = larger(emax, d);
    }
    __syncthreads();  // the scan's storage is the reduction's; the D's are written
    const float e = Reduce(temp.reduce).Reduce(emax, Larger());
    if (thread == 0) row_max = e;
    for (int f = thread; f < Q * 12; f += kThreads) s.forward_cells[i * row_floats + f] = cur[f];
    __syncthreads();
    {
      // The special states, each thread the same numbers.
      const OddsSpecials& xf = s.xf;
      const float* d4 = s.decoding + i * 4;
      const float* xp = s.oa_rows + (i - 1) * kSpecials;
      const float ev = row_max;
      float t1 = xf.j_loop == 0.0f ? 0.0f : add(xp[device_parsers::kJ], d4[2]);
      float t2 = xf.e_loop == 0.0f ? 0.0f : ev;
      const float xj = t1 > t2 ? t1 : t2;
      t1 = xf.c_loop == 0.0f ? 0.0f : add(xp[device_parsers::kC], d4[3]);
      t2 = xf.e_move == 0.0f ? 0.0f : ev;
      const float xc = t1 > t2 ? t1 : t2;
      const float xn = xf.n_loop == 0.0f ? 0.0f : add(xp[device_parsers::kN], d4[1]);
      t1 = xf.n_move == 0.0f ? 0.0f : xn;
      t2 = xf.j_move == 0.0f ? 0.0f : xj;
      xB = t1 > t2 ? t1 : t2;
      if (thread == 0) {
        float* xr = s.oa_rows + i * kSpecials;
        xr[device_parsers::kE] = ev;
        xr[device_parsers::kN] = xn;
        xr[device_parsers::kJ] = xj;
        xr[device_parsers::kB] = xB;
        xr[device_parsers::kC] = xc;
        xr[device_parsers::kScale] = 0.0f;
      }
    }
    float* done = prev;
    prev = cur;
    cur = done;
    __syncthreads();
  }
  if (s.usage != nullptr) {
    for (int f = thread; f < Q * 8; f += kThreads) s.usage[f] = usage[f];
    if (thread == 0) {
      s.usage[Q * 8] = totals[0];
      s.usage[Q * 8 + 1] = totals[1];
      s.usage[Q * 8 + 2] = totals[2];
    }
  }
  __syncthreads();  // the last row's cells and specials are written
  if (thread == 0) {
    *s.expected_correct = s.oa_rows[L * kSpecials + device_parsers::kC];
    s.result[5] = 1;
    trace(om, s, want_columns);
  }
}

}  // namespace device_envelopes

// Rescores batches of envelopes of one model on the device (see the top of this file), in waves whose matrices
// fit in `room_bytes` of device memory.
class DeviceEnvelopeRescorer {
 public:
  explicit DeviceEnvelopeRescorer(std::uint64_t room_bytes = std::uint64_t{4} << 30) : room_(room_bytes) {}

  void set_model(const OddsTables& om) { passes_.set_model(om); }

  // Whether the model's rows fit in one block's shared memory (both kernels need 128 Q bytes, the sweep a little
  // more for its block scan).
  bool fits() const {
    return passes_.fits() && std::uint64_t{128} * static_cast<std::uint64_t>(passes_.Q()) <=
                                 static_cast<std::uint64_t>(sweep_shared_room());
  }

  // Device memory one envelope of `length` residues needs.
  std::uint64_t bytes_for(std::uint32_t length) const {
    const std::uint64_t rows = std::uint64_t{length} + 1;
    return kept_cells_bytes(passes_.Q(), length) + rows * (2 * kSpecialCount + 4 + kSpecialCount) * 4 + length +
           static_cast<std::uint64_t>(passes_.Q()) * 32 + (length + passes_.M() + 1) * 16 + 256;
  }

  // Device time spent so far in the passes and in the sweep (with the traceback).
  double passes_seconds() const { return passes_seconds_; }
  double sweep_seconds() const { return sweep_seconds_; }

  void run(const std::vector<EnvelopeRequest>& requests, bool columns, EnvelopeBatch& out,
           cudaStream_t stream = cudaStreamPerThread) {
    if (!fits()) throw std::length_error("DeviceEnvelopeRescorer: the model's rows do not fit in shared memory");
    const std::size_t n = requests.size();
    const int Q = passes_.Q();
    out = EnvelopeBatch{};
    out.Q = Q;
    out.first_row.resize(n);
    out.first_usage.resize(n);
    std::uint64_t rows = 0, usage = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (requests[j].length == 0) throw std::invalid_argument("DeviceEnvelopeRescorer: an envelope of length 0");
      out.first_row[j] = rows;
      rows += std::uint64_t{requests[j].length} + 1;
      out.first_usage[j] = usage;
      if (requests[j].null2) usage += out.usage_floats();
    }
    out.forward_rows.assign(rows * kSpecialCount, 0.0f);
    out.usage.assign(usage, 0.0f);
    out.decoded.assign(n, 0);
    out.expected_correct.assign(n, 0.0f);
    out.coordinates.assign(n * 5, 0);
    out.first_column.assign(n + 1, 0);
    traced_.clear();
    for (std::size_t begin = 0; begin < n;) {
      std::size_t end = begin;
      std::uint64_t bytes = 0;
      const std::uint64_t limit = wave_limit();
      while (end < n) {
        const std::uint64_t need = bytes_for(requests[end].length);
        if (end > begin && bytes + need > limit) break;
        bytes += need;
        ++end;
      }
      run_wave(requests, columns, begin, end, out, stream);
      begin = end;
    }
    if (columns) {
      // Each envelope's columns came back last first, with the deletes after its last M in the walk (before its
      // first M in the alignment): dropped, and the rest turned around, as optimal_accuracy_trace does.
      for (std::size_t j = 0; j < n; ++j) {
        std::vector<EnvelopeColumn>& walked = traced_[j];
        while (!walked.empty() && walked.back().state != static_cast<std::int32_t>(3)) walked.pop_back();
        out.columns.insert(out.columns.end(), walked.rbegin(), walked.rend());
        out.first_column[j + 1] = out.columns.size();
      }
    }
  }

 private:
  // What a wave may take: the room given, but no more than the matrices already held plus most of what the device
  // has free now, which other searches may share (cudp-hmmscan's workers, each with its own rescorer).
  std::uint64_t wave_limit() const {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::uint64_t held = (forward_cells_.capacity() + backward_cells_.capacity()) * sizeof(float);
    return std::min<std::uint64_t>(room_, held + free_bytes / 10 * 8);
  }

  // The dynamic shared memory the sweep may have: the device's opt-in size less the kernel's own.
  static int sweep_shared_room() {
    cudaFuncAttributes attributes{};
    CUDP_CUDA_CHECK(cudaFuncGetAttributes(&attributes, device_envelopes::sweep_kernel<>));
    return DevicePlan7Parsers::most_shared_bytes() - static_cast<int>(attributes.sharedSizeBytes);
  }

  void run_wave(const std::vector<EnvelopeRequest>& requests, bool columns, std::size_t begin, std::size_t end,
                EnvelopeBatch& out, cudaStream_t stream) {
    using device_parsers::Task;
    const std::size_t count = end - begin;
    const int Q = passes_.Q(), M = passes_.M();
    const std::uint64_t row_floats = std::uint64_t{12} * static_cast<std::uint64_t>(Q);
    std::vector<Task> tasks(count);
    std::vector<std::uint64_t> usage_at(count), columns_at(count);
    std::uint64_t residue_count = 0, row_count = 0, usage_count = 0, column_count = 0;
    for (std::size_t j = begin; j < end; ++j) {
      Task& t = tasks[j - begin];
      const EnvelopeRequest& e = requests[j];
      t.residues = residue_count;
      t.rows = row_count;
      t.cells = row_count * row_floats;
      t.length = e.length;
      t.xf = e.xf;
      usage_at[j - begin] = usage_count;
      columns_at[j - begin] = column_count;
      residue_count += e.length;
      row_count += std::uint64_t{e.length} + 1;
      if (e.null2) usage_count += out.usage_floats();
      if (columns) column_count += std::uint64_t{e.length} + static_cast<std::uint64_t>(M) + 1;
    }
    host_residues_.resize(residue_count);
    for (std::size_t j = begin; j < end; ++j)
      std::copy(requests[j].residues, requests[j].residues + requests[j].length,
                host_residues_.data() + tasks[j - begin].residues);
    tasks_.upload_in_order(tasks, stream);
    residues_.upload_in_order(host_residues_, stream);
    forward_rows_.reserve(row_count * kSpecialCount, stream);
    backward_rows_.reserve(row_count * kSpecialCount, stream);
    own_scales_.reserve(count, stream);
    forward_cells_.reserve(row_count * row_floats, stream);
    backward_cells_.reserve(row_count * row_floats, stream);
    events_.record(0, stream);
    passes_.launch(tasks_.get(), static_cast<unsigned>(count), residues_.get(), forward_rows_.get(),
                   backward_rows_.get(), own_scales_.get(), forward_cells_.get(), backward_cells_.get(), stream);
    events_.record(1, stream);
    engine::wait_quietly(stream);  // beside the host's workers: asleep, not spinning on a core of theirs
    // The Forward's rows, for the scores.
    forward_rows_.download(out.forward_rows.data() + out.first_row[begin] * kSpecialCount,
                           row_count * kSpecialCount, stream);
    std::vector<std::uint8_t> own(count);
    own_scales_.download(own.data(), count, stream);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream));

    decoding_.reserve(row_count * 4, stream);
    oa_rows_.reserve(row_count * kSpecialCount, stream);
    usage_.reserve(std::max<std::uint64_t>(usage_count, 1), stream);
    columns_.reserve(std::max<std::uint64_t>(column_count, 1), stream);
    results_.reserve(count * 7, stream);
    expected_.reserve(count, stream);
    std::vector<device_envelopes::Sweep> sweeps(count);
    for (std::size_t w = 0; w < count; ++w) {
      const Task& t = tasks[w];
      const EnvelopeRequest& e = requests[begin + w];
      device_envelopes::Sweep& s = sweeps[w];
      s.forward_rows = forward_rows_.get() + t.rows * kSpecialCount;
      s.backward_rows = backward_rows_.get() + t.rows * kSpecialCount;
      s.forward_cells = forward_cells_.get() + t.cells;
      s.backward_cells = backward_cells_.get() + t.cells;
      s.decoding = decoding_.get() + t.rows * 4;
      s.oa_rows = oa_rows_.get() + t.rows * kSpecialCount;
      s.usage = e.null2 ? usage_.get() + usage_at[w] : nullptr;
      s.columns = columns ? columns_.get() + columns_at[w] : nullptr;
      s.result = results_.get() + w * 7;
      s.expected_correct = expected_.get() + w;
      s.length = e.length;
      s.xf = e.xf;
      s.own_scales = own[w] != 0;
    }
    sweeps_.upload_in_order(sweeps, stream);
    const int shared = static_cast<int>(std::uint64_t{128} * static_cast<std::uint64_t>(Q));
    CUDP_CUDA_CHECK(cudaFuncSetAttribute(device_envelopes::sweep_kernel<>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, sweep_shared_room()));
    events_.record(2, stream);
    device_envelopes::sweep_kernel<><<<static_cast<unsigned>(count), device_envelopes::kThreads, shared, stream>>>(
        passes_.tables(), sweeps_.get(), columns);
    CUDP_CUDA_CHECK(cudaGetLastError());
    events_.record(3, stream);
    engine::wait_quietly(stream);

    std::vector<std::int32_t> results(count * 7);
    results_.download(results.data(), count * 7, stream);
    expected_.download(out.expected_correct.data() + begin, count, stream);
    if (usage_count > 0) usage_.download(out.usage.data() + out.first_usage[begin], usage_count, stream);
    std::vector<EnvelopeColumn> walked(column_count);
    if (columns) columns_.download(walked.data(), column_count, stream);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream));
    passes_seconds_ += events_.seconds(0, 1);
    sweep_seconds_ += events_.seconds(2, 3);
    for (std::size_t w = 0; w < count; ++w) {
      const std::int32_t* r = results.data() + w * 7;
      std::copy(r, r + 5, out.coordinates.data() + (begin + w) * 5);
      out.decoded[begin + w] = r[5] != 0 ? 1 : 0;
      if (columns) {
        const auto from = walked.begin() + static_cast<std::ptrdiff_t>(columns_at[w]);
        traced_.emplace_back(from, from + (r[5] != 0 ? r[6] : 0));
      }
    }
  }

  // Four events around the two kernels of a wave.
  struct Events {
    cudaEvent_t e[4] = {};
    Events() {
      for (cudaEvent_t& x : e) CUDP_CUDA_CHECK(cudaEventCreate(&x));
    }
    ~Events() {
      for (cudaEvent_t x : e) cudaEventDestroy(x);
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;
    void record(int k, cudaStream_t stream) { CUDP_CUDA_CHECK(cudaEventRecord(e[k], stream)); }
    double seconds(int from, int to) const {
      float ms = 0;
      CUDP_CUDA_CHECK(cudaEventElapsedTime(&ms, e[from], e[to]));
      return ms / 1e3;
    }
  };

  std::uint64_t room_;
  double passes_seconds_ = 0, sweep_seconds_ = 0;
  Events events_;
  DevicePlan7Parsers passes_;
  engine::DeviceBuffer<device_parsers::Task> tasks_;
  engine::DeviceBuffer<device_envelopes::Sweep> sweeps_;
  engine::DeviceBuffer<std::uint8_t> residues_, own_scales_;
  engine::DeviceBuffer<float> forward_rows_, backward_rows_, forward_cells_, backward_cells_, decoding_, oa_rows_,
      usage_, expected_;
  engine::DeviceBuffer<EnvelopeColumn> columns_;
  engine::DeviceBuffer<std::int32_t> results_;
  std::vector<std::uint8_t> host_residues_;
  std::vector<std::vector<EnvelopeColumn>> traced_;
};

}  // namespace cudp::hmmer
