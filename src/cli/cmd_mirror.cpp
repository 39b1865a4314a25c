// strata mirror --config FILE [--dry-run] [--keep-going]
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "oci/mirror.hpp"

namespace strata::cli {
namespace {

struct MirrorCmdOptions {
  std::string config;
  bool dry_run = false;
  bool keep_going = false;
  bool referrers = false;
};

// The destination as printed before "@digest": a docker:// reference loses
// a digest it named (as `strata copy` prints it).
std::string without_digest(const std::string& text) {
  auto ref = oci::parse_image_ref(text);
  auto at = text.find('@');
  if (ref && ref->transport == oci::Transport::kDocker && at != std::string::npos) return text.substr(0, at);
  return text;
}

void run_mirror_cmd(const GlobalOptions& g, const MirrorCmdOptions& o) {
  auto config = check(oci::load_mirror_config(o.config));
  oci::MirrorOptions mo;
  mo.dry_run = o.dry_run;
  mo.keep_going = o.keep_going;
  mo.copy.jobs = g.jobs;
  mo.copy.referrers = o.referrers;
  mo.open = oci::with_shared_registries(g.open_options());
  mo.destination_tag = [](const oci::ImageRef& ref, const std::string& store_ref) { return destination_tag(ref, store_ref); };
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  mo.on_done = [&](const oci::MirrorOutcome& out) {
    const auto& e = *out.entry;
    if (!out.result) {
      if (!out.result.error().is(ErrorCode::kCancelled)) std::cerr << "strata: " << out.result.error().message() << "\n";
      if (g.json)
        json.push_back({{"source", e.source}, {"destination", e.destination}, {"error", out.result.error().message()}});
      return;
    }
    if (g.json) {
      json.push_back({{"source", e.source},
                      {"destination", e.destination},
                      {"digest", out.result->root.digest.str()},
                      {"alreadyPresent", out.result->already_present},
                      {"dryRun", o.dry_run}});
    } else {
      std::cout << e.source << " " << without_digest(e.destination) << "@" << out.result->root.digest.str() << "\n";
      std::cout.flush();
    }
  };
  auto outcomes = oci::run_mirror(config, mo);
  std::size_t failed = 0, not_run = 0;
  for (const auto& out : outcomes) {
    if (out.result) continue;
    if (out.result.error().is(ErrorCode::kCancelled)) ++not_run;
    else ++failed;
  }
  if (g.json) std::cout << oci::dump_json(json, 2) << "\n";
  if (failed > 0) {
    throw Exit{kExitFailure, std::to_string(failed) + " of " + std::to_string(outcomes.size()) + " images failed" +
                                 (not_run > 0 ? ", " + std::to_string(not_run) + " not started" : "") +
                                 (o.keep_going ? "" : " (pass --keep-going to continue past failures)")};
  }
}

}  // namespace

void register_mirror(CLI::App& app, GlobalOptions& g) {
  auto o = std::make_shared<MirrorCmdOptions>();
  auto* cmd = add_command(app, "mirror", "Copy many images listed in a YAML file (sync, seeding, air gaps)",
                          "  strata mirror --config mirror.yaml\n"
                          "  strata mirror --config mirror.yaml --dry-run\n"
                          "  strata mirror --config mirror.yaml --keep-going --jobs 8\n"
                          "\nmirror.yaml:\n"
                          "  parallel: 2\n"
                          "  images:\n"
                          "    - source: docker://registry.a/team/app:v1\n"
                          "      destination: docker://registry.b/team/app:v1\n"
                          "    - source: docker://registry.a/team/base:12\n"
                          "      destination: oci:/srv/mirror:base-12\n"
                          "      all: true\n");
  cmd->add_option("--config", o->config, "The mirror YAML file")->required();
  cmd->add_flag("--dry-run", o->dry_run, "Resolve the sources and print what would be copied");
  cmd->add_flag("--keep-going", o->keep_going, "Continue past failures; exit 1 at the end if any failed");
  cmd->add_flag("--referrers", o->referrers, "Also copy manifests that refer to each image");
  cmd->callback([&g, o] { run_mirror_cmd(g, *o); });
}

}  // namespace strata::cli
