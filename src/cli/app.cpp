#include "cli/app.hpp"

#include <unistd.h>

namespace strata::cli {

oci::OpenOptions GlobalOptions::open_options() const {
  oci::OpenOptions o;
  o.home = home.empty() ? oci::default_home() : std::filesystem::path(home);
  o.authfile = authfile;
  o.insecure_registries = insecure;
  o.cert_dirs = cert_dirs;
  o.jobs = jobs;
  return o;
}

bool GlobalOptions::show_progress() const { return !quiet && !json && ::isatty(STDERR_FILENO); }

oci::OpenedStore open_ref(const GlobalOptions& g, const std::string& text, oci::Access access) {
  auto ref = check(oci::parse_image_ref(text));
  return check(oci::open_store(ref, access, g.open_options()));
}

std::optional<std::string> destination_tag(const oci::ImageRef& ref, const std::string& store_ref) {
  if (ref.transport == oci::Transport::kLocal) return ref.docker.str();
  if (ref.transport == oci::Transport::kDocker) {
    if (ref.docker.digest && !ref.docker.tag) return std::nullopt;
    return ref.docker.tag.value_or("latest");
  }
  if (store_ref.empty() || oci::Digest::parse(store_ref)) return std::nullopt;
  return store_ref;
}

CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& description,
                      const std::string& examples) {
  auto* cmd = app.add_subcommand(name, description);
  cmd->fallthrough();
  if (!examples.empty()) cmd->footer("\nExamples:\n" + examples);
  return cmd;
}

void log_info(const GlobalOptions& g, const std::string& msg) {
  if (!g.quiet) std::cerr << msg << "\n";
}

void log_debug(const GlobalOptions& g, const std::string& msg) {
  if (g.verbose) std::cerr << msg << "\n";
}

}  // namespace strata::cli
