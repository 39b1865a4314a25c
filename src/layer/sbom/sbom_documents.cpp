#include "layer/sbom/sbom_documents.hpp"

#include <cctype>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "layer/debian/dep5.hpp"
#include "oci/manifest.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer::sbom {
namespace {

using Json = nlohmann::ordered_json;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// purl-spec percent-encoding: alphanumerics and ".-_~" stay, and ':' too
// (so an epoch reads "1:2.4"); everything else is %XX.
std::string purl_encode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '.' || c == '-' || c == '_' || c == '~' || c == ':') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// An SPDX identifier's tail: letters, digits, '.' and '-' only. Debian
// names are lowercase [a-z0-9+.-], so '+' becomes ".2B", which no Debian
// name can spell (uppercase).
std::string spdx_id_part(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') out += c;
    else {
      char buf[4];
      std::snprintf(buf, sizeof buf, ".%02X", static_cast<unsigned char>(c));
      out += buf;
    }
  }
  return out;
}

// "Name <email>" → {"Name", "email"}; no '<' → {whole, ""}.
std::pair<std::string, std::string> split_maintainer(std::string_view m) {
  auto lt = m.find('<');
  auto gt = m.rfind('>');
  if (lt == std::string_view::npos || gt == std::string_view::npos || gt < lt) return {std::string(str::trim(m)), ""};
  return {std::string(str::trim(m.substr(0, lt))), std::string(str::trim(m.substr(lt + 1, gt - lt - 1)))};
}

std::string short_hex(std::string_view hex) { return std::string(hex.substr(0, 12)); }

// A digest as each format names its algorithm ("sha256" → SPDX "SHA256",
// CycloneDX "SHA-256"); the OCI digests strata reads are sha256 or sha512.
Json spdx_checksum(const oci::Digest& d) {
  std::string alg = d.algorithm() == "sha512" ? "SHA512" : "SHA256";
  return {{"algorithm", alg}, {"checksumValue", std::string(d.hex())}};
}
Json cyclonedx_hash(const oci::Digest& d) {
  std::string alg = d.algorithm() == "sha512" ? "SHA-512" : "SHA-256";
  return {{"alg", alg}, {"content", std::string(d.hex())}};
}

// An SPDX supplier: "Person: NAME (EMAIL)", or NOASSERTION when the
// Maintainer field names nobody.
std::string spdx_supplier(std::string_view maintainer) {
  auto [name, email] = split_maintainer(maintainer);
  if (name.empty()) return "NOASSERTION";
  return "Person: " + name + (email.empty() ? "" : " (" + email + ")");
}

bool is_absolute_url(std::string_view u) { return u.find("://") != std::string_view::npos; }

std::string distro_name(const ImageSbom& image) {
  if (image.distro_id.empty() || image.distro_version.empty()) return {};
  return lower(image.distro_id) + "-" + image.distro_version;
}

std::string package_spdx_id(const SbomPackage& p) {
  return "SPDXRef-Package-deb-" + spdx_id_part(p.name) + "-" + spdx_id_part(p.architecture);
}
std::string layer_spdx_id(const ImageSbom& image, std::size_t i) {
  return "SPDXRef-Layer-" + std::to_string(i + 1) + "-" + short_hex(image.layers[i].descriptor.digest.hex());
}
std::string image_spdx_id(const ImageSbom& image) { return "SPDXRef-Image-" + short_hex(image.image.digest.hex()); }

std::string toolchain_spdx_id(const SbomToolchain& t) {
  return "SPDXRef-Toolchain-" + spdx_id_part(t.tool) + "-" + spdx_id_part(t.version);
}

// purl-spec's generic type, with the archive it came from:
// pkg:generic/node@22.11.0?download_url=https:%2F%2Fnodejs.org%2F…
std::string toolchain_purl(const SbomToolchain& t) {
  std::string out = "pkg:generic/" + purl_encode(t.tool) + "@" + purl_encode(t.version);
  if (!t.archives.empty()) out += "?download_url=" + purl_encode(t.archives.front().url);
  return out;
}

Json spdx_archive_checksum(const SbomToolchain::Archive& a) {
  return {{"algorithm", a.algorithm == "sha512" ? "SHA512" : "SHA256"}, {"checksumValue", a.hex}};
}
Json cyclonedx_archive_hash(const SbomToolchain::Archive& a) {
  return {{"alg", a.algorithm == "sha512" ? "SHA-512" : "SHA-256"}, {"content", a.hex}};
}
bool known_algorithm(const SbomToolchain::Archive& a) { return a.algorithm == "sha256" || a.algorithm == "sha512"; }

