#include "search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include <cudp/engine/sequences.hpp>
#include <cudp/hmmer/plan7_parser_groups.hpp>
#include <cudp/host/default_init_allocator.hpp>
#include <cudp/host/parallel_for.hpp>

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
    cudp::host::parallel_for(
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

// Each target's null score for the stages after MSV (Plan7Pipeline::AfterMsv::filter_nats), by target: written and
// read only for the targets that pass the MSV stage, so not zeroed first.
using FilterNats = std::vector<float, cudp::host::DefaultInitAllocator<float>>;

// Targets whose device Forward score, given 0.05 bits to spare (a thousand times the float rounding), still fails
// F3 are dropped; the others go on. Everything goes on when the device has no Forward for the model or F3 is off.
template <class Filters>
std::vector<std::uint32_t> clear_forward_failures(const Plan7Pipeline& pipeline, Filters& filters,
                                                  const std::vector<std::uint32_t>& targets,
                                                  const FilterNats& filter_nats) {
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


// The Forward and Backward parsers of a run of targets (sorted longest first), shared by the device and the host's
// workers. The device takes lists from the long end, each as many targets as it computes at once
// (Filters::parsers_at_once): a list takes about the time of its longest target, one block's serial chains, and
// a target takes a block about as long as a host thread, so the device pays only when it has many at once. The
// workers take the targets the device is done with first (their domain plans from its rows), else the shortest
// one left, computing its parsers themselves; once nothing is left they take targets of the list still on the
// device rather than wait for it (rows that come back too late go unused; the list is called off when the workers
// have taken all of it). So the workers never wait for the device, and the device never computes a target the
// host reached first unless it had it in hand already. Without a device (or when it fails, or the model is too
// large for it) the workers take the targets longest first. In Mode::kDevice (for tests) they take only the
// device's rows and wait for them. A worker takes the targets it computes itself four at a time where the CPU has
// AVX-512 (parsers_for_group, neighbours in the list and so of about one length), keeps the first and hands the
// other three's rows out as it hands out the device's.
template <class Filters>
class ParserShare {
 public:
  // CUDP_DEVICE_PARSERS: "0" the host only, "wait" the workers wait for the device's rows (for tests), else shared.
  enum class Mode { kHost, kShared, kDevice };
  static Mode mode_from_environment() {
    const char* setting = std::getenv("CUDP_DEVICE_PARSERS");
    const std::string mode = setting == nullptr ? "" : setting;
    return mode == "0" ? Mode::kHost : mode == "wait" ? Mode::kDevice : Mode::kShared;
  }

  // CUDP_HOST_PARSER_GROUPS=0: the workers compute their targets one at a time (for side-by-side timings).
  static std::size_t group_width_from_environment() {
    const char* setting = std::getenv("CUDP_HOST_PARSER_GROUPS");
    if (setting != nullptr && std::string(setting) == "0") return 1;
    return static_cast<std::size_t>(cudp::hmmer::parser_group_width());
  }

  ParserShare(Filters& filters, const cudp::hmmer::StripedOddsProfile& om, const cudp::io::SequenceSet& db,
              const std::vector<std::uint32_t>& targets, Mode mode)
      : filters_(filters), om_(om), db_(db), targets_(targets), mode_(mode), back_(targets.size()),
        group_width_(group_width_from_environment()) {
    if (mode_ == Mode::kHost || targets_.empty()) {
      finished_ = true;
      return;
    }
    filters_.call_off_parsers(false);
    producer_ = std::thread([this, &om] { produce(om); });
  }
  ~ParserShare() { finish_quietly(); }
  ParserShare(const ParserShare&) = delete;
  ParserShare& operator=(const ParserShare&) = delete;

  // A worker's next target: its place in the list, and the device's rows for it, which `batch` keeps alive, or
  // none (the host computes them). Call it once per target of the list, from any workers.
  struct Next {
    std::size_t j;
    std::optional<cudp::hmmer::ParserSpecials> rows;
    std::shared_ptr<const cudp::hmmer::ParserRowsBatch> batch;
    const cudp::hmmer::ParserSpecials* parsed() const { return rows ? &*rows : nullptr; }
  };
  Next next() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (!ready_.empty()) {
        const std::size_t j = ready_.front();
        ready_.pop_front();
        Piece& piece = pieces_[piece_of_ready_.front()];
        piece_of_ready_.pop_front();
        Next next{j, piece.rows->at(j - piece.begin), piece.rows};
        if (--piece.unread == 0) piece.rows.reset();
        return next;
      }
      // Targets for this worker to compute, [begin, end): without a device longest first, else from the short end.
      std::size_t begin = 0, end = 0;
      if (finished_ && front_ < back_) {
        begin = front_;
        end = front_ = std::min(back_, front_ + group_width_);
      } else if (mode_ == Mode::kShared && !finished_ && back_ > done_) {
        end = back_;
        begin = back_ = back_ - std::min(group_width_, back_ - done_);
        // Every target taken, the last of them out of the device's hands: its list is of no more use.
        if (back_ == done_) filters_.call_off_parsers(true);
      }
      if (end - begin == 1) return {begin, std::nullopt, nullptr};
      if (end > begin) return compute_group(lock, begin, end);
      if (finished_ && computing_ == 0) throw std::logic_error("ParserShare::next: called more times than targets");
      changed_.wait(lock);
    }
  }

  void finish() {
    finish_quietly();
    if (error_) std::rethrow_exception(error_);
  }
  double device_seconds() const { return seconds_; }  // the producer's time, from start to its last list

 private:
  // A list the device computed, from the run's target `begin` on; `unread` of its targets (those the workers had not
  // taken themselves) are still to be handed out, and its rows are dropped with the last of them.
  struct Piece {
    std::size_t begin;
    std::shared_ptr<const cudp::hmmer::ParserRowsBatch> rows;
    std::size_t unread;
  };
  // Targets [begin, end) computed by the calling worker with `lock` released; it keeps the first, the others' rows
  // are handed out next.
  Next compute_group(std::unique_lock<std::mutex>& lock, std::size_t begin, std::size_t end) {
    ++computing_;
    lock.unlock();
    std::shared_ptr<cudp::hmmer::ParserRowsBatch> rows;
    try {
      rows = parsers_for_group(begin, end);
    } catch (...) {
      lock.lock();
      --computing_;
      changed_.notify_all();
      throw;
    }
    lock.lock();
    --computing_;
    for (std::size_t j = begin + 1; j < end; ++j) {
      ready_.push_back(j);
      piece_of_ready_.push_back(pieces_.size());
    }
    pieces_.push_back(Piece{begin, rows, end - begin - 1});
    changed_.notify_all();
    return Next{begin, rows->at(0), rows};
  }

  std::shared_ptr<cudp::hmmer::ParserRowsBatch> parsers_for_group(std::size_t begin, std::size_t end) const {
    namespace hmmer = cudp::hmmer;
    auto rows = std::make_shared<hmmer::ParserRowsBatch>();
    std::uint64_t total = 0;
    for (std::size_t j = begin; j < end; ++j) {
      rows->first_row.push_back(total);
      total += db_.length(targets_[j]) + 1;
    }
    rows->forward.assign(total * hmmer::kSpecialCount, 0.0f);
    rows->backward.assign(total * hmmer::kSpecialCount, 0.0f);
    hmmer::ParserGroupTarget group[hmmer::kParserGroupSize];
    std::size_t of_group[hmmer::kParserGroupSize];
    int count = 0;
    for (std::size_t j = begin; j < end; ++j) {
      const std::size_t i = targets_[j];
      if (db_.length(i) == 0) continue;  // before_envelopes reads no rows of an empty target
      const std::uint64_t at = rows->first_row[j - begin] * hmmer::kSpecialCount;
      group[count] = {db_.data(i), static_cast<int>(db_.length(i)), rows->forward.data() + at,
                      rows->backward.data() + at, false};
      of_group[count++] = j - begin;
    }
    hmmer::parsers_for_group(om_, group, count);
    rows->backward_own_scales.assign(end - begin, 0);
    for (int t = 0; t < count; ++t) rows->backward_own_scales[of_group[t]] = group[t].backward_own_scales ? 1 : 0;
    return rows;
  }

  // At most this many residues a list, so that a list's rows (48 bytes a residue) stay a few hundred megabytes.
  static constexpr std::uint64_t kMostResidues = std::uint64_t{1} << 23;

  void produce(const cudp::hmmer::StripedOddsProfile& om) {
    const auto start = std::chrono::steady_clock::now();
    bool computed_any = false;
    try {
      const cudp::hmmer::OddsTables tables = om.tables();  // here, off the workers' way
      const std::size_t at_once = filters_.parsers_at_once(tables);
      std::vector<std::uint32_t> ids;
      while (at_once > 0) {
        std::size_t begin = 0, end = 0;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          if (stop_ || front_ >= back_) break;
          begin = end = front_;
          for (std::uint64_t residues = 0; end < back_ && end - begin < at_once &&
                                           (end == begin || residues + db_.length(targets_[end]) <= kMostResidues);
               ++end)
            residues += db_.length(targets_[end]);
          front_ = end;
        }
        ids.assign(targets_.begin() + static_cast<std::ptrdiff_t>(begin),
                   targets_.begin() + static_cast<std::ptrdiff_t>(end));
        auto rows = std::make_shared<cudp::hmmer::ParserRowsBatch>();
        const bool computed = filters_.parsers(tables, ids, *rows);
        std::lock_guard<std::mutex> lock(mutex_);
        if (!computed) {  // called off, or the model is not the device's: what the workers have not taken is theirs
          front_ = begin;
          break;
        }
        computed_any = true;
        const std::size_t unread = std::min(end, back_) - begin;
        for (std::size_t j = begin; j < begin + unread; ++j) {
          ready_.push_back(j);
          piece_of_ready_.push_back(pieces_.size());
        }
        pieces_.push_back(Piece{begin, unread > 0 ? std::move(rows) : nullptr, unread});
        done_ = end;
        changed_.notify_all();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
      front_ = done_;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (computed_any) seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    finished_ = true;
    changed_.notify_all();
  }

  void finish_quietly() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    if (!producer_.joinable()) return;
    filters_.call_off_parsers(true);  // a list still under way is no one's now
    producer_.join();
  }

  Filters& filters_;
  const cudp::hmmer::StripedOddsProfile& om_;
  const cudp::io::SequenceSet& db_;
  const std::vector<std::uint32_t>& targets_;
  Mode mode_;
  // The device has taken [0, front_) and is done with [0, done_); the workers have taken [back_, size()) and
  // computed those themselves (back_ may pass below front_, into the list the device has in hand).
  std::size_t front_ = 0, done_ = 0, back_;
  std::size_t group_width_;  // how many targets a worker computes at once
  std::size_t computing_ = 0;  // groups being computed by workers, whose rows are still to come
  std::deque<std::size_t> ready_, piece_of_ready_;  // targets with rows (the device's or a group's), not handed out
  std::vector<Piece> pieces_;
  bool finished_ = false, stop_ = false;
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

// The MSV filter's results of the targets that may pass it: the device sets the others aside where it runs, the
// host's filters give every target's and the certain failures are dropped here.
cudp::hmmer::FilterSurvivors msv_survivors(DeviceFilters& filters, const Plan7Pipeline& pipeline,
                                           const cudp::io::SequenceSet&) {
  return filters.msv(MsvRequest{&pipeline.msv_profile(), pipeline.msv_test()});
}
#if CUDP_HAS_SSE_LANES
cudp::hmmer::FilterSurvivors msv_survivors(HostFilters& filters, const Plan7Pipeline& pipeline,
                                           const cudp::io::SequenceSet& db) {
  return cudp::hmmer::keep_may_pass(filters.msv(pipeline.msv_profile()), [&](std::size_t i) { return db.length(i); },
                                    pipeline.msv_test());
}
#endif

}  // namespace

