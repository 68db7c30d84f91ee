#pragma once
// A search's hits and pipeline counts as bytes (kit/byte_records.hpp), for the processes of an MPI run to hand their
// shard's results to the first, which merges them.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cudp/hmmer/plan7_pipeline.hpp>

#include "kit/byte_records.hpp"
#include "report.hpp"

namespace hmmsearch {

// `hits` and `counts` appended to `out`.
inline void put_results(std::string& out, const std::vector<Hit>& hits, const cudp::hmmer::Plan7PipelineCounts& counts) {
  cudp::apps::ByteWriter w(out);
  w.put(counts);
  w.put(static_cast<std::uint64_t>(hits.size()));
  for (const Hit& h : hits) {
    w.put(h.target);
    w.put(h.pre_bits);
    w.put(h.bits);
    w.put(h.lnP);
    w.put(h.expected_domains);
    for (const int n : {h.regions, h.clustered, h.overlaps, h.envelopes}) w.put(n);
    w.put(h.name);
    w.put(h.accession);
    w.put(h.description);
    w.put(h.length);
    w.put(static_cast<std::uint64_t>(h.domains.size()));
    for (const Domain& d : h.domains) {
      for (const int n : {d.env_from, d.env_to, d.ali_from, d.ali_to, d.hmm_from, d.hmm_to}) w.put(n);
      for (const float x : {d.env_nats, d.null2_nats, d.bits, d.bias_bits, d.mean_posterior}) w.put(x);
      w.put(d.lnP);
      w.put(static_cast<std::uint8_t>(d.alignment != nullptr));
      if (d.alignment) {
        w.put(d.alignment->model);
        w.put(d.alignment->match);
        w.put(d.alignment->target);
        w.put(d.alignment->posterior);
      }
    }
  }
}

// What put_results wrote, its hits appended to `hits` and its counts merged into `counts`.
inline void get_results(const std::string& in, std::vector<Hit>& hits, cudp::hmmer::Plan7PipelineCounts& counts) {
  cudp::apps::ByteReader r(in);
  cudp::hmmer::Plan7PipelineCounts theirs;
  r.get(theirs);
  counts.merge(theirs);
  std::uint64_t n = 0;
  r.get(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    Hit h;
    r.get(h.target);
    r.get(h.pre_bits);
    r.get(h.bits);
    r.get(h.lnP);
    r.get(h.expected_domains);
    for (int* field : {&h.regions, &h.clustered, &h.overlaps, &h.envelopes}) r.get(*field);
    r.get(h.name);
    r.get(h.accession);
    r.get(h.description);
    r.get(h.length);
    std::uint64_t domains = 0;
    r.get(domains);
    h.domains.resize(domains);
    for (Domain& d : h.domains) {
      for (int* field : {&d.env_from, &d.env_to, &d.ali_from, &d.ali_to, &d.hmm_from, &d.hmm_to}) r.get(*field);
      for (float* field : {&d.env_nats, &d.null2_nats, &d.bits, &d.bias_bits, &d.mean_posterior}) r.get(*field);
      r.get(d.lnP);
      std::uint8_t has_alignment = 0;
      r.get(has_alignment);
      if (has_alignment) {
        auto display = std::make_shared<cudp::hmmer::Plan7AlignmentDisplay>();
        r.get(display->model);
        r.get(display->match);
        r.get(display->target);
        r.get(display->posterior);
        d.alignment = std::move(display);
      }
    }
    hits.push_back(std::move(h));
  }
  if (!r.done()) throw std::runtime_error("internal error: a process's hits arrived with bytes to spare");
}

}  // namespace hmmsearch
