#include "layer/overlay/overlay_fixture.hpp"

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/json_run.hpp"
#include "support/run.hpp"
#include "support/served_archive.hpp"
#include "support/source_dir.hpp"

namespace strata::testing {

OverlayFixture& OverlayFixture::get() {
  static OverlayFixture* f = [] {
    auto* fx = new OverlayFixture;
    std::filesystem::path source = source_dir();
    char tmpl[] = "/tmp/strata-overlay-XXXXXX";
    fx->root_ = ::mkdtemp(tmpl);
    must((source / "tests/support/make_overlay_base.sh").string() + " " + (fx->root_ / "base.tar").string());
    must("SOURCE_DATE_EPOCH=1700000000 STRATA_HOME=" + (fx->root_ / "home").string() + " " + strata_binary() +
         " -q import " + (fx->root_ / "base.tar").string() + " --dest oci:" + (fx->root_ / "images").string() +
         ":base --platform linux/amd64 >/dev/null");
    fx->archive_ = std::make_unique<ServedArchive>(fx->root_ / "archive", source / "testdata/overlay");
    fx->sources_ = fx->archive_->write_sources(fx->root_ / "overlay.list");
    return fx;
  }();
  return *f;
}

// A tiny arm64 root (nothing in it is executed), and an OCI index in one
// layout holding it and the fixture's amd64 base: "oci:<dir>:multi".
std::string multi_arch_base(const std::filesystem::path& dir, const std::filesystem::path& work) {
  auto& fx = OverlayFixture::get();
  auto root = work / "arm64-root";
  std::filesystem::create_directories(work);
  sh("mkdir -p " + root.string() + "/usr/bin " + root.string() + "/usr/lib " + root.string() + "/var/lib/dpkg/info " +
     root.string() + "/etc && ln -s usr/bin " + root.string() + "/bin && ln -s usr/lib " + root.string() +
     "/lib && printf 'Package: base-files\\nStatus: install ok installed\\nPriority: required\\nSection: admin\\n"
     "Maintainer: strata tests <tests@strata.test>\\nArchitecture: arm64\\nVersion: 12.4\\nDescription: base\\n' > " +
     root.string() + "/var/lib/dpkg/status && tar -C " + root.string() + " -cf " + (work / "arm64.tar").string() + " .");
  for (const auto& [tar, arch] : {std::pair{fx.root() / "base.tar", "amd64"}, std::pair{work / "arm64.tar", "arm64"}}) {
    auto r = run({strata_binary(), "-q", "--home", (work / "import-home").string(), "import", tar.string(), "--dest",
                  "oci:" + dir.string() + ":" + arch, "--platform", std::string("linux/") + arch},
                 "SOURCE_DATE_EPOCH=1700000000");
    EXPECT_EQ(r.code, 0) << r.err;
  }
  auto index = nlohmann::json::parse(sh("cat " + (dir / "index.json").string()));
  nlohmann::json multi = {{"schemaVersion", 2},
                          {"mediaType", "application/vnd.oci.image.index.v1+json"},
                          {"manifests", nlohmann::json::array()}};
  for (const auto& m : index["manifests"]) {
    if (!m.contains("annotations") || !m["annotations"].contains("org.opencontainers.image.ref.name"))
      continue;  // the imports' SBOMs and provenance (referrers, untagged)
    std::string arch = m["annotations"]["org.opencontainers.image.ref.name"];
    multi["manifests"].push_back({{"mediaType", m["mediaType"]},
                                  {"digest", m["digest"]},
                                  {"size", m["size"]},
                                  {"platform", {{"architecture", arch}, {"os", "linux"}}}});
  }
  std::string bytes = multi.dump();
  std::ofstream(work / "multi.json", std::ios::binary) << bytes;
  std::string hex = sh("sha256sum " + (work / "multi.json").string()).substr(0, 64);
  sh("cp " + (work / "multi.json").string() + " " + (dir / "blobs/sha256" / hex).string());
  index["manifests"].push_back({{"mediaType", "application/vnd.oci.image.index.v1+json"},
                                {"digest", "sha256:" + hex},
                                {"size", bytes.size()},
                                {"annotations", {{"org.opencontainers.image.ref.name", "multi"}}}});
  std::ofstream(dir / "index.json", std::ios::binary) << index.dump();
  return "oci:" + dir.string() + ":multi";
}

}  // namespace strata::testing
