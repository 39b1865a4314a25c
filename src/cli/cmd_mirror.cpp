// strata mirror --config FILE [--dry-run] [--keep-going] [--journal FILE] [--referrers]
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "oci/mirror.hpp"
#include "oci/mirror_journal.hpp"
#include "util/strings.hpp"
#include "util/terminal_text.hpp"

namespace strata::cli {
namespace {

struct MirrorCmdOptions {
  std::string config;
  std::string journal;
  bool dry_run = false;
  bool keep_going = false;
  bool referrers = false;
};

// The destination as printed before "@digest": a docker:// or containerd:
// reference loses a digest it named (as `strata copy` prints it), so the
// line names the image once ("containerd:NAME@sha256:…", not "…@X@X").
std::string without_digest(const std::string& text) {
  auto ref = oci::parse_image_ref(text);
  auto at = text.find('@');
  if (ref && (ref->transport == oci::Transport::kDocker || ref->transport == oci::Transport::kContainerd) &&
      at != std::string::npos) {
    return text.substr(0, at);
  }
  return text;
}

// "10 images: 7 copied, 2 present, 1 failed; 12.0 MiB moved in 2.1 s"
// (then "; 2 listed tags skipped (not valid tags)" when a registry listed some).
std::string summary(const std::vector<oci::MirrorOutcome>& outcomes, bool dry_run, double seconds,
                    std::size_t skipped_tags) {
  std::map<oci::MirrorStatus, std::size_t> counts;
  std::uint64_t bytes = 0;
  for (const auto& o : outcomes) {
    ++counts[o.status()];
    if (o.estimate) bytes += o.estimate->bytes_missing;
    else if (o.result) bytes += o.result->bytes_copied;
  }
  std::string s = std::to_string(outcomes.size()) + (outcomes.size() == 1 ? " image" : " images");
  std::string parts;
  for (auto status : {oci::MirrorStatus::kCopied, oci::MirrorStatus::kWouldCopy, oci::MirrorStatus::kPresent,
                      oci::MirrorStatus::kFailed, oci::MirrorStatus::kNotStarted}) {
    if (counts[status] == 0) continue;
    std::string name(oci::mirror_status_name(status));
    for (auto& c : name)
      if (c == '-') c = ' ';
    parts += (parts.empty() ? "" : ", ") + std::to_string(counts[status]) + " " + name;
  }
  if (!parts.empty()) s += ": " + parts;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f s", seconds);
  s += dry_run ? "; " + str::human_bytes(bytes) + " would move" : "; " + str::human_bytes(bytes) + " moved in " + secs;
  if (skipped_tags > 0)
    s += "; " + std::to_string(skipped_tags) + (skipped_tags == 1 ? " listed tag" : " listed tags") +
         " skipped (not valid tags)";
  return s;
}

void run_mirror_cmd(const GlobalOptions& g, const MirrorCmdOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  auto config = check(oci::load_mirror_config(o.config));
  std::unique_ptr<oci::MirrorJournal> journal;
  if (!o.journal.empty()) journal = check(oci::MirrorJournal::open(o.journal));
  CopyProgress progress(g);
  oci::MirrorOptions mo;
  mo.dry_run = o.dry_run;
  mo.keep_going = o.keep_going;
  mo.copy.jobs = g.jobs;
  mo.copy.referrers = o.referrers;
  mo.copy.observer = &progress;
  mo.journal = journal.get();
  mo.open = oci::with_shared_registries(g.open_options());
  // A registry's tag list is its bytes: a tag that breaks the grammar is
  // skipped (never matched against a pattern), said once per repository
  // with the first of them quoted and cut, and counted on the summary.
  std::size_t skipped_tags = 0;
  mo.on_skipped_tags = [&](const oci::MirrorRepository& repo, const std::vector<std::string>& tags) {
    skipped_tags += tags.size();
    log_info(g, "strata: warning: " + repo.where + ": " + repo.source + " lists " + std::to_string(tags.size()) +
                    (tags.size() == 1 ? " tag that is not a valid tag" : " tags that are not valid tags") + " (" +
                    str::quote(tags.front(), 60) + (tags.size() > 1 ? ", …" : "") +
                    "); skipped: a tag is [A-Za-z0-9_][A-Za-z0-9._-]{0,127}");
  };
  mo.on_planned = [&](const std::vector<oci::MirrorOutcome>& planned) { progress.images_planned(planned.size()); };
  mo.on_done = [&](const oci::MirrorOutcome& out) {
    progress.finish();  // the progress line goes before anything is printed
    progress.image_done();
    if (!out.result) {
      std::cerr << "strata: " << terminal_safe(out.result.error().message()) << "\n";
      return;
    }
    if (g.json) return;
    const auto& e = out.entry;
    // Tags a repository's expansion found come from the registry: terminal_safe.
    std::cout << terminal_safe(e.source) << " " << terminal_safe(without_digest(e.destination)) << "@"
              << out.result->root.digest.str();
    if (out.estimate) {
      std::cout << (out.estimate->already_present ? " present" : " would-copy " + str::human_bytes(out.estimate->bytes_missing));
    }
    std::cout << "\n";
    std::cout.flush();
  };
  auto outcomes = oci::run_mirror(config, mo);
  progress.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (g.json) {
    nlohmann::ordered_json json = nlohmann::ordered_json::array();
    for (const auto& out : outcomes) json.push_back(oci::mirror_outcome_json(out, o.dry_run));
    std::cout << oci::dump_json(json, 2) << "\n";
  }
  log_info(g, "mirror: " + summary(outcomes, o.dry_run, seconds, skipped_tags));
  std::size_t failed = 0, not_run = 0;
  for (const auto& out : outcomes) {
    if (out.status() == oci::MirrorStatus::kFailed) ++failed;
    if (out.status() == oci::MirrorStatus::kNotStarted) ++not_run;
  }
  if (failed > 0) {
    throw Exit{kExitFailure, std::to_string(failed) + " of " + std::to_string(outcomes.size()) + " images failed" +
                                 (not_run > 0 ? ", " + std::to_string(not_run) + " not started" : "") +
                                 (o.keep_going ? "" : " (pass --keep-going to continue past failures)")};
  }
  if (journal && journal->error()) throw Exit{kExitFailure, journal->error()->message()};
}

}  // namespace

void register_mirror(CLI::App& app, GlobalOptions& g) {
  auto o = std::make_shared<MirrorCmdOptions>();
  auto* cmd = add_command(app, "mirror", "Copy many images or whole repositories listed in a YAML file (sync, seeding, air gaps)",
                          "  strata mirror --config mirror.yaml\n"
                          "  strata mirror --config mirror.yaml --dry-run\n"
                          "  strata mirror --config mirror.yaml --keep-going --jobs 8 --journal run.ndjson\n"
                          "\nmirror.yaml:\n"
                          "  parallel: 2\n"
                          "  registries:\n"
                          "    registry.a:5000: {tls-verify: false, retries: 3, timeout: 30}\n"
                          "  images:\n"
                          "    - source: docker://registry.a/team/app:v1\n"
                          "      destination: docker://registry.b/team/app:v1\n"
                          "    - source: docker://registry.a/team/base:12\n"
                          "      destination: oci:/srv/mirror:base-12\n"
                          "      all: true\n"
                          "  repositories:\n"
                          "    - source: docker://registry.a/team/tool\n"
                          "      destination: docker://registry.b/mirror\n"
                          "      tags: {semver: '>=1.2 <2', newest: 3, exclude: ['-rc']}\n");
  cmd->add_option("--config", o->config, "The mirror YAML file")->required();
  cmd->add_flag("--dry-run", o->dry_run,
                "Resolve the sources and ask the destinations: what is present, how many bytes would move");
  cmd->add_flag("--keep-going", o->keep_going, "Continue past failures; exit 1 at the end if any failed");
  cmd->add_option("--journal", o->journal, "Append one NDJSON line per image as it finishes (fsync'd)");
  cmd->add_flag("--referrers", o->referrers, "Also copy manifests that refer to each image");
  cmd->callback([&g, o] { run_mirror_cmd(g, *o); });
}

}  // namespace strata::cli
