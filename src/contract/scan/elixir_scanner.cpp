#include "contract/scan/elixir_scanner.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "contract/knowledge/ecosystem_versions.hpp"
#include "contract/knowledge/tool_version.hpp"
#include "contract/scan/line_index.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

// The double-quoted string starting at or after `from` on the same line
// ("" when none); `end` receives where it ends.
std::string mix_quoted_after(std::string_view text, std::size_t from, std::size_t* end = nullptr) {
  if (from >= text.size()) return {};
  text = text.substr(0, std::min(text.size(), from + 400));  // a requirement or URL is short
  auto q = text.find_first_of("\"\n", from);
  if (q == std::string_view::npos || text[q] != '"') return {};
  auto e = text.find_first_of("\"\n", q + 1);
  if (e == std::string_view::npos || text[e] != '"') return {};
  if (end) *end = e;
  return std::string(text.substr(q + 1, e - q - 1));
}

// mix.exs with comments ('#' to the end of the line, outside strings) blanked.
std::string mix_without_comments(std::string_view s) {
  std::string out(s);
  bool in_string = false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '#' && (i == 0 || out[i - 1] != '?'))  // ?# is a character literal
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
  }
  return out;
}

class ElixirScanner {
 public:
  explicit ElixirScanner(ScanContext& ctx) : ctx_(ctx) {}

  void run() {
    auto mix = own(ctx_.fs().files_named("mix.exs"));
    auto locks = own(ctx_.fs().files_named("mix.lock"));
    if (mix.empty() && locks.empty()) return;
    ctx_.ecosystem("elixir");
    const auto& manifests = mix.empty() ? locks : mix;
    ctx_.needs_tool("elixir", manifests, "a Mix project (mix runs on Elixir)");
    ctx_.needs_tool("erlang", manifests, "a Mix project (Elixir runs on Erlang/OTP)");
    for (const auto& f : mix) mix_exs(f);
    for (const auto& f : locks) mix_lock(f);
    for (const char* config : {"elixir_buildpack.config", "phoenix_static_buildpack.config"})
      if (ctx_.fs().is_file(config)) buildpack_config(config);
    rust_nifs();
    forced_builds();
    if (ecto_structure_) {
      if (adapter_.contains("postgrex"))
        ctx_.run_lib("postgresql-client", "mix:" + ecto_structure_->value, *ecto_structure_, Purpose::kBuild);
      if (adapter_.contains("myxql"))
        ctx_.run_lib("default-mysql-client", "mix:" + ecto_structure_->value, *ecto_structure_, Purpose::kBuild);
    }
    const std::string& first = manifests.front();
    if (hex_) {
      ctx_.egress("repo.hex.pm", EgressOrigin::kDefault, "Hex's repository: the registry and package tarballs",
                  Evidence{first, "HEX_MIRROR", "https://repo.hex.pm"}, "HEX_MIRROR");
      ctx_.egress("hex.pm", EgressOrigin::kDefault, "Hex's API (package lookups, private organizations)",
                  Evidence{first, "HEX_API_URL", "https://hex.pm/api"}, "HEX_API_URL");
    }
    ctx_.egress("builds.hex.pm", EgressOrigin::kDefault,
                "mix local.hex and mix local.rebar download Hex and rebar3 (HEX_BUILDS_URL)",
                Evidence{first, "HEX_BUILDS_URL", "https://builds.hex.pm"}, "HEX_BUILDS_URL");
  }

