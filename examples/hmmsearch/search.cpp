#include "search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include <cudp/engine/sequences.hpp>
#include <cudp/tiers/parallel_for.hpp>

#include "host_filters.hpp"
#include "stage_times.hpp"

namespace hmmsearch {

namespace {

using cudp::hmmer::Plan7Pipeline;
using cudp::hmmer::Plan7PipelineCounts;
using cudp::hmmer::Plan7SequenceHit;

// Each worker's scratch: the pipeline workspace, its own counts and hits, merged once the workers are done.
struct Worker {
  Plan7Pipeline::Workspace workspace;
  Plan7PipelineCounts counts;
  std::vector<Plan7SequenceHit> hits;
};

class Workers {
 public:
  explicit Workers(int threads) : threads_(threads) {}

  // body(Worker&, i) for i in [0, n) on the workers, handed out `grain` at a time: cheap items go in runs, or the
  // workers queue on the shared counter and neighbouring items written from different cores share cache lines.
  template <class Body>
  void run(std::size_t n, Body body, std::size_t grain = 1) {
    cudp::tiers::parallel_for(
        (n + grain - 1) / grain, std::max(1, threads_),
        [this] {
          cudp::hmmer::use_hmmer_float_mode();
          std::lock_guard<std::mutex> lock(mutex_);
          workers_.push_back(std::make_unique<Worker>());
          return workers_.back().get();
        },
        [&](Worker* w, std::size_t run) {
          for (std::size_t i = run * grain, end = std::min(n, i + grain); i < end; ++i) body(*w, i);
        });
  }

  // Frees the workers' scratch (their matrices) between phases, keeping their counts and hits.
  void drop_workspaces() {
    for (auto& w : workers_) w->workspace = Plan7Pipeline::Workspace{};
  }

  SearchOutcome collect() {
    SearchOutcome out;
    for (auto& w : workers_) {
      out.counts.merge(w->counts);
      for (auto& h : w->hits) out.hits.push_back(std::move(h));
    }
    std::sort(out.hits.begin(), out.hits.end(),
              [](const Plan7SequenceHit& a, const Plan7SequenceHit& b) { return a.target < b.target; });
    return out;
  }

 private:
  int threads_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

void keep(Worker& w, std::optional<Plan7SequenceHit> hit, std::size_t target) {
  if (!hit) return;
  hit->target = target;
  w.hits.push_back(std::move(*hit));
}

// Adds what one pipeline call counted (the difference of a worker's counts across it) to a target's passes.
class PassRecorder {
 public:
  PassRecorder(std::vector<std::array<std::uint8_t, 4>>* passed, const Plan7PipelineCounts& counts, std::size_t i)
      : passed_(passed), counts_(counts), before_(counts), i_(i) {}
  ~PassRecorder() {
    if (passed_ == nullptr) return;
    auto& p = (*passed_)[i_];
    p[0] = static_cast<std::uint8_t>(p[0] + (counts_.passed_msv - before_.passed_msv));
    p[1] = static_cast<std::uint8_t>(p[1] + (counts_.passed_bias - before_.passed_bias));
    p[2] = static_cast<std::uint8_t>(p[2] + (counts_.passed_viterbi - before_.passed_viterbi));
    p[3] = static_cast<std::uint8_t>(p[3] + (counts_.passed_forward - before_.passed_forward));
  }

