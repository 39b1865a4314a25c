#include "contract/scan/jvm_scanner.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <utility>

#include "contract/knowledge/ecosystem_versions.hpp"
#include "contract/scan/line_index.hpp"
#include "contract/scan/toml_file.hpp"
#include "contract/scan/xml_file.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

constexpr std::string_view kCentral = "repo.maven.apache.org";

// Java properties: "key=value" / "key: value", '#'/'!' comments, backslash
// escapes ("https\://services.gradle.org").
std::map<std::string, std::string> jvm_properties(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto raw : str::split(text, '\n')) {
    std::string_view line = str::trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    auto sep = line.find_first_of("=:");
    if (sep == std::string_view::npos) continue;
    std::string value;
    for (std::size_t i = sep + 1; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) ++i;
      value += line[i];
    }
    out[std::string(str::trim(line.substr(0, sep)))] = std::string(str::trim(value));
  }
  return out;
}

// Gradle build text with comments blanked out (strings kept: a URL's "//"
// is not a comment).
std::string jvm_without_comments(std::string_view s) {
  std::string out(s);
  char quote = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote || c == '\n') quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '/' && i + 1 < out.size() && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (c == '/' && i + 1 < out.size() && out[i + 1] == '*') {
      auto end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n') out[i] = ' ';
      --i;
    }
  }
  return out;
}

// Each whole-word occurrence of `word` in `text` (the first 64: a build
// script states a setting a few times, a hostile one thousands).
std::vector<std::size_t> jvm_occurrences(std::string_view text, std::string_view word) {
  std::vector<std::size_t> out;
  for (auto at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    bool before = at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    std::size_t e = at + word.size();
    bool after = e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_');
    if (!before && !after) out.push_back(at);
    if (out.size() >= 64) break;
  }
  return out;
}

// The value after `name`: "= X", " X", "(X)", ".set(X)" up to the end of the line or ')'.
std::string jvm_value_after(std::string_view text, std::size_t at, std::size_t name_len) {
  std::size_t i = at + name_len;
  auto skip = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  skip();
  if (text.substr(i).starts_with(".set(")) i += 5;
  else if (i < text.size() && (text[i] == '=' || text[i] == '(')) ++i;
  skip();
  std::size_t e = i;
  while (e < text.size() && e - i < 120 && text[e] != '\n' && text[e] != ')' && text[e] != ';' && text[e] != ',') ++e;
  return std::string(str::trim(text.substr(i, e - i)));
}

// The first quoted http(s) URL in text[from, from+span).
std::string jvm_first_url(std::string_view text, std::size_t from, std::size_t span) {
  std::string_view w = text.substr(from, std::min(span, text.size() - from));
  for (std::size_t q = w.find_first_of("\"'"); q != std::string_view::npos; q = w.find_first_of("\"'", q + 1)) {
    std::string_view rest = w.substr(q + 1);
    if (rest.starts_with("https://") || rest.starts_with("http://")) {
      auto end = rest.find(w[q]);
      return std::string(rest.substr(0, end == std::string_view::npos ? rest.size() : end));
    }
  }
  return {};
}

