// MirrorJournal: `strata mirror --journal FILE`, an NDJSON record of a run
// that survives the run being killed. Each line is one JSON object, written
// with one append and fsync'd before the run goes on:
//   {"event":"start","images":N,"dryRun":false,"time":"…"}
//   {"event":"image", …mirror_outcome_json…}   as each image finishes or fails
//   {"event":"image", …"status":"not-started"}  at the end, for those never begun
//   {"event":"end","copied":…,"present":…,"wouldCopy":…,"failed":…,"notStarted":…}
// A killed run has no "end" line; the images it finished have their lines.
// Runs append to the same file one after another.
//
// Thread-safe. A write that fails is remembered (error()) and the run goes
// on: the journal is a record of the run, not part of the copy.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "oci/mirror.hpp"

namespace strata::oci {

// One image's outcome as `mirror --json` and the journal write it:
// source, destination, status, and digest, alreadyPresent, dryRun, the blob
// and byte counts, or error.
nlohmann::ordered_json mirror_outcome_json(const MirrorOutcome& outcome, bool dry_run);

class MirrorJournal {
 public:
  static Result<std::unique_ptr<MirrorJournal>> open(const std::filesystem::path& path);
  ~MirrorJournal();
  MirrorJournal(const MirrorJournal&) = delete;
  MirrorJournal& operator=(const MirrorJournal&) = delete;

  void start(std::size_t images, bool dry_run);
  void image(const MirrorOutcome& outcome);
  void end(const std::vector<MirrorOutcome>& outcomes);
  // The first write that failed, naming the file.
  std::optional<Error> error() const;

 private:
  MirrorJournal(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  void append(const nlohmann::ordered_json& record);

  std::filesystem::path path_;
  int fd_;
  bool dry_run_ = false;
  mutable std::mutex mu_;
  std::optional<Error> error_;
};

}  // namespace strata::oci