// CycloneDX properties naming the layer a component lives in.
void add_layer_properties(const ImageSbom& image, std::size_t layer, Json& props) {
  if (layer >= image.layers.size()) return;
  props.push_back({{"name", "strata:layer:index"}, {"value", std::to_string(layer + 1)}});
  props.push_back({{"name", "strata:layer:digest"}, {"value", image.layers[layer].descriptor.digest.str()}});
  props.push_back({{"name", "strata:layer:diff_id"}, {"value", image.layers[layer].diff_id}});
}

constexpr std::string_view kNoDatabase =
    "The image has no dpkg database (/var/lib/dpkg/status or /var/lib/dpkg/status.d): which Debian packages "
    "it holds is not known, and none are listed.";

// Every LicenseRef-… an expression names.
void license_refs(std::string_view expression, std::set<std::string>& out) {
  for (auto word : str::split_ws(expression)) {
    while (!word.empty() && word.front() == '(') word.remove_prefix(1);
    while (!word.empty() && word.back() == ')') word.remove_suffix(1);
    if (is_license_ref(word)) out.emplace(word);
  }
}

std::string pretty(const Json& j) { return oci::dump_json(j, 2) + "\n"; }

// An RFC 4122 version-4 layout over the first 16 bytes of a SHA-256: a
// name-derived UUID CycloneDX's schema accepts (versions 1–5 only).
std::string uuid_of(std::string_view seed) {
  std::string h = sha256_hex(seed);
  h[12] = '4';
  static constexpr char kVariant[] = "89ab";
  h[16] = kVariant[std::stoi(std::string(1, h[16]), nullptr, 16) & 3];
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20, 12);
}

}  // namespace

std::string_view sbom_media_type(SbomFormat f) { return f == SbomFormat::kSpdx ? kSpdxMediaType : kCycloneDxMediaType; }

std::string deb_purl(const SbomPackage& p, const ImageSbom& image) {
  std::string ns = image.distro_id.empty() ? "debian" : lower(image.distro_id);
  std::string out = "pkg:deb/" + purl_encode(ns) + "/" + purl_encode(lower(p.name)) + "@" + purl_encode(p.version) +
                    "?arch=" + purl_encode(p.architecture);
  if (auto d = distro_name(image); !d.empty()) out += "&distro=" + purl_encode(d);
  return out;
}