 private:
  std::vector<std::array<std::uint8_t, 4>>* passed_;
  const Plan7PipelineCounts& counts_;
  Plan7PipelineCounts before_;
  std::size_t i_;
};

// Targets whose device Forward score, given 0.05 bits to spare (a thousand times the float rounding), still fails
// F3 are dropped; the others go on. Everything goes on when the device has no Forward for the model or F3 is off.
template <class Filters>
std::vector<std::uint32_t> clear_forward_failures(const Plan7Pipeline& pipeline, Filters& filters,
                                                  const std::vector<std::uint32_t>& targets,
                                                  const std::vector<float>& filter_nats) {
  const double F3 = pipeline.options().F3;
  const auto& stats = pipeline.profile().stats;
  if (targets.empty() || F3 >= 1.0 || !stats) return targets;
  const std::vector<float> nats = filters.forward(pipeline.profile(), targets);
  if (nats.size() != targets.size()) return targets;
  constexpr double kSpareBits = 0.05;
  std::vector<std::uint32_t> kept;
  for (std::size_t j = 0; j < targets.size(); ++j) {
    const double bits = (nats[j] - filter_nats[targets[j]]) / 0.69314718055994529 + kSpareBits;
    const double P = bits < stats->forward_tau ? 1.0 : std::exp(-stats->forward_lambda * (bits - stats->forward_tau));
    if (P <= F3) kept.push_back(targets[j]);
  }
  return kept;
}


// The targets after the filters in pieces (consecutive runs of the list) for the device parsers: the first piece
// small, so that the host's workers start early, the next ones twice as large each up to about a million residues,
// so that the rows in memory stay small.
std::vector<std::vector<std::uint32_t>> parser_pieces(const cudp::io::SequenceSet& db,
                                                      const std::vector<std::uint32_t>& targets) {
  constexpr std::uint64_t kFirstPiece = std::uint64_t{1} << 17, kLargestPiece = std::uint64_t{1} << 20;
  std::vector<std::vector<std::uint32_t>> pieces;
  std::uint64_t size = kFirstPiece / 2, residues = size;
  for (const std::uint32_t i : targets) {
    if (residues >= size) {
      pieces.emplace_back();
      size = std::min(2 * size, kLargestPiece);
      residues = 0;
    }
    pieces.back().push_back(i);
    residues += db.length(i);
  }
  return pieces;
}

// The device's parser rows for a list of targets, computed piece by piece on a thread of its own beside the host's
// workers. A worker does not wait for them: a target whose piece is not done yet when a worker takes it has its
// parsers computed on the host (the same numbers), and the device skips pieces the workers have already passed.
// With `wait` set the workers do wait, so that every target takes the device's rows (for tests). Null rows
// everywhere when the device does not compute them or `enabled` is false. finish(), once the workers are done,
// calls off the piece under way, whose rows nobody will read (on short models a long target's piece takes the
// GPU longer than the host threads take for everything), and rethrows a device error.
template <class Filters>
class ParserFeed {
 public:
  ParserFeed(Filters& filters, const cudp::hmmer::StripedOddsProfile& om,
             std::vector<std::vector<std::uint32_t>> pieces, bool enabled, bool wait)
      : pieces_(std::move(pieces)), rows_(pieces_.size()), done_(pieces_.size(), 0), wait_(wait) {
    std::size_t end = 0;
    for (std::size_t p = 0; p < pieces_.size(); ++p) {
      for (std::size_t k = 0; k < pieces_[p].size(); ++k) where_.emplace_back(p, k);
      end += pieces_[p].size();
      ends_.push_back(end);
    }
    if (!enabled || pieces_.empty()) {
      finished_ = true;
      return;
    }
    filters_ = &filters;
    filters.call_off_parsers(false);
    producer_ = std::thread([this, &filters, &om] {
      const auto start = std::chrono::steady_clock::now();
      const cudp::hmmer::OddsTables tables = om.tables();  // here, off the workers' way
      for (std::size_t p = 0; p < pieces_.size(); ++p) {
        std::unique_ptr<cudp::hmmer::ParserRowsBatch> rows;
        if (wait_ || taken_.load(std::memory_order_relaxed) < ends_[p]) {  // else the workers are past it
          rows = std::make_unique<cudp::hmmer::ParserRowsBatch>();
          bool computed = false;
          try {
            computed = filters.parsers(tables, pieces_[p], *rows);
          } catch (...) {
            error_ = std::current_exception();
          }
          if (!computed) break;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        rows_[p] = std::move(rows);
        done_[p] = 1;
        changed_.notify_all();
      }
      seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::lock_guard<std::mutex> lock(mutex_);
      finished_ = true;
      changed_.notify_all();
    });
  }
  ~ParserFeed() { finish_quietly(); }
  ParserFeed(const ParserFeed&) = delete;
  ParserFeed& operator=(const ParserFeed&) = delete;

  // The rows of the j-th target of the list if the device has them (now, or once done when waiting), else null.
  // Workers take targets in order.
  const cudp::hmmer::ParserSpecials* rows_of(std::size_t j) {
    const auto [p, k] = where_[j];
    std::size_t taken = taken_.load(std::memory_order_relaxed);
    while (taken < j + 1 && !taken_.compare_exchange_weak(taken, j + 1, std::memory_order_relaxed)) {
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (wait_) changed_.wait(lock, [&] { return done_[p] != 0 || finished_; });
    if (!rows_[p]) return nullptr;
    thread_local cudp::hmmer::ParserSpecials parsed;
    parsed = rows_[p]->at(k);
    return &parsed;
  }
  void finish() {
    finish_quietly();
    if (error_) std::rethrow_exception(error_);
  }
  double device_seconds() const { return seconds_; }  // the producer's time, from start to its last piece

 private:
  void finish_quietly() {
    if (!producer_.joinable()) return;
    filters_->call_off_parsers(true);
    producer_.join();
  }

  Filters* filters_ = nullptr;
  std::vector<std::vector<std::uint32_t>> pieces_;
  std::vector<std::pair<std::size_t, std::size_t>> where_;  // per target of the list: piece, place in it
  std::vector<std::size_t> ends_;                            // per piece: one past its last target in the list
  std::vector<std::unique_ptr<cudp::hmmer::ParserRowsBatch>> rows_;
  std::vector<char> done_;  // per piece: the producer is past it
  bool wait_, finished_ = false;
  std::atomic<std::size_t> taken_{0};  // one past the furthest target a worker has taken
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread producer_;
  std::exception_ptr error_;
  double seconds_ = 0;
};

// The envelopes of every target after its domain plan (Plan7Pipeline::before_envelopes), rescored by the device and
// the host's workers together. The list is sorted longest first; a producer thread takes batches from the long end
// for the device (Filters::envelopes) while the workers take one envelope at a time from the short end, until the
// two meet. A batch holds at least one envelope, at most kBatchBytes of the device's Forward and Backward matrices
// and, when sharing, about half of what is left at most, so that the last batches shrink and neither side waits
// long for the other at the end. A device that does not rescore envelopes (Filters::envelopes returns false) hands
// its batch back and the host takes everything; so does an error, which finish() rethrows.
template <class Filters>
class EnvelopeShare {
 public:
  // CUDP_DEVICE_ENVELOPES: "0" the host only, "all" the device takes every envelope (for tests), else shared.
  enum class Mode { kHost, kShared, kDevice };
  static Mode mode_from_environment() {
    const char* setting = std::getenv("CUDP_DEVICE_ENVELOPES");
    const std::string mode = setting == nullptr ? "" : setting;
    return mode == "0" ? Mode::kHost : mode == "all" ? Mode::kDevice : Mode::kShared;
  }

  EnvelopeShare(const Plan7Pipeline& pipeline, Filters& filters,
                const std::vector<std::optional<Plan7Pipeline::PendingTarget>>& pending,
                std::vector<std::vector<cudp::hmmer::RescoredEnvelope>>& rescored, Mode mode)
      : pipeline_(pipeline), filters_(filters), pending_(pending), rescored_(rescored), mode_(mode) {
    for (std::uint32_t t = 0; t < pending.size(); ++t) {
      if (!pending[t]) continue;
      rescored[t].resize(pending[t]->plan.requests.size());
      for (std::uint32_t k = 0; k < pending[t]->plan.requests.size(); ++k) jobs_.push_back(Job{t, k});
    }
    std::stable_sort(jobs_.begin(), jobs_.end(),
                     [&](const Job& a, const Job& b) { return request(a).length > request(b).length; });
    const int Q = pipeline.odds_profile().Q();
    prefix_.push_back(0);
    for (const Job& job : jobs_)
      prefix_.push_back(prefix_.back() + cudp::hmmer::kept_cells_bytes(Q, request(job).length));
    back_ = jobs_.size();
    if (mode_ == Mode::kHost || jobs_.empty()) {
      finished_ = true;
      return;
    }
    producer_ = std::thread([this] { produce(); });
  }
  ~EnvelopeShare() { finish_quietly(); }
  EnvelopeShare(const EnvelopeShare&) = delete;
  EnvelopeShare& operator=(const EnvelopeShare&) = delete;

  std::size_t size() const { return jobs_.size(); }

  // On a worker: rescores the shortest envelope left, if the host is to take one, waiting while the device may
  // still hand a batch back. Call it size() times in all (from any workers): every envelope is then done.
  void rescore_next(Plan7Pipeline::Workspace& ws) {
    std::size_t n = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] {
        const bool device_may_return = mode_ == Mode::kDevice ? !finished_ : in_flight_;
        return (back_ > front_ && (mode_ != Mode::kDevice || finished_)) || !device_may_return;
      });
      if (back_ <= front_) return;
      n = --back_;
    }
    const Job& job = jobs_[n];
    pipeline_.rescore_envelope(request(job), pending_[job.target]->L, ws, rescored_[job.target][job.k]);
  }

