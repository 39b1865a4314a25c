// strata: provision sandbox images without a container engine.
#include <iostream>

#include "cli/commands.hpp"
#include "oci/http/registry_transport.hpp"

int main(int argc, char** argv) {
  using namespace strata::cli;
  GlobalOptions g;
  CLI::App app{"strata: build, move and check sandbox images without a container engine"};
  app.name("strata");
  app.require_subcommand(1);
  app.set_version_flag("--version", "strata 0.1.0");
  app.footer(
      "\nImage references: docker://HOST/REPO[:TAG|@DIGEST] (or a bare reference), oci:DIR[:TAG],\n"
      "oci-archive:FILE[:TAG], docker-archive:FILE[:REF], local:NAME[:TAG] (the default store), scratch.\n"
      "Exit codes: 0 success, 1 failure, 2 usage error, 3 a check found gaps.\n"
      "Run `strata COMMAND --help` for a command's options and examples.");
  app.add_option("--home", g.home, "State directory (default $STRATA_HOME, $XDG_CACHE_HOME/strata, ~/.cache/strata)")
      ->envname("STRATA_HOME");
  app.add_option("--authfile", g.authfile, "Registry credentials (Docker config.json format)");
  app.add_option("--insecure-registry", g.insecure, "Plain HTTP / unverified TLS for this HOST[:PORT] only (repeatable)");
  app.add_option("--cert-dir", g.cert_dirs, "Extra certs.d-style directory of registry CAs (repeatable)");
  app.add_option("--jobs", g.jobs, "Parallel transfers")->check(CLI::Range(1, 64));
  app.add_flag("-v,--verbose", g.verbose, "Log more to standard error");
  app.add_flag("-q,--quiet", g.quiet, "No progress or informational messages");
  app.add_flag("--json", g.json, "Print the result as one JSON document");

  register_inspect(app, g);
  register_copy(app, g);
  register_tags(app, g);
  register_mirror(app, g);

  // Packages: archive HTTP shares the registry stack (retry, redirects).
  strata::oci::http::RegistryTransportOptions archive_http;
  archive_http.curl.allow_plain_http = true;  // apt's trust comes from InRelease signatures
  auto http = strata::oci::http::make_registry_transport(archive_http);
  register_resolve(app, g, http);
  register_fetch(app, g, http);
  register_contract(app, g);
  register_import(app, g);
  register_build(app, g, http);
  register_key(app, g);
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
    if (!e.message.empty()) std::cerr << "strata: " << e.message << "\n";
    return e.code;
  } catch (const std::exception& e) {
    std::cerr << "strata: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitOk;
}
