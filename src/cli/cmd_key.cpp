// strata key --base REF PKG… [build's options]: the overlay cache key
// (layer::plan_overlay, the same computation strata build uses).
#include <iostream>

#include "cli/commands.hpp"
#include "cli/overlay_options.hpp"
#include "layer/build/overlay_plan.hpp"

namespace strata::cli {

void register_key(CLI::App& app, GlobalOptions& g) {
  auto f = std::make_shared<OverlayFlags>();
  auto* cmd = add_command(app, "key", "Print the cache key of the overlay `strata build` would make",
                          "  strata key --base local:debian:12 build-essential libpq-dev\n"
                          "  strata key --base docker://registry.internal/base:1 git --platform linux/amd64,linux/arm64\n");
  add_overlay_options(cmd, *f);
  cmd->add_option("--dest", f->dest, "Ignored (accepted so build's command line can be reused)");
  cmd->callback([&g, f] {
    oci::OpenedStore base;
    auto plan = check(layer::plan_overlay(overlay_spec(g, *f, base)));
    check_lock_bases(g, *f, plan);
    const auto& key = plan.key;
    if (g.json) {
      nlohmann::ordered_json out;
      out["key"] = key.hex;
      out["tag"] = key.tag();
      out["inputs"] = nlohmann::ordered_json::parse(key.canonical_json);
      std::cout << oci::dump_json(out, 2) << "\n";
    } else {
      std::cout << key.hex << "\n";
    }
  });
}

}  // namespace strata::cli
