#include "contract/project_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include "util/strings.hpp"

namespace strata::contract {

void scan_project_yaml(ScanContext& ctx) {
  const std::string rel = ".mac/project.yaml";
  if (!ctx.fs().is_file(rel)) return;
  auto text = ctx.fs().read_text(rel);
  if (!text) return;
  try {
    YAML::Node doc = YAML::Load(*text);
    if (!doc.IsMap()) {
      ctx.warn(rel, "not a mapping; ignored");
      return;
    }
    for (const char* key : {"egress", "egress_hosts"}) {
      YAML::Node list = doc[key];
      if (!list) continue;
      if (!list.IsSequence()) {
        ctx.warn(rel, std::string(key) + " must be a list");
        continue;
      }
      for (std::size_t i = 0; i < list.size(); ++i) {
        const YAML::Node& e = list[i];
        std::string host, access = "read-only", reason = "declared by the repository";
        if (e.IsScalar()) {
          host = e.as<std::string>();
        } else if (e.IsMap() && e["host"]) {
          host = e["host"].as<std::string>();
          if (e["access"]) access = e["access"].as<std::string>();
          if (e["reason"]) reason = e["reason"].as<std::string>();
        } else {
          ctx.warn(rel, std::string(key) + "[" + std::to_string(i) + "] has no host; ignored");
          continue;
        }
        host = str::lower(host);
        if (access != "read-only")
          ctx.warn(rel, host + ": access " + str::quote(access) + " requested; strata's egress is read-only (GET/HEAD)");
        ctx.egress(host, EgressOrigin::kDeclared, reason,
                   Evidence{rel, std::string(key) + "[" + std::to_string(i) + "]", host + " (" + access + ")"});
      }
    }
    if (YAML::Node tc = doc["toolchain"]; tc && tc.IsMap() && tc["required_commands"]) {
      YAML::Node cmds = tc["required_commands"];
      if (cmds.IsSequence())
        for (const auto& c : cmds) ctx.command(c.as<std::string>(), "declared in " + rel);
      else
        ctx.warn(rel, "toolchain.required_commands must be a list");
    }
  } catch (const YAML::Exception& e) {
    ctx.warn(rel, std::string("malformed YAML, not used: ") + e.what());
  }
}

}  // namespace strata::contract
