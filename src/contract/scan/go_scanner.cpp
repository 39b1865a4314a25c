#include "contract/scan/go_scanner.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "util/strings.hpp"

namespace strata::contract {
namespace {

class GoScanner {
 public:
  explicit GoScanner(ScanContext& ctx) : ctx_(ctx) {}

  void run() {
    auto mods = ctx_.fs().files_named("go.mod");
    auto works = ctx_.fs().files_named("go.work");
    if (mods.empty() && works.empty()) return;
    ctx_.ecosystem("go");
    ctx_.needs_tool("go", mods.empty() ? works : mods, "a Go module");
    for (const auto& f : mods) directives(f);
    for (const auto& f : works) directives(f);
    sources();
    ctx_.egress("proxy.golang.org", EgressOrigin::kDefault, "Go module proxy (GOPROXY default)",
                Evidence{mods.empty() ? works.front() : mods.front(), "GOPROXY", "https://proxy.golang.org,direct"});
    ctx_.egress("sum.golang.org", EgressOrigin::kDefault, "Go checksum database (GOSUMDB default)",
                Evidence{mods.empty() ? works.front() : mods.front(), "GOSUMDB", "sum.golang.org"});
  }

 private:
  void directives(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    std::optional<Version> go_line, toolchain;
    bool in_use = false, in_require = false;
    for (auto raw : str::split(*text, '\n')) {
      std::string_view line = raw;
      if (auto c = line.find("//"); c != std::string_view::npos) line = line.substr(0, c);
      auto f = str::split_ws(line);
      if (f.empty()) continue;
      if (in_require) {
        if (f[0] == ")") in_require = false;
        else if (f.size() >= 2) module(rel, std::string(f[0]), std::string(f[1]));
        continue;
      }
      if (f[0] == "require") {
        if (f.size() == 2 && f[1] == "(") in_require = true;
        else if (f.size() >= 3) module(rel, std::string(f[1]), std::string(f[2]));
        continue;
      }
      if (in_use) {
        if (f[0] == ")") in_use = false;
        else ctx_.workspace({std::string(f[0]) == "." ? dir_of(rel) : join_rel(dir_of(rel), f[0].substr(f[0].starts_with("./") ? 2 : 0)), "", "go"});
        continue;
      }
      if (f[0] == "module" && f.size() == 2) module_ = std::string(f[1]);
      if (f[0] == "use") {
        if (f.size() == 2 && f[1] == "(") in_use = true;
        else if (f.size() == 2) ctx_.workspace({join_rel(dir_of(rel), f[1].substr(f[1].starts_with("./") ? 2 : 0)), "", "go"});
      }
      if (f[0] == "go" && f.size() == 2) {
        std::string v(f[1]);
        go_line = parse_version(v);
        auto r = go_line ? Result<Range>(Range::at_least(*go_line)) : Result<Range>(fail(ErrorCode::kInvalidArgument, "bad go version"));
        ctx_.constraint("go", ConstraintKind::kSupport, {rel, "go", v}, r, "minimum Go version (enforced since Go 1.21)");
      } else if (f[0] == "toolchain" && f.size() == 2 && f[1].starts_with("go")) {
        std::string v(f[1].substr(2));
        toolchain = parse_version(v);
        auto r = toolchain ? Result<Range>(Range::at_least(*toolchain)) : Result<Range>(fail(ErrorCode::kInvalidArgument, "bad toolchain"));
        ctx_.constraint("go", ConstraintKind::kPin, {rel, "toolchain", std::string(f[1])}, r,
                        "preferred toolchain; an older go command downloads it (GOTOOLCHAIN=auto)");
      }
    }
    if (toolchain && go_line && *go_line < *toolchain)
      ctx_.note(rel, "toolchain go" + toolchain->str() + " is newer than the go line; an image with Go " +
                         go_line->str() + " would download the toolchain from the module proxy");
  }

  // A required module the knowledge base knows (cgo modules such as
  // github.com/mattn/go-sqlite3, or pure-Go ones listed to say so).
  void module(const std::string& rel, const std::string& path, const std::string& version) {
    const std::string* entry = set_aside_tree(rel) ? nullptr : ctx_.kb().entry_for("go", path);
    if (!entry) return;
    PackageSignals& s = ctx_.package("go", *entry);
    s.direct = true;
    if (auto v = parse_version(version); v && *entry == path && (!s.locked || *v < *s.locked)) s.locked = v;
    s.evidence.push_back({rel, "require", path + " " + version});
  }

