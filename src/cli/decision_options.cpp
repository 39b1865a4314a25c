#include "cli/decision_options.hpp"

#include <algorithm>

#include "contract/model/contract_reader.hpp"
#include "contract/route/tools.hpp"
#include "oci/docker_archive.hpp"
#include "util/clock.hpp"

namespace strata::cli {

void add_repository(CLI::App* cmd, DecisionFlags& f) {
  cmd->add_option("DIR", f.repo, "Repository directory")->check(CLI::ExistingDirectory);
  cmd->add_option("--repo", f.repo_option, "Repository directory (the same as DIR)")->check(CLI::ExistingDirectory);
}

void repository_given(DecisionFlags& f) {
  if (!f.repo.empty() && !f.repo_option.empty() && f.repo != f.repo_option)
    throw Exit{kExitUsage, "give the repository once: DIR or --repo DIR"};
  if (f.repo.empty()) f.repo = f.repo_option;
  if (f.repo.empty()) throw Exit{kExitUsage, "a repository is required: DIR or --repo DIR"};
}

void add_archive_options(CLI::App* cmd, DecisionFlags& f) {
  cmd->add_option("--sources", f.sources, "apt sources file (.list or .sources) of the overlay archive; replaces the host's")
      ->check(CLI::ExistingFile);
  cmd->add_option("--variant", f.variant,
                  "With the base scratch: its package set, minbase (default) or essential, as `strata build --base "
                  "scratch` makes it");
  cmd->add_option("--platform", f.platform, "Platform of the image to route against (default: this machine's)");
  cmd->add_flag("--allow-unsigned-archive", f.allow_unsigned, "Accept sources marked Trusted: yes (unverified)");
  add_index_max_age(cmd, f.index_max_age);
}

void add_toolchain_options(CLI::App* cmd, DecisionFlags& f) {
  cmd->add_option("--toolchain-source", f.toolchain_sources,
                  "Where a task toolchain is downloaded from, TOOL=URL (a mirror with the official layout) or, for "
                  "node, node=npm or node=npm:REGISTRY (the npm registry's node-linux-<arch> packages); repeatable")
      ->type_name("TOOL=npm|URL");
  cmd->add_option("--toolchain-keyring", f.toolchain_keyrings,
                  "TOOL=FILE: extra OpenPGP keys trusted for that tool's release signatures; repeatable")
      ->type_name("TOOL=FILE");
  cmd->add_flag("--no-toolchain-layer", f.no_toolchain_layer,
                "The task installs its own runtimes: task-toolchain rows are provided at task time, not a layer of "
                "the image");
}

void add_include_option(CLI::App* cmd, DecisionFlags& f) {
  cmd->add_option("--include", f.include,
                  "Needs to provision besides building and testing the repository: run (what only its production "
                  "image needs, such as packages its Dockerfile's final stage installs); repeatable")
      ->type_name("run")
      ->check(CLI::IsMember({"run", "build"}));
}

namespace {

// "node=npm" → {"node", "npm"}; the option's name and value in the error.
std::pair<std::string, std::string> tool_value(const std::string& option, const std::string& text,
                                               const std::string& expected) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw Exit{kExitUsage, option + " " + text + ": expected " + expected};
  return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace

contract::route::PlanRequest plan_request(const GlobalOptions& g, const DecisionFlags& f, oci::OpenedStore& image) {
  contract::route::PlanRequest r;
  r.repo = f.repo;
  if (!f.contract.empty()) r.contract = check(contract::read_contract_file(f.contract));
  r.base = f.image;
  if (f.image == layer::kScratchBase) {
    // The scratch base is an image in the local store, built there the first time.
    if (!f.variant.empty()) r.variant = check(layer::parse_scratch_variant(f.variant));
    image = open_ref(g, kScratchStore, oci::Access::kWrite);
  } else {
    if (!f.variant.empty()) throw Exit{kExitUsage, "--variant " + f.variant + ": only with the base scratch"};
    image = open_ref(g, f.image, oci::Access::kRead);
    r.base_ref = image.ref;
  }
  r.base_store = image.store.get();
  r.offline = g.offline;
  if (!f.platform.empty()) {
    if (f.platform.find(',') != std::string::npos) throw Exit{kExitUsage, "--platform: one platform at a time"};
    r.platform = check(oci::parse_platform(f.platform));
  }
  r.sources = f.sources;
  r.allow_unsigned = f.allow_unsigned;
  r.index_max_age = index_max_age(f.index_max_age);
  for (const auto& t : f.toolchain_sources) {
    auto [tool, value] = tool_value("--toolchain-source", t, "TOOL=npm|URL");
    if (auto s = contract::route::toolchain_source(tool, value); !s)
      throw Exit{kExitUsage, "--toolchain-source " + t + ": " + s.error().message()};
    if (r.toolchain_sources.contains(tool))
      throw Exit{kExitUsage, "--toolchain-source " + t + ": " + tool + " has a source already (one per tool)"};
    r.toolchain_sources[tool] = value;
  }
  (void)toolchain_keyrings(f.toolchain_keyrings);  // checked here (a usage exit); provision reads them for the build
  r.toolchain_layer = !f.no_toolchain_layer;
  r.include_run = std::find(f.include.begin(), f.include.end(), "run") != f.include.end();
  return r;
}

std::map<std::string, std::vector<std::filesystem::path>> toolchain_keyrings(const std::vector<std::string>& values) {
  std::map<std::string, std::vector<std::filesystem::path>> out;
  for (const auto& k : values) {
    auto [tool, file] = tool_value("--toolchain-keyring", k, "TOOL=FILE");
    if (std::error_code ec; !std::filesystem::is_regular_file(file, ec))
      throw Exit{kExitUsage, "--toolchain-keyring " + k + ": " + file + " is not a file (an OpenPGP keyring, "
                                                                     "armored or binary)"};
    out[tool].emplace_back(file);
  }
  return out;
}

contract::image::FactsCache facts_cache(const GlobalOptions& g) {
  return contract::image::FactsCache(g.open_options().home / "facts");
}

DecisionCaches::DecisionCaches(const GlobalOptions& g)
    : facts(facts_cache(g)), base_fs(g.open_options().home / "basefs"), scratch_progress(g, "", "the scratch base") {}

contract::route::PlanContext DecisionCaches::plan_context(const GlobalOptions& g, oci::http::Transport& http) {
  return {.http = http, .clock = system_clock(), .home = g.open_options().home, .facts = &facts,
          .jobs = static_cast<unsigned>(g.jobs), .base_fs = &base_fs, .observer = &scratch_progress};
}

std::string image_reference(const DecisionFlags& f) {
  return f.image == layer::kScratchBase ? std::string(kScratchStore) : f.image;
}

PrintedReference printed_reference(const std::string& given, const std::string& digest, const std::string& tag) {
  auto ref = oci::parse_image_ref(given);
  if (!ref) return {given + "@" + digest, given + "@" + digest};
  switch (ref->transport) {
    case oci::Transport::kDocker: {
      std::string r = "docker://" + ref->docker.name() + "@" + digest;
      return {r, r};
    }
    case oci::Transport::kContainerd: {
      // By its familiar name ("containerd:dev/app:1@…", as copy prints what it was
      // given); named by digest alone: that record, with the digest once.
      std::string name = oci::familiar_name(ref->docker);
      if (!ref->docker.tag) name = name.substr(0, name.rfind(':'));
      std::string r = "containerd:" + name + "@" + digest;
      return {r, r};
    }
    case oci::Transport::kLocal: {
      // The name as `strata images` and `copy` show it ("local:strata/provisioned@…",
      // not "local:docker.io/strata/provisioned@…"): familiar, without the tag.
      std::string name = oci::familiar_name(ref->docker);
      std::string r = "local:" + name.substr(0, name.rfind(':')) + "@" + digest;
      return {r, r};
    }
    case oci::Transport::kOciLayout:
    case oci::Transport::kOciArchive: {
      const std::string prefix = (ref->transport == oci::Transport::kOciLayout ? "oci:" : "oci-archive:") + ref->path;
      const bool names_digest = ref->ref.find('@') != std::string::npos || ref->ref.starts_with("sha256:") ||
                                ref->ref.starts_with("sha512:");
      if (names_digest) return {given, given};  // the user's own pin: what they gave
      const std::string& t = !ref->ref.empty() ? ref->ref : tag;
      if (t.empty()) return {prefix + "@" + digest, prefix + "@" + digest};
      return {prefix + ":" + t, prefix + ":" + t + "@" + digest};
    }
    default:
      return {given + "@" + digest, given + "@" + digest};
  }
}

}  // namespace strata::cli
