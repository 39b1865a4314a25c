#include "contract/scan/cbuild_scanner.hpp"

#include <cctype>

#include "util/strings.hpp"

namespace strata::contract {
namespace {

// Arguments of every call to `fn(` in a CMake or meson file, comments removed.
std::vector<std::vector<std::string>> calls(const std::string& text, std::string_view fn, char comment) {
  std::vector<std::vector<std::string>> out;
  std::string clean;
  clean.reserve(text.size());
  bool in_comment = false;
  for (char c : text) {
    if (c == comment) in_comment = true;
    if (c == '\n') in_comment = false;
    if (!in_comment) clean += c;
  }
  std::string lower = str::lower(clean);
  std::size_t pos = 0;
  while ((pos = lower.find(fn, pos)) != std::string::npos) {
    bool word_start = pos == 0 || !(std::isalnum(static_cast<unsigned char>(lower[pos - 1])) || lower[pos - 1] == '_');
    std::size_t p = pos + fn.size();
    while (p < lower.size() && (lower[p] == ' ' || lower[p] == '\t')) ++p;
    if (!word_start || p >= lower.size() || lower[p] != '(') {
      pos += fn.size();
      continue;
    }
    auto close = clean.find(')', p);
    if (close == std::string::npos) break;
    std::vector<std::string> args;
    std::string inner = clean.substr(p + 1, close - p - 1);
    for (char& c : inner)
      if (c == ',' || c == '\'' || c == '"' || c == '[' || c == ']') c = ' ';
    for (auto a : str::split_ws(inner)) args.emplace_back(a);
    out.push_back(std::move(args));
    pos = close;
  }
  return out;
}

class CBuildScanner {
 public:
  explicit CBuildScanner(ScanContext& ctx) : ctx_(ctx) {}

  void run() {
    auto cmakes = ctx_.fs().files_named("CMakeLists.txt");
    auto mesons = ctx_.fs().files_named("meson.build");
    for (const auto& f : cmakes) cmake(f);
    for (const auto& f : mesons) meson(f);
    if (ctx_.fs().is_file("Makefile") && cmakes.empty() && mesons.empty()) makefile("Makefile");
  }

 private:
  PackageSignals& project(const std::string& eco, const std::string& name) {
    PackageSignals& s = ctx_.package(eco, name);
    s.structural = BuildKind::kCompile;
    return s;
  }

  void pkgconfig(PackageSignals& s, const std::string& rel, const std::string& module) {
    std::string m = module.substr(0, module.find_first_of("<>="));
    if (const auto* libs = ctx_.kb().pkgconfig_module(m)) {
      for (const auto& l : *libs) s.build_deps.push_back(l);
      s.evidence.push_back({rel, "pkg-config module", m});
    } else {
      ctx_.note(rel, "pkg-config module " + m + " is not in toolchains.yaml; its Debian package is unknown");
    }
    s.build_deps.push_back("pkg-config");
  }

  void cmake(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    ctx_.ecosystem("cmake");
    if (project_.empty()) {
      auto p = calls(*text, "project", '#');
      project_ = !p.empty() && !p[0].empty() ? p[0][0] : (dir_of(rel) == "." ? "root" : dir_of(rel));
    }
    PackageSignals& s = project("cmake", project_);
    s.structural_reason = "CMake project compiles C/C++";
    s.evidence.push_back({rel, "file", "CMakeLists.txt"});
    for (const auto& a : calls(*text, "cmake_minimum_required", '#')) {
      if (a.size() < 2 || str::lower(a[0]) != "version") continue;
      std::string v = a[1];
      std::string lo = v.substr(0, v.find("..."));
      auto pv = parse_version(lo);
      ctx_.constraint("cmake", ConstraintKind::kSupport, {rel, "cmake_minimum_required", v},
                      pv ? Result<Range>(Range::at_least(*pv)) : Result<Range>(fail(ErrorCode::kInvalidArgument, "bad version")));
    }
    for (const auto& a : calls(*text, "find_package", '#')) {
      if (a.empty()) continue;
      if (const auto* libs = ctx_.kb().cmake_package(a[0])) {
        for (const auto& l : *libs) s.build_deps.push_back(l);
        s.evidence.push_back({rel, "find_package", a[0]});
      } else {
        ctx_.note(rel, "find_package(" + a[0] + ") is not in toolchains.yaml; its Debian package is unknown");
      }
    }
    for (const auto& a : calls(*text, "pkg_check_modules", '#'))
      for (std::size_t i = 1; i < a.size(); ++i) {
        std::string up = a[i];
        if (up == "REQUIRED" || up == "QUIET" || up == "IMPORTED_TARGET" || up == "GLOBAL" || up == "NO_CMAKE_PATH" ||
            up == "NO_CMAKE_ENVIRONMENT_PATH")
          continue;
        pkgconfig(s, rel, a[i]);
      }
  }