 private:
  // Heroku's Elixir buildpack (elixir_buildpack.config: elixir_version,
  // erlang_version) and Phoenix static buildpack (phoenix_static_buildpack.config:
  // node_version, npm_version), shell assignments at the root: the versions
  // the app's build on Heroku installs, as an image's builder stage runs
  // them (a deploy build, not where the tests run).
  void buildpack_config(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kKeys = {
        {{"elixir_version", "elixir"}, {"erlang_version", "erlang"}, {"node_version", "node"}, {"npm_version", "npm"}}};
    // The file is sourced by the shell: a later assignment wins, and an
    // unquoted value ends at a comment.
    std::map<std::string_view, std::pair<std::size_t, std::string>> set;  // name → (line, value as written)
    std::size_t line = 0;
    for (auto raw : str::split(*text, '\n')) {
      ++line;
      std::string_view l = str::trim(raw);
      const auto eq = l.find('=');
      if (l.starts_with('#') || eq == std::string_view::npos) continue;
      const std::string_view key = str::trim(l.substr(0, eq));
      for (const auto& [name, tool] : kKeys)
        if (key == name) {
          std::string_view value = str::trim(l.substr(eq + 1));
          if (!value.starts_with('"') && !value.starts_with('\''))
            if (auto hash = value.find(" #"); hash != std::string_view::npos) value = str::trim(value.substr(0, hash));
          set[name] = {line, str::unquote(value)};
        }
    }
    for (const auto& [name, tool] : kKeys) {
      auto it = set.find(name);
      if (it == set.end()) continue;
      const auto& [at, written] = it->second;
      std::string value = written;
      if (value.starts_with('v')) value.erase(0, 1);  // elixir_version=v1.14.5
      std::string note;
      auto r = read_tool_version(std::string(tool), value, ctx_.kb(), note);
      if (!r || !r->floor()) {
        ctx_.note(rel, std::string(name) + " " + str::quote(value) + " names no release; not used");
        continue;
      }
      ctx_.constraint(std::string(tool), ConstraintKind::kTested,
                      {rel, "line " + std::to_string(at) + " " + std::string(name), written}, r,
                      "the version Heroku's buildpack installs for the app's build");
    }
  }

  // Mix fetches dependencies into deps/ and builds into _build/: their
  // mix.exs files are the dependencies', not the project's.
  static std::vector<std::string> own(std::vector<std::string> files) {
    std::erase_if(files, [](const std::string& f) {
      return f.starts_with("deps/") || f.starts_with("_build/") || f.find("/deps/") != std::string::npos ||
             f.find("/_build/") != std::string::npos;
    });
    return files;
  }

