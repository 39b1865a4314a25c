// `strata import ROOTFS.tar[.gz|.xz|.zst] --dest REF [--change 'ENV K=V']…`:
// registers the subcommand on a CLI11 app. The command is a thin shell over
// layer::import_rootfs; opening the destination store from REF is main's job
// (it owns the transports), through the OpenDest callback.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "oci/store.hpp"

namespace strata::cli {

// What main hands back for a --dest reference.
struct ImportDest {
  std::unique_ptr<oci::Store> store;
  std::optional<std::string> tag;  // tag to set in the store ("latest" if main wants a default)
  std::string name;                // printed before "@sha256:…"; the --dest text when empty
};
using OpenImportDest = std::function<Result<ImportDest>(const std::string& ref)>;

struct ImportCommandDeps {
  OpenImportDest open_dest;
  std::ostream* out = nullptr;  // result line; default std::cout
  std::ostream* err = nullptr;  // error line; default std::cerr
  // Reads an environment variable (SOURCE_DATE_EPOCH); default std::getenv.
  std::function<std::optional<std::string>(const char*)> getenv;
};

// Adds `import` to `app`. When it runs it sets `exit_code` (0 success, 1
// failure with one line on stderr); usage errors are CLI11's. Prints
// "NAME@sha256:…" (the manifest digest) on success.
CLI::App* register_import(CLI::App& app, ImportCommandDeps deps, int& exit_code);

}  // namespace strata::cli
