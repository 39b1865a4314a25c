#include "cli/app.hpp"

#include <unistd.h>

#include <algorithm>

#include "util/strings.hpp"
#include "util/terminal_text.hpp"

namespace strata::cli {

oci::OpenOptions GlobalOptions::open_options() const {
  oci::OpenOptions o;
  o.home = home.empty() ? oci::default_home() : std::filesystem::path(home);
  o.authfile = authfile;
  o.insecure_registries = insecure;
  o.cert_dirs = cert_dirs;
  o.jobs = jobs;
  o.connect_timeout = connect_timeout;
  o.low_speed_timeout = low_speed_timeout;
  o.offline = offline;
  o.containerd_address = containerd_address;
  o.containerd_namespace = containerd_namespace;
  return o;
}

bool GlobalOptions::show_progress() const { return !quiet && !json && ::isatty(STDERR_FILENO); }

oci::OpenedStore open_ref(const GlobalOptions& g, const std::string& text, oci::Access access) {
  auto ref = check(oci::parse_image_ref(text));
  return check(oci::open_store(ref, access, g.open_options()));
}

CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& description,
                      const std::string& examples) {
  auto* cmd = app.add_subcommand(name, description);
  cmd->fallthrough();
  if (!examples.empty()) cmd->footer("\nExamples:\n" + examples);
  return cmd;
}

void one_value_per_occurrence(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    // A positional list (PKG…) keeps every word no option took.
    if (opt->nonpositional() && opt->get_items_expected_max() > 1) opt->allow_extra_args(false);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) one_value_per_occurrence(*sub);
}

std::optional<Exit> unknown_command(const CLI::App& app) {
  // The deepest command the words named; it must be one that needs a subcommand.
  const CLI::App* at = &app;
  std::string path = app.get_name();
  while (!at->get_subcommands().empty()) {
    at = at->get_subcommands().front();
    path += " " + at->get_name();
  }
  if (at->get_require_subcommand_min() == 0) return std::nullopt;
  // The first word nothing took is the name asked for (positionals fall
  // through to the root, so look at everything left over).
  std::string word;
  for (const auto& w : app.remaining(true)) {
    if (!w.starts_with('-')) {
      word = w;
      break;
    }
  }
  if (word.empty()) return std::nullopt;
  std::string nearest;
  std::size_t best = SIZE_MAX;
  for (const CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; })) {
    std::size_t d = str::edit_distance(word, sub->get_name());
    if (d < best) {
      best = d;
      nearest = sub->get_name();
    }
  }
  std::string message = "unknown command `" + path + " " + word + "`";
  // Close enough to be a typo: at most a third of the name differs (and at least one edit is allowed).
  if (!nearest.empty() && best <= std::max<std::size_t>(1, nearest.size() / 3)) {
    message += "; did you mean `" + path + " " + nearest + "`?";
  } else {
    message += "; see `" + path + " --help`";
  }
  return Exit{kExitUsage, message};
}

void add_index_max_age(CLI::App* cmd, std::string& value) {
  cmd->add_option("--index-max-age", value,
                  std::string("Use the apt indexes without asking the archive when checked within DURATION (default ") +
                      kDefaultIndexMaxAge + "; 0: always revalidate)");
}

std::int64_t index_max_age(const std::string& value) {
  auto s = str::parse_duration(value);
  if (!s) throw Exit{kExitUsage, "--index-max-age " + value + ": not a duration (e.g. 0, 90s, 5m, 1h)"};
  return *s;
}

// Messages carry tags, paths, annotations and registries' words: each is
// one line of text whatever those hold (util/terminal_text.hpp).
void log_info(const GlobalOptions& g, const std::string& msg) {
  if (!g.quiet) std::cerr << terminal_safe(msg) << "\n";
}

void log_debug(const GlobalOptions& g, const std::string& msg) {
  if (g.verbose) std::cerr << terminal_safe(msg) << "\n";
}

}  // namespace strata::cli
