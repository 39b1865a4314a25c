// strata tags REF
#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "util/terminal_text.hpp"

namespace strata::cli {

void register_tags(CLI::App& app, GlobalOptions& g) {
  auto ref = std::make_shared<std::string>();
  auto* cmd = add_command(app, "tags", "List the tags of a repository, layout or archive, sorted lexicographically",
                          "  strata tags docker://registry.example/team/app\n"
                          "  strata tags oci:/srv/mirror\n");
  cmd->add_option("REF", *ref, "Repository or store reference")->required();
  cmd->callback([&g, ref] {
    auto opened = open_ref(g, *ref, oci::Access::kRead);
    auto tags = check(opened.store->list_tags());
    // A registry lists tags in its own order (docker-registry: its storage's
    // directory order): sorted by bytes, as layouts and archives list them.
    std::sort(tags.begin(), tags.end());
    if (g.json) {
      std::cout << oci::dump_json(nlohmann::json(tags), 2) << "\n";
      return;
    }
    // A registry's or an index.json's names: one safe line each.
    for (const auto& t : tags) std::cout << terminal_safe(t) << "\n";
  });
}

}  // namespace strata::cli
