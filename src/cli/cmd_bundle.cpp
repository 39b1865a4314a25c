// strata bundle create --out DIR|FILE.tar [--mirror FILE] [--lock FILE]… [--toolchains FILE]
// strata bundle load BUNDLE[@sha256:…] [--dest REF] [--locks-out DIR]
#include <iostream>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "cli/toolchain_entries.hpp"
#include "layer/bundle/bundle_create.hpp"
#include "layer/bundle/bundle_load.hpp"
#include "oci/http/offline_transport.hpp"
#include "oci/manifest.hpp"
#include "util/clock.hpp"
#include "util/strings.hpp"
#include "util/terminal_text.hpp"

namespace strata::cli {
namespace {

struct CreateArgs {
  std::string out, mirror, toolchains;
  std::vector<std::string> locks;
  bool referrers = false;
};

struct LoadArgs {
  std::string bundle, dest, locks_out;
};

void run_create(const GlobalOptions& g, const CreateArgs& a, oci::http::Transport& http) {
  layer::BundleCreateRequest r;
  r.out = layer::bundle_out_path(a.out);
  r.mirror = a.mirror;
  for (const auto& l : a.locks) r.locks.emplace_back(l);
  r.open = oci::with_shared_registries(g.open_options());
  r.home = r.open.home;
  r.copy.jobs = g.jobs;
  r.copy.referrers = a.referrers;
  r.offline = g.offline;
  if (!a.toolchains.empty()) {
    auto entries = check(layer::load_bundle_toolchains(a.toolchains));
    for (auto& e : check(toolchain_requests(entries, {}))) r.toolchains.push_back({e.where, std::move(e.request)});
  }
  CopyProgress progress(g);
  r.copy.observer = &progress;
  oci::http::OfflineTransport none;  // --offline: the .debs come from the cache or not at all
  auto report = check(layer::create_bundle(r, g.offline ? static_cast<oci::http::Transport&>(none) : http,
                                           system_clock()));
  progress.finish();
  const auto& c = report.contents;
  if (g.json) {
    nlohmann::ordered_json j;
    j["out"] = r.out.string();
    j["digest"] = report.index.digest.str();
    j["sha256"] = report.tar ? nlohmann::ordered_json(report.sha256) : nlohmann::ordered_json(nullptr);
    j["bytes"] = report.blob_bytes;
    j["images"] = nlohmann::ordered_json::array();
    for (const auto& i : c.images)
      j["images"].push_back({{"name", i.name}, {"source", i.source}, {"digest", i.root.digest.str()}});
    j["referrers"] = c.referrers.size();
    j["locks"] = nlohmann::ordered_json::array();
    for (const auto& l : c.locks) j["locks"].push_back({{"name", l.name}, {"platform", l.platform}});
    j["debs"] = c.debs.size();
    j["debs_downloaded"] = report.fetch.downloaded;
    j["toolchains"] = nlohmann::ordered_json::array();
    for (const auto& t : c.toolchains)
      j["toolchains"].push_back({{"tool", t.tool}, {"version", t.version}, {"arch", t.arch}, {"source", t.source},
                                 {"digest", t.manifest.digest.str()}});
    j["toolchain_bytes_downloaded"] = report.toolchain_downloaded;
    std::cout << oci::dump_json(j, 2) << "\n";
    return;
  }
  log_info(g, std::to_string(c.images.size()) + " images" +
                  (c.referrers.empty() ? "" : " (" + std::to_string(c.referrers.size()) + " referrers)") + ", " +
                  std::to_string(c.locks.size()) + " locks, " +
                  std::to_string(c.debs.size()) + " .debs (" + std::to_string(report.fetch.downloaded) +
                  " downloaded first), " + std::to_string(c.toolchains.size()) + " toolchains, " +
                  str::human_bytes(report.blob_bytes));
  if (report.tar) std::cout << report.sha256 << "  " << r.out.string() << "\n";
  std::cout << r.out.string() << "@" << report.index.digest.str() << "\n";
}

void run_load(const GlobalOptions& g, const LoadArgs& a) {
  layer::BundleLoadRequest r;
  auto ref = check(layer::parse_bundle_ref(a.bundle));
  r.bundle = ref.path;
  r.expect_index = ref.index;
  r.dest = a.dest;
  r.locks_out = a.locks_out;
  r.open = oci::with_shared_registries(g.open_options());
  r.home = r.open.home;
  r.copy.jobs = g.jobs;
  CopyProgress progress(g);
  r.copy.observer = &progress;
  auto report = check(layer::load_bundle(r));
  progress.finish();
  if (g.json) {
    nlohmann::ordered_json j;
    j["bundle"] = a.bundle;
    j["digest"] = report.index.digest.str();
    j["images"] = nlohmann::ordered_json::array();
    for (const auto& i : report.images)
      j["images"].push_back({{"name", i.image.name},
                             {"destination", i.destination},
                             {"digest", i.image.root.digest.str()},
                             {"alreadyPresent", i.already_present}});
    j["referrers"] = {{"loaded", report.referrers}, {"left", report.referrers_left}};
    j["debs"] = {{"seeded", report.debs_seeded}, {"present", report.debs_present}, {"bytes", report.deb_bytes}};
    j["locks"] = nlohmann::ordered_json::array();
    for (const auto& l : report.locks) j["locks"].push_back({{"name", l.name}, {"platform", l.platform}});
    j["locks_written"] = nlohmann::ordered_json::array();
    for (const auto& p : report.locks_written) j["locks_written"].push_back(p.string());
    const auto& t = report.toolchains;
    j["toolchains"] = {{"releases", nlohmann::ordered_json::array()},
                       {"archives_seeded", t.archives_seeded},
                       {"archives_present", t.archives_present},
                       {"bytes", t.bytes}};
    for (const auto& rel : t.releases)
      j["toolchains"]["releases"].push_back(
          {{"tool", rel.tool}, {"version", rel.version}, {"arch", rel.arch}, {"source", rel.source.describe()}});
    std::cout << oci::dump_json(j, 2) << "\n";
    return;
  }
  for (const auto& i : report.images) {
    std::string dest = i.destination;
    // As `strata copy` prints it: the reference without its tag's digest, then @digest.
    if (auto at = dest.find('@');
        at != std::string::npos && (dest.starts_with("docker://") || dest.starts_with("containerd:"))) {
      dest = dest.substr(0, at);
    }
    // The names are the bundle's, which arrived from elsewhere: terminal_safe.
    std::cout << terminal_safe(i.image.name) << " " << terminal_safe(dest) << "@" << i.image.root.digest.str() << "\n";
  }
  std::string referrers;
  if (report.referrers) referrers = " (" + std::to_string(report.referrers) + " referrers)";
  if (report.referrers_left)
    referrers += " (" + std::to_string(report.referrers_left) + " referrers left out: the destination keeps none)";
  log_info(g, std::to_string(report.images.size()) + " images" + referrers + ", " + std::to_string(report.debs_seeded) +
                  " .debs seeded (" + std::to_string(report.debs_present) + " already cached), " +
                  std::to_string(report.locks.size()) + " locks checked, " +
                  std::to_string(report.toolchains.releases.size()) + " toolchains (" +
                  std::to_string(report.toolchains.archives_seeded) + " archives seeded, " +
                  std::to_string(report.toolchains.archives_present) + " already cached)" +
                  (a.locks_out.empty() ? "" : ", " + std::to_string(report.locks_written.size()) + " written to " +
                                                  a.locks_out));
}

}  // namespace

void register_bundle(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto* bundle = add_command(app, "bundle",
                             "One verified, reproducible bundle of images, locks and their .debs, to carry across "
                             "an air gap",
                             "");
  bundle->require_subcommand(1);

  auto ca = std::make_shared<CreateArgs>();
  auto* create = add_command(
      *bundle, "create",
      "Write the images a mirror config names, the locks and every .deb they name, and toolchain releases, into one OCI layout (or a "
      "deterministic tar of one, for an --out ending in .tar); the same inputs give the same bytes",
      "  strata bundle create --out site.tar --mirror mirror.yaml --lock overlay.lock\n"
      "  strata bundle create --lock amd64.lock --lock arm64.lock --out debs-only/\n"
      "  strata --offline bundle create --out site.tar --lock overlay.lock   # .debs from the cache only\n"
      "  strata bundle create --out site.tar --toolchains toolchains.yaml   # node, go… for --offline installs\n");
  create->add_option("--out", ca->out, "The bundle to write: a new directory, or FILE.tar")->required();
  create->add_option("--mirror", ca->mirror, "Mirror config (strata mirror's YAML) naming the images")
      ->check(CLI::ExistingFile);
  create->add_option("--lock", ca->locks, "A lock whose .debs the bundle carries (repeatable)")
      ->check(CLI::ExistingFile);
  create->add_flag("--referrers", ca->referrers,
                   "Also carry the manifests that refer to each image and its platforms (the SBOMs and "
                   "provenance strata attaches, signatures); a load puts them beside the images");
  create->add_option("--toolchains", ca->toolchains,
                     "YAML naming toolchain releases to carry (toolchains: [{tool, version, source?, keyring?, "
                     "platforms?}]); each is resolved, downloaded and verified first")
      ->check(CLI::ExistingFile);
  create->callback([&g, ca, http] { run_create(g, *ca, *http); });

  auto la = std::make_shared<LoadArgs>();
  auto* load = add_command(
      *bundle, "load",
      "Verify a bundle, push its images (to their own names, a registry or a layout) and seed the .deb and "
      "toolchain caches; "
      "re-running is a no-op, and a killed load is finished by the next",
      "  strata bundle load site.tar --dest docker://registry.internal:5000\n"
      "  strata bundle load site.tar --dest oci:/srv/images --locks-out /srv/locks\n"
      "  strata bundle load site/    # each image to the name its mirror entry gave it\n"
      "  strata bundle load site.tar@sha256:4f2c…   # only the bundle create printed\n");
  load->add_option("bundle", la->bundle,
                   "The bundle: a directory or .tar that bundle create wrote; @sha256:… pins the index it printed")
      ->required();
  load->add_option("--dest", la->dest,
                   "Where the images go: docker://HOST[/PREFIX] (repositories and tags kept) or oci:DIR "
                   "(tagged with their full names); default: each image's own name");
  load->add_option("--locks-out", la->locks_out, "Also write the bundle's locks into this directory");
  load->callback([&g, la] { run_load(g, *la); });
}

}  // namespace strata::cli