std::string spdx_document(const ImageSbom& image) {
  const std::string hex(image.image.digest.hex());
  Json doc;
  doc["spdxVersion"] = "SPDX-2.3";
  doc["dataLicense"] = "CC0-1.0";
  doc["SPDXID"] = "SPDXRef-DOCUMENT";
  doc["name"] = "sbom-sha256-" + hex;
  doc["documentNamespace"] = "";  // set below, from the rest of the document
  Json creation;
  creation["created"] = image.created;
  creation["creators"] = Json::array({"Tool: " + image.tool});
  if (!image.dpkg_database) creation["comment"] = kNoDatabase;
  doc["creationInfo"] = creation;
  if (!image.dpkg_database) doc["comment"] = kNoDatabase;

  Json packages = Json::array();
  Json relationships = Json::array();
  const std::string image_id = image_spdx_id(image);
  relationships.push_back({{"spdxElementId", "SPDXRef-DOCUMENT"}, {"relationshipType", "DESCRIBES"}, {"relatedSpdxElement", image_id}});
  packages.push_back({{"SPDXID", image_id},
                      {"name", image.image.digest.str()},
                      {"versionInfo", image.image.digest.str()},
                      {"downloadLocation", "NOASSERTION"},
                      {"filesAnalyzed", false},
                      {"checksums", Json::array({spdx_checksum(image.image.digest)})},
                      {"primaryPackagePurpose", "CONTAINER"},
                      {"licenseConcluded", "NOASSERTION"},
                      {"licenseDeclared", "NOASSERTION"},
                      {"copyrightText", "NOASSERTION"},
                      {"comment", "OCI image manifest " + image.image.media_type + ", platform " + image.platform.str()}});
  for (std::size_t i = 0; i < image.layers.size(); ++i) {
    const auto& l = image.layers[i];
    std::string id = layer_spdx_id(image, i);
    packages.push_back({{"SPDXID", id},
                        {"name", l.descriptor.digest.str()},
                        {"downloadLocation", "NOASSERTION"},
                        {"filesAnalyzed", false},
                        {"checksums", Json::array({spdx_checksum(l.descriptor.digest)})},
                        {"primaryPackagePurpose", "ARCHIVE"},
                        {"licenseConcluded", "NOASSERTION"},
                        {"licenseDeclared", "NOASSERTION"},
                        {"copyrightText", "NOASSERTION"},
                        {"comment", "layer " + std::to_string(i + 1) + " of " + std::to_string(image.layers.size()) +
                                        " (" + l.descriptor.media_type + "), diff_id " + l.diff_id}});
    relationships.push_back({{"spdxElementId", image_id}, {"relationshipType", "CONTAINS"}, {"relatedSpdxElement", id}});
  }
  std::set<std::string> refs;
  for (const auto& p : image.packages) {
    Json j;
    j["SPDXID"] = package_spdx_id(p);
    j["name"] = p.name;
    j["versionInfo"] = p.version;
    j["supplier"] = spdx_supplier(p.maintainer);
    j["downloadLocation"] = is_absolute_url(p.deb_url) ? p.deb_url : "NOASSERTION";
    j["filesAnalyzed"] = false;
    if (!p.deb_sha256.empty()) j["checksums"] = Json::array({{{"algorithm", "SHA256"}, {"checksumValue", p.deb_sha256}}});
    if (!p.homepage.empty()) j["homepage"] = p.homepage;
    j["sourceInfo"] = "built from the Debian source package " + p.source + " " + p.source_version;
    j["licenseConcluded"] = "NOASSERTION";
    j["licenseDeclared"] = p.license.empty() ? "NOASSERTION" : p.license;
    j["copyrightText"] = "NOASSERTION";
    j["externalRefs"] = Json::array(
        {{{"referenceCategory", "PACKAGE-MANAGER"}, {"referenceType", "purl"}, {"referenceLocator", deb_purl(p, image)}}});
    license_refs(p.license, refs);
    packages.push_back(std::move(j));
    std::string layer = p.layer < image.layers.size() ? layer_spdx_id(image, p.layer) : image_id;
    relationships.push_back(
        {{"spdxElementId", layer}, {"relationshipType", "CONTAINS"}, {"relatedSpdxElement", package_spdx_id(p)}});
  }
  for (const auto& t : image.toolchains) {
    Json j;
    j["SPDXID"] = toolchain_spdx_id(t);
    j["name"] = t.tool;
    j["versionInfo"] = t.version;
    j["supplier"] = "NOASSERTION";
    j["downloadLocation"] = !t.archives.empty() && is_absolute_url(t.archives.front().url) ? t.archives.front().url : "NOASSERTION";
    j["filesAnalyzed"] = false;
    Json sums = Json::array();
    for (const auto& a : t.archives)
      if (known_algorithm(a)) sums.push_back(spdx_archive_checksum(a));
    if (!sums.empty()) j["checksums"] = sums;
    j["primaryPackagePurpose"] = "APPLICATION";
    j["licenseConcluded"] = "NOASSERTION";
    j["licenseDeclared"] = "NOASSERTION";
    j["copyrightText"] = "NOASSERTION";
    j["comment"] = "a strata toolchain layer: " + t.tool + " " + t.version + " from " + t.source +
                   ", under /opt/strata/toolchains/" + t.tool + "/" + t.version;
    j["externalRefs"] = Json::array(
        {{{"referenceCategory", "PACKAGE-MANAGER"}, {"referenceType", "purl"}, {"referenceLocator", toolchain_purl(t)}}});
    packages.push_back(std::move(j));
    std::string layer = t.layer < image.layers.size() ? layer_spdx_id(image, t.layer) : image_id;
    relationships.push_back(
        {{"spdxElementId", layer}, {"relationshipType", "CONTAINS"}, {"relatedSpdxElement", toolchain_spdx_id(t)}});
  }
  if (!refs.empty()) {
    Json infos = Json::array();
    for (const auto& r : refs) {
      std::string name = r.substr(std::string_view("LicenseRef-").size());
      infos.push_back({{"licenseId", r},
                       {"extractedText", "The licence a Debian copyright file (copyright-format 1.0) names \"" + name +
                                             "\", a name SPDX has no identifier for; its text is in that file, "
                                             "/usr/share/doc/<package>/copyright."},
                       {"name", name}});
    }
    doc["hasExtractedLicensingInfos"] = infos;
  }
  doc["packages"] = packages;
  doc["relationships"] = relationships;
  std::string body = pretty(doc);
  doc["documentNamespace"] = "https://strata.dev/spdxdocs/sbom-sha256-" + hex + "-" + sha256_hex(body).substr(0, 16);
  return pretty(doc);
}