  void meson(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    ctx_.ecosystem("meson");
    auto p = calls(*text, "project", '#');
    std::string name = !p.empty() && !p[0].empty() ? p[0][0] : dir_of(rel);
    PackageSignals& s = project("meson", name);
    s.structural_reason = "Meson project compiles C/C++";
    s.evidence.push_back({rel, "file", "meson.build"});
    if (auto mv = text->find("meson_version"); mv != std::string::npos) {
      auto q1 = text->find('\'', mv);
      auto q2 = q1 == std::string::npos ? q1 : text->find('\'', q1 + 1);
      if (q2 != std::string::npos) {
        std::string v = text->substr(q1 + 1, q2 - q1 - 1);
        ctx_.constraint("meson", ConstraintKind::kSupport, {rel, "meson_version", v}, parse_npm_range(v));
      }
    }
    for (const auto& a : calls(*text, "dependency", '#'))
      if (!a.empty() && a[0] != "threads") pkgconfig(s, rel, a[0]);
  }

  // A Makefile with a `build` or `all` target is how the project builds:
  // make itself, and the programs its variables and recipes run at build
  // time to stamp a version (`git describe`, `$(shell git rev-parse …)`), are
  // build needs, their packages from the `programs` table.
  void build_programs(const std::string& rel, const std::string& text) {
    auto lines = str::split(text, '\n');
    bool drives_build = false;
    for (const auto& l : lines)
      for (std::string_view target : {"all", "build"})
        if (l.starts_with(target) && str::trim(l.substr(target.size())).starts_with(':') &&
            !str::trim(l.substr(target.size())).starts_with(":="))
          drives_build = true;
    if (!drives_build) return;
    auto add = [&](const std::string& prog, Evidence ev) {
      if (const auto* pkgs = ctx_.kb().program_packages(prog))
        for (const auto& pkg : *pkgs) ctx_.build_lib(pkg, "make:" + rel, ev);
    };
    add("make", {rel, "target", "build"});
    for (std::size_t n = 0; n < lines.size(); ++n) {
      std::string_view l = str::trim(lines[n]);
      if (l.starts_with('#')) continue;
      for (std::string_view run : {"`git ", "$(shell git "}) {
        if (l.find(run) == std::string_view::npos) continue;
        ctx_.command("git", "the Makefile runs git at build time");
        add("git", {rel, "line " + std::to_string(n + 1), std::string(l.substr(0, 160))});
        break;
      }
    }
  }

  void makefile(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    ctx_.command("make", "Makefile present");
    build_programs(rel, *text);
    for (const char* marker : {"$(CC)", "$(CXX)", "gcc ", "g++ ", "cc -", "%.o:"}) {
      if (text->find(marker) == std::string::npos) continue;
      ctx_.ecosystem("make");
      PackageSignals& s = project("make", "Makefile");
      s.structural_reason = "the Makefile invokes a C/C++ compiler";
      s.evidence.push_back({rel, "recipe", marker});
      return;
    }
  }

  ScanContext& ctx_;
  std::string project_;
};

}  // namespace

void scan_c_builds(ScanContext& ctx) { CBuildScanner(ctx).run(); }

}  // namespace strata::contract