  void finish() {
    finish_quietly();
    if (error_) std::rethrow_exception(error_);
  }
  double device_seconds() const { return seconds_; }  // the producer's time, from start to its last batch
  std::size_t device_envelopes() const { return device_envelopes_; }

 private:
  // About one wave of an 80 GB GPU: a wave takes about the time of its longest envelope, so smaller batches
  // leave most of the GPU idle (the rescorer splits a batch that does not fit into waves).
  static constexpr std::uint64_t kBatchBytes = std::uint64_t{48} << 30;

  struct Job {
    std::uint32_t target, k;  // pending[target]->plan.requests[k]
  };
  const cudp::hmmer::EnvelopeRequest& request(const Job& job) const {
    return pending_[job.target]->plan.requests[job.k];
  }

  // The end of the batch that starts at `first`, under the lock.
  std::size_t batch_end(std::size_t first) const {
    std::uint64_t limit = kBatchBytes;
    if (mode_ == Mode::kShared) limit = std::min(limit, (prefix_[back_] - prefix_[first + 1]) / 2);
    std::size_t last = first + 1;
    while (last < back_ && prefix_[last + 1] - prefix_[first] <= limit) ++last;
    return last;
  }

  void produce() {
    const auto start = std::chrono::steady_clock::now();
    cudp::hmmer::use_hmmer_float_mode();  // the adoption's arithmetic is HMMER's
    const cudp::hmmer::OddsTables tables = pipeline_.odds_profile().tables();
    const bool columns = pipeline_.envelope_columns();
    Plan7Pipeline::Workspace ws;
    std::vector<cudp::hmmer::EnvelopeRequest> batch;
    cudp::hmmer::EnvelopeBatch out;
    for (;;) {
      std::size_t first = 0, last = 0;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stop_ || front_ >= back_) break;
        first = front_;
        last = front_ = batch_end(first);
        in_flight_ = true;
      }
      batch.clear();
      for (std::size_t n = first; n < last; ++n) batch.push_back(request(jobs_[n]));
      bool rescored = false;
      try {
        rescored = filters_.envelopes(tables, batch, columns, out);
        if (rescored && out.size() != batch.size())
          throw std::logic_error("Filters::envelopes returned an envelope count unlike the batch's");
        for (std::size_t n = first; rescored && n < last; ++n) {
          const Job& job = jobs_[n];
          pipeline_.adopt_envelope(batch[n - first], pending_[job.target]->L, out, n - first, ws,
                                   rescored_[job.target][job.k]);
        }
      } catch (...) {
        error_ = std::current_exception();
        rescored = false;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      in_flight_ = false;
      if (!rescored) {
        front_ = first;  // back to the host, which has not gone past `last`
        break;
      }
      device_envelopes_ += last - first;
      changed_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (device_envelopes_ > 0)
      seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    finished_ = true;
    changed_.notify_all();
  }