// A model's search between its filters (MSV, bias, Viterbi) and its later stages (Forward, domains): the targets
// that go on, and what the later stages read.
class FilteredSearch {
 public:
  FilteredSearch(int threads, std::size_t targets, bool count_per_target)
      : workers(threads), passed(count_per_target ? targets : 0, std::array<std::uint8_t, 4>{}), filter_nats(targets) {}
  std::vector<std::array<std::uint8_t, 4>>* record() { return passed.empty() ? nullptr : &passed; }

  Workers workers;  // their counts and hits so far
  std::vector<std::array<std::uint8_t, 4>> passed;
  // By target, read only for the targets that pass the MSV stage.
  FilterNats filter_nats;
  std::vector<std::uint32_t> survivors;  // the targets that go on to the Forward stage, in database order
  Plan7PipelineCounts set_aside;         // the targets the device's MSV filter set aside
};

void FilteredSearchDeleter::operator()(FilteredSearch* f) const { delete f; }

namespace {

// The filters over whole target lists (MSV for all, Viterbi for those that need it: on the GPU or on host
// threads) and the pipeline's decisions on the search's host workers.
template <class Filters>
FilteredSearchPtr filter_stages(const Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db, Filters& filters,
                                int threads, std::atomic<std::uint64_t>* progress, bool count_per_target,
                                const cudp::hmmer::FilterSurvivors* msv_given) {
  const std::size_t n = db.size();
  FilteredSearchPtr state(new FilteredSearch(threads, n, count_per_target));
  std::vector<std::array<std::uint8_t, 4>>* record = state->record();
  Workers& workers = state->workers;
  FilterNats& filter_nats = state->filter_nats;
  StageTimes& times = StageTimes::global();
  auto t = StageTimes::clock::now();

  // Stage 1-2: the MSV filter for every target, which hands back the few that may pass it (on the GPU the certain
  // failures are set aside there); the decisions and the bias filter of those on the host.
  cudp::hmmer::FilterSurvivors msv_computed;
  if (msv_given == nullptr) msv_computed = msv_survivors(filters, pipeline, db);
  const cudp::hmmer::FilterSurvivors& msv = msv_given != nullptr ? *msv_given : msv_computed;
  t = times.add("msv filter", t);
  const std::size_t s = msv.size();
  if (msv.results.size() != s || (s > 0 && msv.positions.back() >= n))
    throw std::logic_error("the MSV filter returned results that do not fit the database");
  enum : std::uint8_t { kRejected = 0, kViterbi = 1, kForward = 2 };
  // The decisions are cheap but for the bias filter, whose targets clump where a database holds a family's members
  // side by side (the hit-rich benchmark's 900 planted samples: with runs of 2048 targets one thread took all of
  // them, 35 ms of a 0.23 s search on 16 cores); runs of 16 spread a clump over the threads.
  constexpr std::size_t kDecisionGrain = 16;
  std::vector<std::uint8_t> stage(s, kRejected);  // by survivor
  // The bias filter's sums on the GPU where it runs (certain ones only are taken), else on the workers.
  std::vector<cudp::hmmer::BiasSum> bias;
  if (pipeline.options().bias_filter && s > 0) {
    bias = filters.bias(pipeline.bias_filter().model(), msv.positions);
    if (!bias.empty() && bias.size() != s)
      throw std::logic_error("the bias filter returned a result count unlike the request's");
    if (!bias.empty()) t = times.add("bias filter on the GPU", t);
  }
  workers.run(
      s,
      [&](Worker& w, std::size_t j) {
        const std::size_t i = msv.positions[j];
        const PassRecorder recorder(record, w.counts, i);
        const auto r = pipeline.after_msv(db.data(i), db.length(i), msv.results[j], w.counts, w.workspace,
                                          bias.empty() ? nullptr : &bias[j]);
        filter_nats[i] = r.filter_nats;
        stage[j] = !r.passed ? kRejected : r.run_viterbi ? kViterbi : kForward;
      },
      kDecisionGrain);
  // The targets set aside count as targets and residues, as after_msv counts them.
  cudp::hmmer::Plan7PipelineCounts& set_aside = state->set_aside;
  set_aside.targets = n - s;
  set_aside.residues = db.offsets[n] - db.offsets[0];
  for (const std::uint32_t i : msv.positions) set_aside.residues -= db.length(i);
  if (progress != nullptr) progress->fetch_add(n, std::memory_order_relaxed);
  t = times.add(bias.empty() ? "msv decisions + bias" : "msv decisions", t);

  // Stage 3: the Viterbi filter on the device for the targets that need it.
  std::vector<std::uint32_t> viterbi_targets;
  std::vector<std::uint32_t> viterbi_survivors;  // their places among the survivors
  for (std::size_t j = 0; j < s; ++j) {
    if (stage[j] == kViterbi) {
      viterbi_targets.push_back(msv.positions[j]);
      viterbi_survivors.push_back(static_cast<std::uint32_t>(j));
    }
  }
  if (!viterbi_targets.empty()) {
    const std::vector<cudp::hmmer::FilterResult> vit = filters.viterbi(pipeline.viterbi_profile(), viterbi_targets);
    if (vit.size() != viterbi_targets.size())
      throw std::logic_error("DeviceFilters::viterbi returned a result count unlike the request's");
    t = times.add("viterbi filter", t);
    workers.run(viterbi_targets.size(), [&](Worker& w, std::size_t j) {
      const std::size_t i = viterbi_targets[j];
      const PassRecorder recorder(record, w.counts, i);
      stage[viterbi_survivors[j]] =
          pipeline.after_viterbi(db.length(i), vit[j], filter_nats[i], w.counts) ? kForward : kRejected;
    }, 256);
  }
  t = times.add("viterbi decisions", t);

  for (std::size_t j = 0; j < s; ++j)
    if (stage[j] == kForward) state->survivors.push_back(msv.positions[j]);
  return state;
}

// Forward and everything after it, for the targets that passed the filters.
template <class Filters>
SearchOutcome later_stages(const Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db, Filters& filters,
                           FilteredSearch& state) {
  std::vector<std::array<std::uint8_t, 4>>* record = state.record();
  Workers& workers = state.workers;
  const FilterNats& filter_nats = state.filter_nats;
  StageTimes& times = StageTimes::global();
  auto t = StageTimes::clock::now();

  // Stage 4: Forward on the device sets aside the targets that clearly fail F3; the host pipeline computes Forward
  // again for the rest and makes the decision, so the device's float rounding cannot change an answer.
  std::vector<std::uint32_t> survivors = clear_forward_failures(pipeline, filters, state.survivors, filter_nats);
  t = times.add("forward pre-filter", t);

  // Then, longest targets first, in runs of at most kPendingResidues residues (one run but in the largest searches,
  // --max: a target keeps a null2 score per residue between the phases):
  //   1. Forward, Backward and domain definition up to the envelopes on the host's workers, the Forward and
  //      Backward parsers shared with the device, the device from the long end and the workers from the short one
  //      (ParserShare);
  //   2. every target's envelopes, the device and the workers meeting in the middle (EnvelopeShare);
  //   3. the domains' ends and the reported scores.
  std::stable_sort(survivors.begin(), survivors.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return db.length(a) > db.length(b); });
  const auto parser_mode = ParserShare<Filters>::mode_from_environment();
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
      ParserShare<Filters> share(filters, pipeline.odds_profile(), db, run, parser_mode);
      workers.run(run.size(), [&](Worker& w, std::size_t) {
        const auto next = share.next();
        const std::size_t i = run[next.j];
        const PassRecorder recorder(record, w.counts, i);
        pending[next.j] = pipeline.before_envelopes(db.data(i), db.length(i), filter_nats[i], w.counts, w.workspace,
                                                    next.parsed());
      });
      share.finish();
      if (share.device_seconds() > 0) times.add_seconds("  device parsers, beside the workers", share.device_seconds());
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
  outcome.counts.merge(state.set_aside);
  outcome.passed = std::move(state.passed);
  return outcome;
}

// The whole search of one model: its filters, then its later stages, on `threads` host workers.
template <class Filters>
SearchOutcome staged_search(const Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db, Filters& filters,
                            int threads, std::atomic<std::uint64_t>* progress, bool count_per_target,
                            const cudp::hmmer::FilterSurvivors* msv_given = nullptr) {
  const FilteredSearchPtr state =
      filter_stages(pipeline, db, filters, threads, progress, count_per_target, msv_given);
  return later_stages(pipeline, db, filters, *state);
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
                                 bool count_per_target, const cudp::hmmer::FilterSurvivors* msv) {
  return staged_search(pipeline, db, filters, threads, progress, count_per_target, msv);
}

FilteredSearchPtr filter_with_device(const Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db,
                                     DeviceFilters& filters, int threads, std::atomic<std::uint64_t>* progress,
                                     const cudp::hmmer::FilterSurvivors* msv) {
  return filter_stages(pipeline, db, filters, threads, progress, false, msv);
}

SearchOutcome finish_with_device(const Plan7Pipeline& pipeline, const cudp::io::SequenceSet& db,
                                 DeviceFilters& filters, FilteredSearch& filtered) {
  return later_stages(pipeline, db, filters, filtered);
}

}  // namespace hmmsearch
