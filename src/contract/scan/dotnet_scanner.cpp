#include "contract/scan/dotnet_scanner.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "contract/knowledge/ecosystem_versions.hpp"
#include "contract/scan/xml_file.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

std::string dotnet_lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string dotnet_base_name(std::string_view rel) {
  auto slash = rel.rfind('/');
  return std::string(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
}

class DotnetScanner {
 public:
  explicit DotnetScanner(ScanContext& ctx) : ctx_(ctx) {}

  void run() {
    std::vector<std::string> projects, globals, configs;
    for (const char* ext : {".csproj", ".fsproj", ".vbproj"})
      for (auto& f : ctx_.fs().files_ending(ext)) projects.push_back(f);
    for (auto& f : ctx_.fs().files_named("Directory.Build.props")) projects.push_back(f);
    std::sort(projects.begin(), projects.end());
    globals = ctx_.fs().files_named("global.json");
    for (auto& f : ctx_.fs().files_ending("onfig"))  // NuGet.Config, nuget.config, NuGet.config
      if (dotnet_lower(dotnet_base_name(f)) == "nuget.config") configs.push_back(f);
    const auto libmans = ctx_.fs().files_named("libman.json");
    if (projects.empty()) {
      // A global.json alone (a repository's tooling pin without a project) still names the SDK.
      for (const auto& f : globals) global_json(f);
      return;
    }
    ctx_.ecosystem("dotnet");
    ctx_.needs_tool("dotnet", projects, "a .NET project (the dotnet SDK builds it)");
    for (const auto& f : globals) global_json(f);
    for (const auto& f : projects) project(f);
    for (const auto& f : configs) nuget_config(f);
    for (const auto& f : libmans) libman(f);
    if (!cleared_)
      ctx_.egress("api.nuget.org", EgressOrigin::kDefault, "NuGet's default package source (nuget.org)",
                  Evidence{configs.empty() ? projects.front() : configs.front(), "packageSources",
                           "https://api.nuget.org/v3/index.json"});
  }

 private:
  // A JSON file of the .NET tools, which read it with comments allowed
  // (global.json, libman.json); a warning naming it when it is no object.
  std::optional<nlohmann::json> json_object(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return std::nullopt;
    auto j = nlohmann::json::parse(*text, nullptr, false, true);
    if (j.is_discarded() || !j.is_object()) {
      ctx_.warn(rel, "not a JSON object; nothing is read from it");
      return std::nullopt;
    }
    return j;
  }

  void global_json(const std::string& rel) {
    auto parsed = json_object(rel);
    if (!parsed) return;
    const nlohmann::json& j = *parsed;
    auto sdk = j.find("sdk");
    if (sdk == j.end()) return;
    if (!sdk->is_object()) {
      ctx_.warn(rel, "sdk is not an object; no SDK version taken from it");
      return;
    }
    std::string version, policy;
    if (auto v = sdk->find("version"); v != sdk->end() && v->is_string()) version = v->get<std::string>();
    if (auto p = sdk->find("rollForward"); p != sdk->end() && p->is_string()) policy = p->get<std::string>();
    if (version.empty()) {
      if (!policy.empty()) ctx_.note(rel, "sdk.rollForward " + str::quote(policy) + " without sdk.version: any SDK");
      return;
    }
    auto r = dotnet_sdk_range(version, policy);
    // The dotnet host refuses any other SDK ("A compatible .NET SDK was not
    // found"): the range is what the project supports, so pre-flight holds
    // a base's SDK to it, and it is also the project's own choice (a pin).
    const Evidence ev{rel, "sdk.version", policy.empty() ? version : version + " rollForward " + policy};
    const std::string note = "the SDKs global.json lets the dotnet host choose (rollForward " +
                             (policy.empty() ? std::string("latestPatch, the default") : policy) + ")";
    ctx_.constraint("dotnet", ConstraintKind::kSupport, ev, r, note);
    ctx_.constraint("dotnet", ConstraintKind::kPin, ev, r, note);
  }

  void project(const std::string& rel) {
    pugi::xml_document doc;
    if (!read_xml(ctx_, rel, doc)) return;
    pugi::xml_node root = doc.child("Project");
    if (!root) {
      ctx_.warn(rel, "no <Project> element: not an MSBuild project; nothing is read from it");
      return;
    }
    for (const char* field : {"TargetFramework", "TargetFrameworks"}) {
      for (const auto& node : descendants(root, field, 64)) {
        std::string value(str::trim(node.text().get()));
        for (auto part : str::split(value, ';')) {
          std::string tfm(str::trim(part));
          if (tfm.empty()) continue;
          if (tfm.find("$(") != std::string::npos) {
            ctx_.note(rel, std::string(field) + " " + str::quote(tfm) + " is an MSBuild property; no SDK floor taken from it");
            continue;
          }
          auto v = dotnet_target_version(tfm);
          if (!v) {
            std::string l = dotnet_lower(tfm);
            if (!l.starts_with("netstandard") && !l.starts_with("net"))
              ctx_.warn(rel, std::string(field) + " " + str::quote(tfm) + " is not a target framework moniker");
            else if (!l.starts_with("netstandard"))
              ctx_.note(rel, tfm + " is .NET Framework, which builds on Windows; no SDK floor taken from it");
            continue;
          }
          Version sdk{v->major, v->minor, 100, ""};
          ctx_.constraint("dotnet", ConstraintKind::kSupport, {rel, field, tfm}, Range::at_least(sdk),
                          tfm + " needs a .NET SDK " + std::to_string(v->major) + "." + std::to_string(v->minor) +
                              " or newer");
        }
      }
    }    // NuGet packages with native assets: the libraries their .so files
    // load (knowledge base, nuget), needed where the tests run them.
    for (const auto& node : descendants(root, "PackageReference", 4096)) {
      std::string name(str::trim(node.attribute("Include").value()));
      const std::string* entry = name.empty() || set_aside_tree(rel) ? nullptr : ctx_.kb().entry_for("nuget", name);
      if (!entry) continue;
      PackageSignals& s = ctx_.package("nuget", *entry);
      s.direct = true;
      if (*entry == name)
        if (auto v = parse_version(node.attribute("Version").value()); v) s.declared = v;
      if (s.evidence.size() < ScanContext::kRunLibEvidence)
        s.evidence.push_back({rel, "PackageReference", name});
    }
  }

  void nuget_config(const std::string& rel) {
    pugi::xml_document doc;
    if (!read_xml(ctx_, rel, doc)) return;
    pugi::xml_node sources = doc.child("configuration").child("packageSources");
    for (pugi::xml_node n = sources.first_child(); n; n = n.next_sibling()) {
      if (n.type() != pugi::node_element) continue;
      std::string_view name = n.name();
      if (name == "clear") {
        cleared_ = true;
        continue;
      }
      if (name != "add") continue;
      std::string key = n.attribute("key").as_string(), url = n.attribute("value").as_string();
      if (url_host(url).empty()) {
        if (!url.empty() && (url.starts_with("http://") || url.starts_with("https://")))
          ctx_.warn(rel, "package source " + key + ": " + str::quote(url) + " names no host");
        continue;  // a local folder feed
      }
      ctx_.egress_url(url, EgressOrigin::kConfig, "NuGet package source " + key + " (nuget.config)",
                      Evidence{rel, "packageSources " + key, url});
    }
  }

  // libman.json: the client-side libraries LibMan restores (`libman restore`,
  // or every build with Microsoft.Web.LibraryManager.Build) from the CDN of
  // each library's provider, else the file's defaultProvider. The hosts are
  // each provider's API and file host; `filesystem` reaches none.
  void libman(const std::string& rel) {
    if (set_aside_tree(rel)) return;  // a sample's or the documentation site's libraries
    auto parsed = json_object(rel);
    if (!parsed) return;
    const nlohmann::json& j = *parsed;
    auto str_of = [](const nlohmann::json& o, const char* key) {
      auto it = o.find(key);
      return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const std::string fallback = str_of(j, "defaultProvider");
    auto libs = j.find("libraries");
    if (libs == j.end() || !libs->is_array()) return;
    struct Provider {
      std::string_view name, what;
      std::array<std::string_view, 2> hosts;
    };
    static constexpr std::array<Provider, 3> kProviders = {{
        {"cdnjs", "cdnjs", {"api.cdnjs.com", "cdnjs.cloudflare.com"}},
        {"unpkg", "unpkg", {"unpkg.com", ""}},
        {"jsdelivr", "jsDelivr", {"data.jsdelivr.com", "cdn.jsdelivr.net"}},
    }};
    std::set<std::string> done;
    std::size_t n = 0, unknown = 0;
    for (const auto& lib : *libs) {
      if (++n > kMaxLibmanLibraries) break;
      if (!lib.is_object()) continue;
      std::string provider = str_of(lib, "provider");
      if (provider.empty()) provider = fallback;
      const std::string name = str_of(lib, "library");
      if (provider.empty() || provider == "filesystem" || !done.insert(provider).second) continue;
      auto p = std::find_if(kProviders.begin(), kProviders.end(), [&](const Provider& k) { return k.name == provider; });
      if (p == kProviders.end()) {
        if (++unknown <= 4)
          ctx_.note(rel, "LibMan provider " + str::quote(provider) + " is not one strata knows; its hosts are not added");
        continue;
      }
      for (std::string_view host : p->hosts)
        if (!host.empty())
          ctx_.egress(std::string(host), EgressOrigin::kConfig,
                      "LibMan restores client-side libraries from " + std::string(p->what) + " (libman.json)",
                      Evidence{rel, "libraries[" + std::to_string(n - 1) + "]", provider + ": " + name});
    }
  }
  static constexpr std::size_t kMaxLibmanLibraries = 4096;

  ScanContext& ctx_;
  bool cleared_ = false;
};

}  // namespace

bool dotnet_file(std::string_view name) {
  if (name == "global.json" || name == "Directory.Build.props" || name == "libman.json") return true;
  for (std::string_view ext : {".csproj", ".fsproj", ".vbproj"})
    if (name.ends_with(ext)) return true;
  return name.size() == 12 && dotnet_lower(name) == "nuget.config";
}

void scan_dotnet(ScanContext& ctx) { DotnetScanner(ctx).run(); }

}  // namespace strata::contract