  // Every non-test .go file: cgo, and the system files the program reads.
  void sources() {
    auto files = ctx_.fs().files_ending(".go");
    std::size_t checked = 0;
    for (const auto& f : files) {
      if (f.ends_with("_test.go")) continue;
      if (++checked > ctx_.fs().limits().max_go_files) {
        ctx_.note(".", "stopped looking for cgo after " + std::to_string(ctx_.fs().limits().max_go_files) + " files");
        break;
      }
      auto text = ctx_.fs().read_text(f);
      if (!text) continue;
      cgo(f, *text);
      if (!f.starts_with("vendor/") && f.find("/vendor/") == std::string::npos) system_files(f, *text);
    }
    for (const auto& [pkg, need] : system_needs_) {
      if (need.required_by.empty()) continue;
      if (need.cancelled) {
        ctx_.note(need.cancelled->file, pkg + " is not needed at run time: " + need.cancelled->value + " embeds it");
        continue;
      }
      ctx_.run_lib(pkg, need.required_by, need.evidence);
    }
  }

  void cgo(const std::string& f, std::string_view text) {
    bool uses_c = text.find("import \"C\"") != std::string_view::npos || text.find("\n\t\"C\"\n") != std::string_view::npos;
    if (!uses_c) return;
    PackageSignals& s = ctx_.package("go", module_.empty() ? dir_of(f) : module_);
    s.structural = BuildKind::kCompile;
    s.structural_reason = "cgo: import \"C\" (CGO_ENABLED defaults to 1 when a C compiler is present)";
    if (s.evidence.size() < 5) s.evidence.push_back({f, "import", "\"C\""});
    for (auto line : str::split(text, '\n')) {
      line = str::trim(line);
      auto p = line.find("#cgo pkg-config:");
      if (p == std::string_view::npos) continue;
      for (auto mod : str::split_ws(line.substr(p + 16))) {
        if (const auto* libs = ctx_.kb().pkgconfig_module(mod)) {
          for (const auto& l : *libs) s.build_deps.push_back(l);
        } else {
          ctx_.note(f, "pkg-config module " + std::string(mod) + " is not in toolchains.yaml; its Debian package is unknown");
        }
        s.build_deps.push_back("pkg-config");
      }
    }
  }

  // Files of the image the Go runtime reads, not the program's own code:
  // crypto/x509 verifies TLS servers against the system's roots
  // (/etc/ssl/certs, ca-certificates) unless the program embeds a root set
  // (golang.org/x/crypto/x509roots/fallback); time.LoadLocation reads
  // /usr/share/zoneinfo (tzdata) unless the program imports time/tzdata.
  // An HTTPS client is a call that makes requests (http.Get, a Client, a
  // Transport, tls.Dial), not a server.
  void system_files(const std::string& f, std::string_view text) {
    auto line_of = [&](std::size_t at) {
      return "line " + std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    };
    auto snippet = [&](std::size_t at) {
      std::size_t b = text.rfind('\n', at);
      b = b == std::string_view::npos ? 0 : b + 1;
      std::size_t e = text.find('\n', at);
      return std::string(str::trim(text.substr(b, std::min<std::size_t>(e == std::string_view::npos ? text.size() - b : e - b, 160))));
    };
    auto first_of = [&](std::initializer_list<std::string_view> calls) {
      std::size_t best = std::string_view::npos;
      for (auto c : calls) best = std::min(best, text.find(c));
      return best;
    };
    bool imports_http = text.find("\"net/http\"") != std::string_view::npos;
    bool imports_tls = text.find("\"crypto/tls\"") != std::string_view::npos;
    std::size_t client = std::string_view::npos;
    if (imports_http)
      client = first_of({"http.Get(", "http.Post(", "http.PostForm(", "http.Head(", "http.NewRequest", "http.Client{",
                         "http.DefaultClient", "http.Transport{", "http.DefaultTransport"});
    if (imports_tls) client = std::min(client, first_of({"tls.Dial(", "tls.DialWithDialer("}));
    if (client != std::string_view::npos)
      want("ca-certificates", "go:crypto/x509 system roots", Evidence{f, line_of(client), snippet(client)});
    if (auto at = text.find("time.LoadLocation("); at != std::string_view::npos)
      want("tzdata", "go:time.LoadLocation", Evidence{f, line_of(at), snippet(at)});
    if (auto at = text.find("\"golang.org/x/crypto/x509roots/fallback\""); at != std::string_view::npos)
      system_needs_["ca-certificates"].cancelled = Evidence{f, line_of(at), "golang.org/x/crypto/x509roots/fallback"};
    if (auto at = text.find("\"time/tzdata\""); at != std::string_view::npos)
      system_needs_["tzdata"].cancelled = Evidence{f, line_of(at), "time/tzdata"};
  }

  void want(const std::string& pkg, const std::string& required_by, Evidence ev) {
    auto& need = system_needs_[pkg];
    if (!need.required_by.empty()) return;  // the first file names it
    need.required_by = required_by;
    need.evidence = std::move(ev);
  }

  struct SystemNeed {
    std::string required_by;
    Evidence evidence;
    std::optional<Evidence> cancelled;  // the program embeds what the file would give
  };
  std::map<std::string, SystemNeed> system_needs_;
  ScanContext& ctx_;
  std::string module_;
};

}  // namespace

void scan_go(ScanContext& ctx) { GoScanner(ctx).run(); }

}  // namespace strata::contract