  void finish_quietly() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    if (producer_.joinable()) producer_.join();
  }

  const Plan7Pipeline& pipeline_;
  Filters& filters_;
  const std::vector<std::optional<Plan7Pipeline::PendingTarget>>& pending_;
  std::vector<std::vector<cudp::hmmer::RescoredEnvelope>>& rescored_;
  Mode mode_;
  std::vector<Job> jobs_;              // longest first
  std::vector<std::uint64_t> prefix_;  // per job, the device matrices' bytes of the jobs before it
  // The device has taken [0, front_), the host [back_, size()); a batch in flight may still come back.
  std::size_t front_ = 0, back_ = 0;
  bool in_flight_ = false, finished_ = false, stop_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread producer_;
  std::exception_ptr error_;
  double seconds_ = 0;
  std::size_t device_envelopes_ = 0;
};

// The filters over whole target lists (MSV for all, Viterbi and Forward for those that need them: on the GPU or on
// host threads), the pipeline's decisions and everything after the filters on `threads` host workers.
template <class Filters>
SearchOutcome staged_search(const Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db, Filters& filters,
                            int threads, std::atomic<std::uint64_t>* progress, bool count_per_target) {
  const std::size_t n = db.size();
  std::vector<std::array<std::uint8_t, 4>> passed(count_per_target ? n : 0, std::array<std::uint8_t, 4>{});
  std::vector<std::array<std::uint8_t, 4>>* record = count_per_target ? &passed : nullptr;
  Workers workers(threads);
  StageTimes& times = StageTimes::global();
  auto t = StageTimes::clock::now();

  // Stage 1-2: MSV on the device for every target, the decisions (and the bias filter) on the host.
  const std::vector<cudp::hmmer::FilterResult> msv = filters.msv(pipeline.msv_profile());
  t = times.add("msv filter", t);
  if (msv.size() != n) throw std::logic_error("DeviceFilters::msv returned a result count unlike the database's");
  enum : std::uint8_t { kRejected = 0, kViterbi = 1, kForward = 2 };
  std::vector<std::uint8_t> stage(n, kRejected);
  std::vector<float> filter_nats(n, 0.0f);
  workers.run(
      n,
      [&](Worker& w, std::size_t i) {
        const PassRecorder recorder(record, w.counts, i);
        const auto r = pipeline.after_msv(db.data(i), db.length(i), msv[i], w.counts, w.workspace);
        filter_nats[i] = r.filter_nats;
        stage[i] = !r.passed ? kRejected : r.run_viterbi ? kViterbi : kForward;
        if (progress != nullptr && (i & 4095) == 4095) progress->fetch_add(4096, std::memory_order_relaxed);
      },
      2048);
  if (progress != nullptr) progress->fetch_add(n & 4095, std::memory_order_relaxed);
  t = times.add("msv decisions + bias", t);

  // Stage 3: the Viterbi filter on the device for the targets that need it.
  std::vector<std::uint32_t> viterbi_targets;
  for (std::size_t i = 0; i < n; ++i)
    if (stage[i] == kViterbi) viterbi_targets.push_back(static_cast<std::uint32_t>(i));
  if (!viterbi_targets.empty()) {
    const std::vector<cudp::hmmer::FilterResult> vit = filters.viterbi(pipeline.viterbi_profile(), viterbi_targets);
    if (vit.size() != viterbi_targets.size())
      throw std::logic_error("DeviceFilters::viterbi returned a result count unlike the request's");
    t = times.add("viterbi filter", t);
    workers.run(viterbi_targets.size(), [&](Worker& w, std::size_t j) {
      const std::size_t i = viterbi_targets[j];
      const PassRecorder recorder(record, w.counts, i);
      stage[i] = pipeline.after_viterbi(db.length(i), vit[j], filter_nats[i], w.counts) ? kForward : kRejected;
    }, 256);
  }
  t = times.add("viterbi decisions", t);

  // Stage 4: Forward on the device sets aside the targets that clearly fail F3; the host pipeline computes Forward
  // again for the rest and makes the decision, so the device's float rounding cannot change an answer.
  std::vector<std::uint32_t> survivors;
  for (std::size_t i = 0; i < n; ++i)
    if (stage[i] == kForward) survivors.push_back(static_cast<std::uint32_t>(i));
  survivors = clear_forward_failures(pipeline, filters, survivors, filter_nats);
  t = times.add("forward pre-filter", t);

  // Then, longest targets first, in runs of at most kPendingResidues residues (one run but in the largest searches,
  // --max: a target keeps a null2 score per residue between the phases):
  //   1. Forward, Backward and domain definition up to the envelopes on the host's workers, the shortest targets
  //      filling the end, with the Forward and Backward parsers from the device where it has them in time
  //      (ParserFeed);
  //   2. every target's envelopes, the device and the workers meeting in the middle (EnvelopeShare);
  //   3. the domains' ends and the reported scores.
  std::stable_sort(survivors.begin(), survivors.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return db.length(a) > db.length(b); });
  // CUDP_DEVICE_PARSERS: 0 leaves the parsers to the host, "wait" makes the workers wait for the device's.
  const char* setting = std::getenv("CUDP_DEVICE_PARSERS");
  const std::string parsers = setting == nullptr ? "" : setting;
  const auto envelope_mode = EnvelopeShare<Filters>::mode_from_environment();
  constexpr std::uint64_t kPendingResidues = std::uint64_t{1} << 27;
  for (std::size_t begin = 0, end = 0; begin < survivors.size(); begin = end) {
    std::uint64_t residues = 0;
    while (end < survivors.size() && (end == begin || residues + db.length(survivors[end]) <= kPendingResidues))
      residues += db.length(survivors[end++]);
    const std::vector<std::uint32_t> run(survivors.begin() + static_cast<std::ptrdiff_t>(begin),
                                         survivors.begin() + static_cast<std::ptrdiff_t>(end));
    std::vector<std::optional<Plan7Pipeline::PendingTarget>> pending(run.size());
    {
      ParserFeed<Filters> feed(filters, pipeline.odds_profile(), parser_pieces(db, run), parsers != "0",
                               parsers == "wait");
      workers.run(run.size(), [&](Worker& w, std::size_t j) {
        const std::size_t i = run[j];
        const PassRecorder recorder(record, w.counts, i);
        const cudp::hmmer::ParserSpecials* parsed = feed.rows_of(j);
        pending[j] = pipeline.before_envelopes(db.data(i), db.length(i), filter_nats[i], w.counts, w.workspace, parsed);
      });
      feed.finish();
      if (feed.device_seconds() > 0) times.add_seconds("  device parsers, beside the workers", feed.device_seconds());
    }
    workers.drop_workspaces();
    t = times.add("forward + domain plans", t);

    std::vector<std::vector<cudp::hmmer::RescoredEnvelope>> rescored(run.size());
    {
      EnvelopeShare<Filters> share(pipeline, filters, pending, rescored, envelope_mode);
      workers.run(share.size(), [&](Worker& w, std::size_t) { share.rescore_next(w.workspace); });
      share.finish();
      if (share.device_envelopes() > 0)
        times.add_seconds("  envelopes on the device, beside the workers", share.device_seconds());
    }
    workers.drop_workspaces();
    t = times.add("envelopes", t);

    workers.run(
        run.size(),
        [&](Worker& w, std::size_t j) {
          if (!pending[j]) return;
          keep(w, pipeline.after_envelopes(db.data(run[j]), std::move(*pending[j]), std::move(rescored[j])), run[j]);
          pending[j].reset();
        },
        8);
    t = times.add("domains + scores", t);
  }
  SearchOutcome outcome = workers.collect();
  outcome.passed = std::move(passed);
  return outcome;
}

}  // namespace

