#include "contract/scan/program_scanner.hpp"

#include <algorithm>
#include <functional>
#include <array>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <filesystem>
#include <tuple>

#include "contract/scan/shell_words.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

enum class Lang { kGo, kPython, kNode, kRust, kShell, kRuby, kPhp, kElixir };

std::optional<Lang> lang_of(std::string_view name) {
  if (name.ends_with(".sh") || name.find("entrypoint") != std::string_view::npos) return Lang::kShell;
  auto ext = name.rfind('.');
  if (ext == std::string_view::npos) return std::nullopt;
  std::string_view e = name.substr(ext);
  if (e == ".go") return Lang::kGo;
  if (e == ".py") return Lang::kPython;
  if (e == ".js" || e == ".mjs" || e == ".cjs" || e == ".ts" || e == ".mts" || e == ".cts") return Lang::kNode;
  if (e == ".rs") return Lang::kRust;
  if (e == ".rb" || e == ".rake") return Lang::kRuby;
  if (e == ".php") return Lang::kPhp;
  if (e == ".ex") return Lang::kElixir;  // .exs: scripts, configs and tests
  return std::nullopt;
}

// A call whose argument number `arg` names the program. `shell`: the argument
// is a command line, its first word is the program. `env_default`: the call
// reads an environment variable and the argument is its default, which counts
// only when the variable's name says it holds a program (PAPERLESS_GS_BINARY).
struct CallPattern {
  std::string_view text;
  int arg = 0;
  bool shell = false;
  bool env_default = false;
};

constexpr std::array<CallPattern, 3> kGo = {{{"exec.Command(", 0}, {"exec.CommandContext(", 1}, {"exec.LookPath(", 0}}};
constexpr std::array<CallPattern, 16> kPython = {{{"subprocess.run(", 0},
                                                  {"subprocess.Popen(", 0},
                                                  {"subprocess.call(", 0},
                                                  {"subprocess.check_call(", 0},
                                                  {"subprocess.check_output(", 0},
                                                  {"Popen(", 0},
                                                  {"check_output(", 0},
                                                  {"check_call(", 0},
                                                  {"create_subprocess_exec(", 0},
                                                  {"shutil.which(", 0},
                                                  {"os.system(", 0, true},
                                                  {"os.popen(", 0, true},
                                                  {"create_subprocess_shell(", 0, true},
                                                  {"os.getenv(", 1, false, true},
                                                  {"os.environ.get(", 1, false, true},
                                                  {"env.str(", 1, false, true}}};
constexpr std::array<CallPattern, 8> kNode = {{{"spawn(", 0},
                                               {"spawnSync(", 0},
                                               {"execFile(", 0},
                                               {"execFileSync(", 0},
                                               {"exec(", 0, true},
                                               {"execSync(", 0, true},
                                               {"execa(", 0},
                                               {"execaSync(", 0}}};
constexpr std::array<CallPattern, 3> kRust = {{{"Command::new(", 0}, {"which::which(", 0}, {"which(", 0}}};
// Ruby: Open3's capture/popen, Kernel#system and #spawn (one string is a
// command line, several are the program and its arguments), IO.popen.
constexpr std::array<CallPattern, 11> kRuby = {{{"Open3.capture3(", 0, true},
                                               {"Process.spawn(", 0, true},
                                               {"Kernel.system(", 0, true},
                                               {"Open3.capture2(", 0, true},
                                               {"Open3.capture2e(", 0, true},
                                               {"Open3.popen3(", 0, true},
                                               {"Open3.popen2(", 0, true},
                                               {"Open3.popen2e(", 0, true},
                                               {"system(", 0, true},
                                               {"spawn(", 0, true},
                                               {"IO.popen(", 0, true}}};
