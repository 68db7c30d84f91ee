#pragma once
// Where the setup of a database on a GPU goes: the scorer's own preparation (its tuning, streams and events),
// sorting the targets by length, packing them into tasks, and the upload (pinning, for a streamed database). Host
// wall seconds.

namespace cudp::engine {

struct DatabaseSetupTimes {
  double prepare = 0;
  double sort = 0;
  double pack = 0;
  double upload = 0;

  // The slower of two setups, phase by phase (GPUs set up side by side).
  DatabaseSetupTimes& keep_slowest(const DatabaseSetupTimes& other) {
    prepare = prepare > other.prepare ? prepare : other.prepare;
    sort = sort > other.sort ? sort : other.sort;
    pack = pack > other.pack ? pack : other.pack;
    upload = upload > other.upload ? upload : other.upload;
    return *this;
  }
};

}  // namespace cudp::engine
