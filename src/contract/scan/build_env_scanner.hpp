// The repository's own build and test environments as version sources:
// Dockerfile/Containerfile FROM lines (with ARG defaults), devcontainer.json
// (image and features), GitHub Actions setup-node/-python/-go/-bun,
// pnpm/action-setup and job containers (matrix values resolved), and
// CGO_ENABLED where any of them, a Makefile or .goreleaser.yml sets it. Each
// becomes a constraint with evidence; floors still intersect everything.
// Dockerfile RUN apt-get install / apk add lines are declared packages: the
// final stage's are run needs (but -dev packages and build tools), earlier
// stages' build needs, Alpine names mapped to Debian through the knowledge base.
// Install documentation (README, INSTALL, docs whose path says install or
// building) is read the same way for command lines that install build
// dependencies (a -dev package or a build tool among them), required_by
// "docs:<file>".
#pragma once

#include <string_view>

#include "contract/scan/scan_context.hpp"

namespace strata::contract {

void scan_build_envs(ScanContext& ctx);

// File names scan_build_envs() reads (for the walk's index).
bool build_env_file(std::string_view name);

// A Dockerfile or Containerfile by its file name (Dockerfile.dev, app.Dockerfile).
bool dockerfile_name(std::string_view name);

}  // namespace strata::contract