// PHP: the program-execution functions and Symfony's Process.
constexpr std::array<CallPattern, 8> kPhp = {{{"exec(", 0, true},
                                              {"shell_exec(", 0, true},
                                              {"passthru(", 0, true},
                                              {"system(", 0, true},
                                              {"proc_open(", 0, true},
                                              {"popen(", 0, true},
                                              {"new Process(", 0},
                                              {"Process::fromShellCommandline(", 0, true}}};
constexpr std::array<CallPattern, 2> kElixir = {{{"System.cmd(", 0}, {"System.find_executable(", 0}}};

std::vector<CallPattern> patterns(Lang l) {
  switch (l) {
    case Lang::kGo: return {kGo.begin(), kGo.end()};
    case Lang::kPython: return {kPython.begin(), kPython.end()};
    case Lang::kNode: return {kNode.begin(), kNode.end()};
    case Lang::kRust: return {kRust.begin(), kRust.end()};
    case Lang::kRuby: return {kRuby.begin(), kRuby.end()};
    case Lang::kPhp: return {kPhp.begin(), kPhp.end()};
    case Lang::kElixir: return {kElixir.begin(), kElixir.end()};
    case Lang::kShell: return {};
  }
  return {};
}

// The file must import the API before a bare call name counts:
// `exec(` alone is also RegExp.prototype.exec.
bool uses_api(Lang l, std::string_view text, std::string_view pattern) {
  if (l == Lang::kNode) {
    // The module imported or required: its name closed by a quote
    // ("node:child_process", 'promisify-child-process', "execa"), not a mention.
    for (std::string_view mod : {"child_process", "child-process", "execa"})
      for (char q : {'"', '\'', '`'})
        if (text.find(std::string(mod) + q) != std::string_view::npos) return true;
    return false;
  }
  if (l == Lang::kRust && pattern == "which(") return text.find("which::") != std::string_view::npos;
  // `new Process(` is Symfony's only where the file imports it (not an app's own Process model).
  if (l == Lang::kPhp && pattern == "new Process(") return text.find("Symfony\\Component\\Process") != std::string_view::npos;
  return true;
}

std::string base_name_of(std::string_view rel) {
  auto s = rel.rfind('/');
  return std::string(s == std::string_view::npos ? rel : rel.substr(s + 1));
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Directories whose code does not run in the application's image: tests,
// examples, docs, vendored copies, build output, developer tooling.
bool skipped_source_dir(std::string_view d) {
  static constexpr std::array<std::string_view, 30> kSkip = {
      "test", "tests", "testdata", "testing", "__tests__", "__mocks__", "mocks", "spec", "specs", "e2e",
      "fixtures", "example", "examples", "docs", "doc", "vendor", "third_party", "third-party", "dist",
      "build", "out", "public", "static", "assets", "scripts", "tools", "hack", "benchmarks", ".github", "contrib"};
  return std::find(kSkip.begin(), kSkip.end(), d) != kSkip.end();
}

bool skipped_source_name(std::string_view n) {
  if (n.ends_with("_test.go") || n.ends_with("_test.py") || n.starts_with("test_") || n == "conftest.py" ||
      n == "setup.py" || n == "noxfile.py" || n == "fabfile.py" || n == "tasks.py" || n == "build.rs" ||
      n.ends_with(".min.js") || n.ends_with(".d.ts"))
    return true;
  for (std::string_view t : {".test.", ".spec.", ".config.", "gulpfile.", "Gruntfile."})
    if (n.find(t) != std::string_view::npos) return true;
  return false;
}

// `vendored(dir)`: whether a nested vendor/ or third_party/ directory holds
// another project's code. At the root they always do; below it, an app's own
// module namespace may carry the name (glific's lib/glific/third_party/,
// its integrations with other services), so only one with a license of its
// own, or of the project directly inside it (vendor/markdown/LICENSE), is.
bool skipped_source(std::string_view rel, const std::function<bool(const std::string&)>& vendored) {
  auto parts = str::split(rel, '/');
  std::string dir;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    dir += (i ? "/" : "") + std::string(parts[i]);
    if (!skipped_source_dir(parts[i])) continue;
    const bool namespace_like = parts[i] == "third_party" || parts[i] == "third-party" || parts[i] == "vendor";
    if (!namespace_like || i == 0 || vendored(dir) ||
        (i + 2 < parts.size() && vendored(dir + "/" + std::string(parts[i + 1]))))
      return true;
  }
  return skipped_source_name(parts.back());
}