// The end of the block that opens at `open` ('{' or '('), or npos when it
// does not close within 64 KiB.
std::size_t jvm_block_end(std::string_view text, std::size_t open) {
  char o = text[open], c = o == '{' ? '}' : ')';
  int depth = 0;
  for (std::size_t i = open; i < text.size() && i - open < (64u << 10); ++i) {
    if (text[i] == o) ++depth;
    else if (text[i] == c && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// "group:artifact" or "group:artifact:version" (Gradle's string notation),
// split; nullopt for anything else. The group must look like a reverse domain
// name (a dot), so "a:b" strings of other kinds are not taken for one.
struct JvmCoordinate {
  std::string group, artifact, version;
};

std::optional<JvmCoordinate> jvm_coordinate(std::string_view s) {
  if (s.size() > 200) return std::nullopt;
  auto parts = str::split(s, ':');
  if (parts.size() < 2 || parts.size() > 4) return std::nullopt;  // g:a, g:a:v, g:a:v:classifier
  auto word = [](std::string_view w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    });
  };
  if (!word(parts[0]) || !word(parts[1]) || parts[0].find('.') == std::string_view::npos) return std::nullopt;
  return JvmCoordinate{std::string(parts[0]), std::string(parts[1]),
                       parts.size() > 2 ? std::string(parts[2]) : std::string()};
}

// A Maven version range as the enforcer plugin takes it — "[3.9,)",
// "[17,22)", "(1.8,]" or a bare "3.6.3" (that version or newer) — in npm
// syntax (">=3.9", ">=17 <22"); "" for a union of ranges or anything else.
std::string maven_range(std::string_view text) {
  text = str::trim(text);
  if (text.empty() || text.size() > 80 || text.find("),") != std::string_view::npos ||
      text.find("],") != std::string_view::npos)
    return {};
  if (text.front() != '[' && text.front() != '(') return ">=" + std::string(text);
  if (text.back() != ']' && text.back() != ')') return {};
  auto comma = text.find(',');
  if (comma == std::string_view::npos) {  // "[3.9]": exactly
    return text.front() == '[' && text.back() == ']' ? "=" + std::string(str::trim(text.substr(1, text.size() - 2))) : "";
  }
  std::string_view lo = str::trim(text.substr(1, comma - 1)), hi = str::trim(text.substr(comma + 1, text.size() - comma - 2));
  std::string out;
  if (!lo.empty()) out += (text.front() == '[' ? ">=" : ">") + std::string(lo);
  if (!hi.empty()) out += (out.empty() ? "" : " ") + std::string(text.back() == ']' ? "<=" : "<") + std::string(hi);
  return out;
}

class JvmScanner {
 public:
  explicit JvmScanner(ScanContext& ctx) : ctx_(ctx) {}

  void run() {
    auto poms = ctx_.fs().files_named("pom.xml");
    std::vector<std::string> gradle;
    for (const char* n : {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"})
      for (auto& f : ctx_.fs().files_named(n)) gradle.push_back(f);
    std::sort(gradle.begin(), gradle.end());
    auto mvnw = ctx_.fs().files_named("maven-wrapper.properties");
    auto gradlew = ctx_.fs().files_named("gradle-wrapper.properties");
    auto java_versions = ctx_.fs().files_named(".java-version");
    auto sdkmanrc = ctx_.fs().files_named(".sdkmanrc");
    if (poms.empty() && gradle.empty() && mvnw.empty() && gradlew.empty() && java_versions.empty() && sdkmanrc.empty())
      return;
    for (const auto& f : java_versions) java_version_file(f);
    for (const auto& f : sdkmanrc) sdkman(f);
    if (poms.empty() && gradle.empty() && gradlew.empty() && mvnw.empty()) return;  // a version file alone
    ctx_.ecosystem("java");
    ctx_.ecosystem("jvm");
    std::vector<std::string> manifests = poms;
    manifests.insert(manifests.end(), gradle.begin(), gradle.end());
    if (manifests.empty()) manifests = gradlew.empty() ? mvnw : gradlew;
    ctx_.needs_tool("java", manifests, "a JVM build (a JDK compiles it)");
    for (const auto& f : poms) pom(f);
    for (const auto& f : gradle) gradle_file(f);
    // A toolchain's release is the floor only where the build states no
    // release it compiles for: a JDK 21 toolchain compiling with
    // `options.release = 17` (or jvmTarget 17) makes classes Java 17 runs.
    if (!compiles_for_)
      for (const auto& [ev, n] : toolchain_floors_) release(ev, n, "the Java release the Gradle toolchain compiles for");
    for (const auto& f : ctx_.fs().files_ending(".versions.toml")) version_catalog(f);
    if (!poms.empty()) {
      if (mvnw.empty()) ctx_.needs_tool("maven", poms, "a Maven build without a Maven wrapper (mvn runs it)");
      auto root_pom = *std::min_element(poms.begin(), poms.end(), [](const std::string& a, const std::string& b) {
        return std::make_pair(std::count(a.begin(), a.end(), '/'), a) < std::make_pair(std::count(b.begin(), b.end(), '/'), b);
      });
      central(root_pom, "Maven downloads plugins and dependencies from Maven Central");
    }
    for (const auto& f : mvnw) wrapper(f, "maven", "mvnw");
    for (const auto& f : gradlew) wrapper(f, "gradle", "gradlew");
    for (const auto& f : ctx_.fs().files_named("gradle-daemon-jvm.properties")) daemon_jvm(f);
    if (!gradle.empty() && gradlew.empty())
      ctx_.needs_tool("gradle", gradle, "a Gradle build without a Gradle wrapper (gradle runs it)");
  }

 private:
  void central(const std::string& file, const std::string& reason) {
    if (central_) return;
    central_ = true;
    ctx_.egress(std::string(kCentral), EgressOrigin::kDefault, reason + " (the default <central> repository)",
                Evidence{file, "repository central", "https://repo.maven.apache.org/maven2"});
    ctx_.egress("repo1.maven.org", EgressOrigin::kDefault,
                "Maven Central under its older name, which settings files and older clients use",
                Evidence{file, "repository central", "https://repo1.maven.org/maven2"});
  }

  void java_version_file(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    std::string v(str::trim(*text));
    if (auto nl = v.find('\n'); nl != std::string::npos) v = std::string(str::trim(v.substr(0, nl)));
    pin(rel, ".java-version", v);
  }

  void sdkman(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    for (const auto& [k, v] : jvm_properties(*text)) {
      if (k == "java") pin(rel, "java", v);
      else if (k == "maven" || k == "gradle") {
        auto r = parse_version_line(v);
        ctx_.constraint(k, ConstraintKind::kPin, {rel, k, v}, r, "the SDKMAN! candidate the project pins");
      }
    }
  }

  // gradle/gradle-daemon-jvm.properties (Gradle 8.8+, `./gradlew updateDaemonJvm`):
  // `toolchainVersion=17` is the JDK the Gradle daemon itself runs on, which
  // Gradle finds or provisions before it builds: the JDK the project pins.
  void daemon_jvm(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    const auto props = jvm_properties(*text);
    if (auto v = props.find("toolchainVersion"); v != props.end()) pin(rel, "toolchainVersion", v->second);
  }

  void pin(const std::string& rel, const std::string& field, const std::string& value) {
    std::string vendor;
    auto r = read_java_version(value, vendor);
    ctx_.constraint("java", ConstraintKind::kPin, {rel, field, value}, r,
                    vendor.empty() ? "the JDK the project pins" : "the JDK the project pins (distribution " + vendor + ")");
  }

  void release(const Evidence& ev, const std::string& value, const std::string& what) {
    auto n = java_release(value);
    if (!n) {
      ctx_.warn(ev.file, ev.field + " = " + str::quote(value) + " is not a Java release; no floor taken from it");
      return;
    }
    ctx_.constraint("java", ConstraintKind::kSupport, ev, Range::at_least(Version{static_cast<std::uint64_t>(*n), 0, 0, ""}),
                    what + ": the JDK must be Java " + std::to_string(*n) + " or newer");
  }

  // --- Maven -----------------------------------------------------------------
  // The pom's properties and its parents' within the repository (<parent>'s
  // relativePath, ../pom.xml by default), nearest first.
  void pom_properties(const std::string& rel, std::map<std::string, std::string>& props, int depth) {
    pugi::xml_document doc;
    if (depth > 5 || !ctx_.fs().is_file(rel)) return;
    auto text = ctx_.fs().read_text(rel);
    if (!text || !doc.load_buffer(text->data(), text->size())) return;
    pugi::xml_node project = doc.child("project");
    for (pugi::xml_node p = project.child("properties").first_child(); p; p = p.next_sibling())
      if (p.type() == pugi::node_element) props.emplace(p.name(), str::trim(p.text().get()));
    if (pugi::xml_node parent = project.child("parent")) {
      std::string relp = child_text(parent, "relativePath");
      if (parent.child("relativePath") && relp.empty()) return;  // <relativePath/>: from a repository
      if (relp.empty()) relp = "../pom.xml";
      if (!relp.ends_with(".xml")) relp += "/pom.xml";
      auto up = resolve_rel(dir_of(rel), relp);
      if (up && *up != rel) pom_properties(*up, props, depth + 1);
    }
  }

  std::string resolve(const std::string& value, const std::map<std::string, std::string>& props) {
    std::string v = value;
    for (int round = 0; round < 8; ++round) {
      auto open = v.find("${");
      if (open == std::string::npos) break;
      auto close = v.find('}', open);
      if (close == std::string::npos) break;
      auto it = props.find(v.substr(open + 2, close - open - 2));
      if (it == props.end()) break;
      v.replace(open, close - open + 1, it->second);
      if (v.size() > 200) break;
    }
    return v;
  }

  void pom(const std::string& rel) {
    pugi::xml_document doc;
    if (!read_xml(ctx_, rel, doc)) return;
    pugi::xml_node project = doc.child("project");
    if (!project) {
      ctx_.warn(rel, "no <project> element: not a Maven POM; nothing is read from it");
      return;
    }
    std::map<std::string, std::string> props;
    pom_properties(rel, props, 0);
    auto prop = [&](const std::string& name, std::string_view text) {
      std::string shown(text), v = resolve(std::string(text), props);
      if (v.find("${") != std::string::npos) {
        ctx_.note(rel, name + " = " + str::quote(shown) + " refers to a property the repository's poms do not set");
        return;
      }
      release({rel, name, v == shown ? v : shown + " = " + v}, v, "the Java release Maven compiles for");
    };
    pugi::xml_node properties = project.child("properties");
    for (const char* name : {"maven.compiler.release", "maven.compiler.source", "maven.compiler.target", "java.version"}) {
      if (pugi::xml_node p = properties.child(name)) {
        prop(std::string("properties.") + name, str::trim(p.text().get()));
      }
    }
    for (const auto& plugin : descendants(project, "plugin")) {
      if (child_text(plugin, "artifactId") != "maven-compiler-plugin") continue;
      pugi::xml_node conf = plugin.child("configuration");
      for (const char* name : {"release", "source", "target"})
        if (pugi::xml_node c = conf.child(name)) prop(std::string("maven-compiler-plugin.") + name, str::trim(c.text().get()));
    }
    for (const auto& plugin : descendants(project, "plugin")) {
      // <pluginManagement> configures a plugin for modules that use it; it runs nothing itself.
      if (std::string_view(plugin.parent().parent().name()) == "pluginManagement") continue;
      std::string artifact = child_text(plugin, "artifactId");
      // A plugin used in <plugins> takes the settings <pluginManagement> gives it too.
      if (artifact == "frontend-maven-plugin" || artifact == "maven-enforcer-plugin") {
        const pugi::xml_node managed = managed_plugin(project, plugin, artifact);
        if (artifact == "frontend-maven-plugin") frontend_plugin(rel, plugin, managed, props);
        else enforcer(rel, plugin, managed, props);
      }
      // A plugin the build runs, looked up like a dependency (one that runs a program).
      std::string group = resolve(child_text(plugin, "groupId"), props);
      if (group.empty()) group = "org.apache.maven.plugins";  // Maven's default plugin group
      dependency(group, artifact, resolve(child_text(plugin, "version"), props),
                 Evidence{rel, ("plugin " + group + ":" + artifact).substr(0, 160),
                          child_text(plugin, "version").empty() ? "managed version" : child_text(plugin, "version")});
    }
    for (const auto& dep : descendants(project, "dependency")) {
      bool managed = false;  // <dependencyManagement> pins versions; it adds no dependency
      int depth = 0;           // it sits right above <dependencies>, under <project> or a <profile>
      for (pugi::xml_node up = dep.parent(); up && !managed && depth < 3; up = up.parent(), ++depth)
        managed = std::string_view(up.name()) == "dependencyManagement";
      if (managed) continue;
      std::string group = resolve(child_text(dep, "groupId"), props), artifact = resolve(child_text(dep, "artifactId"), props);
      std::string version = resolve(child_text(dep, "version"), props), scope = child_text(dep, "scope");
      dependency(group, artifact, version,
                 Evidence{rel, ("dependency " + group + ":" + artifact).substr(0, 160),
                          (version.empty() ? (scope.empty() ? "managed version" : scope) : version).substr(0, 160)});
    }
    for (const char* list : {"repository", "pluginRepository"}) {
      for (const auto& repo : descendants(project, list)) {
        if (std::string_view(repo.parent().name()) == "distributionManagement") continue;  // a deploy target
        std::string url = resolve(child_text(repo, "url"), props);
        if (url.empty()) continue;
        std::string id = child_text(repo, "id");
        if (url_host(url).empty()) {
          if (!url.starts_with("file:")) ctx_.note(rel, std::string(list) + " " + id + ": " + str::quote(url) + " names no host");
          continue;
        }
        ctx_.egress_url(url, EgressOrigin::kConfig, std::string("Maven ") + list + " " + id + " declared in the pom",
                        Evidence{rel, std::string(list) + " " + id, url});
      }
    }
  }

  // The <pluginManagement> entry of a plugin the build uses: Maven merges its
  // settings into the use's (DSpace's enforcer rules there, a bare <plugin>
  // in <plugins>). The use's own <build> first (a profile's), then the
  // project's; fixed paths, no walk.
  static pugi::xml_node managed_plugin(const pugi::xml_node& project, const pugi::xml_node& plugin,
                                       const std::string& artifact) {
    for (pugi::xml_node build : {plugin.parent().parent(), project.child("build")}) {
      std::size_t seen = 0;
      for (pugi::xml_node managed = build.child("pluginManagement").child("plugins").child("plugin");
           managed && ++seen <= 256; managed = managed.next_sibling("plugin"))
        if (child_text(managed, "artifactId") == artifact) return managed;
    }
    return {};
  }

  // A plugin's settings called `name` where Maven reads them: its
  // <configuration>, then each execution's, then the same of its managed
  // entry (fixed paths, so a crafted pom cannot make this a walk of every
  // element). plugin_setting: the first of them.
  static std::vector<pugi::xml_node> plugin_settings(const pugi::xml_node& plugin, const pugi::xml_node& managed,
                                                     const char* name) {
    std::vector<pugi::xml_node> out;
    for (const pugi::xml_node& p : {plugin, managed}) {
      if (pugi::xml_node n = p.child("configuration").child(name)) out.push_back(n);
      std::size_t seen = 0;
      for (pugi::xml_node e = p.child("executions").child("execution"); e && ++seen <= 32; e = e.next_sibling("execution"))
        if (pugi::xml_node n = e.child("configuration").child(name)) out.push_back(n);
    }
    return out;
  }
  static pugi::xml_node plugin_setting(const pugi::xml_node& plugin, const pugi::xml_node& managed, const char* name) {
    auto all = plugin_settings(plugin, managed, name);
    return all.empty() ? pugi::xml_node() : all.front();
  }

  // com.github.eirslett:frontend-maven-plugin installs Node (and npm, yarn or
  // pnpm) of the versions it is given into the build tree, from nodejs.org
  // and the npm registry unless a download root says otherwise: pins.
  void frontend_plugin(const std::string& rel, const pugi::xml_node& plugin, const pugi::xml_node& managed,
                       const std::map<std::string, std::string>& props) {
    if (set_aside_tree(rel)) return;  // an example's build is not the repository's
    struct Tool {
      const char* element;
      const char* tool;
      const char* root;     // the element that moves the download
      const char* default_url;
    };
    static constexpr Tool kTools[] = {
        {"nodeVersion", "node", "nodeDownloadRoot", "https://nodejs.org/dist/"},
        {"npmVersion", "npm", "npmDownloadRoot", "https://registry.npmjs.org/npm/-/"},
        {"yarnVersion", "yarn", "yarnDownloadRoot", "https://github.com/yarnpkg/yarn/releases/download/"},
        {"pnpmVersion", "pnpm", "pnpmDownloadRoot", "https://registry.npmjs.org/pnpm/-/"},
    };
    for (const auto& t : kTools) {
      pugi::xml_node node = plugin_setting(plugin, managed, t.element);
      if (!node) continue;
      std::string shown(str::trim(node.text().get())), v = resolve(shown, props);
      if (v == "provided") continue;  // npmVersion's default: the npm that comes with Node
      if (v.starts_with('v')) v.erase(0, 1);
      auto version = parse_version(v, VersionSyntax::kStrict);
      Evidence ev{rel, std::string("frontend-maven-plugin ") + t.element, shown == v ? v : shown + " = " + v};
      if (!version) {
        ctx_.note(rel, std::string("frontend-maven-plugin ") + t.element + " " + str::quote(shown) + " names no release");
        continue;
      }
      ctx_.constraint(t.tool, ConstraintKind::kPin, ev, Range::exactly(*version),
                      std::string("the Maven build installs ") + t.tool + " " + version->str() + " (frontend-maven-plugin)");
      pugi::xml_node root = plugin_setting(plugin, managed, t.root);
      std::string url = !root ? t.default_url : resolve(std::string(str::trim(root.text().get())), props);
      if (url_host(url).empty()) continue;
      ctx_.egress_url(url, EgressOrigin::kConfig, std::string("frontend-maven-plugin downloads ") + t.tool, ev);
    }
  }

  // maven-enforcer-plugin's requireMavenVersion and requireJavaVersion: the
  // versions the build refuses to run below — what the project supports.
  void enforcer(const std::string& rel, const pugi::xml_node& plugin, const pugi::xml_node& managed,
                const std::map<std::string, std::string>& props) {
    // Every execution's rules (enforce-no-snapshots, then enforce-maven-version),
    // the managed entry's too.
    const std::vector<pugi::xml_node> all_rules = plugin_settings(plugin, managed, "rules");
    for (const char* rule : {"requireMavenVersion", "requireJavaVersion"}) {
      for (const pugi::xml_node& rules : all_rules)
        for (pugi::xml_node r = rules.child(rule); r; r = {}) {
          std::string shown = child_text(r, "version"), v = resolve(shown, props);
          if (v.empty()) continue;
          Evidence ev{rel, std::string("maven-enforcer-plugin ") + rule, shown == v ? v : shown + " = " + v};
          std::string npm = maven_range(v);
          if (std::string_view(rule) == "requireJavaVersion") {
            // The floor only: Java releases are read as releases ("1.8" is 8).
            std::string_view lo = npm;
            while (!lo.empty() && (lo.front() == '>' || lo.front() == '=')) lo.remove_prefix(1);
            lo = lo.substr(0, lo.find(' '));
            // A JDK version names its release by the first part, or the first two
            // in the old spelling: "21.0" and "21.0.2" are 21, "1.8.0" is 8.
            if (auto dot = lo.find('.'); dot != std::string_view::npos)
              lo = lo.starts_with("1.") ? lo.substr(0, lo.find('.', 2)) : lo.substr(0, dot);
            if (!npm.starts_with(">=") || lo.empty()) {
              ctx_.note(rel, std::string(rule) + " " + str::quote(v) + " states no lower bound strata reads");
              continue;
            }
            release(ev, std::string(lo), "maven-enforcer-plugin refuses to build on an older JDK");
            continue;
          }
          auto range = parse_npm_range(npm.empty() ? "not a range" : npm);
          if (npm.empty() || !range) {
            ctx_.note(rel, std::string(rule) + " " + str::quote(v) + " is not a version range strata reads");
            continue;
          }
          ctx_.constraint("maven", ConstraintKind::kSupport, ev, *range,
                          "maven-enforcer-plugin refuses to build with another Maven");
        }
    }
  }

  // --- Gradle ----------------------------------------------------------------
  void gradle_file(const std::string& rel) {
    auto raw = ctx_.fs().read_text(rel);
    if (!raw) return;
    const std::string text = jvm_without_comments(*raw);
    const LineIndex lines(text);
    auto ev = [&](std::size_t at, std::string field, std::string value) {
      return Evidence{rel, "line " + std::to_string(lines.at(at)) + " " + field, std::move(value)};
    };
    for (auto at : jvm_occurrences(text, "JavaLanguageVersion.of")) {
      std::string v = jvm_value_after(text, at, 22), shown = v;
      if (!java_release(str::unquote(v)))
        if (auto ref = gradle_reference(rel, text, v)) std::tie(v, shown) = *ref;
      auto n = java_release(str::unquote(v));
      if (!n) {
        ctx_.warn(rel, "JavaLanguageVersion.of(" + shown + ") is not a Java release; no version taken from it");
        continue;
      }
      ctx_.constraint("java", ConstraintKind::kPin, ev(at, "java.toolchain.languageVersion", shown),
                      parse_version_line(std::to_string(*n)),
                      "the Gradle Java toolchain: Gradle runs the compiler of a JDK " + std::to_string(*n));
      // What it compiles runs on that release and later: the project's floor,
      // unless the build compiles for an older one (run(): toolchain_floors_).
      toolchain_floors_.push_back({ev(at, "java.toolchain.languageVersion", shown), std::to_string(*n)});
    }
    for (auto at : jvm_occurrences(text, "jvmToolchain")) {
      std::string v = jvm_value_after(text, at, 12), shown = v;
      if (!java_release(v))
        if (auto ref = gradle_reference(rel, text, v)) std::tie(v, shown) = *ref;
      auto n = java_release(v);
      if (!n) continue;  // jvmToolchain { … }: the block form, read above
      ctx_.constraint("java", ConstraintKind::kPin, ev(at, "kotlin.jvmToolchain", shown),
                      parse_version_line(std::to_string(*n)),
                      "the Kotlin Gradle plugin's JVM toolchain: a JDK " + std::to_string(*n));
      toolchain_floors_.push_back({ev(at, "kotlin.jvmToolchain", shown), std::to_string(*n)});
    }
    // options.release: JavaCompile's --release (`tasks.withType<JavaCompile> { options.release = 17 }`).
    for (std::string_view key : {"sourceCompatibility", "targetCompatibility", "jvmTarget", "options.release"}) {
      for (auto at : jvm_occurrences(text, key)) {
        std::string v = jvm_value_after(text, at, key.size());
        if (v.empty()) continue;
        std::string_view t = v;
        if (t.starts_with("JvmTarget.JVM_")) t.remove_prefix(14);  // Kotlin's JvmTarget.JVM_17 / JVM_1_8
        std::string norm(str::unquote(t));
        if (key == "jvmTarget" && norm.starts_with("1_")) norm[1] = '.';
        if (!java_release(norm)) {
          // `sourceCompatibility = targetJavaVersion`: the variable's assignment in
          // the same file, a Gradle property, a version catalog's version.
          if (auto ref = gradle_reference(rel, text, norm); ref && java_release(ref->first)) {
            release(ev(at, std::string(key), ref->second), ref->first, "the Java release Gradle compiles for");
            compiles_for_ = true;
            continue;
          }
          if (!norm.empty() && (norm.front() == '"' || std::isdigit(static_cast<unsigned char>(norm.front())) ||
                                norm.starts_with("JavaVersion.")))
            ctx_.warn(rel, std::string(key) + " = " + str::quote(v) + " is not a Java release; no floor taken from it");
          continue;
        }
        release(ev(at, std::string(key), v), norm, "the Java release Gradle compiles for");
        compiles_for_ = true;
      }
    }
    repositories(text, ev);
    gradle_dependencies(text, ev);
    gradle_node(text, ev);
  }

  // A value a build script takes from elsewhere, as Gradle reads it:
  // `javaVersion` or `javaVersion.toInteger()` (a variable the same file
  // assigns, else a Gradle property), `property("javaVersion")`,
  // `findProperty("java.version")`, `providers.gradleProperty(…)`,
  // `project.properties["javaVersion"]`, `extra["javaVersion"]` (a Gradle
  // property: the nearest gradle.properties from the file's directory up to
  // the repository's root), and
  // `libs.versions.java.get()` (the nearest gradle/libs.versions.toml the
  // same way). A variable assigned one of these is followed (three levels
  // at most). The value, and how it was found for the evidence; nullopt
  // when it names nothing strata finds.
  std::optional<std::pair<std::string, std::string>> gradle_reference(const std::string& rel, std::string_view text,
                                                                      std::string_view written, int depth = 0) {
    std::string_view expr = str::trim(written);
    // The value as written: jvm_value_after stops at the first ')'.
    std::string v(expr);
    for (auto open = std::count(v.begin(), v.end(), '('), close = std::count(v.begin(), v.end(), ')'); close < open; ++close)
      v += ')';
    for (bool stripped = true; stripped;) {  // wrappers and conversions: the value is the same
      stripped = false;
      for (std::string_view head : {"JavaVersion.toVersion(", "JavaLanguageVersion.of(", "JvmTarget.fromTarget(", "(",
                                    "project.", "rootProject.", "ext.", "\"${", "${"})
        if (expr.starts_with(head)) {
          expr = str::trim(expr.substr(head.size()));
          stripped = true;
        }
      for (std::string_view tail : {")", "}\"", "}", ".toInteger(", ".toInteger()", ".toInt(", ".toInt()", ".get(",
                                    ".get()", ".toString(", ".toString()", ".majorVersion", " as int", " as Integer",
                                    " as String", "!!"})
        if (expr.ends_with(tail)) {
          expr = str::trim(expr.substr(0, expr.size() - tail.size()));
          stripped = true;
        }
    }
    auto found = [&](std::string value, std::string from) {
      return std::make_pair(value, v + " = " + value + (from.empty() ? "" : " (" + from + ")"));
    };
    // A literal once the wrappers are off (`JavaVersion.toVersion("17")`).
    if (const std::string lit(str::unquote(expr)); !lit.empty() && java_release(lit)) return found(lit, "");
    auto ident = [](std::string_view s) {
      return !s.empty() && !std::isdigit(static_cast<unsigned char>(s.front())) &&
             std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    };
    // The build's directories, nearest first, up to its root (settings.gradle's) or the repository's.
    std::vector<std::string> dirs;
    for (std::string dir = dir_of(rel);; dir = dir_of(dir)) {
      dirs.push_back(dir);
      // (Not stopped at a settings.gradle: a module's own, kept for building it
      // alone, is not where the including build's properties end.)
      if (dir.empty() || dir == "." || dirs.size() >= 16) break;
    }
    if (expr.starts_with("libs.versions.")) {
      std::string alias(expr.substr(14));
      // The accessor joins an alias's parts with '.', whatever separated them ('-', '_').
      auto norm = [](std::string s) {
        std::replace(s.begin(), s.end(), '-', '.');
        std::replace(s.begin(), s.end(), '_', '.');
        return s;
      };
      for (const auto& dir : dirs) {
        const std::string file = join_rel(dir, "gradle/libs.versions.toml");
        if (!ctx_.fs().is_file(file)) continue;
        auto [it, fresh] = catalogs_.try_emplace(file);
        if (fresh) {
          auto catalog = TomlFile::read(ctx_, file);
          if (catalog.ok())
            for (const auto& key : catalog.keys("versions"))
              if (auto value = catalog.version_like("versions." + key)) it->second[norm(key)] = *value;
        }
        if (auto hit = it->second.find(alias); hit != it->second.end()) return found(hit->second, file);
        break;  // the nearest catalog is the build's
      }
      return std::nullopt;
    }
    std::string name;
    bool variable = false;
    for (std::string_view call : {"property(", "findProperty(", "providers.gradleProperty(", "properties[", "extra["})
      if (expr.starts_with(call)) {
        std::string_view arg = str::trim(expr.substr(call.size()));
        if (arg.ends_with(')') || arg.ends_with(']')) arg.remove_suffix(1);
        if (arg.size() >= 2 && (arg.front() == '"' || arg.front() == '\'') && arg.back() == arg.front())
          name = std::string(arg.substr(1, arg.size() - 2));
      }
    if (name.empty() && ident(expr)) {
      name = std::string(expr);
      variable = true;
    }
    // Property names are dotted and dashed too (java.version); nothing else.
    if (name.empty() || name.size() > 128 || !std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
        }))
      return std::nullopt;
    if (variable)
      if (auto assigned = gradle_variable(text, name); assigned && *assigned != name) {
        if (java_release(str::unquote(*assigned))) return found(std::string(str::unquote(*assigned)), "");
        if (depth < 3)
          if (auto deeper = gradle_reference(rel, text, *assigned, depth + 1))
            return std::make_pair(deeper->first, v + " = " + deeper->second);
        return std::nullopt;
      }
    for (const auto& dir : dirs) {
      const std::string file = join_rel(dir, "gradle.properties");
      if (!ctx_.fs().is_file(file)) continue;
      auto [it, fresh] = properties_.try_emplace(file);
      if (fresh)
        if (auto props_text = ctx_.fs().read_text(file)) it->second = jvm_properties(*props_text);
      if (auto hit = it->second.find(name); hit != it->second.end() && !hit->second.empty())
        return found(hit->second, file);
    }
    return std::nullopt;
  }

  // The value a build script assigns to a plain variable (`def v = X`,
  // `val v = X`, `ext.v = X`, `v = X`), when `name` is one; nullopt otherwise.
  static std::optional<std::string> gradle_variable(std::string_view text, std::string_view name) {
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        }) || std::isdigit(static_cast<unsigned char>(name.front())))
      return std::nullopt;
    for (auto at : jvm_occurrences(text, name)) {
      std::size_t e = at + name.size();
      while (e < text.size() && (text[e] == ' ' || text[e] == '\t')) ++e;
      if (e + 1 >= text.size() || text[e] != '=' || text[e + 1] == '=') continue;
      std::string v = jvm_value_after(text, at, name.size());
      if (!v.empty() && v != name) return std::string(str::unquote(v));
    }
    return std::nullopt;
  }

  // The Node a Gradle build downloads for its front end:
  // org.siouan.frontend's `frontend { nodeVersion = '22.12.0' }` (from
  // nodejs.org unless nodeDistributionUrlRoot moves it) and
  // com.github.node-gradle.node's `node { download = true; version = '…' }`
  // (distBaseUrl), with the npm, yarn or pnpm it pins. node-gradle without
  // `download = true` uses the Node on the PATH and pins nothing.
  template <class Ev>
  void gradle_node(const std::string& text, Ev ev) {
    struct Plugin {
      std::string_view block, node_key, url_key, name;
      bool needs_download;
    };
    static constexpr std::array<Plugin, 2> kPlugins = {{
        {"frontend", "nodeVersion", "nodeDistributionUrlRoot", "the org.siouan frontend Gradle plugin", false},
        {"node", "version", "distBaseUrl", "the node-gradle plugin", true},
    }};
    for (const auto& pl : kPlugins) {
      for (auto at : jvm_occurrences(text, pl.block)) {
        auto open = text.find_first_not_of(" \t\r\n", at + pl.block.size());
        if (open == std::string::npos || text[open] != '{') continue;
        auto end = jvm_block_end(text, open);
        if (end == std::string::npos) continue;
        const std::string_view body = std::string_view(text).substr(0, end);
        auto setting = [&](std::string_view key) -> std::pair<std::size_t, std::string> {
          for (auto k : jvm_occurrences(body.substr(open), key))
            return {open + k, std::string(str::unquote(jvm_value_after(body, open + k, key.size())))};
          return {std::string::npos, {}};
        };
        if (pl.needs_download && setting("download").second != "true") continue;
        auto [node_at, node_v] = setting(pl.node_key);
        if (node_at == std::string::npos) continue;
        std::string why = std::string(pl.name) + " downloads node";
        for (auto [key, tool] : {std::pair{pl.node_key, "node"}, std::pair{std::string_view("npmVersion"), "npm"},
                                 std::pair{std::string_view("yarnVersion"), "yarn"},
                                 std::pair{std::string_view("pnpmVersion"), "pnpm"}}) {
          auto [k_at, v] = setting(key);
          if (k_at == std::string::npos) continue;
          auto version = parse_version(v, VersionSyntax::kStrict);
          if (!version) continue;  // a property or an expression: not a release strata can read
          ctx_.constraint(tool, ConstraintKind::kPin, ev(k_at, std::string(pl.block) + " " + std::string(key), v),
                          Range::exactly(*version),
                          "the Gradle build installs " + std::string(tool) + " " + version->str() + " (" + std::string(pl.name) + ")");
        }
        // org.siouan's `nodeDistributionProvided = true`: the Node is already on the machine.
        if (setting("nodeDistributionProvided").second == "true") break;
        auto [url_at, url] = setting(pl.url_key);
        if (url_at == std::string::npos || url_host(url).empty()) url = "https://nodejs.org/dist/";
        ctx_.egress_url(url, EgressOrigin::kConfig, why, ev(node_at, std::string(pl.block) + " " + std::string(pl.node_key), node_v));
        break;
      }
    }
  }

  // Dependencies in Gradle's notations: "group:artifact:version" strings and
  // `group: 'g', name: 'a'` maps (a version catalog is read apart).
  template <class Ev>
  void gradle_dependencies(const std::string& text, Ev ev) {
    if (gradle_text_.size() < (16u << 20)) gradle_text_ += text;  // what a catalog alias must be used in
    // `constraints { … }` pins versions of dependencies declared elsewhere: not dependencies.
    std::vector<std::pair<std::size_t, std::size_t>> skipped;
    for (auto at : jvm_occurrences(text, "constraints")) {
      auto open = text.find_first_not_of(" \t\r\n", at + 11);
      if (open == std::string::npos || text[open] != '{') continue;
      auto end = jvm_block_end(text, open);
      skipped.emplace_back(open, end == std::string::npos ? text.size() : end);
    }
    auto in_skipped = [&](std::size_t q) {
      return std::any_of(skipped.begin(), skipped.end(), [&](const auto& r) { return q > r.first && q < r.second; });
    };
    std::size_t seen = 0;
    for (std::size_t q = text.find_first_of("\"'"); q != std::string::npos && seen < 4096;
         q = text.find_first_of("\"'", q + 1), ++seen) {
      auto end = text.find(text[q], q + 1);
      if (end == std::string::npos) break;
      if (in_skipped(q)) {
        q = end;
        continue;
      }
      std::string_view lit = std::string_view(text).substr(q + 1, end - q - 1);
      if (lit.find('\n') != std::string_view::npos) continue;  // not a literal on one line: keep scanning from here
      // platform(…), enforcedPlatform(…), mavenBom …, force …: versions, not dependencies.
      std::string_view before = std::string_view(text).substr(q >= 24 ? q - 24 : 0, q >= 24 ? 24 : q);
      const bool versions_only = before.ends_with("platform(") || before.ends_with("Platform(") ||
                                 before.ends_with("mavenBom ") || before.ends_with("force ") ||
                                 before.ends_with("mavenBom(");
      if (auto c = jvm_coordinate(lit); c && !versions_only)
        dependency(c->group, c->artifact, c->version, ev(q, "dependency", std::string(lit)));
      q = end;
    }
    for (auto at : jvm_occurrences(text, "group")) {
      auto eol = text.find('\n', at);
      std::string_view line = std::string_view(text).substr(at, (eol == std::string::npos ? text.size() : eol) - at);
      if (!line.starts_with("group:") && !line.starts_with("group :")) continue;
      auto name_at = line.find("name");
      if (name_at == std::string_view::npos) continue;
      auto field = [&](std::size_t from, std::size_t len) {  // "group: 'g'" → g
        std::string v = jvm_value_after(line, from, len);
        std::string_view t = str::trim(v);
        if (t.starts_with(":")) t.remove_prefix(1);
        return std::string(str::unquote(str::trim(t)));
      };
      std::string group = field(0, 5), artifact = field(name_at, 4);
      if (auto c = jvm_coordinate(group + ":" + artifact))
        dependency(c->group, c->artifact, "", ev(at, "dependency", std::string(line.substr(0, 160))));
    }
  }

  // gradle/libs.versions.toml: [libraries] as "g:a:v", {module = "g:a"} or
  // {group = "g", name = "a"}.
  void version_catalog(const std::string& rel) {
    auto toml = TomlFile::read(ctx_, rel);
    if (!toml.ok()) return;
    std::size_t n = 0;
    for (const auto& alias : toml.keys("libraries")) {
      if (++n > 4096) break;
      const std::string at = "libraries." + alias;
      std::string coord;
      if (auto whole = toml.string(at)) coord = *whole;
      else if (auto module = toml.string(at + ".module")) coord = *module;
      else if (auto g = toml.string(at + ".group"), a = toml.string(at + ".name"); g && a) coord = *g + ":" + *a;
      auto version = toml.string(at + ".version");
      // Only an alias a build file uses (`libs.testcontainers.kafka` for
      // testcontainers-kafka; Gradle reads '-', '_' and '.' alike).
      std::string accessor = "libs." + alias;
      std::replace(accessor.begin(), accessor.end(), '-', '.');
      std::replace(accessor.begin(), accessor.end(), '_', '.');
      bool used = false;  // the whole accessor: libs.testcontainers is not libs.testcontainers.kafka
      for (auto u = gradle_text_.find(accessor); u != std::string::npos && !used; u = gradle_text_.find(accessor, u + 1)) {
        std::size_t e = u + accessor.size();
        used = e >= gradle_text_.size() || !(std::isalnum(static_cast<unsigned char>(gradle_text_[e])) ||
                                             gradle_text_[e] == '.' || gradle_text_[e] == '_');
      }
      if (!used) continue;
      if (auto c = jvm_coordinate(coord))
        dependency(c->group, c->artifact, !c->version.empty() ? c->version : version.value_or(""),
                   Evidence{rel, "libraries." + alias, coord});
    }
  }

  // A dependency the knowledge base (maven) knows something about: a library
  // its tests or code load, hosts it reaches, a service it needs.
  void dependency(const std::string& group, const std::string& artifact, const std::string& version, Evidence ev) {
    if (group.empty() || artifact.empty() || set_aside_tree(ev.file)) return;  // an example's is not the repository's
    const std::string coord = group + ":" + artifact;
    const std::string* entry = ctx_.kb().entry_for("maven", coord);
    if (!entry) return;
    PackageSignals& s = ctx_.package("maven", *entry);
    s.direct = true;
    if (*entry == coord && version.find("${") == std::string::npos)
      if (auto v = parse_version(version); v) s.declared = v;
    if (s.evidence.size() < ScanContext::kRunLibEvidence) s.evidence.push_back(std::move(ev));
  }

  template <class Ev>
  void repositories(const std::string& text, Ev ev) {
    if (!jvm_occurrences(text, "mavenCentral").empty()) {
      auto at = jvm_occurrences(text, "mavenCentral").front();
      ctx_.egress(std::string(kCentral), EgressOrigin::kConfig, "Gradle's mavenCentral() repository",
                  ev(at, "repositories", "mavenCentral()"));
    }
    if (auto g = jvm_occurrences(text, "google"); !g.empty()) {
      for (auto at : g)
        if (text.substr(at, 8) == "google()") {
          ctx_.egress("dl.google.com", EgressOrigin::kConfig, "Gradle's google() repository (Google's Maven repository)",
                      ev(at, "repositories", "google()"));
          break;
        }
    }
    if (auto g = jvm_occurrences(text, "gradlePluginPortal"); !g.empty())
      plugin_portal(ev(g.front(), "repositories", "gradlePluginPortal()"), "Gradle's gradlePluginPortal() repository");
    // A plugin requested with a version (or through a version catalog alias)
    // resolves from the Gradle Plugin Portal unless pluginManagement says otherwise.
    for (auto at : jvm_occurrences(text, "plugins")) {
      auto open = text.find_first_not_of(" \t\r\n", at + 7);
      if (open == std::string::npos || text[open] != '{') continue;
      auto end = jvm_block_end(text, open);
      if (end == std::string::npos) continue;
      std::string_view block = std::string_view(text).substr(open, end - open);
      auto v = jvm_occurrences(block, "version");
      auto a = jvm_occurrences(block, "alias");
      if (v.empty() && a.empty()) continue;
      std::size_t first = std::min(v.empty() ? block.size() : v.front(), a.empty() ? block.size() : a.front());
      auto b = block.rfind('\n', first);
      auto e = block.find('\n', first);
      std::string line(str::trim(block.substr(b == std::string_view::npos ? 0 : b, e == std::string_view::npos ? std::string_view::npos : e - (b == std::string_view::npos ? 0 : b))));
      plugin_portal(ev(open + first, "plugins", line), "a Gradle plugin requested by id and version resolves from the Gradle Plugin Portal");
      break;
    }
    for (auto at : jvm_occurrences(text, "maven")) {
      auto open = text.find_first_not_of(" \t\r\n", at + 5);
      if (open == std::string::npos || (text[open] != '{' && text[open] != '(')) continue;
      auto end = jvm_block_end(text, open);
      std::string url = jvm_first_url(text, open, end == std::string::npos ? 400 : end - open);
      if (url.empty()) continue;
      ctx_.egress_url(url, EgressOrigin::kConfig, "a Maven repository the Gradle build declares", ev(at, "maven url", url));
    }
  }

  void plugin_portal(Evidence ev, const std::string& reason) {
    if (portal_) return;
    portal_ = true;
    ctx_.egress("plugins.gradle.org", EgressOrigin::kConfig, reason, std::move(ev));
  }

  // --- wrappers ----------------------------------------------------------------
  void wrapper(const std::string& rel, const std::string& tool, const std::string& script) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    auto props = jvm_properties(*text);
    auto it = props.find("distributionUrl");
    if (it == props.end() || url_host(it->second).empty()) {
      ctx_.warn(rel, "no distributionUrl with a host: " + script + " cannot say which " + tool + " it downloads");
      return;
    }
    const std::string& url = it->second;
    // .../apache-maven-3.9.6-bin.zip, .../gradle-8.5-bin.zip, gradle-8.5-all.zip
    std::string file = url.substr(url.rfind('/') + 1);
    std::string prefix = tool == "maven" ? "apache-maven-" : "gradle-";
    std::optional<Version> v;
    if (file.starts_with(prefix)) {
      std::string rest = file.substr(prefix.size());
      auto dash = rest.rfind('-');
      if (dash != std::string::npos) v = parse_version(rest.substr(0, dash), VersionSyntax::kStrict);
    }
    if (v) {
      ctx_.constraint(tool, ConstraintKind::kPin, {rel, "distributionUrl", url}, Range::exactly(*v),
                      script + " downloads " + tool + " " + v->str() + " on first use");
    } else {
      ctx_.note(rel, "distributionUrl " + str::quote(url) + " names no " + tool + " release; no version taken from it");
    }
    ctx_.egress_url(url, EgressOrigin::kConfig, script + " downloads " + tool, {rel, "distributionUrl", url});
    if (auto w = props.find("wrapperUrl"); w != props.end())
      ctx_.egress_url(w->second, EgressOrigin::kConfig, script + " downloads its wrapper jar", {rel, "wrapperUrl", w->second});
  }

  ScanContext& ctx_;
  // Gradle toolchains' releases, the project's floor unless a release to
  // compile for is stated (compiles_for_); gradle.properties and version
  // catalogs read once each.
  std::vector<std::pair<Evidence, std::string>> toolchain_floors_;
  bool compiles_for_ = false;
  std::map<std::string, std::map<std::string, std::string>> properties_, catalogs_;
  bool central_ = false, portal_ = false;
  std::string gradle_text_;  // the build files read, comments blanked
};

}  // namespace

bool jvm_file(std::string_view name) {
  static constexpr std::array<std::string_view, 10> kNames = {
      "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
      "maven-wrapper.properties", "gradle-wrapper.properties", ".java-version", ".sdkmanrc",
      "gradle-daemon-jvm.properties"};
  // gradle/libs.versions.toml and other version catalogs
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end() || name.ends_with(".versions.toml");
}

void scan_jvm(ScanContext& ctx) { JvmScanner(ctx).run(); }

}  // namespace strata::contract
