// The container images a repository's tests start with Testcontainers, where
// their registry is not Docker Hub (Docker Hub is the Testcontainers entry's
// own egress): `DockerImageName.parse("mcr.microsoft.com/mssql/server:2022-latest")`,
// `"docker.elastic.co/elasticsearch/elasticsearch-oss:" + version`,
// `new ContainerBuilder().WithImage("ghcr.io/…")`. The Docker daemon pulls
// them while the tests run, so their registries are hosts the tests reach.
//
// Read only when the scan found a Testcontainers package (any ecosystem's),
// and only in source files that use it (they name DockerImageName,
// GenericContainer, ContainerBuilder, WithImage or Testcontainers), outside
// vendored trees. A string literal counts when it stands where an image does
// (the argument of DockerImageName.parse, a …Container constructor or
// WithImage, or a name with a tag or digest — not an import path) and names
// its registry: a host under a listed top-level domain that is not a code
// host (github.com). Bounded like the program scanner:
// RepoLimits::max_source_files files of at most max_source_bytes, 64 MiB in all.
#pragma once

#include <string_view>

#include "contract/scan/scan_context.hpp"

namespace strata::contract {
void scan_test_images(ScanContext& ctx);
// True for a source file name that may start test containers (".java", ".cs"…).
bool test_image_source_file(std::string_view name);
}  // namespace strata::contract