// Reads a string literal starting at text[p] (after an optional r/b/f/u
// prefix); the literal's content, or nullopt. `p` ends after the literal.
std::optional<std::string> literal_at(std::string_view text, std::size_t& p) {
  if (p < text.size() && std::string_view("rbfuRBFU").find(text[p]) != std::string_view::npos && p + 1 < text.size() &&
      (text[p + 1] == '"' || text[p + 1] == '\''))
    ++p;
  if (p >= text.size()) return std::nullopt;
  char q = text[p];
  if (q != '"' && q != '\'' && q != '`') return std::nullopt;
  std::string out;
  for (std::size_t i = p + 1; i < text.size() && i < p + 512; ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      out += text[++i];
      continue;
    }
    if (c == q) {
      p = i + 1;
      return out;
    }
    if (c == '\n' && q != '`') return std::nullopt;
    out += c;
  }
  return std::nullopt;
}

void skip_space(std::string_view text, std::size_t& p) {
  while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
}

// Moves `p` past one call argument (to the character after its comma);
// false when the argument list ends first.
bool skip_argument(std::string_view text, std::size_t& p) {
  int depth = 0;
  for (std::size_t end = std::min(text.size(), p + 2048); p < end; ++p) {
    char c = text[p];
    if (c == '"' || c == '\'' || c == '`') {
      if (!literal_at(text, p)) return false;
      --p;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return false;
      --depth;
    }
    if (c == ',' && depth == 0) {
      ++p;
      return true;
    }
  }
  return false;
}

// `NAME = "literal"` (also `:=`, `const`/`let`/`var`/`static`, a Rust or
// TypeScript type annotation) assignments in one file, so exec.LookPath(
// GitExecutable) reads GitExecutable = "git".
std::map<std::string, std::string> string_constants(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto raw : str::split(text, '\n')) {
    std::string_view line = str::trim(raw);
    for (std::string_view kw : {"pub ", "export ", "const ", "static ", "let ", "var "})
      if (line.starts_with(kw)) line = str::trim(line.substr(kw.size()));
    std::size_t i = 0;
    while (i < line.size() && ident_char(line[i])) ++i;
    if (i == 0 || std::isdigit(static_cast<unsigned char>(line[0]))) continue;
    std::string name(line.substr(0, i));
    auto eq = line.find('=', i);
    if (eq == std::string_view::npos || eq + 1 >= line.size() || line[eq + 1] == '=') continue;
    std::string_view between = line.substr(i, eq - i);  // " ", " :", ": &str ", ": string "
    if (between.find_first_of("(),\"'") != std::string_view::npos) continue;
    std::size_t p = eq + 1;
    skip_space(line, p);
    auto lit = literal_at(line, p);
    if (!lit) continue;
    skip_space(line, p);
    if (p < line.size() && line[p] != ';' && line[p] != ',' && line[p] != '/' && line[p] != '#') continue;
    out.emplace(std::move(name), std::move(*lit));
  }
  return out;
}

// The program a command word names: "/usr/bin/gs" → "gs", "mpv.exe" → "mpv".
std::string program_name(std::string_view word) {
  if (auto s = word.rfind('/'); s != std::string_view::npos) word = word.substr(s + 1);
  if (word.ends_with(".exe")) word.remove_suffix(4);
  if (word.empty() || word.front() == '-' || word.front() == '.') return {};
  for (char c : word)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' && c != '+') return {};
  return std::string(word);
}