std::string cyclonedx_document(const ImageSbom& image) {
  const std::string hex(image.image.digest.hex());
  Json doc;
  doc["bomFormat"] = "CycloneDX";
  doc["specVersion"] = "1.5";
  doc["serialNumber"] = "";  // set below, from the rest of the document
  doc["version"] = 1;
  Json meta;
  meta["timestamp"] = image.created;
  auto tool = image.tool;
  auto dash = tool.find('-');
  Json tool_component = {{"type", "application"}, {"name", tool.substr(0, dash)}};
  if (dash != std::string::npos) tool_component["version"] = tool.substr(dash + 1);
  meta["tools"] = {{"components", Json::array({tool_component})}};
  Json subject = {{"bom-ref", image.image.digest.str()},
                  {"type", "container"},
                  {"name", image.image.digest.str()},
                  {"version", image.image.digest.str()},
                  {"hashes", Json::array({cyclonedx_hash(image.image.digest)})}};
  Json subject_props = Json::array({{{"name", "strata:platform"}, {"value", image.platform.str()}}});
  if (auto d = distro_name(image); !d.empty()) subject_props.push_back({{"name", "strata:distro"}, {"value", d}});
  for (std::size_t i = 0; i < image.layers.size(); ++i)
    subject_props.push_back({{"name", "strata:layer:" + std::to_string(i + 1)},
                             {"value", image.layers[i].descriptor.digest.str() + " diff_id " + image.layers[i].diff_id}});
  subject["properties"] = subject_props;
  meta["component"] = subject;
  meta["properties"] = Json::array({{{"name", "strata:dpkg-database"}, {"value", image.dpkg_database ? "present" : "absent"}}});
  doc["metadata"] = meta;
  if (!image.dpkg_database) {
    // CycloneDX 1.5 has no document comment; an annotation on the image says it.
    doc["annotations"] = Json::array({{{"subjects", Json::array({image.image.digest.str()})},
                                       {"annotator", {{"component", tool_component}}},
                                       {"timestamp", image.created},
                                       {"text", std::string(kNoDatabase)}}});
  }
  Json components = Json::array();
  Json depends = Json::array();
  std::set<std::string> refs_seen;
  for (const auto& p : image.packages) {
    std::string purl = deb_purl(p, image);
    // bom-refs are unique: a status file that names one package twice in
    // different case (purl names are lowercase) gets a second ref.
    std::string ref = purl;
    for (int n = 2; !refs_seen.insert(ref).second; ++n) ref = purl + "#" + std::to_string(n);
    Json c;
    c["bom-ref"] = ref;
    c["type"] = "library";
    if (auto [name, email] = split_maintainer(p.maintainer); !name.empty()) {
      Json supplier = {{"name", name}};
      if (!email.empty() && email.find('@') != std::string::npos && email.find(' ') == std::string::npos)
        supplier["contact"] = Json::array({{{"email", email}}});
      c["supplier"] = supplier;
    }
    c["name"] = p.name;
    c["version"] = p.version;
    if (!p.deb_sha256.empty()) c["hashes"] = Json::array({{{"alg", "SHA-256"}, {"content", p.deb_sha256}}});
    if (!p.license.empty()) {
      bool single = p.license.find(' ') == std::string::npos;
      if (single && !is_license_ref(p.license)) c["licenses"] = Json::array({{{"license", {{"id", p.license}}}}});
      else c["licenses"] = Json::array({{{"expression", p.license}}});
    }
    c["purl"] = purl;
    Json refs = Json::array();
    if (!p.homepage.empty()) refs.push_back({{"type", "website"}, {"url", p.homepage}});
    if (is_absolute_url(p.deb_url)) refs.push_back({{"type", "distribution"}, {"url", p.deb_url}});
    if (!refs.empty()) c["externalReferences"] = refs;
    Json props = Json::array({{{"name", "strata:deb:source"}, {"value", p.source + " " + p.source_version}}});
    add_layer_properties(image, p.layer, props);
    c["properties"] = props;
    components.push_back(std::move(c));
    depends.push_back(ref);
  }
  for (const auto& t : image.toolchains) {
    std::string purl = toolchain_purl(t);
    std::string ref = purl;
    for (int n = 2; !refs_seen.insert(ref).second; ++n) ref = purl + "#" + std::to_string(n);
    Json c;
    c["bom-ref"] = ref;
    c["type"] = "application";
    c["name"] = t.tool;
    c["version"] = t.version;
    Json hashes = Json::array();
    for (const auto& a : t.archives)
      if (known_algorithm(a)) hashes.push_back(cyclonedx_archive_hash(a));
    if (!hashes.empty()) c["hashes"] = hashes;
    c["purl"] = purl;
    Json refs = Json::array();
    for (const auto& a : t.archives)
      if (is_absolute_url(a.url)) refs.push_back({{"type", "distribution"}, {"url", a.url}});
    if (!refs.empty()) c["externalReferences"] = refs;
    Json props = Json::array({{{"name", "strata:toolchain:source"}, {"value", t.source}}});
    add_layer_properties(image, t.layer, props);
    c["properties"] = props;
    components.push_back(std::move(c));
    depends.push_back(ref);
  }
  doc["components"] = components;
  doc["dependencies"] = Json::array({{{"ref", image.image.digest.str()}, {"dependsOn", depends}}});
  doc["serialNumber"] = "urn:uuid:" + uuid_of(pretty(doc));
  return pretty(doc);
}

std::string sbom_document(const ImageSbom& image, SbomFormat f) {
  return f == SbomFormat::kSpdx ? spdx_document(image) : cyclonedx_document(image);
}

}  // namespace strata::layer::sbom
