// The bill of materials read from an image (layer/sbom): DEP-5 licences,
// which layer each package lives in, the SPDX 2.3 and CycloneDX 1.5
// documents checked field by field against their specifications, and the
// documents attached as referrers and found again (subject checked).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "layer/debian/dep5.hpp"
#include "layer/sbom/image_document.hpp"
#include "layer/sbom/image_sbom.hpp"
#include "layer/sbom/referrers.hpp"
#include "layer/sbom/sbom_documents.hpp"
#include "oci/layout_store.hpp"
#include "oci/media_types.hpp"
#include "oci/store.hpp"
#include "support/image_layers.hpp"
#include "support/temp_dir.hpp"
#include "util/sha.hpp"

namespace strata::layer::sbom {
namespace {

namespace tl = strata::testing::layers;

constexpr std::string_view kFormat = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n";

TEST(Dep5, NamesEveryLicenceOnceInSpdxTerms) {
  std::string text = std::string(kFormat) +
                     "Upstream-Name: curl\n\n"
                     "Files: *\nCopyright: 1996 Daniel\nLicense: curl\n\n"
                     "Files: lib/*\nCopyright: x\nLicense: Expat\n\n"
                     "Files: debian/*\nCopyright: y\nLicense: GPL-2+\n\n"
                     "Files: docs/*\nCopyright: z\nLicense: Expat\n\n"
                     "License: GPL-2+\n This program is free software\n .\n more text\n";
  EXPECT_EQ(dep5_license(text), "curl AND MIT AND GPL-2.0-or-later");
}

TEST(Dep5, ChoicesAndCommaGroups) {
  auto one = [](std::string license) {
    return dep5_license(std::string(kFormat) + "\nFiles: *\nCopyright: x\nLicense: " + license + "\n");
  };
  EXPECT_EQ(one("GPL-1+ or Artistic"), "GPL-1.0-or-later OR Artistic-1.0");
  EXPECT_EQ(one("GPL-2+ or Artistic-2.0, and BSD-3-clause"), "(GPL-2.0-or-later OR Artistic-2.0) AND BSD-3-Clause");
  EXPECT_EQ(one("LGPL-2.1"), "LGPL-2.1-only");
  EXPECT_EQ(one("LGPL-2.1+"), "LGPL-2.1-or-later");
  EXPECT_EQ(one("GPL-3"), "GPL-3.0-only");
  EXPECT_EQ(one("public-domain"), "LicenseRef-public-domain");
  EXPECT_EQ(one("GPL-2+ with OpenSSL exception"), "LicenseRef-GPL-2-or-later-with-OpenSSL-exception");
  EXPECT_EQ(one("GFDL-NIV-1.3+"), "LicenseRef-GFDL-NIV-1.3-or-later");
  EXPECT_EQ(one("GPL-7"), "LicenseRef-GPL-7");  // no such GPL: a reference, not an invented identifier
}

// Whatever a License line says, the result is an SPDX expression: an
// operator with no licence on a side is dropped, two names with none between
// are joined with AND, and names SPDX has already stay as they are.
TEST(Dep5, AlwaysAWellFormedExpression) {
  auto one = [](std::string license) {
    return dep5_license(std::string(kFormat) + "\nFiles: *\nCopyright: x\nLicense: " + license + "\n");
  };
  EXPECT_EQ(one("GPL-2+ or, BSD-3-clause"), "GPL-2.0-or-later AND BSD-3-Clause");
  EXPECT_EQ(one("GPL-2 and and MIT"), "GPL-2.0-only AND MIT");
  EXPECT_EQ(one("or MIT"), "MIT");
  EXPECT_EQ(one("MIT or"), "MIT");
  EXPECT_EQ(one(", and , or"), std::nullopt);
  EXPECT_EQ(one("GPL-2.0-only or LGPL-2.1-or-later"), "GPL-2.0-only OR LGPL-2.1-or-later");
  EXPECT_EQ(one("GPL-2.0+-only"), "LicenseRef-GPL-2.0-or-later-only");  // not an SPDX id: a reference
  std::regex grammar(R"(^(\(*[A-Za-z0-9.\-]+\)*( (AND|OR) )?)+$)");
  for (std::string line : {"a, b, and c or d", "GPL-2+ with OpenSSL exception or MIT, and", "x , , y", "and , or"}) {
    auto e = one(line);
    if (e) {
      EXPECT_TRUE(std::regex_match(*e, grammar)) << line << " → " << *e;
    }
  }
}

// A hostile copyright file (a capture is 1 MiB) costs linear time and a
// bounded summary: past the bounds it says nothing (NOASSERTION).
TEST(Dep5, AHostileFileIsBoundedNotQuadratic) {
  std::string commas;
  while (commas.size() < (1u << 20) - 200) commas += "a, ";
  EXPECT_EQ(dep5_license(std::string(kFormat) + "\nFiles: *\nCopyright: x\nLicense: " + commas + "\n"), std::nullopt);
  std::string stanzas = std::string(kFormat);
  for (int i = 0; stanzas.size() < (1u << 20) - 200; ++i)
    stanzas += "\nFiles: f" + std::to_string(i) + "\nCopyright: x\nLicense: L" + std::to_string(i) + "\n";
  EXPECT_EQ(dep5_license(stanzas), std::nullopt);
}

TEST(Dep5, NotMachineReadableSaysNothing) {
  EXPECT_EQ(dep5_license("This is the Debian GNU/Linux prepackaged version of libc.\n\nCopyright 1991 FSF\n"),
            std::nullopt);
  EXPECT_EQ(dep5_license("Upstream-Name: x\n\nFiles: *\nLicense: MIT\n"), std::nullopt);  // no Format
  EXPECT_EQ(dep5_license(std::string(kFormat) + "\nFiles: *\nCopyright: x\n"), std::nullopt);  // no License
  EXPECT_EQ(dep5_license(""), std::nullopt);
}

std::string stanza(std::string name, std::string version, std::string arch, std::string extra = "") {
  return "Package: " + name + "\nStatus: install ok installed\nArchitecture: " + arch + "\nVersion: " + version +
         "\nMaintainer: Debian Team <team@lists.debian.org>\n" + extra + "Description: d\n";
}

// A two-layer image: a base of base-files and libc6, then a layer that
// installs curl (status rewritten whole, as dpkg does).
class ImageSbomTest : public ::testing::Test {
 protected:
  void add_layer(const std::vector<tl::E>& entries) {
    std::string tar = tl::raw_tar(entries);
    diff_ids_.push_back("sha256:" + sha256_hex(tar));
    manifest_.layers.push_back(store_.put_blob(std::string(oci::layer_media_type(oci::Compression::kNone)), tar));
  }
  oci::RawManifest finish() {
    nlohmann::ordered_json config = {{"created", "2024-05-01T12:00:00.5+02:00"},
                                     {"architecture", "amd64"},
                                     {"os", "linux"},
                                     {"rootfs", {{"type", "layers"}, {"diff_ids", diff_ids_}}}};
    manifest_.media_type = std::string(oci::media::kOciManifest);
    manifest_.config = store_.put_blob(std::string(oci::media::kOciConfig), config.dump());
    return oci::make_raw_manifest(manifest_.media_type, oci::serialize(manifest_));
  }
  void two_layers() {
    std::string base_status = stanza("base-files", "12.4+deb12u5", "amd64") + "\n" +
                              stanza("libc6", "2.36-9+deb12u7", "amd64", "Source: glibc\nMulti-Arch: same\n");
    add_layer({tl::dir("etc"), tl::file("etc/os-release", "ID=debian\nVERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\n"),
               tl::dir("var"), tl::dir("var/lib"), tl::dir("var/lib/dpkg"), tl::dir("var/lib/dpkg/info"),
               tl::file("var/lib/dpkg/status", base_status), tl::file("var/lib/dpkg/info/base-files.list", "/etc\n"),
               tl::file("var/lib/dpkg/info/libc6:amd64.list", "/lib\n"), tl::dir("usr"), tl::dir("usr/share"),
               tl::dir("usr/share/doc"), tl::dir("usr/share/doc/base-files"),
               tl::file("usr/share/doc/base-files/copyright", std::string(kFormat) + "\nFiles: *\nCopyright: x\nLicense: GPL-2+\n"),
               tl::dir("usr/share/doc/libc6"), tl::file("usr/share/doc/libc6/copyright", "free text, not DEP-5\n")});
    add_layer({tl::file("var/lib/dpkg/status", base_status + "\n" + stanza("curl", "7.88.1-10+deb12u5", "amd64", "Homepage: https://curl.se/\n")),
               tl::file("var/lib/dpkg/info/curl.list", "/usr/bin/curl\n"), tl::dir("usr/share/doc/curl"),
               tl::file("usr/share/doc/curl/copyright", std::string(kFormat) + "\nFiles: *\nCopyright: x\nLicense: curl\n")});
  }
  ImageSbom read(const oci::RawManifest& raw) {
    auto got = read_image_sbom(store_, raw, manifest_, "test image", "strata-9.9.9");
    EXPECT_TRUE(got) << got.error().message();
    return got ? *got : ImageSbom{};
  }
  strata::testing::TestStore store_;
  oci::ImageManifest manifest_;
  std::vector<std::string> diff_ids_;
};

TEST(SbomTime, Rfc3339InItsSpellingsElseNothing) {
  EXPECT_EQ(sbom_time("2024-05-01T12:00:00Z"), "2024-05-01T12:00:00Z");
  EXPECT_EQ(sbom_time("2024-05-01T12:00:00.123456789+02:00"), "2024-05-01T10:00:00Z");
  EXPECT_EQ(sbom_time("2024-05-01T12:00:00+0000"), "2024-05-01T12:00:00Z");
  EXPECT_EQ(sbom_time("1969-12-31T23:59:59Z"), "1969-12-31T23:59:59Z");
  EXPECT_EQ(sbom_time("2024-00-01T12:00:00Z"), std::nullopt);
  EXPECT_EQ(sbom_time("2024-05-01 12:00:00"), std::nullopt);
  EXPECT_EQ(sbom_time("2024-05-01T12:00:00+25:00"), std::nullopt);
}

TEST_F(ImageSbomTest, EachPackageInTheLayerThatInstalledIt) {
  two_layers();
  auto image = read(finish());
  EXPECT_TRUE(image.dpkg_database);
  EXPECT_EQ(image.created, "2024-05-01T10:00:00Z");
  EXPECT_EQ(image.distro_id, "debian");
  EXPECT_EQ(image.distro_version, "12");
  ASSERT_EQ(image.packages.size(), 3u);
  const auto& base = image.packages[0];
  const auto& curl = image.packages[1];
  const auto& libc = image.packages[2];
  EXPECT_EQ(base.name, "base-files");
  EXPECT_EQ(base.layer, 0u);
  EXPECT_EQ(base.license, "GPL-2.0-or-later");
  EXPECT_EQ(curl.name, "curl");
  EXPECT_EQ(curl.layer, 1u);
  EXPECT_EQ(curl.license, "curl");
  EXPECT_EQ(curl.homepage, "https://curl.se/");
  EXPECT_EQ(libc.name, "libc6");
  EXPECT_EQ(libc.layer, 0u);  // its file list is libc6:amd64.list, in the base
  EXPECT_EQ(libc.license, "");  // not machine-readable: NOASSERTION
  EXPECT_EQ(libc.source, "glibc");
  EXPECT_EQ(deb_purl(curl, image), "pkg:deb/debian/curl@7.88.1-10%2Bdeb12u5?arch=amd64&distro=debian-12");
}

TEST_F(ImageSbomTest, SpdxMeetsTheSpecificationsRequiredFields) {
  two_layers();
  auto raw = finish();
  auto image = read(raw);
  std::string text = spdx_document(image);
  EXPECT_EQ(text, spdx_document(read(raw)));  // the same image, the same bytes
  auto doc = nlohmann::json::parse(text);
  // SPDX 2.3 §6: the document creation information.
  EXPECT_EQ(doc["spdxVersion"], "SPDX-2.3");
  EXPECT_EQ(doc["dataLicense"], "CC0-1.0");
  EXPECT_EQ(doc["SPDXID"], "SPDXRef-DOCUMENT");
  EXPECT_FALSE(doc["name"].get<std::string>().empty());
  std::string ns = doc["documentNamespace"];
  EXPECT_TRUE(ns.starts_with("https://")) << ns;
  EXPECT_EQ(ns.find('#'), std::string::npos);
  EXPECT_TRUE(std::regex_match(doc["creationInfo"]["created"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_EQ(doc["creationInfo"]["creators"], nlohmann::json::array({"Tool: strata-9.9.9"}));
  // §7: every package has SPDXID, name, downloadLocation; ids unique and well-formed.
  std::set<std::string> ids{"SPDXRef-DOCUMENT"};
  for (const auto& p : doc["packages"]) {
    std::string id = p["SPDXID"];
    EXPECT_TRUE(std::regex_match(id, std::regex(R"(SPDXRef-[A-Za-z0-9.\-]+)"))) << id;
    EXPECT_TRUE(ids.insert(id).second) << id;
    EXPECT_TRUE(p.contains("name") && p.contains("downloadLocation")) << id;
    EXPECT_EQ(p["filesAnalyzed"], false) << id;  // no file list, so no verification code
  }
  EXPECT_EQ(ids.size(), 1 + 1 + 2 + 3u);  // document, image, two layers, three packages
  // §11: every relationship names elements of the document; the document DESCRIBES the image.
  int describes = 0;
  std::map<std::string, std::string> container_of;
  for (const auto& r : doc["relationships"]) {
    EXPECT_TRUE(ids.contains(r["spdxElementId"])) << r.dump();
    EXPECT_TRUE(ids.contains(r["relatedSpdxElement"])) << r.dump();
    if (r["relationshipType"] == "DESCRIBES") ++describes;
    if (r["relationshipType"] == "CONTAINS") container_of[r["relatedSpdxElement"]] = r["spdxElementId"];
  }
  EXPECT_EQ(describes, 1);
  EXPECT_TRUE(container_of["SPDXRef-Package-deb-curl-amd64"].starts_with("SPDXRef-Layer-2-"));
  EXPECT_TRUE(container_of["SPDXRef-Package-deb-libc6-amd64"].starts_with("SPDXRef-Layer-1-"));
  for (const auto& p : doc["packages"]) {
    if (p["name"] != "curl") continue;
    EXPECT_EQ(p["versionInfo"], "7.88.1-10+deb12u5");
    EXPECT_EQ(p["supplier"], "Person: Debian Team (team@lists.debian.org)");
    EXPECT_EQ(p["licenseDeclared"], "curl");
    EXPECT_EQ(p["externalRefs"][0]["referenceCategory"], "PACKAGE-MANAGER");
    EXPECT_EQ(p["externalRefs"][0]["referenceType"], "purl");
  }
  // A builder that knows the .deb: another document, another namespace.
  image.packages[1].deb_sha256 = std::string(64, 'a');
  image.packages[1].deb_url = "http://deb.debian.org/debian/pool/main/c/curl/curl_7.88.1-10+deb12u5_amd64.deb";
  auto built = nlohmann::json::parse(spdx_document(image));
  EXPECT_NE(built["documentNamespace"], doc["documentNamespace"]);
}

TEST_F(ImageSbomTest, CycloneDxMeetsTheSchemasRequiredFields) {
  two_layers();
  auto image = read(finish());
  auto doc = nlohmann::json::parse(cyclonedx_document(image));
  EXPECT_EQ(doc["bomFormat"], "CycloneDX");
  EXPECT_EQ(doc["specVersion"], "1.5");
  EXPECT_EQ(doc["version"], 1);
  // bom-1.5.schema.json's serialNumber pattern.
  EXPECT_TRUE(std::regex_match(doc["serialNumber"].get<std::string>(),
                               std::regex("^urn:uuid:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$")))
      << doc["serialNumber"];
  EXPECT_EQ(doc["metadata"]["component"]["type"], "container");
  std::set<std::string> refs{doc["metadata"]["component"]["bom-ref"]};
  for (const auto& c : doc["components"]) {
    EXPECT_TRUE(c.contains("type") && c.contains("name"));
    EXPECT_TRUE(refs.insert(c["bom-ref"].get<std::string>()).second);
  }
  for (const auto& d : doc["dependencies"]) {
    EXPECT_TRUE(refs.contains(d["ref"]));
    for (const auto& on : d["dependsOn"]) EXPECT_TRUE(refs.contains(on));
  }
  EXPECT_EQ(doc["components"][0]["licenses"][0]["license"]["id"], "GPL-2.0-or-later");
  EXPECT_FALSE(doc["components"][2].contains("licenses"));  // libc6: not stated
}

// Toolchain layers come from the manifest's annotations; one that names no
// layer, repeats a tool and release, or gives a digest that is not one is
// not believed (or its archive left out), so the documents stay valid.
TEST_F(ImageSbomTest, ToolchainLayersFromTheirAnnotationsCheckedFirst) {
  two_layers();
  const std::string layer = manifest_.layers[1].digest.str();
  auto annotation = [&](std::string tool, std::string digest, std::string on) {
    return nlohmann::json{{"tool", tool}, {"release", "22.11.0"}, {"source", "https://nodejs.org/dist"},
                          {"archives", {{{"url", "https://nodejs.org/dist/v22.11.0/node-v22.11.0-linux-x64.tar.xz"},
                                         {"digest", digest}}}},
                          {"layer", on}}
        .dump();
  };
  manifest_.annotations["dev.strata.toolchain.node"] = annotation("node", "sha256:" + std::string(64, 'a'), layer);
  manifest_.annotations["dev.strata.toolchain.x"] = annotation("node", "sha256:" + std::string(64, 'b'), layer);
  manifest_.annotations["dev.strata.toolchain.go"] = annotation("go", "sha256:zz", layer);
  manifest_.annotations["dev.strata.toolchain.rust"] = annotation("rust", "sha256:" + std::string(64, 'c'), "sha256:nope");
  auto image = read(finish());
  ASSERT_EQ(image.toolchains.size(), 2u);  // go (its archive left out) and one node; rust names no layer
  EXPECT_EQ(image.toolchains[0].tool, "go");
  EXPECT_TRUE(image.toolchains[0].archives.empty());
  EXPECT_EQ(image.toolchains[1].tool, "node");
  EXPECT_EQ(image.toolchains[1].layer, 1u);
  auto spdx = nlohmann::json::parse(spdx_document(image));
  std::set<std::string> ids;
  for (const auto& p : spdx["packages"]) EXPECT_TRUE(ids.insert(p["SPDXID"].get<std::string>()).second) << p["SPDXID"];
  EXPECT_TRUE(ids.contains("SPDXRef-Toolchain-node-22.11.0"));
}

TEST_F(ImageSbomTest, AnImageWithoutADpkgDatabaseSaysSo) {
  add_layer({tl::dir("bin"), tl::file("bin/app", "\x7f" "ELF")});
  auto image = read(finish());
  EXPECT_FALSE(image.dpkg_database);
  EXPECT_TRUE(image.packages.empty());
  auto spdx = nlohmann::json::parse(spdx_document(image));
  EXPECT_NE(spdx["comment"].get<std::string>().find("no dpkg database"), std::string::npos);
  auto cdx = nlohmann::json::parse(cyclonedx_document(image));
  EXPECT_EQ(cdx["metadata"]["properties"][0]["value"], "absent");
  EXPECT_NE(cdx["annotations"][0]["text"].get<std::string>().find("no dpkg database"), std::string::npos);
}

TEST_F(ImageSbomTest, AttachedDocumentsAreFoundOnlyThroughTheirSubject) {
  two_layers();
  auto raw = finish();
  strata::testing::TempDir dir;
  auto layout = oci::LayoutStore::open(dir.path(), oci::LayoutMode::kCreate);
  ASSERT_TRUE(layout) << layout.error().message();
  auto& store = **layout;
  // The image into the layout (blobs, then the manifest, tagged).
  for (const auto& d : manifest_.layers) ASSERT_TRUE(oci::write_blob(store, d, store_.blob(d.digest)));
  ASSERT_TRUE(oci::write_blob(store, manifest_.config, store_.blob(manifest_.config.digest)));
  ASSERT_TRUE(store.put_manifest(raw, "app"));

  DocumentRequest r{"app", {"linux", "amd64", "", ""}, DocumentKind::kSpdx, false, "oci:test:app"};
  auto derived = image_document(store, r);
  ASSERT_TRUE(derived) << derived.error().message();
  EXPECT_FALSE(derived->attached);
  r.kind = DocumentKind::kProvenance;
  auto none = image_document(store, r);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), ErrorCode::kNotFound);

  AttachRequest a{raw.descriptor, std::string(kSpdxMediaType), "{\"attached\":true}\n", "2024-05-01T10:00:00Z", {}};
  auto attached = attach_document(store, a);
  ASSERT_TRUE(attached) << attached.error().message();
  EXPECT_EQ(attach_document(store, a)->digest, attached->digest);  // the same document, the same manifest
  r.kind = DocumentKind::kSpdx;
  auto found = image_document(store, r);
  ASSERT_TRUE(found) << found.error().message();
  EXPECT_TRUE(found->attached);
  EXPECT_EQ(found->document, "{\"attached\":true}\n");
  r.derive = true;
  EXPECT_FALSE(image_document(store, r)->attached);

  // Another tool's artifact of the same type (oras attach of a tar) is
  // passed over, not read as strata's document.
  {
    auto before = find_attached_document(store, raw.descriptor, kCycloneDxMediaType, "test");
    ASSERT_TRUE(before && !before->has_value());
    auto config = oci::descriptor_for(std::string(oci::media::kOciEmpty), "{}");
    auto layer = oci::descriptor_for("application/vnd.oci.image.layer.v1.tar", "not json");
    ASSERT_TRUE(oci::write_blob(store, config, "{}"));
    ASSERT_TRUE(oci::write_blob(store, layer, "not json"));
    oci::ImageManifest m;
    m.media_type = std::string(oci::media::kOciManifest);
    m.artifact_type = std::string(kCycloneDxMediaType);
    m.config = config;
    m.layers = {layer};
    m.subject = raw.descriptor;
    ASSERT_TRUE(store.put_manifest(oci::make_raw_manifest(m.media_type, oci::serialize(m)), std::nullopt));
    auto after = find_attached_document(store, raw.descriptor, kCycloneDxMediaType, "test");
    ASSERT_TRUE(after) << after.error().message();
    EXPECT_FALSE(after->has_value());
  }
  // The referrers tag schema (a registry without the API) can list a
  // manifest whose subject is another image: it is refused, not read.
  auto other = oci::descriptor_for(std::string(oci::media::kOciManifest), "another image");
  AttachRequest b{other, std::string(kCycloneDxMediaType), "{}", "", {}};
  auto wrong = attach_document(store_, b);
  ASSERT_TRUE(wrong) << wrong.error().message();
  oci::ImageIndex listing;
  listing.media_type = std::string(oci::media::kOciIndex);
  oci::Descriptor entry = *wrong;
  entry.artifact_type = std::string(kCycloneDxMediaType);
  listing.manifests.push_back(entry);
  auto index = oci::make_raw_manifest(listing.media_type, oci::serialize(listing));
  ASSERT_TRUE(store_.put_manifest(index, oci::referrers_tag(raw.descriptor.digest)));
  auto misfiled = find_attached_document(store_, raw.descriptor, kCycloneDxMediaType, "test");
  ASSERT_FALSE(misfiled);
  EXPECT_EQ(misfiled.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(misfiled.error().message().find("listed for " + raw.descriptor.digest.str()), std::string::npos)
      << misfiled.error().message();
  // With the image's own document listed beside it, the misfiled entry
  // cannot hide it, whichever digest sorts first.
  AttachRequest own{raw.descriptor, std::string(kCycloneDxMediaType), "{\"own\":true}", "", {}};
  auto mine = attach_document(store_, own);
  ASSERT_TRUE(mine);
  oci::Descriptor own_entry = *mine;
  own_entry.artifact_type = std::string(kCycloneDxMediaType);
  listing.manifests.push_back(own_entry);
  ASSERT_TRUE(store_.put_manifest(oci::make_raw_manifest(listing.media_type, oci::serialize(listing)),
                                  oci::referrers_tag(raw.descriptor.digest)));
  auto found_own = find_attached_document(store_, raw.descriptor, kCycloneDxMediaType, "test");
  ASSERT_TRUE(found_own) << found_own.error().message();
  ASSERT_TRUE(found_own->has_value());
  EXPECT_EQ(**found_own, "{\"own\":true}");
}

}  // namespace
}  // namespace strata::layer::sbom