bool program_env_name(std::string_view name) {
  std::string up;
  for (char c : name) up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (std::string_view k : {"BINARY", "_BIN", "CMD", "COMMAND", "EXECUTABLE", "_EXE", "PROGRAM", "_PATH"})
    if (up.find(k) != std::string::npos) return true;
  return false;
}

// A shell script that starts the application in its image, whose commands
// therefore run there: `docker-entrypoint.sh`, `entrypoint`, `entry.sh`,
// `start.sh`, or any script in a `docker/` directory. Other shell scripts
// (release, lint, CI helpers) run on a developer's machine and are not read.
bool entry_script(std::string_view rel) {
  auto parts = str::split(rel, '/');
  std::string_view name = parts.back();
  if (name.find("entrypoint") != std::string_view::npos) return true;
  for (std::string_view n : {"entry.sh", "start.sh", "startup.sh", "run.sh", "init.sh", "boot.sh"})
    if (name == n) return true;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i)
    if (parts[i] == "docker" && name.ends_with(".sh")) return true;
  return false;
}

// The programs a shell line runs, as shell_words reads its commands (quotes,
// `;`, `&&`, `|`, `$(`, the prefixes and keywords before a program);
// `gosu USER CMD` and `su-exec USER CMD` run both gosu and CMD.
std::vector<std::string> shell_commands(std::string_view line) {
  std::vector<std::string> out;
  for (const auto& c : shell_commands_of(line)) {
    if (!c.program()) continue;
    std::string prog = program_name(*c.program());
    if (prog.empty()) continue;
    out.push_back(prog);
    if ((prog == "gosu" || prog == "su-exec") && c.start + 2 < c.words.size()) {
      std::string next = program_name(c.words[c.start + 2]);
      if (!next.empty()) out.push_back(next);
    }
  }
  return out;
}

// A JavaScript/TypeScript helper of the repository's own that runs shell
// commands: a file that imports child_process and defines a function or
// method named like the API (`static async exec(cmd) { … childProcess.exec(cmd …`).
// Its names, so `Util.exec('wg-quick up wg0')` in a file that requires it reads
// like a child_process call.
std::vector<std::string> wrapper_names(std::string_view text) {
  static constexpr std::array<std::string_view, 6> kNames = {"exec", "execSync", "spawn", "run", "sh", "shell"};
  std::vector<std::string> out;
  for (auto raw : str::split(text, '\n')) {
    std::string_view line = str::trim(raw);
    for (std::string_view kw : {"export ", "static ", "async ", "function ", "public ", "private "})
      while (line.starts_with(kw)) line = str::trim(line.substr(kw.size()));
    for (std::string_view prefix : {"module.exports.", "exports."})
      if (line.starts_with(prefix)) line = line.substr(prefix.size());
    for (std::string_view n : kNames) {
      if (!line.starts_with(n)) continue;
      std::string_view rest = str::trim(line.substr(n.size()));
      // `exec(cmd, …) {`, `exec = (cmd) =>`, `exec = async (cmd) =>`, `exec = function (cmd)`.
      bool defines = rest.starts_with('(') ? line.find('{') != std::string_view::npos && !line.ends_with(";")
                                           : rest.starts_with('=') && (rest.find("=>") != std::string_view::npos ||
                                                                      rest.find("function") != std::string_view::npos);
      if (defines && std::find(out.begin(), out.end(), n) == out.end()) out.emplace_back(n);
    }
  }
  return out;
}

// A module a JavaScript/TypeScript file imports at the start of a line
// (`const Util = require('./Util')`, `import cp from "node:child_process"`,
// `import * as cp from …`, `const { exec } = require(…)`), not one named in a
// comment or a string.
struct JsImport {
  std::string module;   // as written: "./Util", "child_process"
  std::string binding;  // "Util", "cp"; "" when destructured
};

