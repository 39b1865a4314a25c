// strata build attaches an SBOM (SPDX 2.3 and CycloneDX 1.5) and a SLSA
// provenance to the overlay it writes, as OCI referrers; `strata sbom`
// prints them, or derives an SBOM from any image. Checked against real
// peers: the packages are exactly those dpkg lists in the image unpacked by
// umoci, each in its layer; CycloneDX passes the CycloneDX project's own
// validator; two builds on two homes attach the same bytes; the referrers
// survive `copy --referrers` through a real registry (the tag schema).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "layer/overlay/overlay_fixture.hpp"
#include "support/cli_test.hpp"
#include "support/registry_server.hpp"
#include "support/source_dir.hpp"

namespace strata::testing {
namespace {

namespace stdfs = std::filesystem;
using nlohmann::json;

class SbomCli : public CliTest {
 protected:
  OverlayFixture& fx_ = OverlayFixture::get();
  // A build of greet and shared-a on the fixture base into a layout, with its own home.
  std::string build(const std::string& name) {
    std::string ref = "oci:" + (dir_ / name).string() + ":app";
    auto r = run({strata_binary(), "--home", (dir_ / (name + "-home")).string(), "build", "--base", fx_.base_ref(),
                  "--sources", fx_.sources().string(), "--platform", "linux/amd64", "--dest", ref, "greet", "shared-a"});
    EXPECT_EQ(r.code, 0) << r.err;
    return ref;
  }
  std::string sbom(std::vector<std::string> args) {
    args.insert(args.begin(), "sbom");
    auto r = strata(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
  }
};

TEST_F(SbomCli, ABuildAttachesDocumentsTheImageAndDpkgAgreeWith) {
  const std::string a = build("a");
  const std::string b = build("b");
  for (auto kind : std::vector<std::vector<std::string>>{{}, {"--format", "cyclonedx"}, {"--provenance"}}) {
    auto ka = kind, kb = kind;
    ka.push_back(a);
    kb.push_back(b);
    EXPECT_EQ(sbom(ka), sbom(kb)) << "two homes, two builds: the same bytes";
  }
  // Attached (the .debs' digests and URLs are there), not derived.
  auto spdx = json::parse(sbom({a}));
  auto derived = json::parse(sbom({"--derive", a}));
  EXPECT_NE(spdx["documentNamespace"], derived["documentNamespace"]);

  // The packages dpkg lists in the image unpacked by umoci, each once.
  const stdfs::path bundle = dir_ / "unpacked";
  auto unpack = run({"umoci", "raw", "unpack", "--image", a.substr(4), bundle.string()});
  ASSERT_EQ(unpack.code, 0) << unpack.err;
  auto dpkg = run({"dpkg-query", "--admindir=" + (bundle / "var/lib/dpkg").string(), "-W", "-f",
                   "${Package} ${Version} ${db:Status-Abbrev}\n"});
  ASSERT_EQ(dpkg.code, 0) << dpkg.err;
  std::set<std::string> listed;
  for (auto line : std::views::split(dpkg.out, '\n')) {
    std::string l(line.begin(), line.end());
    if (l.size() > 3 && l.substr(l.size() - 3, 2) == "ii") listed.insert(l.substr(0, l.size() - 4));
  }
  std::set<std::string> in_sbom;
  std::map<std::string, std::string> id_of;
  for (const auto& p : spdx["packages"]) {
    if (!p["SPDXID"].get<std::string>().starts_with("SPDXRef-Package-deb-")) continue;
    in_sbom.insert(p["name"].get<std::string>() + " " + p["versionInfo"].get<std::string>());
    id_of[p["name"]] = p["SPDXID"];
  }
  EXPECT_FALSE(listed.empty());
  EXPECT_EQ(in_sbom, listed);
  // Each in its layer: the base's in layer 1, the installed ones in the overlay's layer 2.
  std::map<std::string, std::string> container;
  for (const auto& r : spdx["relationships"])
    if (r["relationshipType"] == "CONTAINS") container[r["relatedSpdxElement"]] = r["spdxElementId"];
  // The base's packages: what an SBOM derived from the base lists.
  std::set<std::string> base_names;
  const auto base_doc = json::parse(sbom({fx_.base_ref()}));
  for (const auto& p : base_doc["packages"]) base_names.insert(p["name"].get<std::string>());
  std::size_t in_overlay = 0;
  for (const auto& [name, id] : id_of) {
    bool from_base = base_names.contains(name);
    in_overlay += from_base ? 0 : 1;
    EXPECT_TRUE(container[id].starts_with(from_base ? "SPDXRef-Layer-1-" : "SPDXRef-Layer-2-")) << name << " in " << container[id];
  }
  EXPECT_GE(in_overlay, 2u);  // greet and shared-a at least
  for (const auto& p : spdx["packages"]) {
    if (p["name"] != "greet") continue;
    EXPECT_TRUE(p["downloadLocation"].get<std::string>().ends_with(".deb")) << p.dump();
    EXPECT_EQ(p["checksums"][0]["algorithm"], "SHA256");
  }

  // CycloneDX, checked by the CycloneDX project's validator.
  const stdfs::path cdx = dir_ / "a.cdx.json";
  std::ofstream(cdx) << sbom({"--format", "cyclonedx", a});
  auto valid = run({(source_dir() / "tests/support/cyclonedx_validate.sh").string(), cdx.string()});
  EXPECT_EQ(valid.code, 0) << valid.out << valid.err;
  // A document the validator must refuse, so a pass above means something.
  const stdfs::path broken = dir_ / "broken.cdx.json";
  auto doc = json::parse(sbom({"--format", "cyclonedx", a}));
  doc["components"][0].erase("name");
  std::ofstream(broken) << doc.dump();
  EXPECT_EQ(run({(source_dir() / "tests/support/cyclonedx_validate.sh").string(), broken.string()}).code, 1);

  // The provenance: an in-toto statement about this image, every .deb resolved with its digest.
  auto prov = json::parse(sbom({"--provenance", a}));
  EXPECT_EQ(prov["_type"], "https://in-toto.io/Statement/v1");
  EXPECT_EQ(prov["predicateType"], "https://slsa.dev/provenance/v1");
  auto image_digest = strata({"--json", "inspect", "--platform", "linux/amd64", a});
  ASSERT_EQ(image_digest.code, 0) << image_digest.err;
  std::string digest = json::parse(image_digest.out)["digest"];
  EXPECT_EQ("sha256:" + prov["subject"][0]["digest"]["sha256"].get<std::string>(), digest);
  const auto& def = prov["predicate"]["buildDefinition"];
  EXPECT_EQ(def["externalParameters"]["request"], json::array({"greet", "shared-a"}));
  int debs = 0;
  for (const auto& d : def["resolvedDependencies"])
    if (d["uri"].get<std::string>().ends_with(".deb")) {
      ++debs;
      EXPECT_EQ(d["digest"]["sha256"].get<std::string>().size(), 64u);
    }
  EXPECT_GE(debs, 2);
}

// The build makes its SBOM from what it wrote, not by reading the image
// back: every package, version, licence and layer is what an SBOM derived
// from the image states. `--no-attestations` builds the same image with no
// documents.
TEST_F(SbomCli, TheBuildsSbomIsTheImagesAndNoAttestationsAttachesNone) {
  const std::string a = build("a");
  auto facts = [](const json& doc) {
    std::map<std::string, std::string> container;
    for (const auto& r : doc["relationships"])
      if (r["relationshipType"] == "CONTAINS") container[r["relatedSpdxElement"]] = r["spdxElementId"];
    std::set<std::string> out;
    for (const auto& p : doc["packages"]) {
      if (!p["SPDXID"].get<std::string>().starts_with("SPDXRef-Package-deb-")) continue;
      std::string layer = container[p["SPDXID"]].substr(0, container[p["SPDXID"]].find('-', 15));
      out.insert(p["name"].get<std::string>() + " " + p["versionInfo"].get<std::string>() + " " +
                 p["licenseDeclared"].get<std::string>() + " " + layer);
    }
    return out;
  };
  auto attached = json::parse(sbom({a}));
  auto derived = json::parse(sbom({"--derive", a}));
  EXPECT_EQ(facts(attached), facts(derived));
  EXPECT_TRUE(facts(attached).contains("greet 1.0-1 GPL-2.0-or-later AND MIT SPDXRef-Layer-2"))
      << "greet's DEP-5 copyright, summarised when its fragment was made";

  std::string bare = "oci:" + (dir_ / "bare").string() + ":app";
  auto r = run({strata_binary(), "--home", (dir_ / "a-home").string(), "build", "--base", fx_.base_ref(), "--sources",
                fx_.sources().string(), "--platform", "linux/amd64", "--dest", bare, "--no-attestations", "greet",
                "shared-a"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto digest = [&](const std::string& ref) {
    auto i = strata({"--json", "inspect", "--platform", "linux/amd64", ref});
    EXPECT_EQ(i.code, 0) << i.err;
    return json::parse(i.out)["digest"].get<std::string>();
  };
  EXPECT_EQ(digest(bare), digest(a)) << "the documents are referrers, not part of the image";
  auto provenance = strata({"sbom", "--provenance", bare});
  EXPECT_EQ(provenance.code, 1) << "no provenance attached: " << provenance.out;
  EXPECT_EQ(facts(json::parse(sbom({bare}))), facts(derived)) << "derived from the image instead";
}

TEST_F(SbomCli, ReferrersTravelThroughARegistryAndAreFoundByTheTagSchema) {
  const std::string a = build("a");
  auto reg = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(reg) << reg.error().message();
  const std::string host = (*reg)->host_port();
  const std::string one = "docker://" + host + "/team/app:1", two = "docker://" + host + "/mirror/app:1";
  ASSERT_EQ(strata({"--insecure-registry", host, "copy", "--referrers", a, one}).code, 0);
  ASSERT_EQ(strata({"--insecure-registry", host, "copy", "--referrers", one, two}).code, 0);
  for (auto kind : std::vector<std::string>{"spdx", "cyclonedx"}) {
    auto here = sbom({"--format", kind, a});
    auto r = strata({"--insecure-registry", host, "sbom", "--format", kind, two});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, here);
  }
  auto prov = strata({"--insecure-registry", host, "sbom", "--provenance", two});
  ASSERT_EQ(prov.code, 0) << prov.err;
  EXPECT_EQ(prov.out, sbom({"--provenance", a}));
  // distribution has no referrers API: the documents are listed under the tag schema.
  auto tags = strata({"--insecure-registry", host, "tags", "docker://" + host + "/mirror/app"});
  ASSERT_EQ(tags.code, 0) << tags.err;
  EXPECT_NE(tags.out.find("sha256-"), std::string::npos) << tags.out;
}

// A bundle created with --referrers lists the image's documents in its
// index and a load puts them beside the image; without it, none travel.
TEST_F(SbomCli, ABundleCarriesTheReferrersItListsAcrossTheGap) {
  const std::string a = build("a");
  auto reg = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(reg) << reg.error().message();
  const std::string host = (*reg)->host_port();
  const std::string src = "docker://" + host + "/team/app:1";
  ASSERT_EQ(strata({"--insecure-registry", host, "copy", "--referrers", a, src}).code, 0);
  const stdfs::path config = dir_ / "mirror.yaml";
  std::ofstream(config) << "images:\n  - source: " << src << "\n    destination: " << src << "\n";
  for (bool with : {true, false}) {
    const std::string out = (dir_ / (with ? "with.tar" : "without.tar")).string();
    std::vector<std::string> create{"--insecure-registry", host, "--json", "bundle", "create", "--out", out,
                                    "--mirror", config.string()};
    if (with) create.push_back("--referrers");
    auto made = strata(create);
    ASSERT_EQ(made.code, 0) << made.err;
    // SPDX, CycloneDX, provenance, and the overlay's last-use record (a referrer too).
    const int carried = json::parse(made.out)["referrers"];
    if (with) EXPECT_GE(carried, 3);
    else EXPECT_EQ(carried, 0);
    const std::string site = "docker://" + host + (with ? "/site-a" : "/site-b");
    auto loaded = strata({"--insecure-registry", host, "--json", "bundle", "load", out, "--dest", site});
    ASSERT_EQ(loaded.code, 0) << loaded.err;
    EXPECT_EQ(json::parse(loaded.out)["referrers"]["loaded"], carried);
    const std::string there = site + "/team/app:1";
    auto spdx = strata({"--insecure-registry", host, "sbom", there});
    ASSERT_EQ(spdx.code, 0) << spdx.err;
    auto prov = strata({"--insecure-registry", host, "sbom", "--provenance", there});
    if (with) {
      EXPECT_EQ(spdx.out, sbom({a}));  // the attached document, byte for byte
      ASSERT_EQ(prov.code, 0) << prov.err;
      EXPECT_EQ(prov.out, sbom({"--provenance", a}));
    } else {
      EXPECT_NE(spdx.out, sbom({a}));  // derived there: no .deb URLs or digests
      EXPECT_EQ(prov.code, 1);
    }
  }
}

TEST_F(SbomCli, AnImageWithoutADpkgDatabaseGetsADocumentThatSaysSo) {
  const stdfs::path root = dir_ / "root";
  stdfs::create_directories(root / "app");
  std::ofstream(root / "app" / "run") << "#!/bin/sh\n";
  ASSERT_EQ(run({"tar", "-C", root.string(), "-cf", (dir_ / "root.tar").string(), "."}).code, 0);
  const std::string ref = "oci:" + (dir_ / "img").string() + ":app";
  ASSERT_EQ(strata({"import", (dir_ / "root.tar").string(), "--dest", ref}).code, 0);
  // import attached documents that say so; a derived one says it too, and warns.
  for (bool derive : {false, true}) {
    std::vector<std::string> args{"sbom", ref};
    if (derive) args.insert(args.begin() + 1, "--derive");
    auto r = strata(args);
    ASSERT_EQ(r.code, 0) << r.err;
    auto doc = json::parse(r.out);
    EXPECT_NE(doc["comment"].get<std::string>().find("no dpkg database"), std::string::npos);
    if (derive) {
      EXPECT_NE(r.err.find("no dpkg database"), std::string::npos) << r.err;
    }
  }
  // The import's provenance names the tarball by name and digest.
  auto prov = strata({"sbom", "--provenance", ref});
  ASSERT_EQ(prov.code, 0) << prov.err;
  EXPECT_NE(prov.out.find("https://strata.dev/buildtypes/import/v1"), std::string::npos) << prov.out;
  EXPECT_NE(prov.out.find("\"name\": \"root.tar\""), std::string::npos) << prov.out;
  // Copied without its referrers, the image has no provenance: only a build knows one.
  const std::string bare = "oci:" + (dir_ / "bare").string() + ":app";
  ASSERT_EQ(strata({"copy", ref, bare}).code, 0);
  auto none = strata({"sbom", "--provenance", bare});
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.err.find("no provenance attached"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace strata::testing
