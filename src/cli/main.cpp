// strata: provision sandbox images without a container engine.
#include <cstdlib>
#include <iostream>
#include <mutex>

#include "cli/commands.hpp"
#include "oci/http/offline_transport.hpp"
#include "oci/http/registry_transport.hpp"
#include "util/terminal_text.hpp"

namespace {

// The archive transport, made on first use: after the options are parsed,
// so the timeouts given apply to it too.
class DeferredTransport final : public strata::oci::http::Transport {
 public:
  explicit DeferredTransport(std::function<std::shared_ptr<Transport>()> make) : make_(std::move(make)) {}
  strata::Result<strata::oci::http::Response> send(strata::oci::http::Request& request) override {
    std::call_once(once_, [&] { inner_ = make_(); });
    return inner_->send(request);
  }

 private:
  std::function<std::shared_ptr<Transport>()> make_;
  std::once_flag once_;
  std::shared_ptr<Transport> inner_;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace strata::cli;
  GlobalOptions g;
  CLI::App app{"strata: build, move and check sandbox images without a container engine"};
  app.name("strata");
  app.require_subcommand(1);
  app.set_version_flag("--version", "strata 0.1.0");
  app.footer(
      "\nImage references: docker://HOST/REPO[:TAG|@DIGEST] (or a bare reference), oci:DIR[:TAG],\n"
      "oci-archive:FILE[:TAG], docker-archive:FILE[:REF], local:NAME[:TAG] (the default store), scratch;\n"
      "a runtime's own store: containerd:NAME[:TAG|@DIGEST], docker-daemon:NAME[:TAG], podman:NAME[:TAG].\n"
      "Exit codes: 0 success, 1 failure, 2 usage error, 3 a check found gaps.\n"
      "Run `strata COMMAND --help` for a command's options and examples.");
  app.add_option("--home", g.home, "State directory (default $STRATA_HOME, $XDG_CACHE_HOME/strata, ~/.cache/strata)")
      ->envname("STRATA_HOME");
  app.add_option("--authfile", g.authfile, "Registry credentials (Docker config.json format)");
  app.add_option("--insecure-registry", g.insecure, "Plain HTTP / unverified TLS for this HOST[:PORT] only (repeatable)");
  app.add_option("--cert-dir", g.cert_dirs, "Extra certs.d-style directory of registry CAs (repeatable)");
  app.add_option("--jobs", g.jobs, "Parallel transfers")->check(CLI::Range(1, 64));
  app.add_option("--connect-timeout", g.connect_timeout, "Seconds to set up a connection (default 10)")
      ->envname("STRATA_CONNECT_TIMEOUT")
      ->check(CLI::Range(1, 3600));
  app.add_option("--low-speed-timeout", g.low_speed_timeout,
                 "Seconds a transfer may receive nothing before it is abandoned (default 10)")
      ->envname("STRATA_LOW_SPEED_TIMEOUT")
      ->check(CLI::Range(1, 3600));
  app.add_option("--containerd-address", g.containerd_address,
                 "containerd's socket for containerd: references (default $CONTAINERD_ADDRESS, "
                 "/run/containerd/containerd.sock)");
  app.add_option("--containerd-namespace", g.containerd_namespace,
                 "containerd namespace for containerd: references (default $CONTAINERD_NAMESPACE, default; "
                 "k8s.io is Kubernetes' CRI)");
  app.add_flag("-v,--verbose", g.verbose, "Log more to standard error");
  app.add_flag("-q,--quiet", g.quiet, "No progress or informational messages");
  app.add_flag("--json", g.json, "Print the result as one JSON document");
  app.add_flag("--offline", g.offline,
               "No Debian archive and no internet: indexes, .debs and toolchains come from local caches, and "
               "what is missing is named at once; a registry a reference names (docker://HOST/REPO) is still "
               "reached, a bare name (Docker Hub by default) is refused")
      ->envname("STRATA_OFFLINE");

  register_inspect(app, g);
  register_copy(app, g);
  register_tags(app, g);
  register_mirror(app, g);

  // Packages: archive HTTP shares the registry stack (retry, redirects).
  auto http = std::make_shared<DeferredTransport>([&g]() -> std::shared_ptr<strata::oci::http::Transport> {
    if (g.offline) return std::make_shared<strata::oci::http::OfflineTransport>();
    strata::oci::http::RegistryTransportOptions archive_http;
    archive_http.curl.allow_plain_http = true;  // apt's trust comes from InRelease signatures
    // A CI's npm traffic may go through a TLS proxy whose CA Node is told
    // about: the npm registry's toolchains (node=npm) come through it too.
    if (const char* ca = std::getenv("NODE_EXTRA_CA_CERTS"); ca && *ca) archive_http.curl.extra_ca_files.emplace_back(ca);
    if (g.connect_timeout > 0) archive_http.curl.connect_timeout = std::chrono::seconds(g.connect_timeout);
    if (g.low_speed_timeout > 0) archive_http.curl.stall_timeout = std::chrono::seconds(g.low_speed_timeout);
    return strata::oci::http::make_registry_transport(archive_http);
  });
  register_resolve(app, g, http);
  register_fetch(app, g, http);
  register_contract(app, g);
  register_egress(app, g, http);
  register_import(app, g);
  register_build(app, g, http);
  register_key(app, g);
  register_plan(app, g, http);
  register_preflight(app, g, http);
  register_provision(app, g, http);
  register_toolchain(app, g, http);
  register_cache(app, g, http);
  register_bundle(app, g, http);
  register_sbom(app, g);
  one_value_per_occurrence(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0) {
      if (auto unknown = unknown_command(app)) {
        std::cerr << "strata: " << unknown->message << "\n";
        return unknown->code;
      }
    }
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  } catch (const Exit& e) {
    // An error quotes inputs (tags, paths, registries' answers):
    // terminal_safe, line by line (a few errors list entries, one a line).
    if (!e.message.empty()) std::cerr << "strata: " << strata::terminal_safe_lines(e.message) << "\n";
    return e.code;
  } catch (const std::exception& e) {
    std::cerr << "strata: internal error: " << strata::terminal_safe(e.what()) << "\n";
    return kExitFailure;
  }
  return kExitOk;
}
