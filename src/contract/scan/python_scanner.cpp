#include "contract/scan/python_scanner.hpp"

#include <cctype>
#include <fstream>
#include <utility>

#include "contract/scan/toml_file.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

struct Requirement {
  std::string name;  // normalised
  std::string spec;  // the version part, e.g. ">=2.9,<3"
  std::vector<std::string> extras;  // "psycopg[c,pool]" → c, pool
};

// A wheel file name's platform tag fits a glibc linux x86_64 image:
// "…-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", "…-linux_x86_64.whl",
// "…-none-any.whl".
bool linux_wheel_url(std::string_view url) {
  auto end = url.find(".whl");
  if (end == std::string_view::npos) return false;
  std::string_view file = url.substr(0, end);
  if (auto slash = file.rfind('/'); slash != std::string_view::npos) file = file.substr(slash + 1);
  auto dash = file.rfind('-');
  if (dash == std::string_view::npos) return false;
  std::string_view plat = file.substr(dash + 1);
  if (plat == "any") return true;
  for (auto tag : str::split(plat, '.'))
    if ((tag.starts_with("manylinux") || tag == "linux_x86_64") && tag.ends_with("x86_64")) return true;
  return false;
}

// "Django[argon2]>=5.0; python_version>'3'" → {django, ">=5.0"}.
std::optional<Requirement> parse_requirement(std::string_view line) {
  line = str::trim(line);
  if (auto semi = line.find(';'); semi != std::string_view::npos) line = line.substr(0, semi);
  std::size_t i = 0;
  while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '-' || line[i] == '_' || line[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  Requirement r{pep503(line.substr(0, i)), "", {}};
  std::string_view rest = str::trim(line.substr(i));
  if (rest.starts_with('[')) {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    for (auto e : str::split(rest.substr(1, close - 1), ','))
      if (auto t = str::trim(e); !t.empty()) r.extras.push_back(pep503(t));
    rest = str::trim(rest.substr(close + 1));
  }
  if (rest.starts_with('@')) return r;  // direct URL reference
  r.spec = std::string(rest);
  return r;
}

class PythonScanner {
 public:
  explicit PythonScanner(ScanContext& ctx) : ctx_(ctx) {}

  void requirement(const std::string& file, const std::string& field, std::string_view text) {
    if (auto r = parse_requirement(text)) dependency(file, field, *r);
  }

  void run() {
    auto& fs = ctx_.fs();
    for (const char* bad : {".python-version.txt", "python-version"})
      for (const auto& f : fs.files_named(bad))
        ctx_.warn(f, "looks like a misspelt .python-version; not read — rename it to .python-version");
    std::vector<std::string> reqs = fs.files_ending(".txt");
    std::erase_if(reqs, [](const std::string& f) {
      std::string name = f.substr(f.rfind('/') == std::string::npos ? 0 : f.rfind('/') + 1);
      return !name.starts_with("requirements");
    });
    auto pyprojects = fs.files_named("pyproject.toml");
    auto pipfiles = fs.files_named("Pipfile");
    auto setups = fs.files_named("setup.py");
    auto setup_cfgs = fs.files_named("setup.cfg");
    auto uvlocks = fs.files_named("uv.lock");
    auto poetrylocks = fs.files_named("poetry.lock");
    auto pyversions = fs.files_named(".python-version");
    auto runtimes = fs.files_named("runtime.txt");
    if (reqs.empty() && pyprojects.empty() && pipfiles.empty() && setups.empty() && setup_cfgs.empty() &&
        uvlocks.empty() && poetrylocks.empty() && pyversions.empty())
      return;
    ctx_.ecosystem("python");
    std::vector<std::string> projects = pyprojects;
    for (const auto* files : {&reqs, &pipfiles, &setups, &setup_cfgs, &uvlocks, &poetrylocks})
      projects.insert(projects.end(), files->begin(), files->end());
    ctx_.needs_tool("python", projects, "a Python project");
    for (const auto& f : pyprojects) pyproject(f);
    for (const auto& f : reqs) requirements(f);
    for (const auto& f : pipfiles) pipfile(f);
    for (const auto& f : setups) setup_py(f);
    for (const auto& f : setup_cfgs) setup_cfg(f);
    for (const auto& f : runtimes) runtime_txt(f);
    for (const auto& f : pyversions) python_version(f);
    for (const auto& f : uvlocks) lock(f, true);
    for (const auto& f : poetrylocks) lock(f, false);
    if (!custom_index_) {
      ctx_.egress("pypi.org", EgressOrigin::kDefault, "the default Python package index");
      ctx_.egress("files.pythonhosted.org", EgressOrigin::kDefault, "PyPI package downloads");
    }
  }

 private:
  void dependency(const std::string& file, const std::string& field, const Requirement& r) {
    const KbPackage* pkg = ctx_.kb().package("pypi", r.name);
    if (!pkg) return;
    // An extra installs more packages: psycopg[c] is psycopg plus psycopg-c.
    for (const auto& e : r.extras) {
      auto x = pkg->extras.find(e);
      if (x == pkg->extras.end()) continue;
      for (const auto& extra_pkg : x->second) {
        Requirement dep{extra_pkg, "", {}};
        if (r.spec.starts_with("==")) dep.spec = r.spec;  // psycopg-c is released in step with psycopg
        dependency(file, field + " " + r.name + "[" + e + "]", dep);
      }
    }
    PackageSignals& s = ctx_.package("pypi", r.name);
    s.direct = true;
    std::string extras;
    for (const auto& e : r.extras) extras += (extras.empty() ? "[" : ",") + e;
    if (!extras.empty()) extras += "]";
    s.evidence.push_back({file, field, r.name + extras + r.spec});
    if (!r.spec.empty()) {
      if (auto range = parse_pep440(r.spec); range && !range->unbounded_below())
        if (auto f = range->floor(); f && (!s.declared || *f < *s.declared)) s.declared = f;
    }
  }

  void index(const std::string& file, const std::string& field, const std::string& url, const std::string& why) {
    ctx_.egress_url(url, EgressOrigin::kConfig, why, {file, field, url});
    custom_index_ = custom_index_ || field.find("extra") == std::string::npos;
  }

  void pyproject(const std::string& rel) {
    TomlFile t = TomlFile::read(ctx_, rel);
    if (!t.ok()) return;
    if (auto rp = t.string("project.requires-python"))
      ctx_.constraint("python", ConstraintKind::kSupport, {rel, "project.requires-python", *rp}, parse_pep440(*rp));
    if (auto pp = t.version_like("tool.poetry.dependencies.python"))
      ctx_.constraint("python", ConstraintKind::kSupport, {rel, "tool.poetry.dependencies.python", *pp}, parse_pep440(*pp));
    for (const auto& d : t.strings("project.dependencies"))
      if (auto r = parse_requirement(d)) dependency(rel, "project.dependencies", *r);
    // Extras and groups are installed by the image builds that ask for them
    // (`pip install .[postgres]`, `uv sync --group`): declared needs too.
    for (const char* table : {"project.optional-dependencies", "dependency-groups"})
      for (const auto& g : t.keys(table))
        for (const auto& d : t.strings(std::string(table) + "." + g))
          if (auto r = parse_requirement(d)) dependency(rel, std::string(table) + "." + g, *r);
    for (const auto& d : t.strings("tool.uv.dev-dependencies"))
      if (auto r = parse_requirement(d)) dependency(rel, "tool.uv.dev-dependencies", *r);
    std::vector<std::string> poetry_tables = {"tool.poetry.dependencies"};
    for (const auto& g : t.keys("tool.poetry.group")) poetry_tables.push_back("tool.poetry.group." + g + ".dependencies");
    for (const auto& table : poetry_tables)
      for (const auto& k : t.keys(table)) {
        if (k == "python") continue;
        Requirement r{pep503(k), "", {}};
        if (auto v = t.version_like(table + "." + k)) r.spec = *v;
        if (!r.spec.empty() && std::isdigit(static_cast<unsigned char>(r.spec[0]))) r.spec = "==" + r.spec;
        for (const auto& e : t.strings(table + "." + k + ".extras")) r.extras.push_back(pep503(e));
        dependency(rel, table + "." + k, r);
      }
    for (const auto& u : t.array_field("tool.uv.index", "url")) index(rel, "tool.uv.index.url", u, "Python package index (uv)");
    for (const auto& u : t.array_field("tool.poetry.source", "url")) index(rel, "tool.poetry.source.url", u, "Python package index (poetry)");
    // [tool.uv.sources]: a package pinned to a URL or git repository (one
    // table, or a list of tables chosen by markers) is downloaded from there.
    for (const auto& pkg : t.keys("tool.uv.sources")) {
      std::string path = "tool.uv.sources." + pkg;
      for (const char* key : {"url", "git"}) {
        std::vector<std::string> urls = t.array_field(path, key);
        if (auto one = t.string(path + "." + key)) urls.push_back(*one);
        for (const auto& u : urls)
          ctx_.egress_url(u, EgressOrigin::kConfig, std::string("uv source of ") + pkg + " (" + key + ")",
                          {rel, path + "." + key, u});
      }
    }
    // The project itself compiles when its build backend builds extensions.
    std::string backend = t.string("build-system.build-backend").value_or("");
    std::string why;
    for (const char* b : {"maturin", "scikit_build_core", "mesonpy", "setuptools_rust"})
      if (backend.find(b) != std::string::npos) why = "build-system.build-backend = " + backend;
    for (const auto& req : t.strings("build-system.requires")) {
      auto r = parse_requirement(req);
      if (r && (r->name == "cython" || r->name == "cffi" || r->name == "pybind11" || r->name == "setuptools-rust" ||
                r->name == "scikit-build-core" || r->name == "maturin"))
        if (why.empty()) why = "build-system.requires includes " + r->name;
    }
    if (!why.empty()) {
      std::string name = t.string("project.name").value_or(dir_of(rel));
      PackageSignals& s = ctx_.package("pypi", pep503(name));
      s.structural = BuildKind::kCompile;
      s.structural_reason = "the project builds a native extension: " + why;
      s.evidence.push_back({rel, why.substr(0, why.find(' ')), backend.empty() ? why : backend});
      if (backend.find("maturin") != std::string::npos || backend.find("setuptools_rust") != std::string::npos) {
        s.build_deps.push_back("cargo");
        s.commands.push_back("cargo");
      }
    }
  }

  void requirements(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    for (auto line : str::split(*text, '\n')) {
      line = str::trim(line);
      if (auto hash = line.find(" #"); hash != std::string_view::npos) line = str::trim(line.substr(0, hash));
      if (line.empty() || line.front() == '#') continue;
      if (line.front() == '-') {
        auto f = str::split_ws(line);
        std::string opt(f[0]), val = f.size() > 1 ? std::string(f[1]) : "";
        if (auto eq = opt.find('='); eq != std::string::npos) {
          val = opt.substr(eq + 1);
          opt = opt.substr(0, eq);
        }
        if (opt == "-i" || opt == "--index-url") index(rel, opt, val, "Python package index");
        else if (opt == "--extra-index-url") index(rel, opt, val, "extra Python package index");
        else if (opt == "-f" || opt == "--find-links") index(rel, "--extra find-links", val, "Python find-links location");
        continue;
      }
      if (auto r = parse_requirement(line)) dependency(rel, "requirement", *r);
    }
  }

  void pipfile(const std::string& rel) {
    TomlFile t = TomlFile::read(ctx_, rel);
    if (!t.ok()) return;
    for (const char* k : {"requires.python_full_version", "requires.python_version"})
      if (auto v = t.string(k)) ctx_.constraint("python", ConstraintKind::kPin, {rel, k, *v}, parse_version_line(*v));
    for (const auto& u : t.array_field("source", "url")) index(rel, "source.url", u, "Python package index (Pipfile)");
    for (const char* sect : {"packages", "dev-packages"})
      for (const auto& k : t.keys(sect)) {
        Requirement r{pep503(k), t.version_like(std::string(sect) + "." + k).value_or(""), {}};
        for (const auto& e : t.strings(std::string(sect) + "." + k + ".extras")) r.extras.push_back(pep503(e));
        if (r.spec == "*") r.spec.clear();
        dependency(rel, std::string(sect) + "." + k, r);
      }
  }

  void setup_py(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    for (const char* marker : {"ext_modules", "Extension(", "cythonize", "Pybind11Extension"}) {
      if (text->find(marker) == std::string::npos) continue;
      PackageSignals& s = ctx_.package("pypi", pep503(dir_of(rel) == "." ? "setup.py" : dir_of(rel)));
      s.structural = BuildKind::kCompile;
      s.structural_reason = "setup.py declares a C extension";
      s.evidence.push_back({rel, "setup()", marker});
      break;
    }
    setup_requirements(rel, *text);
    // python_requires is only a hint (setup.py is code), so it is read by
    // pattern and labelled as such.
    if (auto p = text->find("python_requires"); p != std::string::npos) {
      auto q1 = text->find_first_of("'\"", p);
      if (q1 != std::string::npos) {
        auto q2 = text->find((*text)[q1], q1 + 1);
        if (q2 != std::string::npos && q2 - q1 < 100) {
          std::string v = text->substr(q1 + 1, q2 - q1 - 1);
          ctx_.constraint("python", ConstraintKind::kSupport, {rel, "python_requires", v}, parse_pep440(v), "read by pattern from setup.py");
        }
      }
    }
  }

  // setup.cfg, setuptools' declarative form: `[options]` python_requires
  // and install_requires (one requirement per continuation line), and the
  // lists of `[options.extras_require]`.
  void setup_cfg(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    std::string section, key;
    for (auto raw : str::split(*text, '\n')) {
      std::string_view line = raw;
      if (auto c = line.find_first_of("#;"); c != std::string_view::npos && str::trim(line.substr(0, c)).empty())
        continue;  // a comment line
      if (str::trim(line).empty()) continue;
      const bool continuation = line.front() == ' ' || line.front() == '\t';
      std::string_view t = str::trim(line);
      if (!continuation && t.starts_with('[')) {
        section = str::lower(str::trim(t.substr(1, t.find(']') == std::string_view::npos ? t.size() - 1 : t.find(']') - 1)));
        key.clear();
        continue;
      }
      std::string_view value = t;
      if (!continuation) {
        auto eq = t.find_first_of("=:");
        if (eq == std::string_view::npos) continue;
        key = str::lower(str::trim(t.substr(0, eq)));
        value = str::trim(t.substr(eq + 1));
      }
      if (value.empty()) continue;
      if (section == "options" && key == "python_requires" && !continuation) {
        std::string v(value);
        ctx_.constraint("python", ConstraintKind::kSupport, {rel, "options.python_requires", v}, parse_pep440(v));
      } else if ((section == "options" && key == "install_requires") || section == "options.extras_require") {
        requirement(rel, section + "." + key, value);
      }
    }
  }

  // setup.py is code, so its dependencies are read by pattern: the string
  // literals of an `install_requires=[…]` list, and of the lists of an
  // `extras_require={…}` mapping (every extra, as `optional-dependencies` in
  // pyproject.toml are; the mapping's keys are skipped). A list built at run
  // time (install_requires=REQUIREMENTS) is not followed.
  void setup_requirements(const std::string& rel, std::string_view text) {
    for (auto [key, open] : {std::pair{"install_requires", '['}, std::pair{"extras_require", '{'}}) {
      auto at = text.find(key);
      if (at == std::string_view::npos) continue;
      std::size_t p = at + std::string_view(key).size();
      while (p < text.size() && (text[p] == ' ' || text[p] == '=')) ++p;
      if (p >= text.size() || text[p] != open) continue;
      int depth = 0;
      for (std::size_t end = std::min(text.size(), p + (256u << 10)); p < end; ++p) {
        char c = text[p];
        if (c == '#') {  // a comment runs to the end of the line
          while (p < end && text[p] != '\n') ++p;
          continue;
        }
        if (c == '[' || c == '{' || c == '(') ++depth;
        if (c == ']' || c == '}' || c == ')') {
          if (--depth == 0) break;
          continue;
        }
        if (c != '"' && c != '\'') continue;
        auto q = text.find(c, p + 1);
        if (q == std::string_view::npos || text.substr(p + 1, q - p - 1).find('\n') != std::string_view::npos) break;
        std::string_view lit = text.substr(p + 1, q - p - 1);
        p = q;
        std::size_t after = q + 1;
        while (after < end && (text[after] == ' ' || text[after] == '\t')) ++after;
        if (after < end && text[after] == ':') continue;  // an extra's name
        if (auto r = parse_requirement(lit)) dependency(rel, key, *r);
      }
    }
  }

  void runtime_txt(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    std::string v(str::trim(*text));
    if (!v.starts_with("python-")) {
      ctx_.warn(rel, "expected python-X.Y.Z, found " + str::quote(v));
      return;
    }
    ctx_.constraint("python", ConstraintKind::kPin, {rel, "runtime", v}, parse_version_line(v.substr(7)));
  }

  void python_version(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    std::vector<std::string> versions;
    for (auto line : str::split(*text, '\n')) {
      line = str::trim(line);
      if (line.empty() || line.front() == '#') continue;
      versions.emplace_back(line);
    }
    if (versions.empty()) {
      ctx_.warn(rel, "empty version file");
      return;
    }
    if (versions.size() > 1) ctx_.note(rel, "several versions listed; the first one is the default and is used");
    const std::string& v = versions.front();
    if (v == "system" || v.starts_with("pypy")) {
      ctx_.note(rel, str::quote(v) + " names no CPython release; no floor taken from it");
      return;
    }
    ctx_.constraint("python", ConstraintKind::kPin, {rel, "version", v}, parse_version_line(v));
  }

  // uv.lock / poetry.lock: TOML written by a tool with one key per line;
  // streamed so a large lock costs no DOM.
  void lock(const std::string& rel, bool uv) {
    auto path = ctx_.fs().open_path(rel, ctx_.fs().limits().max_lockfile_bytes);
    if (!path) return;
    std::ifstream in(*path, std::ios::binary);
    std::string line, name, version, table;
    bool sdist = false, wheels = false, linux_wheel = false;
    auto flush = [&] {
      if (name.empty()) return;
      bool known = ctx_.kb().package("pypi", name) != nullptr;
      // No wheel that installs on linux x86_64: uv builds the sdist.
      bool sdist_only = uv && sdist && !linux_wheel;
      if (known || sdist_only) {
        PackageSignals& s = ctx_.package("pypi", name);
        if (auto v = parse_version(version); v && (!s.locked || *v < *s.locked)) s.locked = v;
        s.in_lock = true;
        s.sdist_only = s.sdist_only || sdist_only;
        s.linux_wheel = s.linux_wheel || (uv && linux_wheel);
        s.foreign_wheels_only = s.foreign_wheels_only || (uv && wheels && !linux_wheel);
        std::string what = sdist_only ? (wheels ? " (sdist; no wheel for linux x86_64)" : " (sdist only)")
                                      : (uv && linux_wheel ? " (wheel for linux x86_64)" : "");
        s.evidence.push_back({rel, "package " + name, version + what});
      }
      name.clear();
      version.clear();
      sdist = wheels = linux_wheel = false;
    };
    auto url_in = [&](std::string_view l, std::string_view key, const std::string& why) {
      auto p = l.find(key);
      if (p == std::string_view::npos) return;
      auto q1 = l.find('"', p + key.size());
      auto q2 = q1 == std::string_view::npos ? q1 : l.find('"', q1 + 1);
      if (q2 == std::string_view::npos) return;
      ctx_.egress_url(l.substr(q1 + 1, q2 - q1 - 1), EgressOrigin::kLockfile, why,
                      {rel, std::string(str::trim(key.substr(0, key.find(' ')))), std::string(l.substr(q1 + 1, q2 - q1 - 1))});
    };
    while (std::getline(in, line)) {
      std::string_view l = str::trim(line);
      if (l.starts_with("[[package]]")) {
        flush();
        table = "package";
        continue;
      }
      if (l.starts_with('[') && !l.starts_with("[[package.wheels")) {
        if (!l.starts_with("[package")) flush();
        table = std::string(l);
        continue;
      }
      if (table == "package") {
        if (l.starts_with("name = ")) name = pep503(str::unquote(l.substr(7)));
        else if (l.starts_with("version = ")) version = str::unquote(l.substr(10));
        else if (l.starts_with("sdist = ")) { sdist = true; url_in(l, "url = ", "Python package downloads"); }
        else if (l.starts_with("wheels = ")) wheels = true;
        else if (l.starts_with("source = ")) url_in(l, "registry = ", "Python package index (lockfile)");
      }
      if (l.starts_with("{ url = ")) url_in(l, "url = ", "Python package downloads");
      if (uv && table == "package" && l.find(".whl") != std::string_view::npos) {
        wheels = true;
        linux_wheel = linux_wheel || linux_wheel_url(l.substr(l.find("url = ") == std::string_view::npos ? 0 : l.find("url = ")));
      }
      if (!uv && table == "[package.source]" && l.starts_with("url = ")) url_in(l, "url = ", "Python package index (poetry.lock)");
      if (uv && table.empty() && l.starts_with("requires-python = "))
        ctx_.constraint("python", ConstraintKind::kSupport, {rel, "requires-python", str::unquote(l.substr(18))}, parse_pep440(str::unquote(l.substr(18))));
      if (!uv && table == "[metadata]" && l.starts_with("python-versions = "))
        ctx_.constraint("python", ConstraintKind::kSupport, {rel, "metadata.python-versions", str::unquote(l.substr(18))},
                        parse_pep440(str::unquote(l.substr(18))));
    }
    flush();
  }

  ScanContext& ctx_;
  bool custom_index_ = false;
};

}  // namespace

std::string pep503(std::string_view name) {
  std::string out;
  bool sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out += '-';
    sep = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

void scan_python(ScanContext& ctx) { PythonScanner(ctx).run(); }

void python_requirement(ScanContext& ctx, const std::string& file, const std::string& field, std::string_view text) {
  PythonScanner(ctx).requirement(file, field, text);
}

}  // namespace strata::contract