  void mix_exs(const std::string& rel) {
    auto raw = ctx_.fs().read_text(rel);
    if (!raw) return;
    const std::string text = mix_without_comments(*raw);
    const LineIndex lines(text);
    bool found = false;
    std::size_t looked = 0;
    for (auto at = text.find("elixir:"); at != std::string::npos && ++looked <= 100; at = text.find("elixir:", at + 1)) {
      if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_')) continue;
      std::string req = mix_quoted_after(text, at + 7);
      std::string shown = req;
      if (req.empty()) {
        // `elixir: @elixir_requirement`, with `@elixir_requirement "~> 1.18"` above.
        std::size_t v = text.find_first_not_of(" \t", at + 7);
        if (v == std::string::npos || text[v] != '@') continue;
        std::size_t e = v + 1;
        while (e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_')) ++e;
        const std::string attr = text.substr(v, e - v);
        for (auto d = text.find(attr + " \""); d != std::string::npos && req.empty(); d = text.find(attr + " \"", d + 1))
          if (d == 0 || text[d - 1] == '\n' || text[d - 1] == ' ') req = mix_quoted_after(text, d + attr.size());
        if (req.empty()) continue;
        shown = attr + " = " + req;
      }
      found = true;
      auto r = parse_elixir_requirement(req);
      ctx_.constraint("elixir", ConstraintKind::kSupport, {rel, "project.elixir", shown}, r,
                      "the Elixir versions the project supports (mix refuses others)");
      break;
    }
    if (!found && text.find("def project") != std::string::npos)
      ctx_.note(rel, "the project states no elixir: requirement");
    // An alias that runs ecto.load (or ecto.dump) has Ecto's adapter shell out
    // to the database's client: psql for Postgres, mysql for MySQL.
    for (const char* task : {"\"ecto.load", "\"ecto.dump"})
      if (auto at = text.find(task); at != std::string::npos && !ecto_structure_)
        ecto_structure_ = Evidence{rel, "line " + std::to_string(lines.at(at)), std::string(task + 1)};
    for (const char* adapter : {"postgrex", "myxql"})
      if (text.find("{:" + std::string(adapter) + ",") != std::string::npos) adapter_.insert(adapter);
    // Dependencies: {:name, "~> 1.0"} is a hex package, git:/github: a repository.
    std::size_t tuples = 0;
    for (auto at = text.find("{:"); at != std::string::npos; at = text.find("{:", at + 2)) {
      if (++tuples > kMaxTuples) {
        ctx_.note(rel, "stopped reading dependencies after " + std::to_string(kMaxTuples) + " tuples");
        break;
      }
      auto close = std::string_view(text).substr(at, 400).find('}');
      if (close == std::string_view::npos) continue;
      close += at;
      std::string_view dep = std::string_view(text).substr(at, close - at);
      if (auto g = dep.find("git:"); g != std::string_view::npos) {
        std::string url = mix_quoted_after(dep, g + 4);
        git_host(rel, url, "line " + std::to_string(lines.at(at)) + " git");
      } else if (auto gh = dep.find("github:"); gh != std::string_view::npos) {
        ctx_.egress("github.com", EgressOrigin::kConfig, "a mix dependency from GitHub",
                    Evidence{rel, "line " + std::to_string(lines.at(at)) + " github", mix_quoted_after(dep, gh + 7)});
      } else if (dep.find("path:") == std::string_view::npos && dep.find("in_umbrella:") == std::string_view::npos) {
        hex_ = true;
      }
    }
  }

  void git_host(const std::string& rel, const std::string& url, const std::string& field) {
    std::string host = url_host(url);
    if (host.empty() && url.starts_with("git@")) {  // git@github.com:owner/repo.git
      auto colon = url.find(':');
      if (colon != std::string::npos) host = url.substr(4, colon - 4);
    }
    if (host.empty()) {
      ctx_.note(rel, "git dependency " + str::quote(url) + " names no host");
      return;
    }
    ctx_.egress(host, EgressOrigin::kConfig, "a mix git dependency", Evidence{rel, field, url});
    if (!git_) {  // mix deps.get clones it with git
      git_ = true;
      ctx_.run_lib("git", "mix:git-dependency", Evidence{rel, field, url}, Purpose::kBuild);
    }
  }

  // The bun hex package installs the bun release its config names
  // (`config :bun, version: "1.3.10"`, required), from bun's GitHub releases:
  // a pin of the bun the asset build and JS tests run.
  void bun_version(const std::string& rel, const std::string& text, const LineIndex& lines) {
    auto at = text.find("config :bun,");
    if (at == std::string::npos) return;
    auto next = text.find("config :", at + 12);
    auto v = text.find("version:", at);
    if (v == std::string::npos || (next != std::string::npos && v > next)) return;
    std::string version = mix_quoted_after(text, v + 8);
    if (version.empty()) return;
    ctx_.constraint("bun", ConstraintKind::kPin, {rel, "line " + std::to_string(lines.at(v)) + " config :bun version", version},
                    parse_version_line(version), "mix bun.install downloads this bun release (the bun hex package)");
  }

  // rustler_precompiled downloads a NIF prebuilt unless its build is forced:
  // `config :rustler_precompiled, :force_build, app: true`, or the app's
  // `<APP>_BUILD` variable set to 1 or true before mix compiles
  // (`System.put_env("LUMIS_BUILD", "1")` in config). Read in the configs a
  // sandbox's mix compile and mix test load (config, dev, test), not prod's.
  void forced_builds() {
    for (const char* name : {"config/config.exs", "config/dev.exs", "config/test.exs"}) {
      auto raw = ctx_.fs().read_text(name);
      if (!raw) continue;
      const std::string text = mix_without_comments(*raw);
      const LineIndex lines(text);
      bun_version(name, text, lines);
      std::size_t looked = 0;
      for (auto at = text.find("_BUILD\""); at != std::string::npos && ++looked <= 100;
           at = text.find("_BUILD\"", at + 1)) {
        auto open = text.rfind('"', at);
        auto put = text.rfind("System.put_env(", open);
        if (open == std::string::npos || put == std::string::npos || put + 15 != open) continue;
        std::string var = text.substr(open + 1, at + 6 - open - 1);
        std::string value = mix_quoted_after(text, at + 7);
        if (value != "1" && value != "true") continue;
        forced(Evidence{name, "line " + std::to_string(lines.at(at)), "System.put_env(\"" + var + "\", \"" + value + "\")"},
               str::lower(var.substr(0, var.size() - 6)));
      }
      for (auto at = text.find(":force_build"); at != std::string::npos && ++looked <= 200;
           at = text.find(":force_build", at + 1)) {
        auto line_end = text.find('\n', at);
        std::string_view rest = std::string_view(text).substr(at + 12, line_end == std::string::npos ? std::string::npos
                                                                                                    : line_end - at - 12);
        auto colon = rest.find(": true");
        if (colon == std::string_view::npos) continue;
        std::string_view app = str::trim(rest.substr(0, colon));
        if (auto comma = app.rfind(','); comma != std::string_view::npos) app = str::trim(app.substr(comma + 1));
        if (app.empty()) continue;
        forced(Evidence{name, "line " + std::to_string(lines.at(at)), std::string(str::trim(rest))}, std::string(app));
      }
    }
  }

  void forced(const Evidence& ev, const std::string& app) {
    ctx_.needs_tool("rust", ev, app + "'s NIF is built from source with cargo (rustler_precompiled's build forced)");
    PackageSignals& s = ctx_.package("hex", app);
    s.structural = BuildKind::kCompile;
    s.structural_reason = "rustler_precompiled's build is forced (" + ev.value + "): the Rust NIF compiles with cargo";
    s.commands = {"cargo"};
    s.evidence.push_back(ev);
    crates(ev);
  }

  // The NIF's crates come from crates.io as cargo builds it.
  void crates(const Evidence& ev) {
    ctx_.egress("index.crates.io", EgressOrigin::kInstallTime, "cargo reads the crates.io index for a Rust NIF", ev);
    ctx_.egress("static.crates.io", EgressOrigin::kInstallTime, "cargo downloads a Rust NIF's crates", ev);
  }

  // "name": {:hex, :name, "1.2.3", "sha", [:mix], [deps], "hexpm", "sha"},
  // "name": {:git, "https://…", "sha", [branch: …]},
  void mix_lock(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel, ctx_.fs().limits().max_lockfile_bytes);
    if (!text) return;
    std::size_t entries = 0, unreadable = 0, lineno = 0;
    for (auto raw : str::split(*text, '\n')) {
      ++lineno;
      std::string_view line = str::trim(raw);
      if (line.empty() || line == "%{" || line == "}") continue;
      if (!line.starts_with('"')) {
        ++unreadable;
        continue;
      }
      auto name_end = line.find('"', 1);
      auto open = line.find("{:", name_end == std::string_view::npos ? 0 : name_end);
      if (name_end == std::string_view::npos || open == std::string_view::npos) {
        ++unreadable;
        continue;
      }
      ++entries;
      std::string name(line.substr(1, name_end - 1));
      std::string_view entry = line.substr(open + 2);
      if (entry.starts_with("hex,")) {
        hex_ = true;
        std::size_t e = 0;
        auto after_name = entry.find(',', 4);
        std::string version = after_name == std::string_view::npos ? "" : mix_quoted_after(entry, after_name, &e);
        hex_package(rel, name, version);
      } else if (entry.starts_with("git,")) {
        std::string url = mix_quoted_after(entry, 4);
        git_host(rel, url, "line " + std::to_string(lineno) + " " + name);
      }
    }
    if (entries == 0 && unreadable > 0) ctx_.warn(rel, "no mix.lock entries could be read; is it a mix.lock?");
  }