SearchOutcome search_on_host(const Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db, int threads,
                             std::atomic<std::uint64_t>* progress, bool count_per_target) {
#if CUDP_HAS_SSE_LANES
  HostFilters filters(cudp::engine::view_of(db), std::max(1, threads));
  return staged_search(pipeline, db, filters, threads, progress, count_per_target);
#else
  Workers workers(threads);  // without SSE2: one target at a time through the scalar pipeline
  std::vector<std::array<std::uint8_t, 4>> passed(count_per_target ? db.size() : 0, std::array<std::uint8_t, 4>{});
  workers.run(db.size(), [&](Worker& w, std::size_t i) {
    const PassRecorder recorder(count_per_target ? &passed : nullptr, w.counts, i);
    keep(w, pipeline.run(db.data(i), db.length(i), w.counts, w.workspace), i);
    if (progress != nullptr) progress->fetch_add(1, std::memory_order_relaxed);
  });
  SearchOutcome outcome = workers.collect();
  outcome.passed = std::move(passed);
  return outcome;
#endif
}

SearchOutcome search_with_device(const Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db,
                                 DeviceFilters& filters, int threads, std::atomic<std::uint64_t>* progress,
                                 bool count_per_target) {
  return staged_search(pipeline, db, filters, threads, progress, count_per_target);
}

}  // namespace hmmsearch
