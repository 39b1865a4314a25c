#include "cli/decision_options.hpp"

#include "contract/contract_reader.hpp"

namespace strata::cli {

void add_archive_options(CLI::App* cmd, DecisionFlags& f) {
  cmd->add_option("--sources", f.sources, "apt sources file (.list or .sources) of the overlay archive; replaces the host's")
      ->check(CLI::ExistingFile);
  cmd->add_option("--platform", f.platform, "Platform of the image to route against (default: this machine's)");
  cmd->add_flag("--allow-unsigned-archive", f.allow_unsigned, "Accept sources marked Trusted: yes (unverified)");
  add_index_max_age(cmd, f.index_max_age);
}

contract::route::PlanRequest plan_request(const GlobalOptions& g, const DecisionFlags& f, oci::OpenedStore& image) {
  contract::route::PlanRequest r;
  r.repo = f.repo;
  if (!f.contract.empty()) r.contract = check(contract::read_contract_file(f.contract));
  r.base = f.image;
  image = open_ref(g, f.image, oci::Access::kRead);
  r.base_store = image.store.get();
  r.base_ref = image.ref;
  if (!f.platform.empty()) {
    if (f.platform.find(',') != std::string::npos) throw Exit{kExitUsage, "--platform: one platform at a time"};
    r.platform = check(oci::parse_platform(f.platform));
  }
  r.sources = f.sources;
  r.allow_unsigned = f.allow_unsigned;
  r.index_max_age = index_max_age(f.index_max_age);
  return r;
}

contract::image::FactsCache facts_cache(const GlobalOptions& g) {
  return contract::image::FactsCache(g.open_options().home / "facts");
}

std::string pinned_reference(const std::string& given, const std::string& digest) {
  auto ref = oci::parse_image_ref(given);
  if (!ref) return given + "@" + digest;
  switch (ref->transport) {
    case oci::Transport::kDocker:
    case oci::Transport::kLocal:
      return std::string(ref->transport == oci::Transport::kLocal ? "local:" : "docker://") + ref->docker.name() +
             "@" + digest;
    case oci::Transport::kOciLayout:
    case oci::Transport::kOciArchive:
      return (ref->transport == oci::Transport::kOciLayout ? "oci:" : "oci-archive:") + ref->path + ":" + digest;
    default:
      return given + "@" + digest;
  }
}

}  // namespace strata::cli
