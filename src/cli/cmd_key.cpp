// strata key --base REF PKG… [build's options]: the overlay cache key.
#include <iostream>

#include "cli/cmd_build.hpp"

namespace strata::cli {

void register_key(CLI::App& app, GlobalOptions& g) {
  auto r = std::make_shared<OverlayRequest>();
  auto* cmd = add_command(app, "key", "Print the cache key of the overlay `strata build` would make",
                          "  strata key --base local:debian:12 build-essential libpq-dev\n"
                          "  strata key --base docker://registry/base:1 git --platform linux/amd64,linux/arm64\n");
  add_overlay_options(cmd, *r);
  cmd->add_option("--dest", r->dest, "Ignored (accepted so build's command line can be reused)");
  cmd->callback([&g, r] {
    auto key = check(overlay_key(g, *r));
    if (g.json) {
      nlohmann::ordered_json out;
      out["key"] = key.hex;
      out["tag"] = "overlay-" + key.hex;
      out["inputs"] = nlohmann::ordered_json::parse(key.canonical_json);
      std::cout << out.dump(2) << "\n";
    } else {
      std::cout << key.hex << "\n";
    }
  });
}

}  // namespace strata::cli