  void hex_package(const std::string& rel, const std::string& name, const std::string& version) {
    if (name == "postgrex" || name == "myxql") adapter_.insert(name);
    if (!ctx_.kb().package("hex", name)) return;
    PackageSignals& s = ctx_.package("hex", name);
    s.in_lock = true;
    if (auto v = parse_version(version); v) s.locked = v;
    s.evidence.push_back({rel, name, version.empty() ? "hex" : version});
    if (name == "rustler") rustler_ = Evidence{rel, name, version};
    if (name == "rustler_precompiled") precompiled_ = true;
  }

  // rustler compiles a NIF with cargo, unless rustler_precompiled is there
  // to download the NIF built for the platform (its compile is opt-in).
  void rust_nifs() {
    if (!rustler_) return;
    if (precompiled_) {
      ctx_.note(rustler_->file, "rustler is locked with rustler_precompiled: the NIFs are downloaded prebuilt, "
                                "so no Rust toolchain is needed unless a build is forced");
      return;
    }
    ctx_.package("hex", "rustler").commands.push_back("cargo");
    ctx_.needs_tool("rust", *rustler_, "rustler compiles a NIF written in Rust with cargo");
    crates(*rustler_);
  }

  static constexpr std::size_t kMaxTuples = 5000;  // {:name, …} in one mix.exs
  ScanContext& ctx_;
  bool hex_ = false, precompiled_ = false, git_ = false;
  std::optional<Evidence> ecto_structure_;  // an alias running ecto.load / ecto.dump
  std::set<std::string> adapter_;           // postgrex, myxql in the lock
  std::optional<Evidence> rustler_;
};

}  // namespace

bool elixir_file(std::string_view name) { return name == "mix.exs" || name == "mix.lock"; }

void scan_elixir(ScanContext& ctx) { ElixirScanner(ctx).run(); }

}  // namespace strata::contract
