#include "oci/mirror_journal.hpp"

#include <fcntl.h>

#include <map>

#include "oci/manifest.hpp"
#include "util/clock.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::oci {

nlohmann::ordered_json mirror_outcome_json(const MirrorOutcome& o, bool dry_run) {
  nlohmann::ordered_json j;
  j["source"] = o.entry.source;
  j["destination"] = o.entry.destination;
  j["status"] = std::string(mirror_status_name(o.status()));
  if (!o.result) {
    if (o.status() == MirrorStatus::kFailed) j["error"] = o.result.error().message();
    return j;
  }
  j["digest"] = o.result->root.digest.str();
  j["alreadyPresent"] = o.result->already_present;
  j["dryRun"] = dry_run;
  if (o.estimate) {
    j["blobs"] = o.estimate->blobs;
    j["blobsMissing"] = o.estimate->blobs_missing;
    j["blobsMounted"] = o.estimate->blobs_mounted;
    j["bytesToCopy"] = o.estimate->bytes_missing;
  } else {
    j["blobsCopied"] = o.result->blobs_copied;
    j["blobsSkipped"] = o.result->blobs_skipped;
    j["blobsMounted"] = o.result->blobs_mounted;
    j["bytesCopied"] = o.result->bytes_copied;
  }
  return j;
}

Result<std::unique_ptr<MirrorJournal>> MirrorJournal::open(const std::filesystem::path& path) {
  STRATA_TRY(int fd, with_context(fs::open_for_write(path, O_WRONLY | O_CREAT | O_APPEND), "--journal"));
  return std::unique_ptr<MirrorJournal>(new MirrorJournal(path, fd));
}

MirrorJournal::~MirrorJournal() {
  // Every record went out whole in its own write(2) (append); the file is
  // opened O_APPEND and never fsynced, so close has nothing left to report.
  if (fd_ >= 0) (void)fs::close_file(fd_, path_);
}

void MirrorJournal::append(const nlohmann::ordered_json& record) {
  const std::string line = dump_json(record) + "\n";
  std::lock_guard lock(mu_);
  // One write per line: O_APPEND keeps lines whole even beside another writer.
  auto written = fs::write_all(fd_, std::as_bytes(std::span(line.data(), line.size())), path_);
  if (written) written = fs::sync_file(fd_, path_);
  if (!written && !error_) error_ = written.error().context("--journal");
}

void MirrorJournal::start(std::size_t images, bool dry_run) {
  dry_run_ = dry_run;
  nlohmann::ordered_json j;
  j["event"] = "start";
  j["images"] = images;
  j["dryRun"] = dry_run;
  j["time"] = str::rfc3339(system_clock().now());
  append(j);
}

void MirrorJournal::image(const MirrorOutcome& outcome) {
  nlohmann::ordered_json j;
  j["event"] = "image";
  const auto fields = mirror_outcome_json(outcome, dry_run_);
  for (auto it = fields.begin(); it != fields.end(); ++it) j[it.key()] = *it;
  append(j);
}

void MirrorJournal::end(const std::vector<MirrorOutcome>& outcomes) {
  std::map<MirrorStatus, std::size_t> counts;
  for (const auto& o : outcomes) ++counts[o.status()];
  nlohmann::ordered_json j;
  j["event"] = "end";
  j["copied"] = counts[MirrorStatus::kCopied];
  j["present"] = counts[MirrorStatus::kPresent];
  j["wouldCopy"] = counts[MirrorStatus::kWouldCopy];
  j["failed"] = counts[MirrorStatus::kFailed];
  j["notStarted"] = counts[MirrorStatus::kNotStarted];
  j["time"] = str::rfc3339(system_clock().now());
  append(j);
}

std::optional<Error> MirrorJournal::error() const {
  std::lock_guard lock(mu_);
  return error_;
}

}  // namespace strata::oci