std::vector<JsImport> js_imports(std::string_view text) {
  std::vector<JsImport> out;
  for (auto raw : str::split(text, '\n')) {
    std::string_view line = str::trim(raw);
    bool starts = false;
    for (std::string_view kw : {"const ", "let ", "var ", "import "})
      if (line.starts_with(kw)) {
        line = str::trim(line.substr(kw.size()));
        starts = true;
        break;
      }
    if (!starts) continue;
    std::string binding;
    if (line.starts_with("* as ")) line = str::trim(line.substr(5));
    std::size_t i = 0;
    while (i < line.size() && (ident_char(line[i]) || line[i] == '$')) ++i;
    if (i > 0 && !line.starts_with('{')) binding = std::string(line.substr(0, i));
    std::size_t q = std::string_view::npos;
    if (auto r = line.find("require("); r != std::string_view::npos) q = r + 8;
    else if (auto f = line.find(" from "); f != std::string_view::npos) q = f + 6;
    if (q == std::string_view::npos) continue;
    skip_space(line, q);
    auto module = literal_at(line, q);
    if (module) out.push_back({std::move(*module), std::move(binding)});
  }
  return out;
}

// "src/lib" + "./Util" → "src/lib/Util"; "" when the module is not relative.
std::string resolve_relative(std::string_view dir, std::string_view module) {
  if (!module.starts_with("./") && !module.starts_with("../")) return {};
  std::string out = (std::filesystem::path(dir) / module).lexically_normal().generic_string();
  if (out.starts_with("..")) return {};  // above the repository
  for (std::string_view ext : {".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"})
    if (out.ends_with(ext)) out.erase(out.size() - ext.size());
  return out;
}

// All source read for programs, whatever the file count: a monorepo's
// generated or bundled code must not make the scan slow.
constexpr std::uint64_t kMaxSourceTotalBytes = 128ull << 20;

class ProgramScanner {
 public:
  explicit ProgramScanner(ScanContext& ctx) : ctx_(ctx) {}

 private:
  // A directory that carries another project's license (each directory looked at once).
  std::map<std::string, bool> vendored_dirs_;
  std::function<bool(const std::string&)> vendored_ = [this](const std::string& dir) {
    auto [it, fresh] = vendored_dirs_.try_emplace(dir, false);
    if (fresh)
      for (const char* f : {"LICENSE", "LICENSE.txt", "LICENSE.md", "COPYING", "LICENCE", "README.md", "README"})
        if (ctx_.fs().is_file(dir + "/" + f)) {
          it->second = true;
          break;
        }
    return it->second;
  };

 public:

  void run() {
    // Every source file lang_of knows: entry scripts first (they run in the
    // image whatever else the code does), then the rest in path order, so a
    // large app/ tree cannot use up the file budget before them.
    std::vector<std::string> files;
    for (const auto& f : ctx_.fs().files_ending(""))
      if (lang_of(base_name_of(f))) files.push_back(f);
    std::stable_sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
      bool ea = lang_of(base_name_of(a)) == Lang::kShell, eb = lang_of(base_name_of(b)) == Lang::kShell;
      return ea != eb ? ea : a < b;
    });
    find_wrappers(files);
    std::size_t read = 0;
    std::uint64_t total = 0;
    for (const auto& f : files) {
      auto lang = lang_of(base_name_of(f));
      if (!lang || skipped_source(f, vendored_) || (*lang == Lang::kShell && !entry_script(f))) continue;
      if (++read > ctx_.fs().limits().max_source_files) {
        ctx_.note(".", "stopped looking for executed programs after " +
                           std::to_string(ctx_.fs().limits().max_source_files) + " source files");
        break;
      }
      auto text = ctx_.fs().read_text(f, ctx_.fs().limits().max_source_bytes);
      if (!text) continue;
      total += text->size();
      if (total > kMaxSourceTotalBytes) {
        ctx_.note(".", "stopped looking for executed programs after " + str::human_bytes(kMaxSourceTotalBytes) +
                           " of source");
        break;
      }
      file(f, *lang, *text);
    }
    if (!unknown_.empty()) {
      std::string msg = "programs executed that the `programs` table (toolchains.yaml) does not know, so no Debian "
                        "package is reported for them:";
      std::size_t n = 0;
      for (const auto& [prog, where] : unknown_) {
        if (++n > 12) {
          msg += " …";
          break;
        }
        msg += (n == 1 ? " " : ", ") + prog + " (" + where + ")";
      }
      ctx_.note(".", msg);
    }
  }

 private:
  // The repository's own command helpers (wrapper_names), by module name
  // ("Util" for src/lib/Util.js), read before the files that call them.
  // Bounded like the main pass (the same file and byte limits), and to
  // kMaxWrappers helpers: each is looked for in every file.
  static constexpr std::size_t kMaxWrappers = 32;
  void find_wrappers(const std::vector<std::string>& files) {
    std::size_t read = 0;
    std::uint64_t total = 0;
    for (const auto& f : files) {
      auto lang = lang_of(base_name_of(f));
      if (lang != Lang::kNode || skipped_source(f, vendored_)) continue;
      if (++read > ctx_.fs().limits().max_source_files || total > kMaxSourceTotalBytes) break;
      auto text = ctx_.fs().read_text(f, ctx_.fs().limits().max_source_bytes);
      if (!text) continue;
      total += text->size();
      if (!uses_api(Lang::kNode, *text, "exec(")) continue;
      std::string module = f.substr(0, f.rfind('.'));  // "src/lib/Util"
      for (auto& n : wrapper_names(*text))
        if (wrappers_.size() < kMaxWrappers) wrappers_.emplace_back(module, f, std::move(n));
    }
  }

  // Calls of a wrapper through the name a file imports it under, the
  // import resolved against the file's directory (`const Util =
  // require('./Util')` in src/lib/Tunnel.js is src/lib/Util.js):
  // `Util.exec('wg genkey')` runs wg.
  void wrapper_calls(const std::string& rel, std::string_view text, std::vector<std::size_t>& line_starts) {
    auto imports = js_imports(text);
    std::string dir = dir_of(rel);
    for (const auto& [module, file, name] : wrappers_) {
      if (file == rel) continue;
      std::string binding;
      for (const auto& imp : imports) {
        std::string target = resolve_relative(dir, imp.module);
        if (!imp.binding.empty() && (target == module || target + "/index" == module)) binding = imp.binding;
      }
      if (binding.empty()) continue;
      std::string call = binding + "." + name + "(";
      for (std::size_t at = text.find(call); at != std::string_view::npos; at = text.find(call, at + 1)) {
        if (at > 0 && (ident_char(text[at - 1]) || text[at - 1] == '.' || text[at - 1] == '$')) continue;
        std::size_t p = at + call.size();
        skip_space(text, p);
        auto value = literal_at(text, p);
        if (!value) continue;
        std::string_view cmd = *value;
        if (auto t = cmd.find("${"); t != std::string_view::npos) cmd = cmd.substr(0, t);
        std::size_t line_no = std::upper_bound(line_starts.begin(), line_starts.end(), at) - line_starts.begin();
        std::size_t ls = line_starts[line_no - 1];
        std::size_t le = line_no < line_starts.size() ? line_starts[line_no] - 1 : std::string_view::npos;
        std::string_view line = str::trim(text.substr(ls, le == std::string_view::npos ? std::string_view::npos : le - ls));
        if (line.starts_with("//") || line.starts_with("*") || line.starts_with("/*")) continue;
        for (const auto& prog : shell_commands(cmd))
          record(rel, line_no, prog, std::string(line.substr(0, 160)), /*note_unknown=*/false);
      }
    }
  }

  void shell_file(const std::string& rel, std::string_view text) {
    std::size_t line_no = 0;
    for (auto raw : str::split(text, '\n')) {
      ++line_no;
      std::string_view line = str::trim(raw);
      if (line.empty() || line.starts_with('#')) continue;
      if (auto c = line.find(" #"); c != std::string_view::npos) line = line.substr(0, c);
      for (const auto& prog : shell_commands(line))
        record(rel, line_no, prog, std::string(line.substr(0, 160)), /*note_unknown=*/false);
    }
  }

  // Ruby's =begin … =end and what follows __END__, PHP's /* … */: blanked,
  // newlines kept, so a commented-out call is not a program the code runs.
  static std::string without_block_comments(Lang lang, std::string_view text) {
    std::string out(text);
    auto blank = [&](std::size_t from, std::size_t to) {
      for (std::size_t i = from; i < to && i < out.size(); ++i)
        if (out[i] != '\n') out[i] = ' ';
    };
    if (lang == Lang::kPhp) {
      for (auto open = out.find("/*"); open != std::string::npos; open = out.find("/*", open)) {
        auto close = out.find("*/", open + 2);
        std::size_t end = close == std::string::npos ? out.size() : close + 2;
        blank(open, end);
        open = end;
      }
    } else if (lang == Lang::kRuby) {
      for (auto b = out.find("=begin"); b != std::string::npos; b = out.find("=begin", b + 1)) {
        if (b > 0 && out[b - 1] != '\n') continue;  // only at the start of a line
        auto e = out.find("\n=end", b);
        std::size_t end = e == std::string::npos ? out.size() : e + 5;
        blank(b, end);
        b = end > 0 ? end - 1 : 0;
      }
      if (auto end = out.find("\n__END__"); end != std::string::npos) blank(end + 1, out.size());
    }
    return out;
  }

  void file(const std::string& rel, Lang lang, std::string_view raw) {
    if (lang == Lang::kShell) return shell_file(rel, raw);
    const std::string stripped = lang == Lang::kRuby || lang == Lang::kPhp ? without_block_comments(lang, raw) : std::string();
    const std::string_view text = stripped.empty() ? raw : std::string_view(stripped);
    std::vector<std::size_t> line_starts{0};
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') line_starts.push_back(i + 1);
    if (lang == Lang::kNode && !wrappers_.empty()) wrapper_calls(rel, text, line_starts);
    // `cp.exec(…)` counts when cp is child_process; `re.exec('…')` (a RegExp)
    // and `/x/.exec('…')` do not.
    std::vector<std::string> cp_bindings;
    if (lang == Lang::kNode)
      for (const auto& imp : js_imports(text))
        if (!imp.binding.empty() && (imp.module == "child_process" || imp.module == "node:child_process" ||
                                     imp.module == "promisify-child-process"))
          cp_bindings.push_back(imp.binding);
    std::optional<std::map<std::string, std::string>> consts;
    for (const auto& pat : patterns(lang)) {
      if (!uses_api(lang, text, pat.text)) continue;
      for (std::size_t at = text.find(pat.text); at != std::string_view::npos; at = text.find(pat.text, at + 1)) {
        if (at > 0 && ident_char(text[at - 1])) continue;
        // A method of some object (`$pdo->exec(`, `db.system(`), not the
        // language's own function; Ruby and PHP patterns name their receiver.
        if ((lang == Lang::kRuby || lang == Lang::kPhp) && at > 0 &&
            (text[at - 1] == '.' || text[at - 1] == '>' || text[at - 1] == ':' || text[at - 1] == '$'))
          continue;
        if (lang == Lang::kNode && at > 0 && text[at - 1] == '.') {
          std::size_t b = at - 1;
          while (b > 0 && (ident_char(text[b - 1]) || text[b - 1] == '$')) --b;
          std::string_view receiver = text.substr(b, at - 1 - b);
          bool required_inline = text.substr(0, at - 1).ends_with("child_process')") ||
                                 text.substr(0, at - 1).ends_with("child_process\")");
          if (!required_inline &&
              std::find(cp_bindings.begin(), cp_bindings.end(), receiver) == cp_bindings.end())
            continue;
        }
        std::size_t line_no = std::upper_bound(line_starts.begin(), line_starts.end(), at) - line_starts.begin();
        std::size_t ls = line_starts[line_no - 1];
        std::size_t le = line_no < line_starts.size() ? line_starts[line_no] - 1 : std::string_view::npos;
        std::string_view line = str::trim(text.substr(ls, le == std::string_view::npos ? std::string_view::npos : le - ls));
        if (line.starts_with("//") || line.starts_with("#") || line.starts_with("*") || line.starts_with("/*")) continue;
        std::size_t p = at + pat.text.size();
        std::string env_name;
        if (pat.env_default) {
          skip_space(text, p);
          auto name = literal_at(text, p);
          if (!name || !program_env_name(*name)) continue;
          env_name = *name;
          p = at + pat.text.size();
        }
        bool ok = true;
        for (int i = 0; i < pat.arg && ok; ++i) ok = skip_argument(text, p);
        if (!ok) continue;
        skip_space(text, p);
        if (p < text.size() && text[p] == '[') {
          ++p;
          skip_space(text, p);
        }
        std::optional<std::string> value = literal_at(text, p);
        if (!value && p < text.size() && (std::isalpha(static_cast<unsigned char>(text[p])) || text[p] == '_')) {
          std::size_t e = p;
          while (e < text.size() && (ident_char(text[e]) || text[e] == '.')) ++e;
          std::string_view ident = text.substr(p, e - p);
          std::size_t after = e;
          skip_space(text, after);
          if (after < text.size() && (text[after] == ',' || text[after] == ')' || text[after] == ']')) {
            if (auto dot = ident.rfind('.'); dot != std::string_view::npos) ident = ident.substr(dot + 1);
            if (!consts) consts = string_constants(text);
            if (auto it = consts->find(std::string(ident)); it != consts->end()) value = it->second;
          }
        }
        if (!value) continue;
        std::string_view cmd = *value;
        if (auto t = cmd.find("${"); t != std::string_view::npos) cmd = cmd.substr(0, t);
        if (auto t = cmd.find('{'); lang == Lang::kPython && t != std::string_view::npos) cmd = cmd.substr(0, t);
        if (auto t = cmd.find("#{"); (lang == Lang::kRuby || lang == Lang::kElixir) && t != std::string_view::npos)
          cmd = cmd.substr(0, t);
        if (auto t = cmd.find('$'); lang == Lang::kPhp && t != std::string_view::npos) cmd = cmd.substr(0, t);
        auto words = str::split_ws(cmd);
        if (words.empty()) continue;
        // An argv element with a space is a path with a space, not a command line.
        if (!pat.shell && words.size() > 1 && lang != Lang::kPython) continue;
        std::string prog = program_name(words.front());
        if (prog.empty()) continue;
        std::string snippet(line.substr(0, 160));
        // A default for a *_PATH variable is often a file, not a program:
        // only direct executions are worth a note.
        record(rel, line_no, prog, snippet, !pat.env_default);
      }
    }
  }

  // `note_unknown`: a program the table lacks is listed in one note (not for
  // shell scripts, whose every builtin and coreutil would be listed).
  void record(const std::string& rel, std::size_t line_no, const std::string& prog, const std::string& snippet,
              bool note_unknown) {
    const auto* pkgs = ctx_.kb().program_packages(prog);
    if (!pkgs) {
      if (note_unknown) unknown_.emplace(prog, rel + ":" + std::to_string(line_no));
      return;
    }
    for (const auto& pkg : *pkgs)
      ctx_.run_lib(pkg, "exec:" + prog, Evidence{rel, "line " + std::to_string(line_no), snippet});
  }

  ScanContext& ctx_;
  std::map<std::string, std::string> unknown_;  // program → first file:line
  std::vector<std::tuple<std::string, std::string, std::string>> wrappers_;  // module, file, function name
};

}  // namespace

bool program_source_file(std::string_view name) { return lang_of(name).has_value(); }

void scan_programs(ScanContext& ctx) { ProgramScanner(ctx).run(); }

}  // namespace strata::contract
