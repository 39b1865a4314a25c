#include "contract/scan/build_env_scanner.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <nlohmann/json.hpp>
#include <tuple>

#include "contract/knowledge/ecosystem_versions.hpp"
#include "contract/knowledge/tool_version.hpp"
#include "contract/scan/container_image.hpp"
#include "contract/scan/python_scanner.hpp"
#include "contract/scan/shell_words.hpp"
#include "oci/tar_entry.hpp"
#include "oci/yaml_load.hpp"
#include "util/strings.hpp"

namespace strata::contract {

bool dockerfile_name(std::string_view n) {
  // Dockerfile.dockerignore, Dockerfile.md, Dockerfile.j2: beside a Dockerfile, not one.
  for (std::string_view ext : {".dockerignore", ".md", ".txt", ".rst", ".j2", ".tpl", ".tmpl", ".template", ".orig",
                               ".bak", ".swp", ".yml", ".yaml", ".json", ".sh"})
    if (n.ends_with(ext)) return false;
  for (std::string_view stem : {"Dockerfile", "Containerfile"})
    if (n == stem || (n.starts_with(stem) && n.size() > stem.size() && std::string_view(".-_").find(n[stem.size()]) !=
                                                                          std::string_view::npos))
      return true;  // Dockerfile.dev, Dockerfile-alpine, Dockerfile_prod
  return n.ends_with(".Dockerfile") || n.ends_with(".dockerfile");
}

namespace {


class BuildEnvScanner {
 public:
  explicit BuildEnvScanner(ScanContext& ctx) : ctx_(ctx), kb_(ctx.kb()) {}

  void run() {
    std::vector<std::string> dockerfiles, workflows, devcontainers, cgo_files, docs, composes, circleci;
    for (const auto& f : ctx_.fs().files_ending("")) {  // every indexed file
      std::string b(oci::base_name(f));
      if (dockerfile_name(b)) dockerfiles.push_back(f);
      else if (f.starts_with(".github/workflows/") && (b.ends_with(".yml") || b.ends_with(".yaml"))) workflows.push_back(f);
      else if ((b.starts_with("docker-compose") || b.starts_with("compose")) && (b.ends_with(".yml") || b.ends_with(".yaml")))
        composes.push_back(f);
      else if (f == ".circleci/config.yml" || f == ".circleci/config.yaml") circleci.push_back(f);
      else if (f == ".devcontainer.json" || (f.starts_with(".devcontainer/") && b == "devcontainer.json"))
        devcontainers.push_back(f);
      else if (b == "Makefile" || b.starts_with(".goreleaser")) cgo_files.push_back(f);
      else if (install_doc(f)) docs.push_back(f);
    }
    for (const auto& f : composes) compose(f);
    for (const auto& f : dockerfiles) dockerfile(f);
    for (const auto& f : docs) install_doc_lines(f);
    for (const auto& f : devcontainers) devcontainer(f);
    for (const auto& f : workflows) workflow(f);
    for (const auto& f : circleci) circleci_config(f);
    for (const auto& f : cgo_files) cgo_text(f);
  }

 private:
  void cgo_setting(const std::string& rel, std::string_view text, const std::string& field) {
    for (std::size_t p = text.find("CGO_ENABLED"); p != std::string_view::npos; p = text.find("CGO_ENABLED", p + 1)) {
      std::size_t i = p + 11;
      while (i < text.size() && (text[i] == ' ' || text[i] == '=' || text[i] == ':' || text[i] == '"' || text[i] == '\''))
        ++i;
      if (i >= text.size() || (text[i] != '0' && text[i] != '1')) continue;
      if (i + 1 < text.size() && std::isalnum(static_cast<unsigned char>(text[i + 1]))) continue;
      Evidence ev{rel, field, std::string(1, text[i])};
      // cgo in use anywhere wins over a 0 elsewhere (a lint job, a static build).
      if (!ctx_.cgo_setting || (ctx_.cgo_setting->value == "0" && ev.value == "1")) ctx_.cgo_setting = ev;
    }
  }

  void cgo_text(const std::string& rel) {
    if (auto text = ctx_.fs().read_text(rel)) cgo_setting(rel, *text, "CGO_ENABLED");
  }

  // "node:20-alpine", "docker.io/library/python:3.12-slim",
  // "mcr.microsoft.com/devcontainers/typescript-node:1-20-bookworm".
  void image(const std::string& rel, const std::string& field, const std::string& ref, ConstraintKind kind) {
    std::string r = ref;
    if (auto at = r.find('@'); at != std::string::npos) r.erase(at);
    std::string repo = r, tag;
    if (auto colon = r.rfind(':'); colon != std::string::npos && r.find('/', colon) == std::string::npos) {
      repo = r.substr(0, colon);
      tag = r.substr(colon + 1);
    }
    for (const char* prefix : {"docker.io/", "index.docker.io/", "registry-1.docker.io/"})
      if (repo.starts_with(prefix)) repo.erase(0, std::string_view(prefix).size());
    const std::string* tool = kb_.image_tool(repo);
    if (!tool) return;
    auto parts = str::split(tag, '-');
    std::string version = parts.empty() ? "" : std::string(parts[0]);
    if (repo.starts_with("mcr.microsoft.com/devcontainers/") && parts.size() >= 2 && parse_version(parts[1]))
      version = std::string(parts[1]);  // "<image version>-<tool version>-<os>"
    if (version == "lts" && *tool == "node") version = "lts/*";
    std::string note;
    if (version.empty() || !(parse_version(version) || version == "lts/*")) {
      ctx_.note(rel, field + " " + str::quote(ref) + " names no " + *tool + " version; no floor taken from it");
      return;
    }
    auto range = read_tool_version(*tool, version, kb_, note);
    ctx_.constraint(*tool, kind, {rel, field, ref}, range,
                    note.empty() ? "the image's tag is the " + *tool + " version" : note);
    // maven and gradle tags name the JDK too: "3.9.6-eclipse-temurin-17",
    // "3.9-amazoncorretto-21", "8.5-jdk17", "8.8.0-jdk21-alpine".
    if (*tool == "maven" || *tool == "gradle")
      for (std::size_t i = 1; i < parts.size(); ++i) {
        std::string_view p = parts[i];
        std::string jdk;
        if (p.starts_with("jdk") && p.size() > 3 && java_release(p.substr(3))) jdk = std::string(p.substr(3));
        else if ((p == "temurin" || p == "amazoncorretto" || p == "openjdk" || p == "sapmachine" || p == "graal") &&
                 i + 1 < parts.size() && java_release(parts[i + 1]))
          jdk = std::string(parts[i + 1]);
        if (jdk.empty()) continue;
        std::string jdk_note;
        ctx_.constraint("java", kind, {rel, field, ref}, read_tool_version("java", jdk, kb_, jdk_note),
                        "the " + *tool + " image's tag names its JDK");
        break;
      }
    // hexpm/elixir tags name the Erlang/OTP too: "1.15.7-erlang-26.1.2-debian-bookworm-…",
    // and so do the official elixir image's: "1.18.3-otp-27", "1.17-otp-26-slim".
    if (repo == "hexpm/elixir" || repo == "elixir" || repo == "library/elixir")
      for (std::size_t i = 1; i + 1 < parts.size(); ++i)
        if ((parts[i] == "erlang" || parts[i] == "otp") && parse_version(parts[i + 1])) {
          std::string otp_note;
          ctx_.constraint("erlang", kind, {rel, field, ref}, read_tool_version("erlang", parts[i + 1], kb_, otp_note),
                          "the image's tag names the Erlang/OTP version");
          break;
        }
  }

  void dockerfile(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    std::map<std::string, std::string> args;
    struct Run {
      std::size_t line;
      int stage;
      std::string text;
    };
    std::vector<Run> runs;
    struct Add {
      Evidence at;
      int stage;
      std::string url;
    };
    std::vector<Add> adds;
    int stage = -1;
    // BuildKit's automatic platform arguments, for the linux/amd64 image
    // strata builds: `FROM runner-${TARGETOS}-${TARGETARCH}` names a stage.
    args = {{"TARGETOS", "linux"}, {"TARGETARCH", "amd64"}, {"TARGETPLATFORM", "linux/amd64"}};
    std::map<std::string, int> stage_names;  // `FROM … AS name` → stage
    std::set<std::string> read_from;         // the stages (names or numbers) COPY --from and RUN --mount read
    std::vector<std::string> from_patterns;  // FROM lines a variable leaves open
    std::vector<std::pair<int, std::string>> froms;  // stage → the image it starts FROM
    std::vector<int> parent;                 // stage → the earlier stage it starts FROM, else -1
    std::set<std::string> context_files;     // what COPY/ADD take from the build context
    bool context_unknown = false;            // a JSON-form or variable source: where it is, is not read
    auto lines = str::split(*text, '\n');
    for (std::size_t n = 0; n < lines.size(); ++n) {
      std::size_t instruction_end = n;  // a COPY's or ADD's last continuation line
      auto f = str::split_ws(lines[n]);
      if (f.empty() || f[0].starts_with('#')) continue;
      std::string kw = str::lower(f[0]);
      if (kw == "arg" && f.size() >= 2) {
        std::string a(f[1]);
        // A default is expanded with the ARGs before it and unquoted, as
        // Docker does (Phoenix's `ARG BUILDER_IMAGE="hexpm/elixir:${ELIXIR_VERSION}-…"`).
        // (At most kMaxArgBytes: `ARG A=$A$A` lines must not double a value without end.)
        if (auto eq = a.find('='); eq != std::string::npos) {
          std::string value = str::unquote(a.substr(eq + 1));
          std::string expanded = value.size() <= kMaxArgBytes ? substitute(value, args) : value;
          if (args.size() < kMaxArgs || args.count(a.substr(0, eq)))
            args[a.substr(0, eq)] = expanded.size() <= kMaxArgBytes ? std::move(expanded) : std::move(value);
        }
      } else if (kw == "env" && f.size() >= 2) {
        // `ENV NODE_MAJOR=22 YARN_VERSION=1.22.22` over continuation lines,
        // values quoted or not (or the old `ENV NODE_MAJOR 22`): later RUN
        // lines see them as they see an ARG. (As with ARG, the file's last
        // value of a name is the one RUN lines see, whichever stage.)
        std::string joined(str::trim(lines[n]));
        while (joined.ends_with('\\') && n + 1 < lines.size() && joined.size() < kMaxArgBytes * 16) {
          joined.pop_back();
          joined += ' ';
          joined += str::trim(lines[++n]);
        }
        auto set = [&](const std::string& name, const std::string& value) {
          if (name.empty() || value.size() > kMaxArgBytes || (args.size() >= kMaxArgs && !args.count(name))) return;
          std::string expanded = substitute(value, args);
          args[name] = expanded.size() <= kMaxArgBytes ? std::move(expanded) : value;
        };
        const auto words = shell_commands_of(joined);  // quotes read as the shell reads them
        if (!words.empty()) {
          const auto& w = words.front().words;
          if (w.size() == 3 && w[1].find('=') == std::string::npos) {
            set(w[1], w[2]);
          } else {
            for (std::size_t i = 1; i < w.size(); ++i)
              if (auto eq = w[i].find('='); eq != std::string::npos && eq > 0) set(w[i].substr(0, eq), w[i].substr(eq + 1));
          }
        }
      } else if (kw == "from") {
        ++stage;
        std::size_t i = 1;
        while (i < f.size() && f[i].starts_with("--")) ++i;
        std::string from = i < f.size() ? substitute(std::string(f[i]), args) : "";
        // `FROM runner-${TARGETOS}-${TARGETARCH}` picks one of several
        // stages by a variable: each it may pick (the other platform's too)
        // is read, not an image of its own.
        // (At most kMaxFromPatterns distinct ones, so a hostile file stays linear.)
        // (A variable its ARG resolves to an image — Phoenix's `FROM ${RUNNER_IMAGE}` — picks no stage.)
        auto base = stage_names.find(str::lower(from));
        if (i < f.size() && f[i].find('$') != std::string_view::npos &&
            (from.find('$') != std::string::npos || base != stage_names.end()) &&
            from_patterns.size() < kMaxFromPatterns &&
            std::find(from_patterns.begin(), from_patterns.end(), str::lower(f[i])) == from_patterns.end())
          from_patterns.push_back(str::lower(f[i]));
        parent.push_back(base == stage_names.end() ? -1 : base->second);
        if (i + 2 < f.size() && str::lower(f[i + 1]) == "as") stage_names[str::lower(f[i + 2])] = stage;
        if (base == stage_names.end() && !from.empty()) froms.push_back({stage, from});
      } else if (kw == "copy" || kw == "run") {
        // COPY --from=builder, RUN --mount=type=bind,from=builder: a stage
        // another one reads from is a builder, not an image of its own.
        for (std::size_t i = 1; i < f.size() && f[i].starts_with("--"); ++i) {
          std::string_view opt = f[i];
          for (std::string_view key : {"--from=", "from="})
            for (auto at = opt.find(key); at != std::string_view::npos; at = opt.find(key, at + key.size())) {
              if (key == "from=" && at > 0 && opt[at - 1] != ',' && opt[at - 1] != '=') continue;
              std::string_view v = opt.substr(at + key.size());
              v = v.substr(0, v.find(','));
              read_from.insert(str::lower(substitute(std::string(v), args)));
            }
        }
      }
      if (kw == "copy" || kw == "add") {
        // Over its continuation lines (a COPY of many sources); they are its
        // own, not instructions, and are passed over once it is read.
        std::string joined(str::trim(lines[n]));
        std::size_t last = n;
        while (joined.ends_with('\\') && last + 1 < lines.size()) {
          joined.pop_back();
          if (joined.size() < kMaxArgBytes * 64) {
            joined += ' ';
            joined += str::trim(lines[last + 1]);
          }
          ++last;
        }
        const auto w = str::split_ws(joined);
        std::size_t i = 1;
        bool from_stage = false;
        for (; i < w.size() && w[i].starts_with("--"); ++i) from_stage = from_stage || w[i].starts_with("--from");
        if (i < w.size() && w[i].starts_with('[')) context_unknown = true;
        else if (!from_stage)
          for (; i + 1 < w.size() && !context_unknown; ++i) {
            std::string src(w[i]);
            if (src.starts_with("http://") || src.starts_with("https://") || src.starts_with("git@")) continue;
            // A variable, or more sources than a Dockerfile of its own has: not judged.
            if (src.find('$') != std::string::npos || context_files.size() >= kMaxContextSources) context_unknown = true;
            else context_files.insert(std::move(src));
          }
        instruction_end = last;
      }
      if (kw == "add" && f.size() >= 3) {
        for (std::size_t i = 1; i + 1 < f.size(); ++i)
          if (f[i].starts_with("http://") || f[i].starts_with("https://"))
            adds.push_back({Evidence{rel, "line " + std::to_string(n + 1), std::string(str::trim(lines[n])).substr(0, 160)},
                            stage, substitute(std::string(f[i]), args)});
        n = instruction_end;
      } else if (kw == "copy") {
        n = instruction_end;
      } else if (kw == "run") {
        // One instruction over its continuation lines; comment lines inside
        // a continuation are dropped, as Docker does.
        Run r{n + 1, stage, std::string(str::trim(lines[n]))};
        while (r.text.ends_with('\\') && n + 1 < lines.size()) {
          r.text.pop_back();
          std::string_view next = str::trim(lines[++n]);
          if (next.starts_with('#')) {
            r.text += '\\';
            continue;
          }
          r.text += ' ';
          r.text += next;
        }
        // A here-document (BuildKit's Dockerfile 1.4): its lines belong to
        // the instruction, up to the delimiter. `RUN <<EOF` makes them the
        // script; in `RUN cat <<EOF > /etc/app.conf` they are a file's
        // content, not commands. The delimiter is a word (`$((1<<2))` is not one),
        // and without its closing line nothing is taken.
        if (auto h = r.text.find("<<"); h != std::string::npos) {
          std::string_view rest = std::string_view(r.text).substr(h + 2);
          if (rest.starts_with('-')) rest.remove_prefix(1);
          if (!rest.empty() && (rest.front() == '"' || rest.front() == '\'')) rest.remove_prefix(1);
          std::string delim;
          for (char ch : rest) {
            if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) break;
            delim += ch;
          }
          std::size_t close = n + 1;
          while (close < lines.size() && str::trim(lines[close]) != delim) ++close;
          if (!delim.empty() && !std::isdigit(static_cast<unsigned char>(delim[0])) && close < lines.size()) {
            std::string script;
            for (std::size_t k = n + 1; k < close; ++k) script += std::string(lines[k]) + "\n";
            if (run_body(r.text).starts_with("<<")) r.text = "RUN " + script;
            n = close;  // past the delimiter line
          }
        }
        runs.push_back(std::move(r));
      }
    }
    // The image is the final stage and the stages it is built FROM by name.
    auto with_parents = [&](int last, std::set<int>& into) {
      for (int st = last; st >= 0 && !into.count(st); st = parent[static_cast<std::size_t>(st)]) into.insert(st);
    };
    std::set<int> image_stages;
    with_parents(stage, image_stages);
    // The images a Dockerfile can make (`docker build --target`): every
    // stage no other stage reads files from (COPY --from, RUN --mount from=)
    // and none but a development stage starts FROM — the final stage,
    // uptime-kuma's base2-slim beside base2, glances' full under its dev
    // stage — with what they are built on. A target named for development
    // (`--target dev`, `test`) is how the repository is built and tested,
    // like a development Dockerfile.
    std::vector<std::string> names_of(static_cast<std::size_t>(stage + 1));
    for (const auto& [name, st] : stage_names) names_of[static_cast<std::size_t>(st)] = name;
    std::vector<bool> extended(static_cast<std::size_t>(stage + 1));  // by a stage that is not a development one
    for (int child = 0; child <= stage; ++child)
      if (int p = parent[static_cast<std::size_t>(child)];
          p >= 0 && !development_name(names_of[static_cast<std::size_t>(child)]))
        extended[static_cast<std::size_t>(p)] = true;
    std::set<int> target_stages;
    for (int st = 0; st <= stage; ++st) {
      const std::string& name = names_of[static_cast<std::size_t>(st)];
      if (development_name(name) || builder_name(name) || extended[static_cast<std::size_t>(st)]) continue;
      if (read_from.count(std::to_string(st)) || (!name.empty() && read_from.count(name))) continue;
      if (std::any_of(from_patterns.begin(), from_patterns.end(),
                      [&](const std::string& p) { return !name.empty() && variable_match(p, name); }))
        continue;
      with_parents(st, target_stages);
    }
    // What a production image's own stages install or download is what
    // running that image needs, not what building and testing the repository
    // does (Purpose::kRun); a builder stage builds the repository, and every
    // stage of a development image (a devcontainer's, CI's, Dockerfile.dev)
    // is how the repository is built and tested.
    const bool dev_image = ctx_.development(rel);
    if (const Evidence* why = ctx_.development_reason(rel); why && !runs.empty())
      ctx_.note(rel, "a development image: " + why->file + " builds it and mounts the source tree into it (" +
                         why->value + "), so what it installs is what building and testing need");
    // A Dockerfile built from its own directory never sees the repository's
    // project: every file it copies is beside it, not all of them are at the
    // root, none is a project's manifest or a directory holding one, and it
    // downloads what it packages (zaproxy's docker/Dockerfile-stable unpacks a
    // released ZAP and copies docker/'s scripts). What it installs is that
    // image's, as a production image's is, in every stage. (It downloads: an
    // ADD of a URL, or curl, wget or git in a RUN.)
    const bool downloads_something =
        !adds.empty() || std::any_of(runs.begin(), runs.end(), [](const Run& r) {
          for (const auto& c : shell_commands_of(run_body(r.text)))
            if (c.program()) {
              const std::string_view p = program_base(*c.program());
              if (p == "curl" || p == "wget" || p == "git") return true;
            }
          return false;
        });
    const bool packaging = !dev_image && downloads_something && own_context(rel, context_files, context_unknown);
    if (packaging && !runs.empty())
      ctx_.note(rel, "built from its own directory (what it copies is there, not at the repository's root): it "
                     "packages what it downloads, and what it installs is that image's, not what building and "
                     "testing the repository need");
    auto purpose = [&](int st) {
      return packaging || (target_stages.count(st) && !dev_image) ? Purpose::kRun : Purpose::kBuild;
    };
    // A Dockerfile of an example, the docs or a release/packaging tree (a
    // Windows installer's build image) says what that image needs, not the
    // repository: its installs are a note.
    if (set_aside_tree(rel)) {
      if (!runs.empty())
        ctx_.note(rel, "a Dockerfile in an example, documentation or packaging tree: the packages it installs are "
                       "not the repository's own needs; not used");
    } else {
      for (const auto& r : runs)
        installs(rel, r.line, r.text, packaging || image_stages.count(r.stage) + target_stages.count(r.stage) > 0,
                 purpose(r.stage), packaging, &args);
    }
    for (const auto& a : adds) downloaded(a.at, a.url, purpose(a.stage));
    // The image the final stage is built on pins its runtime; an earlier
    // stage's is a version the build runs (a builder), as CI's are, and so is
    // every stage of a development image's Dockerfile (CodeSandbox's
    // node:24 is where people try the project, not what it selects).
    for (const auto& [st, from] : froms)
      image(rel, "FROM", from,
            image_stages.count(st) && !dev_image ? ConstraintKind::kPin : ConstraintKind::kTested);
    cgo_setting(rel, *text, "CGO_ENABLED");
  }

  // `apt-get install` / `apt install` / `apk add` in a RUN instruction: the
  // repository's own statement of what its image needs. Packages of the final
  // stage are run-time needs, except -dev packages and build tools; earlier
  // stages are build needs. Alpine names go through `alpine_packages`. The
  // same line's package-manager commands and downloads are read too.
  void installs(const std::string& rel, std::size_t line, const std::string& run, bool final_stage, Purpose purpose,
                bool packaging = false, const std::map<std::string, std::string>* args = nullptr) {
    auto commands = shell_commands_of(run_body(run));
    for (const auto& [name, apk] : installed_packages(commands)) {
      if (const std::string* tool = kb_.runtime_install(name))
        ctx_.needs_tool(*tool, Evidence{rel, "RUN", run.substr(0, 160)},
                        "line " + std::to_string(line) + " installs " + name + " (the distribution's " + *tool +
                            "; its version is not read)");
      declared_package("dockerfile:" + rel, rel, line, run, name, apk, final_stage, purpose, packaging);
    }
    package_manager_commands(commands, rel, "RUN", "line " + std::to_string(line), purpose);
    downloads(commands, rel, line, purpose);
    if (args) runtime_downloads(commands, rel, line, purpose, *args);
  }

  // A runtime a RUN line downloads from its release host, with the version
  // in the URL (danbooru's `curl https://nodejs.org/dist/v${NODE_VERSION}/…`,
  // with ARG NODE_VERSION=24.19.0): that image's version, as a FROM line's
  // is — its pin in an image's own stage, else a version the build runs.
  void runtime_downloads(const std::vector<ShellCommand>& commands, const std::string& rel, std::size_t line,
                         Purpose purpose, const std::map<std::string, std::string>& args) {
    struct Release {
      std::string_view tool, prefix;
    };
    static constexpr std::array<Release, 5> kReleases = {{
        {"node", "https://nodejs.org/dist/v"},
        {"go", "https://go.dev/dl/go"},
        {"go", "https://dl.google.com/go/go"},
        {"go", "https://golang.org/dl/go"},
        {"python", "https://www.python.org/ftp/python/"},
    }};
    // NodeSource's repository names the Node line it serves:
    // `curl https://deb.nodesource.com/setup_22.x | bash -`, or the apt
    // source itself (`echo "deb … https://deb.nodesource.com/node_$NODE_MAJOR.x
    // nodistro main"`, NODE_MAJOR set by ARG/ENV or earlier in the same line).
    // The `nodejs` it installs is of that line.
    const bool nodesource = std::any_of(commands.begin(), commands.end(), [](const ShellCommand& c) {
      return std::any_of(c.words.begin(), c.words.end(),
                         [](const std::string& w) { return w.find("nodesource.com/") != std::string::npos; });
    });
    // Assignments in the line itself, which come before the ARG and ENV values.
    std::map<std::string, std::string> vars;
    for (const auto& c : commands)
      for (std::size_t k = 0, end = !nodesource ? 0 : c.program() && *c.program() == "export" ? c.words.size() : c.start + 1;
           k < c.words.size() && k < end; ++k) {
        const std::string& w = c.words[k];
        const auto eq = w.find('=');
        if (eq == std::string::npos || eq == 0 || w.size() > kMaxArgBytes) continue;
        if (std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(eq),
                        [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }))
          if (vars.size() < kMaxArgs || vars.count(w.substr(0, eq))) vars[w.substr(0, eq)] = w.substr(eq + 1);
      }
    for (const auto& c : commands)
      for (std::size_t k = c.start; nodesource && k < c.words.size(); ++k) {
        if (c.words[k].find("nodesource.com/") == std::string::npos || c.words[k].size() > kMaxArgBytes) continue;
        const std::string text = expand(c.words[k], vars, args);
        // deb.nodesource.com for Debian and Ubuntu, rpm.nodesource.com for Fedora and RHEL.
        for (std::string_view form : {"deb.nodesource.com/setup_", "deb.nodesource.com/node_", "rpm.nodesource.com/setup_",
                                      "rpm.nodesource.com/pub_"}) {
          const auto at = text.find(form);
          if (at == std::string::npos) continue;
          std::size_t i = at + form.size(), e = i;
          while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) ++e;
          if (e == i || e - i > 3 || text.compare(e, 2, ".x") != 0) break;  // setup_lts.x: no line named
          const std::string major = text.substr(i, e - i);
          ctx_.constraint("node", purpose == Purpose::kRun ? ConstraintKind::kPin : ConstraintKind::kTested,
                          {rel, "RUN line " + std::to_string(line), c.words[k].substr(0, 160)},
                          parse_version_line(major),
                          "the image installs Node " + major + ".x from NodeSource's repository");
          break;
        }
      }
    for (const auto& c : commands) {
      if (!c.program()) continue;
      const std::string_view prog = program_base(*c.program());
      if (prog != "curl" && prog != "wget") continue;
      for (std::size_t k = c.start + 1; k < c.words.size(); ++k) {
        if (!c.words[k].starts_with("https://")) continue;
        const std::string url = c.words[k].size() <= kMaxArgBytes ? substitute(c.words[k], args) : c.words[k];
        for (const auto& [tool, prefix] : kReleases) {
          if (!url.starts_with(prefix)) continue;
          std::size_t end = prefix.size();
          while (end < url.size() && (std::isdigit(static_cast<unsigned char>(url[end])) || url[end] == '.')) ++end;
          std::string version = url.substr(prefix.size(), end - prefix.size());
          while (version.ends_with('.')) version.pop_back();  // go1.22.5.linux-amd64
          const auto v = parse_version(version, VersionSyntax::kStrict);
          if (!v || version.find('.') == std::string::npos) break;
          ctx_.constraint(std::string(tool), purpose == Purpose::kRun ? ConstraintKind::kPin : ConstraintKind::kTested,
                          {rel, "RUN line " + std::to_string(line), url.substr(0, 160)}, Range::exactly(*v),
                          "the image's build downloads " + std::string(tool) + " " + v->str() + " from its release host");
          break;
        }
      }
    }
  }

  static constexpr std::size_t kMaxFromPatterns = 16;
  static constexpr std::size_t kMaxContextSources = 256;
  // Directory listings own_context has read, and glob prefixes it has
  // matched in them: once per scan, however many Dockerfiles ask.
  std::map<std::string, std::vector<std::string>> listings_;
  std::map<std::pair<std::string, std::string>, bool> globbed_;

  // Whether a Dockerfile below the root is built from its own directory:
  // it copies something, each thing it copies is there (a glob by its
  // prefix), and not each of them is also at the repository's root.
  bool own_context(const std::string& rel, const std::set<std::string>& sources, bool unknown) {
    const auto slash = rel.rfind('/');
    if (unknown || sources.empty() || slash == std::string::npos) return false;
    const std::string dir = rel.substr(0, slash);
    // What copies a project's manifest, or a directory holding one (a
    // compose service's `build: ./backend` copying its requirements.txt),
    // builds that project.
    static constexpr std::array<std::string_view, 16> kManifests = {
        "package.json", "pyproject.toml", "setup.py", "requirements.txt", "go.mod", "Cargo.toml", "Gemfile",
        "composer.json", "mix.exs", "pom.xml", "build.gradle", "build.gradle.kts", "CMakeLists.txt", "Makefile",
        "global.json", "Directory.Build.props"};
    auto project_at = [&](const std::string& path) {
      const std::string base(oci::base_name(path));
      if (std::find(kManifests.begin(), kManifests.end(), base) != kManifests.end() || base.ends_with(".csproj") ||
          base.ends_with(".sln"))
        return true;
      return ctx_.fs().is_dir(path) && std::any_of(kManifests.begin(), kManifests.end(), [&](std::string_view m) {
               return ctx_.fs().is_file(path + "/" + std::string(m));
             });
    };
    auto& listings = listings_;
    auto& globbed = globbed_;
    auto exists = [&](const std::string& base, std::string src) {
      while (src.starts_with("./")) src.erase(0, 2);
      while (src.size() > 1 && src.ends_with('/')) src.pop_back();
      if (src.empty() || src == "." || src.starts_with('/') || src.find("..") != std::string::npos) return false;
      const auto glob = src.find_first_of("*?[");
      const std::string path = base.empty() ? src : base + "/" + src;
      if (glob == std::string::npos) return ctx_.fs().is_file(path) || ctx_.fs().is_dir(path);
      // `zap*`: some entry of that directory starts with the prefix.
      const std::string prefix = src.substr(0, glob);
      if (prefix.find('/') != std::string::npos) return false;  // a glob below a directory: not followed
      auto [hit, fresh] = globbed.try_emplace({base, prefix}, false);
      if (!fresh) return hit->second;
      auto listing = listings.find(base);
      if (listing == listings.end()) listing = listings.emplace(base, ctx_.fs().list_dir(base.empty() ? "." : base)).first;
      return hit->second = std::any_of(listing->second.begin(), listing->second.end(),
                                       [&](const std::string& e) { return e.starts_with(prefix); });
    };
    bool all_at_root = true;
    for (const auto& src : sources) {
      if (!exists(dir, src)) return false;
      if (src.find_first_of("*?[") == std::string::npos && project_at(dir + "/" + src)) return false;
      // `package*.json`, `go.*`, `*.csproj`: a glob some manifest beside it matches.
      if (const auto glob = src.find_first_of("*?["); glob != std::string::npos && src.find('/') == std::string::npos) {
        const std::string prefix = src.substr(0, glob);
        auto listed = listings.find(dir);
        if (listed == listings.end()) listed = listings.emplace(dir, ctx_.fs().list_dir(dir)).first;
        const auto& entries = listed->second;
        if (std::any_of(entries.begin(), entries.end(), [&](const std::string& e) {
              return e.starts_with(prefix) && project_at(dir + "/" + e);
            }))
          return false;
      }
      all_at_root = all_at_root && exists("", src);
    }
    return !all_at_root;
  }
  static constexpr std::size_t kMaxArgBytes = 1024;  // an ARG default expanded with earlier ARGs
  static constexpr std::size_t kMaxArgs = 256;       // ARG and ENV names a Dockerfile's lines are expanded with

  // A stage named for building (`build`, `builder`, `deps`, `compile`) is a
  // builder even when no instruction reads it in a way strata follows.
  static bool builder_name(const std::string& name) {
    return has_word(name, {"build", "builder", "deps", "dependencies", "compile", "compiler"});
  }

  // `runner-${targetos}-${targetarch}` against a stage name: each `$VAR` or
  // `${VAR}` matches any run of characters.
  static bool variable_match(std::string_view pattern, std::string_view name) {
    std::vector<std::string_view> literals;
    std::size_t at = 0;
    while (at <= pattern.size()) {
      std::size_t d = pattern.find('$', at);
      literals.push_back(pattern.substr(at, d == std::string_view::npos ? std::string_view::npos : d - at));
      if (d == std::string_view::npos) break;
      std::size_t end = d + 1;
      if (end < pattern.size() && pattern[end] == '{') {
        end = pattern.find('}', end);
        end = end == std::string_view::npos ? pattern.size() : end + 1;
      } else {
        while (end < pattern.size() && (std::isalnum(static_cast<unsigned char>(pattern[end])) || pattern[end] == '_'))
          ++end;
      }
      at = end;
    }
    // literals[0] a prefix, the last a suffix, the others in order between.
    if (!name.starts_with(literals.front())) return false;
    std::size_t pos = literals.front().size();
    for (std::size_t k = 1; k + 1 < literals.size(); ++k) {
      auto hit = name.find(literals[k], pos);
      if (hit == std::string_view::npos) return false;
      pos = hit + literals[k].size();
    }
    return literals.size() == 1 ? name.size() == pos
                                : name.size() >= pos + literals.back().size() && name.ends_with(literals.back());
  }

  // The shell text of a RUN instruction: after `RUN` and its `--mount=…`
  // flags; the exec form (`RUN ["apt-get", "install", "vim"]`) as one command,
  // or the script of `["sh", "-c", "…"]`.
  static std::string run_body(std::string_view run) {
    auto words = str::split_ws(run);
    std::size_t skip = 0;
    std::string_view rest = str::trim(run);
    if (!words.empty() && str::lower(words[0]) == "run") {
      rest = str::trim(rest.substr(words[0].size()));
      for (skip = 1; skip < words.size() && words[skip].starts_with("--"); ++skip)
        rest = str::trim(rest.substr(words[skip].size()));
    }
    if (!rest.starts_with('[')) return std::string(rest);
    try {
      auto argv = nlohmann::json::parse(rest);
      if (!argv.is_array()) return std::string(rest);
      std::vector<std::string> args;
      for (const auto& a : argv)
        if (a.is_string()) args.push_back(a.get<std::string>());
      if (args.size() >= 3 && (program_base(args[0]) == "sh" || program_base(args[0]) == "bash") && args[1] == "-c")
        return args[2];
      std::string quoted;
      for (const auto& a : args) {
        std::string q;
        for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
        quoted += (quoted.empty() ? "'" : " '") + q + "'";
      }
      return quoted;
    } catch (const nlohmann::json::exception&) {
      return std::string(rest);
    }
  }

  // Options of a command that take the next word as their value (unless
  // written `--opt=value`); the value is neither a package nor a URL to fetch.
  static bool takes_value(std::string_view program, std::string_view opt) {
    static const std::vector<std::string_view> kApt = {"-o", "-c", "-t", "--option", "--config-file",
                                                       "--target-release", "--default-release"};
    static const std::vector<std::string_view> kApk = {"-t", "--virtual", "-X", "--repository", "--repositories-file",
                                                       "-p", "--root", "--arch", "--cache-dir", "--keys-dir"};
    static const std::vector<std::string_view> kPip = {
        "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-w", "--wheel-dir", "-d", "--dest", "-i",
        "--index-url", "--extra-index-url", "-f", "--find-links", "-t", "--target", "--prefix", "--root", "--src",
        "--python-version", "--abi", "--implementation", "--platform", "--trusted-host", "--cache-dir", "--log",
        "--log-file", "--proxy", "--cert", "--client-cert", "--global-option", "--build-option", "--install-option",
        "-C", "--config-settings", "--report", "--upgrade-strategy", "--exists-action", "--retries", "--timeout",
        "--progress-bar", "--python", "--keyring-provider", "--use-feature", "--hash", "--no-binary",
        "--only-binary", "--root-user-action"};
    static const std::vector<std::string_view> kNpm = {"--registry", "--prefix", "-C", "--cache", "--userconfig",
                                                       "--omit", "--include", "--workspace", "-w", "--tag"};
    static const std::vector<std::string_view> kCurl = {
        "-H", "--header", "-e", "--referer", "-A", "--user-agent", "-d", "--data", "--data-raw", "--data-binary",
        "--data-urlencode", "-u", "--user", "-x", "--proxy", "-o", "--output", "-b", "--cookie", "-c", "--cookie-jar",
        "-F", "--form", "-T", "--upload-file", "-w", "--write-out", "-K", "--config", "--cacert", "--cert", "--key",
        "-m", "--max-time", "--connect-timeout", "--retry", "-r", "--range", "-X", "--request", "-U", "--proxy-user",
        "-P", "--ftp-port", "-E", "-y", "-Y", "-z", "-C", "--continue-at"};
    static const std::vector<std::string_view> kWget = {
        "-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P", "--directory-prefix", "-e",
        "--execute", "-U", "--user-agent", "--header", "--referer", "--post-data", "--post-file", "--user",
        "--password", "-t", "--tries", "-T", "--timeout", "-w", "--wait", "-Q", "--quota", "-A", "--accept", "-R",
        "--reject", "-l", "--level", "-i", "--input-file", "-B", "--base", "--bind-address", "--ca-certificate"};
    static const std::vector<std::string_view> kGit = {"-b", "--branch", "--depth", "-o", "--origin", "-c",
                                                       "--config", "--reference", "--separate-git-dir", "--filter",
                                                       "-j", "--jobs", "--shallow-since", "--shallow-exclude",
                                                       "-u", "--upload-pack", "--template"};
    const std::vector<std::string_view>* table = nullptr;
    if (program == "apt-get" || program == "apt" || program == "xx-apt-get" || program == "xx-apt") table = &kApt;
    else if (program == "apk" || program == "xx-apk") table = &kApk;
    else if (program == "pip" || program == "pip3") table = &kPip;
    else if (program == "npm" || program == "pnpm" || program == "yarn") table = &kNpm;
    else if (program == "curl") table = &kCurl;
    else if (program == "wget") table = &kWget;
    else if (program == "git") table = &kGit;
    if (!table || opt.find('=') != std::string_view::npos) return false;
    return std::find(table->begin(), table->end(), opt) != table->end();
  }

  // A URL the image's build downloads (RUN curl/wget/git clone, ADD <url>):
  // its host is reached at build time. A host built from a variable is not
  // a host strata can name.
  // `who`: "the image's build", "CI, before the tests,".
  void downloaded(const Evidence& at, const std::string& url, Purpose purpose,
                  const std::string& who = "the image's build") {
    ctx_.egress_url(url, EgressOrigin::kInstallTime, who + " downloads " + url.substr(0, 100), at, purpose);
  }

  // curl -X POST/PUT/PATCH/DELETE, -d/--data…, -F/--form, -T/--upload-file.
  static bool sends(const ShellCommand& c) {
    for (std::size_t k = c.start + 1; k < c.words.size(); ++k) {
      std::string_view w = c.words[k];
      if (w == "-d" || w.starts_with("--data") || w == "-F" || w.starts_with("--form") || w == "-T" ||
          w == "--upload-file" || w.starts_with("-XP") || w.starts_with("-XD"))
        return true;
      if ((w == "-X" || w == "--request") && k + 1 < c.words.size() && c.words[k + 1] != "GET" && c.words[k + 1] != "HEAD")
        return true;
    }
    return false;
  }

  static std::string command_text(const ShellCommand& c) {
    std::string out;
    for (std::size_t k = c.start; k < c.words.size() && out.size() < 160; ++k) out += (out.empty() ? "" : " ") + c.words[k];
    return out.substr(0, 160);
  }

  // `curl -LsSf https://astral.sh/uv/install.sh | sh`, `wget https://www.sqlite.org/…`,
  // `git clone https://github.com/…`: the image's build reads those hosts.
  // A clone over SSH (`git@host:repo`) cannot go through a read-only HTTP
  // policy: a note.
  void downloads(const std::vector<ShellCommand>& commands, const std::string& rel, std::size_t line, Purpose purpose) {
    downloads(commands, rel, "line " + std::to_string(line), purpose, "the image's build");
  }

  void downloads(const std::vector<ShellCommand>& commands, const std::string& rel, const std::string& where,
                 Purpose purpose, const std::string& who) {
    for (const auto& c : commands) {
      if (!c.program()) continue;
      std::string_view prog = program_base(*c.program());
      std::size_t from = c.start + 1;
      if (prog == "git") {
        if (from >= c.words.size() || c.words[from] != "clone") continue;
        ++from;
      } else if (prog != "curl" && prog != "wget") {
        continue;
      } else if (prog == "curl" && sends(c)) {
        continue;  // a POST to a webhook or an upload, not a download
      }
      Evidence at{rel, where, command_text(c)};
      for (std::size_t k = from; k < c.words.size(); ++k) {
        const std::string& w = c.words[k];
        if (w.starts_with('-')) {
          if (takes_value(prog, w)) ++k;
          continue;
        }
        if (w.starts_with("http://") || w.starts_with("https://")) downloaded(at, w, purpose, who);
        else if (prog == "git" && (w.starts_with("git@") || w.starts_with("ssh://")))
          ctx_.note(rel, where + ": git clone " + w.substr(0, 80) +
                             " is over SSH, which a read-only HTTP egress policy cannot grant");
      }
    }
  }

  // `npm install -g less`, `pip install apprise`, `python3 -m pip install …`,
  // `(cd ui && yarn)` in a Dockerfile RUN line or a workflow's run step
  // (`field` names the tool constraint's place, `RUN` or the step; `where`
  // which line): the tool the command runs on, and — when no manifest of its
  // ecosystem is in the tree, so no scanner has decided its registry — the
  // registry it fetches from. Only a command's program counts: `echo "npm
  // install"` installs nothing. The evidence is the command.
  // `versions`: a version a command installs is one the build runs (not in a
  // CI job that does not run the tests: a lint or release job's npm@9 is its own).
  void package_manager_commands(const std::vector<ShellCommand>& commands, const std::string& rel,
                                const std::string& field, const std::string& where,
                                Purpose purpose = Purpose::kBuild, bool versions = true) {
    for (const auto& c : commands) {
      if (!c.program()) continue;
      std::size_t idx = c.start;
      std::string_view prog = program_base(c.words[idx]);
      if (prog.starts_with("python") && idx + 2 < c.words.size() && c.words[idx + 1] == "-m")
        prog = c.words[idx += 2];  // python3 -m pip
      if (prog == "corepack") {
        corepack_versions(rel, field == "RUN" ? "RUN " + where : where, c, purpose, versions);
        continue;
      }
      const KbInstallCommand* ic = kb_.install_command(prog);
      if (!ic) continue;
      std::size_t j = idx + 1;
      while (j < c.words.size() && c.words[j].starts_with('-')) ++j;
      std::string sub = j < c.words.size() ? c.words[j] : "";
      if (std::find(ic->subcommands.begin(), ic->subcommands.end(), sub) == ic->subcommands.end() &&
          std::find(ic->subcommands.begin(), ic->subcommands.end(), "*") == ic->subcommands.end())
        continue;
      std::string text = command_text(c);
      std::string shown = sub.empty() ? std::string(prog) : std::string(prog) + " " + sub;
      for (const auto& tool : ic->tools) ctx_.needs_tool(tool, Evidence{rel, field, text}, where + " runs " + shown);
      Evidence ev{rel, where, text};
      // `pip install -i https://pypi.internal/simple`, `--extra-index-url …`,
      // `npm install --registry …`: indexes the command names; the first and
      // last replace the default one.
      bool own_index = false;
      for (std::size_t k = j; k < c.words.size(); ++k) {
        std::string_view w = c.words[k];
        std::string_view opt = w.substr(0, w.find('='));
        bool replaces = opt == "-i" || opt == "--index-url" || opt == "--registry";
        if (!replaces && opt != "--extra-index-url" && opt != "-f" && opt != "--find-links") continue;
        std::string_view value = opt.size() < w.size() ? w.substr(opt.size() + 1)
                                 : k + 1 < c.words.size() ? std::string_view(c.words[k + 1])
                                                          : std::string_view{};
        std::string host = value.find("://") != std::string_view::npos ? url_host(value) : std::string{};
        if (host.empty()) continue;
        own_index = own_index || replaces;
        ctx_.egress(host, EgressOrigin::kConfig, "an index the command names (" + std::string(opt) + ")",
                    Evidence{rel, where, std::string(value.substr(0, 160))}, {}, 443, purpose);
      }
      // npm and npx in a tree whose Node projects are yarn's or pnpm's (no
      // package-lock.json, no .npmrc naming a registry): no scanner has read
      // npm's registry, and the command reaches its default (garnet's CI
      // `npm install -g azurite`).
      const bool npm_undecided = (prog == "npm" || prog == "npx") && !npm_configured();
      if ((!ctx_.has_ecosystem(ic->ecosystem) || npm_undecided) && !own_index)
        for (const auto& h : ic->hosts) ctx_.egress(h, EgressOrigin::kInstallTime, ic->reason, ev, {}, 443, purpose);
      if (ic->ecosystem == "python" && !sub.empty()) pip_requirements(rel, where, ev, c.words, j + 1, purpose);
      if (prog == "npm")
        global_tool_versions(rel, field == "RUN" ? "RUN " + where : where, ev, c, j, purpose, versions);
    }
  }

  // Whether the tree has npm's own lock (package-lock.json,
  // npm-shrinkwrap.json) or an .npmrc that names a registry, which the Node
  // scanner reads npm's registry from. Looked up once.
  std::optional<bool> npm_configured_;
  bool npm_configured() {
    if (npm_configured_) return *npm_configured_;
    npm_configured_ =
        !ctx_.fs().files_named("package-lock.json").empty() || !ctx_.fs().files_named("npm-shrinkwrap.json").empty();
    for (const auto& rc : ctx_.fs().files_named(".npmrc")) {
      if (*npm_configured_) break;
      if (auto text = ctx_.fs().read_text(rc))
        for (auto line : str::split(*text, '\n'))
          if (str::trim(line).starts_with("registry") || str::trim(line).find(":registry") != std::string_view::npos)
            npm_configured_ = true;
    }
    return *npm_configured_;
  }

  // `corepack prepare yarn@1.22.22 --activate`, `corepack use pnpm@9.12.0`,
  // `corepack install -g yarn@4.5.0`: the package manager version Corepack
  // puts on PATH, read as an npm global install's is.
  void corepack_versions(const std::string& rel, const std::string& where, const ShellCommand& c, Purpose purpose,
                         bool versions) {
    const auto& words = c.words;
    std::size_t sub = c.start + 1;
    while (sub < words.size() && words[sub].starts_with('-')) ++sub;
    if (sub >= words.size()) return;
    // `corepack yarn@1.22.22 install`: the versioned tool runs in place of a subcommand.
    const bool runs = words[sub].starts_with("yarn@") || words[sub].starts_with("pnpm@") || words[sub].starts_with("npm@");
    if (!runs && words[sub] != "prepare" && words[sub] != "use" && words[sub] != "install") return;
    for (std::size_t k = runs ? sub : sub + 1; k < words.size() && k <= (runs ? sub : words.size()); ++k) {
      const std::string& w = words[k];
      const auto at = w.find('@', 1);
      if (w.starts_with('-') || at == std::string::npos) continue;
      const std::string tool = w.substr(0, at);
      if (tool != "yarn" && tool != "pnpm" && tool != "npm") continue;
      std::string version = w.substr(at + 1), note;
      version = version.substr(0, version.find('+'));  // yarn@4.5.0+sha512.…: the hash is not the version
      auto r = read_tool_version(tool, version, kb_, note);
      if (!r || !r->floor() || !versions) {  // `yarn@stable`: the tool alone
        ctx_.needs_tool(tool, Evidence{rel, where, w}, runs ? "corepack runs " + w : "corepack " + words[sub] + " " + w);
        continue;
      }
      ctx_.constraint(tool, purpose == Purpose::kRun ? ConstraintKind::kPin : ConstraintKind::kTested, {rel, where, w},
                      r, runs ? "corepack runs " + w : "corepack " + words[sub] + " puts " + w + " on PATH");
    }
  }

  // `npm install --global yarn@1.22.22` (pnpm@9, npm@10.8.2): the version of
  // a package manager the image or the job runs. In an image's own stages it
  // is that image's pin; in a builder, a development image or CI, a version
  // the build runs, as a FROM line's is (`where`: "RUN line N" in a Dockerfile).
  void global_tool_versions(const std::string& rel, const std::string& where, const Evidence& ev, const ShellCommand& c,
                            std::size_t sub, Purpose purpose, bool versions) {
    const auto& words = c.words;
    if (sub >= words.size() || (words[sub] != "install" && words[sub] != "i" && words[sub] != "add")) return;
    const bool global = std::any_of(words.begin() + static_cast<std::ptrdiff_t>(c.start), words.end(), [](const std::string& w) {
      return w == "-g" || w == "--global" || w == "--location=global";
    });
    if (!global) return;
    for (std::size_t k = sub + 1; k < words.size(); ++k) {
      const std::string& w = words[k];
      const auto at = w.find('@', 1);
      if (w.starts_with('-') || at == std::string::npos) continue;
      const std::string tool = w.substr(0, at), version = w.substr(at + 1);
      if (tool != "yarn" && tool != "pnpm" && tool != "npm") continue;
      std::string note;
      auto r = read_tool_version(tool, version, kb_, note);
      if (!r || !r->floor() || !versions) {  // `pnpm@latest`, a tag, a job that tests nothing: the tool alone
        ctx_.needs_tool(tool, Evidence{rel, where, w}, "npm installs " + w + " globally");
        continue;
      }
      ctx_.constraint(tool, purpose == Purpose::kRun ? ConstraintKind::kPin : ConstraintKind::kTested,
                      {rel, where, w}, r, "npm installs " + w + " globally (" + ev.value.substr(0, 80) + ")");
    }
  }

  // The packages a `pip install|wheel|download` names after its subcommand:
  // each is a direct dependency (a `pip wheel … mysqlclient` compiles like a
  // requirements file's). An option's value (`-r requirements.txt`, `-t DIR`)
  // and a path are not packages; a URL or VCS requirement
  // (`git+https://git.example.com/r.git`) is a host the install reaches.
  void pip_requirements(const std::string& file, const std::string& where, const Evidence& ev,
                        const std::vector<std::string>& words, std::size_t j, Purpose purpose) {
    for (; j < words.size(); ++j) {
      const std::string& w = words[j];
      if (w.starts_with('-')) {
        if (takes_value("pip", w)) ++j;
        continue;
      }
      if (w.find("://") != std::string::npos) {
        if (std::string host = url_host(w); !host.empty())
          ctx_.egress(host, EgressOrigin::kInstallTime, "pip installs " + w.substr(0, 100), ev, {}, 443, purpose);
        continue;
      }
      if (w.find('/') != std::string::npos || w.starts_with('.')) continue;  // a local path or archive
      python_requirement(ctx_, file, where, w);
    }
  }

  // The package names of every install command of a shell line: (name, apk).
  static std::vector<std::pair<std::string, bool>> installed_packages(const std::vector<ShellCommand>& commands) {
    std::vector<std::pair<std::string, bool>> out;
    for (const auto& c : commands) {
      if (!c.program()) continue;
      std::string_view prog = program_base(*c.program());
      // xx-apt-get / xx-apk: the cross-compilation wrappers (tonistiigi/xx) take the same arguments.
      bool apt = prog == "apt-get" || prog == "apt" || prog == "xx-apt-get" || prog == "xx-apt";
      bool apk = prog == "apk" || prog == "xx-apk";
      if (!apt && !apk) continue;
      std::size_t j = c.start + 1;
      for (; j < c.words.size() && c.words[j].starts_with('-'); ++j)
        if (takes_value(prog, c.words[j])) ++j;
      if (j >= c.words.size() || c.words[j] != (apt ? "install" : "add")) continue;
      for (++j; j < c.words.size(); ++j) {
        std::string_view w = c.words[j];
        if (w.starts_with('-')) {
          if (takes_value(prog, w)) ++j;
          continue;
        }
        if (apt) {
          if (w.ends_with('-')) continue;  // apt's "remove this one"
          w = w.substr(0, w.find_first_of("=:/"));  // =version, :arch, /release
        } else {
          w = w.substr(0, w.find_first_of("=~<>@"));  // apk version constraints and repository tags
        }
        bool name = !w.empty() &&
                    (std::islower(static_cast<unsigned char>(w[0])) || std::isdigit(static_cast<unsigned char>(w[0])));
        for (char ch : w)
          if (!std::islower(static_cast<unsigned char>(ch)) && !std::isdigit(static_cast<unsigned char>(ch)) &&
              ch != '-' && ch != '+' && ch != '.')
            name = false;
        if (name) out.emplace_back(std::string(w), apk);
      }
    }
    return out;
  }

  static bool build_tool(const std::string& pkg) {
    static constexpr std::array<std::string_view, 12> kBuildTools = {
        "build-essential", "gcc", "g++", "make", "cmake", "pkg-config", "clang", "autoconf", "automake", "libtool",
        "patchelf", "libc6-dev"};
    return pkg.ends_with("-dev") || std::find(kBuildTools.begin(), kBuildTools.end(), pkg) != kBuildTools.end();
  }

  // Install documentation (a Markdown or reStructuredText file whose path
  // says install or build, README, INSTALL): a command line that installs
  // packages for building from source — it names a -dev package or a build
  // tool. Lines installing only services (`apt install postgresql
  // redis-server nginx`) describe other machines and are not read.
  static bool install_doc(const std::string& rel) {
    std::string lower = str::lower(rel);
    std::string b(oci::base_name(lower));
    // Another project's documents, vendored beside its code, are not this one's.
    for (std::string_view d : {"vendor/", "third_party/", "third-party/", "node_modules/"})
      if (lower.starts_with(d) || lower.find("/" + std::string(d)) != std::string::npos) return false;
    if (!(b.ends_with(".md") || b.ends_with(".rst") || b.ends_with(".txt") || b == "install")) return false;
    if (b.starts_with("readme") || b.starts_with("install") || development_doc(b)) return true;
    return lower.find("install") != std::string::npos || lower.find("building") != std::string::npos ||
           lower.find("build-from-source") != std::string::npos;
  }

  // A contributor's guide (CONTRIBUTING.md, DEVELOPMENT.md, HACKING.md): every
  // package it installs is for working on the project — building and testing
  // it — so no build tool among them is needed to say so.
  static bool development_doc(std::string_view lower_base) {
    return lower_base.starts_with("contributing") || lower_base.starts_with("development") ||
           lower_base.starts_with("hacking");
  }

  void install_doc_lines(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    const bool contributing = development_doc(str::lower(oci::base_name(rel)));
    std::size_t n = 0, declared = 0;
    bool fenced = false;
    for (auto raw : str::split(*text, '\n')) {
      ++n;
      std::string line(str::trim(raw));
      if (line.starts_with("```") || line.starts_with("~~~")) fenced = !fenced;
      bool prompt_seen = false;
      for (std::string_view prompt : {"$ ", "# ", "> ", "sudo "})
        if (line.starts_with(prompt)) {
          prompt_seen = prompt_seen || prompt != "sudo ";
          line = std::string(str::trim(std::string_view(line).substr(prompt.size())));
        }
      if (!line.starts_with("apt") && !line.starts_with("sudo ")) continue;
      auto pkgs = installed_packages(shell_commands_of(line));
      // A contributor's guide's commands (in a code block, or after a
      // prompt) are for working on the project, build tool or not; its prose
      // ("apt install the dependencies listed …") is not a command.
      const bool command = fenced || prompt_seen || raw.starts_with("    ") || raw.starts_with("\t");
      bool for_building = (contributing && command) ||
                          std::any_of(pkgs.begin(), pkgs.end(), [](const auto& p) { return !p.second && build_tool(p.first); });
      if (!for_building) continue;
      for (const auto& [name, apk] : pkgs)
        if (!apk && ++declared <= kMaxDocPackages) declared_package("docs:" + rel, rel, n, line, name, false, true);
    }
  }
  static constexpr std::size_t kMaxDocPackages = 256;  // per document

  // `final_stage`: what is not a build tool or -dev package is needed at run time.
  void declared_package(const std::string& required_by, const std::string& rel, std::size_t line,
                        const std::string& text, const std::string& name, bool apk, bool final_stage,
                        Purpose purpose = Purpose::kBuild, bool packaging = false) {
    std::vector<std::string> debian{name};
    if (apk) {
      const auto* mapped = kb_.alpine_package(name);
      if (!mapped) {
        ctx_.note(rel, "line " + std::to_string(line) + ": Alpine package " + name +
                           " is not in alpine_packages (toolchains.yaml); its Debian name is unknown");
        return;
      }
      debian = *mapped;
    }
    Evidence ev{rel, "line " + std::to_string(line), text.substr(0, 160)};
    for (const auto& pkg : debian) {
      // A build tool or -dev package builds the repository, in whichever
      // stage — except in an image that never sees the repository.
      if (!final_stage || (build_tool(pkg) && !packaging)) ctx_.build_lib(pkg, required_by, ev);
      else ctx_.run_lib(pkg, required_by, ev, purpose);
    }
  }

  // Each $NAME and ${NAME} of `s` replaced by its value in `first`, else in
  // `then`, else kept; in one pass over `s`, whatever the maps hold.
  static std::string expand(std::string_view s, const std::map<std::string, std::string>& first,
                            const std::map<std::string, std::string>& then) {
    auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
      if (s[i] != '$') {
        out += s[i++];
        continue;
      }
      const bool braced = i + 1 < s.size() && s[i + 1] == '{';
      std::size_t b = i + (braced ? 2 : 1), e = b;
      while (e < s.size() && name_char(s[e])) ++e;
      if (e == b || (braced && (e >= s.size() || s[e] != '}'))) {
        out += s[i++];
        continue;
      }
      const std::string name(s.substr(b, e - b));
      const auto hit = first.find(name);
      const auto other = hit == first.end() ? then.find(name) : then.end();
      const std::size_t past = braced ? e + 1 : e;
      if (hit != first.end()) out += hit->second;
      else if (other != then.end()) out += other->second;
      else out += s.substr(i, past - i);
      i = past;
    }
    return out;
  }

  // ${NAME} and $NAME replaced by their values (ARGs and ENVs), as whole
  // names: $PYTHON is not the start of $PYTHON_VERSION.
  static std::string substitute(std::string_view s, const std::map<std::string, std::string>& args) {
    return expand(s, {}, args);
  }

  void devcontainer(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    nlohmann::json j = nlohmann::json::parse(*text, nullptr, false, /*ignore_comments=*/true);
    if (j.is_discarded() || !j.is_object()) {
      ctx_.warn(rel, "malformed JSON (JSONC comments are accepted, trailing commas are not); not used");
      return;
    }
    if (j.contains("image") && j["image"].is_string())
      image(rel, "image", j["image"].get<std::string>(), ConstraintKind::kTested);
    if (!j.contains("features") || !j["features"].is_object()) return;
    for (const auto& [id, opts] : j["features"].items()) {
      // "ghcr.io/devcontainers/features/node:1" → node
      auto p = id.find("/features/");
      if (p == std::string::npos) continue;
      std::string name = id.substr(p + 10);
      name = name.substr(0, name.find(':'));
      std::string tool = name == "node" ? "node" : name == "python" ? "python" : name == "go" ? "go" : name == "rust" ? "rust" : "";
      if (tool.empty()) continue;
      std::string v = opts.is_object() && opts.contains("version") && opts["version"].is_string()
                          ? opts["version"].get<std::string>() : "latest";
      if (v == "lts" && tool == "node") v = "lts/*";
      if (v == "latest" || v == "none" || v == "os-provided" || v == "lts") {
        ctx_.note(rel, "features." + id + ".version " + str::quote(v) + " names no release; no floor taken from it");
        continue;
      }
      std::string note;
      auto range = read_tool_version(tool, v, kb_, note);  // before `note` is read
      ctx_.constraint(tool, ConstraintKind::kTested, {rel, "features." + id + ".version", v}, range,
                      note.empty() ? "devcontainer feature installs this version" : note);
    }
  }

  // A with: value, with ${{ matrix.X }} replaced by the job's matrix list.
  std::vector<std::string> values(const YAML::Node& v, const YAML::Node& job, const YAML::Node& step = YAML::Node(),
                                  const std::map<std::string, std::string>* inputs = nullptr) {
    std::vector<std::string> out;
    if (!v || !v.IsScalar()) return out;
    std::string s = v.as<std::string>();
    // A job that may fail as a whole (`continue-on-error: true`) tries versions; it tests none.
    if (const YAML::Node coe = job["continue-on-error"]; coe && coe.IsScalar() && coe.Scalar() == "true") return out;
    auto m = s.find("matrix.");
    if (s.find("${{") != std::string::npos && m != std::string::npos) {
      std::string key(str::trim(s.substr(m + 7, s.find("}}") - m - 7)));
      // `matrix: ${{ fromJSON(…) }}` is an expression, not a map: no versions from it.
      if (!job["strategy"] || !job["strategy"].IsMap() || !job["strategy"]["matrix"] ||
          !job["strategy"]["matrix"].IsMap())
        return out;
      YAML::Node list = job["strategy"]["matrix"][key];
      if (list && list.IsSequence())
        for (const auto& e : list)
          if (e.IsScalar()) out.push_back(e.as<std::string>());
      // `continue-on-error: ${{ matrix.php == '8.6' }}`: the entry the job
      // lets fail is tried, not tested (YOURLS's next PHP).
      if (const YAML::Node coe = job["continue-on-error"]; coe && coe.IsScalar()) {
        const std::string expr = coe.Scalar();
        const auto eq = expr.find("==");
        const auto named = expr.find("matrix." + key);
        const std::size_t after = named == std::string::npos ? 0 : named + 7 + key.size();
        if (eq != std::string::npos && named != std::string::npos && named < eq &&
            (after >= expr.size() || !(std::isalnum(static_cast<unsigned char>(expr[after])) || expr[after] == '_' ||
                                       expr[after] == '-'))) {
          std::string v(str::trim(expr.substr(eq + 2, expr.find("}}", eq) - eq - 2)));
          v = str::unquote(v);
          std::erase(out, v);
        }
      }
      return out;
    }
    // Exactly `${{ env.RUST }}`: the step's env, else the job's, else the
    // workflow's (asciinema-server keeps every version in the workflow's env).
    if (std::string_view t = str::trim(s); t.starts_with("${{") && t.ends_with("}}")) {
      std::string_view inner = str::trim(t.substr(3, t.size() - 5));
      if (inner.starts_with("env.") && inner.size() > 4 &&
          std::all_of(inner.begin() + 4, inner.end(), [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
          })) {
        const std::string key(inner.substr(4));
        const YAML::Node step_env = step.IsDefined() && step.IsMap() ? step["env"] : YAML::Node();
        for (const YAML::Node& scope : {step_env, job["env"], workflow_env_})
          if (scope.IsDefined() && scope.IsMap() && scope[key] && scope[key].IsScalar()) {
            std::string value = scope[key].Scalar();
            // (A version file's name, `.nvmrc`, is read where the file is scanned.)
            if (value.find("${{") == std::string::npos && !value.empty() && !value.starts_with('.')) out.push_back(value);
            return out;
          }
        return out;
      }
      // `${{ inputs.node-version }}` in a composite action: what it was given, else its default.
      if (inner.starts_with("inputs.") && inputs)
        if (auto it = inputs->find(std::string(inner.substr(7))); it != inputs->end() && !it->second.empty()) {
          for (auto line : str::split(it->second, '\n'))
            if (auto t2 = str::trim(line); !t2.empty() && !t2.starts_with('.')) out.emplace_back(t2);
          return out;
        }
    }
    if (s.find("${{") != std::string::npos) return out;
    // A version file's name (setup-ruby's ".ruby-version", setup-node's
    // ".nvmrc" given as a version) is read where the file is scanned.
    for (auto line : str::split(s, '\n'))
      if (auto t = str::trim(line); !t.empty() && !t.starts_with('.')) out.emplace_back(t);
    return out;
  }

  void ci_constraint(const std::string& rel, const std::string& field, const std::string& tool,
                     const std::vector<std::string>& vs, const std::string& action) {
    if (vs.empty()) return;
    Range u{{}};
    std::string shown, note;
    bool ok = true;
    for (const auto& given : vs) {
      std::string v = given;
      if (tool == "rust") {
        // A toolchain with its host triple (1.72.0-x86_64-unknown-linux-gnu): the release is before it.
        for (std::string_view arch : {"-x86_64-", "-aarch64-", "-i686-", "-armv7-", "-arm-", "-riscv64"})
          if (auto at = v.find(arch); at != std::string::npos) v.resize(at);
        // A channel (stable, beta, nightly-2024-01-01) floats, and an action's
        // ref may be a branch or a commit: no version, and no warning.
        const bool commit = v.size() >= 7 && std::all_of(v.begin(), v.end(), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)); }) &&
                            v.find('.') == std::string::npos && std::any_of(v.begin(), v.end(), [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)); });
        if (kb_.rust_floating_channel(v) || v.starts_with("nightly-") || v.starts_with("beta-") || v == "master" ||
            v == "main" || commit) {
          if (vs.size() == 1) return;
          continue;
        }
      }
      std::string n;
      auto r = read_tool_version(tool, v, kb_, n);
      if (!r) ok = false;
      else u.any_of.insert(u.any_of.end(), r->any_of.begin(), r->any_of.end());
      shown += (shown.empty() ? "" : ", ") + v;
      if (!n.empty()) note = n;
    }
    if (shown.empty()) return;  // channels only
    if (vs.size() > 1) note = "CI matrix: any of these versions (" + action + ")";
    else if (note.empty()) note = "CI installs this version (" + action + ")";
    Result<Range> r = ok ? Result<Range>(u) : Result<Range>(fail(ErrorCode::kInvalidArgument, "unreadable version"));
    ctx_.constraint(tool, ConstraintKind::kTested, {rel, field, shown}, r, note);
  }

  // A YAML file of the repository, parsed; a parse error is a warning naming
  // the file and nothing is read from it.
  std::optional<YAML::Node> yaml_doc(const std::string& rel, const std::string& text) {
    auto loaded = oci::load_yaml(text, "");
    if (!loaded) {
      ctx_.warn(rel, "not used: " + loaded.error().message());
      return std::nullopt;
    }
    return *loaded;
  }

  // A compose service's `build:` (a context, or a map with context and
  // dockerfile): its context and Dockerfile name; an empty context for a
  // remote or variable one, which names no file of the repository.
  static std::pair<std::string, std::string> compose_build(const YAML::Node& build) {
    std::string context = ".", file = "Dockerfile";
    if (build.IsScalar()) {
      context = build.Scalar();
    } else if (build.IsMap()) {
      if (build["context"] && build["context"].IsScalar()) context = build["context"].Scalar();
      if (build["dockerfile"] && build["dockerfile"].IsScalar()) file = build["dockerfile"].Scalar();
    }
    if (context.find("://") != std::string::npos || context.find('$') != std::string::npos) context.clear();
    return {context, file};
  }

  // The repository script a command runs (`./ci/test.sh`, `bash ci/test.sh`,
  // `/bin/sh ci/x.sh`) as written, relative; empty when it runs none.
  static std::string_view script_run_by(const ShellCommand& c) {
    std::string_view path = *c.program();
    const std::string_view prog = program_base(path);
    if ((prog == "bash" || prog == "sh") && c.start + 1 < c.words.size()) path = c.words[c.start + 1];
    if (path.find('/') == std::string_view::npos || path.starts_with('/') || path.starts_with('-')) return {};
    return path;
  }

  // A compose file's services that build a Dockerfile of the repository and
  // bind-mount the build context (the source tree) into the container: the
  // code runs from the checkout, so that Dockerfile is a development image
  // whatever its name (openstreetmap-website's `web`: `build: .`, `.:/app`).
  void compose(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    auto parsed = yaml_doc(rel, *text);
    if (!parsed) return;
    const YAML::Node doc = *parsed;
    if (!doc.IsMap() || !doc["services"] || !doc["services"].IsMap()) return;
    const std::string dir = dir_of(rel);
    for (const auto& svc : doc["services"]) {
      const YAML::Node& s = svc.second;
      if (!s.IsMap() || !s["build"]) continue;
      auto [context, file] = compose_build(s["build"]);
      if (context.empty()) continue;
      auto ctx_dir = resolve_rel(dir, context);
      if (!ctx_dir || !s["volumes"] || !s["volumes"].IsSequence()) continue;
      // The context must be the source tree — the repository or a project in
      // it — not a directory of configuration (`build: ./nginx` mounting
      // `./nginx:/etc/nginx/conf.d` runs no code from the checkout).
      if (*ctx_dir != "." && ctx_.scope_of(*ctx_dir + "/Dockerfile") != *ctx_dir) continue;
      std::string mounted;
      for (const auto& v : s["volumes"]) {
        std::string source;
        if (v.IsScalar()) {
          std::string_view spec = v.Scalar();
          auto colon = spec.find(':');
          if (colon == std::string_view::npos) continue;
          source = std::string(spec.substr(0, colon));
          if (source == "$PWD" || source == "${PWD}") source = ".";  // the directory compose runs in
          if (source.empty() || (source[0] != '.' && source[0] != '/')) continue;  // a named volume
        } else if (v.IsMap() && v["type"] && v["type"].IsScalar() && v["type"].Scalar() == "bind" && v["source"] &&
                   v["source"].IsScalar()) {
          source = v["source"].Scalar();
        }
        if (source.empty() || source[0] == '/') continue;  // a host path outside the repository
        if (auto src = resolve_rel(dir, source); src && *src == *ctx_dir) {
          mounted = v.IsScalar() ? v.Scalar() : source;
          break;
        }
      }
      if (mounted.empty()) continue;
      auto dockerfile_path = resolve_rel(dir, context + "/" + file);
      if (!dockerfile_path || !ctx_.fs().is_file(*dockerfile_path)) continue;
      ctx_.mark_development(*dockerfile_path, Evidence{rel, "services." + (svc.first.IsScalar() ? svc.first.Scalar() : "?") + ".volumes",
                                                       mounted.substr(0, 160)});
    }
  }

  void workflow(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    cgo_setting(rel, *text, "env.CGO_ENABLED");
    auto parsed = yaml_doc(rel, *text);
    if (!parsed) return;
    const YAML::Node doc = *parsed;
    if (!doc.IsMap() || !doc["jobs"] || !doc["jobs"].IsMap()) return;
    if (release_triggers(doc["on"])) release_files_.insert(rel);
    // reset() rebinds (operator= would assign into the previous workflow's
    // node); a missing key's node is invalid, so an absent env is a null one.
    if (doc["env"]) workflow_env_.reset(doc["env"]);
    else workflow_env_.reset();
    static const std::vector<std::tuple<std::string, std::string, std::string>> kActions = {
        {"actions/setup-node@", "node-version", "node"},  {"actions/setup-python@", "python-version", "python"},
        {"actions/setup-go@", "go-version", "go"},        {"oven-sh/setup-bun@", "bun-version", "bun"},
        {"pnpm/action-setup@", "version", "pnpm"},
        {"actions/setup-java@", "java-version", "java"},  {"actions/setup-dotnet@", "dotnet-version", "dotnet"},
        {"erlef/setup-beam@", "elixir-version", "elixir"}, {"erlef/setup-beam@", "otp-version", "erlang"},
        {"shivammathur/setup-php@", "php-version", "php"}, {"ruby/setup-ruby@", "ruby-version", "ruby"},
        {"actions-rs/toolchain@", "toolchain", "rust"},   {"dtolnay/rust-toolchain@", "toolchain", "rust"},
        {"voidzero-dev/setup-vp@", "node-version", "node"}};
    std::size_t composite_expanded = 0;
    try {
      for (const auto& jkv : doc["jobs"]) {
        std::string job = jkv.first.as<std::string>();
        const YAML::Node& j = jkv.second;
        if (!j.IsMap()) continue;
        // The job's steps, with those of the repository's own composite
        // actions it uses (`uses: ./.github/actions/setup`) in their place.
        std::vector<JobStep> steps;
        std::size_t n = 0;
        const YAML::Node no_steps(YAML::NodeType::Sequence);
        for (const auto& step : j["steps"] && j["steps"].IsSequence() ? j["steps"] : no_steps) {
          steps.push_back({rel, "jobs." + job + ".steps[" + std::to_string(n++) + "]", step, nullptr});
          if (step.IsMap() && step["uses"] && step["uses"].IsScalar() && step["uses"].Scalar().starts_with("./")) {
            const auto inner_steps = composite_steps(step["uses"].Scalar());
            // The caller's `with:` gives the action its inputs, once for all its steps.
            std::shared_ptr<const std::map<std::string, std::string>> given =
                inner_steps.empty() ? nullptr : inner_steps.front().inputs;
            if (const YAML::Node with = step["with"]; !inner_steps.empty() && with && with.IsMap()) {
              auto merged = std::make_shared<std::map<std::string, std::string>>(*given);
              for (const auto& kv : with)
                if (kv.first.IsScalar() && kv.second.IsScalar() && merged->size() < kMaxInputs &&
                    kv.second.Scalar().find("${{") == std::string::npos)
                  (*merged)[kv.first.Scalar()] = kv.second.Scalar();
              given = std::move(merged);
            }
            for (const auto& inner : inner_steps) {
              // Bounded: a workflow of many jobs using an action of many steps.
              if (++composite_expanded >= kMaxCompositeSteps) break;
              steps.push_back({inner.file, inner.where, inner.node, given});
            }
          }
        }
        std::vector<std::string> scripts;
        for (const auto& s : steps)
          if (s.node.IsMap() && s.node["run"] && s.node["run"].IsScalar()) scripts.push_back(s.node["run"].Scalar());
        const bool suite = runs_tests(scripts);
        const bool tests = test_job(rel, job, suite);
        YAML::Node container = tests ? j["container"] : YAML::Node();  // a deploy job's image tests nothing
        if (container && container.IsScalar())
          image(rel, "jobs." + job + ".container", container.as<std::string>(), ConstraintKind::kTested);
        else if (container && container.IsMap() && container["image"] && container["image"].IsScalar())
          image(rel, "jobs." + job + ".container.image", container["image"].as<std::string>(), ConstraintKind::kTested);
        // A macOS or Windows runner's commands are not the ones a Linux sandbox
        // runs (labels are case-insensitive: `macOS-latest`, `Windows-2022`).
        const bool other_os = other_os_runner(j);
        const bool programs = tests && !other_os && suite;
        // Where run steps start: the step's working-directory, else the
        // job's or the workflow's `defaults.run.working-directory`.
        auto default_dir = [](const YAML::Node& n) -> std::string {
          const YAML::Node d = n["defaults"];
          if (!d || !d.IsMap() || !d["run"] || !d["run"].IsMap()) return {};
          const YAML::Node w = d["run"]["working-directory"];
          return w && w.IsScalar() ? w.Scalar() : std::string();
        };
        std::string job_dir = default_dir(j);
        if (job_dir.empty()) job_dir = default_dir(doc);
        for (const auto& [file, base, step, inputs] : steps) {
          if (step.IsMap() && step["run"] && step["run"].IsScalar())
            ci_script(file, base + ".run", step["run"].as<std::string>(), tests,
                      step["working-directory"] && step["working-directory"].IsScalar() ? step["working-directory"].Scalar()
                                                                                          : job_dir,
                      programs);
          if (!step.IsMap() || !step["uses"] || !step["uses"].IsScalar()) continue;
          std::string uses = step["uses"].as<std::string>();
          // awalsh128/cache-apt-pkgs-action installs (and caches) the apt packages it is given.
          if (uses.starts_with("awalsh128/cache-apt-pkgs-action@") && tests && step["with"] && step["with"].IsMap() &&
              step["with"]["packages"] && step["with"]["packages"].IsScalar()) {
            std::string list = step["with"]["packages"].as<std::string>();
            std::replace(list.begin(), list.end(), ',', ' ');
            ci_script(file, base + ".with.packages", "apt-get install " + list, true);
          }
          // cypress-io/github-action runs the end-to-end tests in the browser it is given.
          if (uses.starts_with("cypress-io/github-action@") && !other_os && tests && step["with"] && step["with"].IsMap() &&
              step["with"]["browser"] && step["with"]["browser"].IsScalar())
            cypress_browser(step["with"]["browser"].Scalar(), "ci:" + file,
                            Evidence{file, base + ".with.browser", step["with"]["browser"].Scalar()});
          // A release job's runtime builds what is shipped, not what is tested
          // (traccar's release workflow sets up Java 25; its tests run on 21).
          for (const auto& [prefix, input, tool] : kActions) {
            if (!uses.starts_with(prefix) || release_job(rel, job, suite)) continue;
            // dtolnay/rust-toolchain@1.83.0: the toolchain is the action's ref.
            if (tool == "rust" && uses.starts_with("dtolnay/rust-toolchain@") &&
                (!step["with"] || !step["with"].IsMap() || !step["with"]["toolchain"])) {
              ci_constraint(file, base + ".uses", tool, {uses.substr(uses.find('@') + 1)}, uses);
              continue;
            }
            if (!step["with"] || !step["with"].IsMap()) continue;
            ci_constraint(file, base + ".with." + input, tool, values(step["with"][input], j, step, inputs.get()), uses);
          }
        }
      }
    } catch (const YAML::Exception& e) {
      ctx_.warn(rel, std::string("unexpected workflow shape, partly read: ") + e.what());
    }
  }

  // Whether a GitHub job runs only on macOS or Windows runners: `runs-on`
  // as a label, a list, a map's `labels`, or `${{ matrix.X }}` whose values
  // all are such (labels are case-insensitive: `macOS-latest`, `Windows-2022`).
  bool other_os_runner(const YAML::Node& job) {
    const YAML::Node ro = job["runs-on"];
    if (!ro) return false;
    auto other = [](std::string label) {
      label = str::lower(label);
      return label.find("macos") != std::string::npos || label.find("windows") != std::string::npos;
    };
    std::vector<std::string> labels;
    if (ro.IsScalar()) {
      labels = ro.Scalar().find("${{") != std::string::npos ? values(ro, job) : std::vector<std::string>{ro.Scalar()};
    } else {
      const YAML::Node list = ro.IsMap() ? ro["labels"] : ro;
      if (list && list.IsScalar()) labels.push_back(list.Scalar());
      else if (list && list.IsSequence())
        for (const auto& l : list)
          if (l.IsScalar()) labels.push_back(l.Scalar());
      // A list names one runner with all its labels: any macOS/Windows label makes it that.
      return std::any_of(labels.begin(), labels.end(), other);
    }
    return !labels.empty() && std::all_of(labels.begin(), labels.end(), other);
  }

  // A CircleCI job on macOS (`macos:`) or Windows (an executor or machine image that says so).
  static bool circleci_other_os(const YAML::Node& job) {
    if (job["macos"]) return true;
    auto windows = [](const YAML::Node& n) { return n && n.IsScalar() && str::lower(n.Scalar()).find("win") != std::string::npos; };
    if (windows(job["executor"]) || (job["executor"] && job["executor"].IsMap() && windows(job["executor"]["name"]))) return true;
    return job["machine"] && job["machine"].IsMap() && windows(job["machine"]["image"]);
  }

  struct JobStep {
    std::string file;   // the workflow, or the composite action the step is in
    std::string where;  // "jobs.test.steps[2]", "runs.steps[0]"
    YAML::Node node;
    // A composite action's inputs: what the calling step's `with:` gives,
    // else the action's `inputs.X.default` (what `${{ inputs.X }}` is);
    // one map shared by every step of one use of the action.
    std::shared_ptr<const std::map<std::string, std::string>> inputs;
  };

  // The steps of a composite action of the repository's own
  // (`uses: ./.github/actions/setup` → its action.yml `runs.steps`), read
  // once each; not the actions they use in turn.
  std::vector<JobStep> composite_steps(const std::string& uses) {
    std::string dir = uses.substr(2);
    while (!dir.empty() && dir.back() == '/') dir.pop_back();
    auto it = composites_.find(dir);
    if (it == composites_.end()) {
      std::vector<JobStep> out;
      for (const char* name : {"action.yml", "action.yaml"}) {
        auto path = resolve_rel(dir, name);
        if (!path || !ctx_.fs().is_file(*path)) continue;
        auto text = ctx_.fs().read_text(*path);
        auto doc = text ? yaml_doc(*path, *text) : std::nullopt;
        if (!doc || !doc->IsMap()) break;
        const YAML::Node runs = (*doc)["runs"];
        if (!runs || !runs.IsMap() || !runs["using"] || !runs["using"].IsScalar() || runs["using"].Scalar() != "composite" ||
            !runs["steps"] || !runs["steps"].IsSequence())
          break;
        auto defaults = std::make_shared<std::map<std::string, std::string>>();
        if (const YAML::Node in = (*doc)["inputs"]; in && in.IsMap())
          for (const auto& kv : in)
            if (kv.first.IsScalar() && kv.second.IsMap() && kv.second["default"] && kv.second["default"].IsScalar() &&
                defaults->size() < kMaxInputs)
              (*defaults)[kv.first.Scalar()] = kv.second["default"].Scalar();
        std::size_t k = 0;
        for (const auto& step : runs["steps"])
          out.push_back({*path, "runs.steps[" + std::to_string(k++) + "]", step, defaults});
        break;
      }
      it = composites_.emplace(dir, std::move(out)).first;
    }
    return it->second;
  }
  std::map<std::string, std::vector<JobStep>> composites_;
  static constexpr std::size_t kMaxCompositeSteps = 4096;  // per workflow
  static constexpr std::size_t kMaxInputs = 256;           // per composite action

  // A CI script: package-manager commands, and the system packages it
  // installs before the tests run, which are what testing needs.
  // `tests`: the job runs the tests (not a release, deploy, docs or lint job),
  // so what it installs is a build need.
  // `programs`: the job runs the test suite itself (runs_tests), so the
  // programs its steps call are what testing needs too.
  void ci_script(const std::string& rel, const std::string& where, const std::string& script, bool tests,
                 const std::string& dir = "", bool programs = false) {
    // Read as the shell reads the whole script (a backslash-newline joins
    // lines; a quoted string may span them), with each ${{ … }} expression
    // dropped first: `apt-get install ${{ matrix.pkgs }}` names no package.
    std::string text;
    text.reserve(script.size());
    for (std::size_t i = 0; i < script.size(); ++i) {
      if (script.compare(i, 3, "${{") == 0) {
        auto close = script.find("}}", i + 3);
        if (close == std::string::npos) break;
        i = close + 1;
        continue;
      }
      text += script[i];
    }
    const auto commands = shell_commands_of(without_heredocs(text));
    package_manager_commands(commands, rel, where, where, Purpose::kBuild, tests);
    if (!tests) return;
    ci_packages(rel, where, commands);
    if (programs) ci_programs(rel, where, commands, dir);
    downloads(commands, rel, where, Purpose::kBuild, "CI, before the tests,");
  }

  // Whether a job's steps run a test suite: a command with a word (not an
  // option) that says test or spec, or Maven's/Gradle's verify and check
  // (`mvn -B verify`, `./gradlew check`, `bundle exec rspec`, `mix test`,
  // `./refine e2e_tests`), or a Maven phase past `test` (package, install,
  // deploy) or Gradle's `build`, unless it skips the tests. A job that only
  // builds, diffs generated code or publishes calls programs for its own
  // plumbing.
  bool runs_tests(const std::vector<std::string>& scripts) {
    static constexpr std::array<std::string_view, 22> kTokens = {
        "test",  "tests",   "testing", "spec",    "specs",  "rspec", "pytest", "phpunit", "pest",  "jest",
        "vitest", "mocha",  "e2e",     "verify",  "check",  "ctest", "cucumber", "behat", "cypress",
        "unittest", "tox",  "nox"};  // tox and nox run their test environments by default
    // The programs that run a project's tasks by name (`mix test`, `npm run test:unit`, `./gradlew check`).
    static constexpr std::array<std::string_view, 33> kDrivers = {
        "mix",  "mvn",    "mvnw", "gradle", "gradlew", "npm",  "yarn", "pnpm",  "bun",  "npx",
        "make", "go",     "cargo", "dotnet", "bundle", "rake", "rails", "php",  "composer", "python",
        "python3", "tox", "nox",  "poetry", "uv",     "deno", "sbt",  "swift", "just",  "task",
        "hatch", "coverage", "pdm"};
    // Whole alphanumeric tokens of a word: `e2e_tests`, `test:unit`, `bin/rspec`; not `latest`.
    auto says_test = [](std::string_view w) {
      std::string token;
      for (std::size_t i = 0; i <= w.size(); ++i) {
        char ch = i < w.size() ? w[i] : ' ';
        if (std::isalnum(static_cast<unsigned char>(ch))) {
          token += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          continue;
        }
        if (std::find(kTokens.begin(), kTokens.end(), token) != kTokens.end()) return true;
        token.clear();
      }
      return false;
    };
    auto command_tests = [&](const ShellCommand& c) {
      // The first word that runs something: past wrappers that run the next
      // word (`xvfb-run -a npm test`, `dbus-run-session -- yarn e2e`).
      std::size_t k = c.start;
      while (k < c.words.size() && (c.words[k].starts_with('-') || program_base(c.words[k]) == "xvfb-run" ||
                                    program_base(c.words[k]) == "dbus-run-session"))
        ++k;
      if (k >= c.words.size()) return false;
      const std::string& word = c.words[k];
      std::string_view prog = program_base(word);
      if (says_test(prog)) return true;  // pytest, phpunit, run-tests.sh, bin/rspec
      // A task runner, or a script of the repository's (./refine e2e_tests,
      // bash ci/test.sh): its first words name the task. Not `git commit -m
      // "… test"`, `mkdir test` or `docker build -t app:test`.
      const bool script = word.find('/') != std::string::npos || prog == "bash" || prog == "sh";
      if (!script && std::find(kDrivers.begin(), kDrivers.end(), prog) == kDrivers.end()) return false;
      // Maven's lifecycle runs the tests in every phase from `test` on
      // (`mvn -Pprod clean install`), and Gradle's `build` runs `check`;
      // unless the command skips them (-DskipTests, -x test).
      if (prog == "mvn" || prog == "mvnw" || prog == "gradle" || prog == "gradlew") {
        const bool maven = prog == "mvn" || prog == "mvnw";
        bool phase = false;
        for (std::size_t w = k + 1; w < c.words.size(); ++w) {
          const std::string& a = c.words[w];
          // -DskipTests, -DskipTests=true, -Dmaven.test.skip; not -DskipTests=false.
          if ((a.find("skipTests") != std::string::npos || a.find("maven.test.skip") != std::string::npos) &&
              !a.ends_with("=false"))
            return false;
          if ((a == "-x" || a == "--exclude-task") && w + 1 < c.words.size()) {
            const std::string_view task = std::string_view(c.words[w + 1]).substr(c.words[w + 1].rfind(':') + 1);
            if (task == "test" || task == "check") return false;
          }
          // A task path's last part: `:app:build` is build.
          const std::string_view goal = std::string_view(a).substr(a.rfind(':') == std::string::npos ? 0 : a.rfind(':') + 1);
          if (maven ? (a == "package" || a == "install" || a == "deploy" || a == "integration-test")
                    : (goal == "build"))
            phase = true;
        }
        if (phase) return true;
      }
      int seen = 0;
      for (++k; k < c.words.size() && seen < 3; ++k) {
        const std::string& w = c.words[k];
        if (w.starts_with('-') || w.find_first_of(" \t") != std::string::npos) continue;  // an option, a quoted phrase
        ++seen;
        if (says_test(w)) return true;
      }
      return false;
    };
    for (const auto& script : scripts)
      for (const auto& c : shell_commands_of(without_heredocs(script))) {
        if (!c.program()) continue;
        if (command_tests(c)) return true;
        // A repository script the step runs (./ci/t.sh): what it runs, one level down.
        const std::string_view path = script_run_by(c);
        if (path.empty()) continue;
        auto rel = resolve_rel("", path);
        if (!rel) continue;
        // Each script is read once, whichever jobs run it (70 jobs running ci/go.sh are one read).
        if (auto known = script_tests_.find(*rel); known != script_tests_.end()) {
          if (known->second) return true;
          continue;
        }
        if (!ctx_.fs().is_file(*rel) || script_tests_.size() >= kMaxCiScripts) continue;
        bool tests = false;
        if (auto text = ctx_.fs().read_text(*rel, ctx_.fs().limits().max_source_bytes))
          for (const auto& inner : shell_commands_of(without_heredocs(*text)))
            if (inner.program() && command_tests(inner)) {
              tests = true;
              break;
            }
        script_tests_.emplace(*rel, tests);
        if (tests) return true;
      }
    return false;
  }
  std::map<std::string, bool> script_tests_;  // a repository script → whether it runs tests


  // The programs a job that runs the tests calls, which the runner's image
  // has and a sandbox may not (`psql … < schema.sql`, `xvfb-run`): build
  // needs, by the `programs` table. So are those of a shell script of the
  // repository's the job runs (`./refine e2e_tests`, `bash ci/test.sh`), read
  // once, not the scripts it runs in turn. Not git and jq, which CI steps run
  // for the checkout and the workflow's own outputs; not a curl that sends
  // (a coverage upload tests nothing).
  void ci_programs(const std::string& rel, const std::string& where, const std::vector<ShellCommand>& commands,
                   const std::string& dir) {
    // The directory commands run in, as `cd` moves it (relative moves only;
    // nullopt once it is somewhere strata cannot follow, such as `cd $HOME`).
    auto moved = [](const ShellCommand& c, std::optional<std::string>& cwd) {
      if (program_base(*c.program()) != "cd" && program_base(*c.program()) != "pushd") return false;
      const std::string target = c.start + 1 < c.words.size() ? c.words[c.start + 1] : "";
      if (cwd && !target.empty() && target.front() != '/' && target.front() != '~' &&
          target.find('$') == std::string::npos)
        cwd = resolve_rel(*cwd, target);
      else
        cwd.reset();
      if (cwd && cwd->size() > 512) cwd.reset();  // `cd a` ten thousand times deep: not followed
      return true;
    };
    auto need = [&](const ShellCommand& c, const std::string& file, const std::string& at,
                    const std::optional<std::string>& cwd) {
      std::string prog(program_base(*c.program()));
      if ((prog == "curl" && sends(c)) || prog == "git" || prog == "jq") return;
      Evidence ev{file, at, command_text(c)};
      program_need(prog, "ci:" + rel, ev);
      ci_containers(c, ev, cwd);
      // `cypress run --browser chrome` (also through npx/yarn): the browser is the system's.
      // One pass: the first `cypress run`, then its options.
      std::size_t k = c.start;
      while (k + 1 < c.words.size() && !(program_base(c.words[k]) == "cypress" && c.words[k + 1] == "run")) ++k;
      for (k += 2; k < c.words.size(); ++k) {
        const std::string& w = c.words[k];
        if ((w == "--browser" || w == "-b") && k + 1 < c.words.size()) {
          cypress_browser(c.words[k + 1], "ci:" + rel, ev);
          break;
        }
        if (w.starts_with("--browser=")) {
          cypress_browser(std::string_view(w).substr(10), "ci:" + rel, ev);
          break;
        }
      }
    };
    std::optional<std::string> cwd = dir;
    for (const auto& c : commands) {
      if (!c.program() || moved(c, cwd)) continue;
      need(c, rel, where, cwd);
      const std::string_view script = script_run_by(c);
      if (!cwd || script.empty()) continue;
      auto path = resolve_rel(*cwd, script);
      if (!path || ci_read_.contains(*path) || ci_read_.size() >= kMaxCiScripts) continue;
      std::string_view base = program_base(*path);
      if (base == "mvnw" || base == "gradlew") continue;  // the wrappers' downloads are the wrappers' hosts
      if (!ctx_.fs().is_file(*path)) continue;  // a tool the job installed, not a script of the repository
      ci_read_.insert(*path);
      auto text = ctx_.fs().read_text(*path, ctx_.fs().limits().max_source_bytes);
      if (!text) continue;
      std::string_view first = str::trim(std::string_view(*text).substr(0, text->find('\n')));
      bool shell = path->ends_with(".sh") || (first.starts_with("#!") && (first.ends_with("sh") || first.ends_with("bash") ||
                                                                         first.find("/sh ") != std::string_view::npos ||
                                                                         first.find("bash ") != std::string_view::npos));
      if (!shell) continue;
      // The script runs in the caller's directory, and may move. Read whole
      // (a quoted string or a continuation spans lines); each command's line
      // is where its program's word is next found. A library it sources
      // (`source "${SCRIPT_DIR}/lib.sh"`, `. ./ci/env.sh`) runs in it too:
      // its commands are read the same way, one level deep.
      std::vector<std::string> sourced;
      auto read_commands = [&](const std::string& file, const std::string& text, std::optional<std::string> script_cwd,
                               bool follow) {
        const std::string body = without_heredocs(text);
        std::size_t cursor = 0, line_no = 1;
        for (const auto& sc : shell_commands_of(body)) {
          if (!sc.program()) continue;
          // Looked for within the next 4 KiB only: a word the quotes rewrote
          // is not found, and each miss costs no more than that window.
          if (auto at = std::string_view(body).substr(cursor, 4u << 10).find(*sc.program()); at != std::string_view::npos) {
            at += cursor;
            line_no += static_cast<std::size_t>(std::count(body.begin() + static_cast<std::ptrdiff_t>(cursor),
                                                           body.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
            cursor = at;
          }
          const std::string at = "line " + std::to_string(line_no);
          package_manager_commands({sc}, file, at, at);
          if (follow && (*sc.program() == "source" || *sc.program() == ".") && sc.start + 1 < sc.words.size()) {
            if (auto lib = sourced_file(file, sc.words[sc.start + 1], script_cwd)) sourced.push_back(*lib);
            continue;
          }
          if (!moved(sc, script_cwd)) need(sc, file, at, script_cwd);
        }
      };
      read_commands(*path, *text, cwd, true);
      for (const auto& lib : sourced) {
        if (ci_read_.contains(lib) || ci_read_.size() >= kMaxCiScripts || !ctx_.fs().is_file(lib)) continue;
        ci_read_.insert(lib);
        if (auto lib_text = ctx_.fs().read_text(lib, ctx_.fs().limits().max_source_bytes))
          read_commands(lib, *lib_text, cwd, false);
      }
    }
  }

  // The repository file `source WORD` reads in a script: a path the
  // caller's directory resolves, or one that starts with a variable holding
  // the script's own directory (`${SCRIPT_DIR}/../lib.sh`,
  // `$(dirname "$0")/lib.sh`, `${BASH_SOURCE%/*}/lib.sh`), which is the
  // idiom for a library kept beside the script.
  std::optional<std::string> sourced_file(const std::string& script, std::string_view word,
                                          const std::optional<std::string>& cwd) {
    if (word.empty() || word.front() == '/' || word.front() == '~') return std::nullopt;
    if (word.front() != '$') return cwd ? resolve_rel(*cwd, word) : std::nullopt;
    std::size_t end = 1;
    if (word.size() > 1 && (word[1] == '{' || word[1] == '(')) {
      const char open = word[1], close = open == '{' ? '}' : ')';
      int depth = 0;
      for (end = 1; end < word.size(); ++end) {
        if (word[end] == open) ++depth;
        else if (word[end] == close && --depth == 0) break;
      }
      ++end;
    } else {
      while (end < word.size() && (std::isalnum(static_cast<unsigned char>(word[end])) || word[end] == '_')) ++end;
    }
    if (end >= word.size() || word[end] != '/' || word.find('$', end) != std::string_view::npos) return std::nullopt;
    const auto slash = script.rfind('/');
    return resolve_rel(slash == std::string::npos ? "." : script.substr(0, slash), word.substr(end + 1));
  }

  // Containers a test job starts: `docker run|pull|create IMAGE` and
  // `docker compose` / `docker-compose` `up|pull|run|create` with the compose
  // files it names (-f) or the default ones in the step's directory, whose
  // services' images — and the FROM images of services it builds — the
  // Docker daemon pulls while the job runs. Each compose file is read once.
  void ci_containers(const ShellCommand& c, const Evidence& ev, const std::optional<std::string>& dir) {
    std::string_view prog = program_base(*c.program());
    std::size_t k = c.start + 1;
    auto next_word = [&]() -> std::string_view {
      while (k < c.words.size() && c.words[k].starts_with('-')) ++k;
      return k < c.words.size() ? std::string_view(c.words[k]) : std::string_view();
    };
    if (prog == "docker") {
      std::string_view sub = next_word();
      if (sub == "container" || sub == "image") {  // docker container run, docker image pull
        ++k;
        sub = next_word();
      }
      if (sub == "build" || sub == "buildx") {
        // What the job builds itself (-t/--tag) is not pulled when it runs.
        for (++k; k + 1 < c.words.size(); ++k)
          if (c.words[k] == "-t" || c.words[k] == "--tag") ci_built_.insert(c.words[++k]);
          else if (c.words[k].starts_with("--tag=")) ci_built_.insert(c.words[k].substr(6));
        return;
      }
      if (sub == "run" || sub == "pull" || sub == "create") {
        // The image: the first word that is no option and no option's value.
        // Few docker run options take no value; every other one does.
        static constexpr std::array<std::string_view, 16> kFlags = {
            "--rm", "--detach", "--interactive", "--tty", "--init", "--privileged", "--read-only", "--publish-all",
            "--quiet", "--no-healthcheck", "--oom-kill-disable", "--all-tags", "--disable-content-trust", "--sig-proxy",
            "--help", "--use-api-socket"};
        for (++k; k < c.words.size(); ++k) {
          const std::string& w = c.words[k];
          if (!w.starts_with('-')) {
            if (!ci_built_.contains(w)) pulled(w, ev, "CI's test job starts a container from " + w);
            break;
          }
          const bool cluster = w.size() > 1 && w[1] != '-' &&
                               w.find_first_not_of("ditPqa", 1) == std::string::npos;  // -d, -it, -dit, -P, -q, -a
          if (w.find('=') != std::string::npos || cluster ||
              std::find(kFlags.begin(), kFlags.end(), w) != kFlags.end())
            continue;
          ++k;  // the option's value
        }
        return;
      }
      if (sub != "compose") return;
      ++k;
    } else if (prog != "docker-compose") {
      return;
    }
    std::vector<std::string> files;
    std::string_view action;
    std::optional<std::string> project_dir = dir;
    for (; k < c.words.size(); ++k) {
      const std::string& w = c.words[k];
      if ((w == "-f" || w == "--file") && k + 1 < c.words.size()) {
        files.push_back(c.words[++k]);
      } else if (w.starts_with("--file=")) {
        files.push_back(w.substr(7));
      } else if ((w == "-p" || w == "--project-name" || w == "--env-file" || w == "--profile" || w == "--ansi" ||
                  w == "--progress" || w == "--parallel") &&
                 k + 1 < c.words.size()) {
        ++k;
      } else if (w == "--project-directory" && k + 1 < c.words.size()) {
        // Compose files are found from there.
        auto moved_to = dir ? resolve_rel(*dir, c.words[++k]) : std::nullopt;
        if (!moved_to) return;
        project_dir = *moved_to;
      } else if (!w.starts_with('-')) {
        action = w;
        break;
      }
    }
    // Compose files are found from the directory the command runs in.
    if (!dir || !project_dir || (action != "up" && action != "pull" && action != "run" && action != "create")) return;
    // -f files from where the command runs; else the default one of the project directory.
    std::string from = *dir;
    if (files.empty()) {
      from = *project_dir;
      for (const char* n : {"compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"})
        if (auto f = resolve_rel(from, n); f && ctx_.fs().is_file(*f)) {
          files.emplace_back(n);  // resolved against `from` below, once
          break;
        }
    }
    for (const auto& f : files)
      if (auto path = resolve_rel(from, f)) compose_pulls(*path, ev);
  }

  void compose_pulls(const std::string& path, const Evidence& started) {
    if (!ci_compose_read_.insert(path).second || !ctx_.fs().is_file(path)) return;
    auto text = ctx_.fs().read_text(path);
    if (!text) return;
    auto parsed = yaml_doc(path, *text);
    if (!parsed || !parsed->IsMap() || !(*parsed)["services"] || !(*parsed)["services"].IsMap()) return;
    const std::string dir = dir_of(path);
    const std::string why = "CI's test job starts it with docker compose (" + started.file + ")";
    for (const auto& svc : (*parsed)["services"]) {
      const YAML::Node& sv = svc.second;
      if (!svc.first.IsScalar() || !sv.IsMap()) continue;
      const std::string field = "services." + svc.first.Scalar();
      if (sv["image"] && sv["image"].IsScalar() && !sv["build"]) {
        pulled(sv["image"].Scalar(), Evidence{path, field + ".image", sv["image"].Scalar()}, sv["image"].Scalar() + ": " + why);
        continue;
      }
      if (!sv["build"]) continue;
      auto [context, file] = compose_build(sv["build"]);
      if (context.empty()) continue;
      auto dockerfile = resolve_rel(dir, context + "/" + file);
      // Each Dockerfile once, however many services build it.
      if (!dockerfile || !ci_dockerfiles_read_.insert(*dockerfile).second || !ctx_.fs().is_file(*dockerfile)) continue;
      auto df = ctx_.fs().read_text(*dockerfile);
      if (!df) continue;
      // FROM [--platform=…] IMAGE [AS stage]: not an earlier stage's name.
      std::set<std::string> stages;
      std::size_t line_no = 0;
      for (auto raw : str::split(*df, '\n')) {
        ++line_no;
        auto words = str::split_ws(str::trim(raw));
        auto upper = [](std::string_view w) {
          std::string u(w);
          for (auto& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
          return u;
        };
        if (words.size() < 2 || upper(words[0]) != "FROM") continue;
        std::size_t w = 1;
        while (w < words.size() && words[w].starts_with("--")) ++w;
        if (w >= words.size()) continue;
        std::string image(words[w]);
        const bool earlier_stage = stages.contains(image);
        if (w + 2 < words.size() && upper(words[w + 1]) == "AS") stages.insert(std::string(words[w + 2]));
        if (earlier_stage) continue;
        pulled(image, Evidence{*dockerfile, "line " + std::to_string(line_no) + " FROM", image},
               image + ": the image " + field + " builds on; " + why);
      }
    }
  }

  void pulled(const std::string& image, const Evidence& ev, const std::string& why) {
    auto pull = image_pull(image);
    if (!pull) return;
    for (const auto& h : pull->hosts)
      ctx_.egress(h, EgressOrigin::kInstallTime, why + "; the Docker daemon pulls it", ev);
  }

  std::set<std::string> ci_compose_read_, ci_dockerfiles_read_, ci_built_;

  void program_need(const std::string& prog, const std::string& required_by, const Evidence& ev) {
    if (const auto* pkgs = kb_.program_packages(prog))
      for (const auto& pkg : *pkgs) ctx_.build_lib(pkg, required_by, ev);
  }

  // The browser a Cypress run drives, other than the Electron it ships:
  // Debian's Chromium for chrome (Google's Chrome is not in the archive),
  // Firefox ESR for firefox.
  void cypress_browser(std::string_view browser, const std::string& required_by, const Evidence& ev) {
    if (browser == "chrome" || browser == "chromium" || browser == "chrome:stable" || browser == "chrome:beta")
      program_need("chromium", required_by, ev);
    else if (browser == "firefox" || browser == "firefox:stable")
      program_need("firefox", required_by, ev);
  }

  // A shell script as its commands read it: here-document bodies
  // (`<<EOF` … `EOF`, `<<-'EOF'`) and `#` comments blanked, newlines kept so
  // line numbers hold. One pass that follows quotes across lines: `<<` in a
  // string, in `$((1<<BITS))` (not at a word's start) or in a comment opens
  // nothing.
  static std::string without_heredocs(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    bool sq = false, dq = false;
    std::vector<std::string> pending;  // delimiters opened on this line
    const std::size_t n = text.size();
    auto word_start = [&](std::size_t i) { return i == 0 || std::isspace(static_cast<unsigned char>(text[i - 1])); };
    for (std::size_t i = 0; i < n; ++i) {
      const char c = text[i];
      if (c == '\n') {
        out += '\n';
        // The bodies, in order, each up to its delimiter's own line.
        for (const auto& delim : pending) {
          while (i + 1 < n) {
            std::size_t e = text.find('\n', i + 1);
            std::string_view line = text.substr(i + 1, e == std::string_view::npos ? n - i - 1 : e - i - 1);
            i = e == std::string_view::npos ? n : e;
            if (e != std::string_view::npos) out += '\n';
            if (str::trim(line) == delim) break;
          }
        }
        pending.clear();
        continue;
      }
      if (!sq && c == '\\' && i + 1 < n) {
        out += c;
        out += text[++i];
        continue;
      }
      if (!dq && c == '\'') sq = !sq;
      else if (!sq && c == '"') dq = !dq;
      else if (!sq && !dq && c == '#' && word_start(i)) {
        while (i + 1 < n && text[i + 1] != '\n') ++i;
        continue;
      } else if (!sq && !dq && c == '<' && i + 1 < n && text[i + 1] == '<' && (i + 2 >= n || text[i + 2] != '<') &&
                 word_start(i)) {
        std::size_t j = i + 2;
        if (j < n && text[j] == '-') ++j;
        while (j < n && (text[j] == ' ' || text[j] == '\t')) ++j;
        if (j < n && (text[j] == '\'' || text[j] == '"')) ++j;
        std::size_t e = j;
        while (e < n && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_')) ++e;
        if (e > j && pending.size() < 16) pending.emplace_back(text.substr(j, e - j));
      }
      out += c;
    }
    return out;
  }

  static constexpr std::size_t kMaxCiScripts = 64;
  std::set<std::string> ci_read_;
  std::set<std::string> release_files_;                          // workflows run only to ship
  YAML::Node workflow_env_;                                      // the workflow being read's top-level env
  std::set<std::pair<std::string, std::string>> release_jobs_;  // (config, job) run only for tags

  // Whether a workflow's `on:` runs it only to ship: a release, a package
  // published, a deployment, or a push of tags alone (`on: push: tags: [v*]`);
  // workflow_dispatch beside them changes nothing. A push to branches, a pull
  // request, a schedule or a call from another workflow is not one.
  static bool release_triggers(const YAML::Node& on) {
    if (!on) return false;
    auto shipping = [](const std::string& event, const YAML::Node& filters) -> std::optional<bool> {
      if (event == "workflow_dispatch") return std::nullopt;  // neutral
      if (event == "release" || event == "registry_package" || event == "deployment" || event == "deployment_status")
        return true;
      if (event != "push" || !filters || !filters.IsMap()) return false;
      return filters["tags"] && !filters["branches"] && !filters["branches-ignore"];
    };
    std::vector<std::optional<bool>> seen;
    if (on.IsScalar()) seen.push_back(shipping(on.Scalar(), YAML::Node()));
    else if (on.IsSequence())
      for (const auto& e : on)
        if (e.IsScalar()) seen.push_back(shipping(e.Scalar(), YAML::Node()));
        else return false;
    else if (on.IsMap())
      for (const auto& kv : on)
        if (kv.first.IsScalar()) seen.push_back(shipping(kv.first.Scalar(), kv.second));
    bool any = false;
    for (const auto& s : seen) {
      if (s && !*s) return false;
      any = any || s.value_or(false);
    }
    return any;
  }

  // CircleCI jobs that every workflow listing them runs for tags only
  // (`filters: {branches: {ignore: /.*/}, tags: {only: …}}`): release jobs.
  static std::set<std::string> circleci_tag_only_jobs(const YAML::Node& doc) {
    std::map<std::string, bool> tag_only;  // job → every listing so far is tag-only
    const YAML::Node wfs = doc["workflows"];
    if (!wfs || !wfs.IsMap()) return {};
    for (const auto& wkv : wfs) {
      if (!wkv.second.IsMap() || !wkv.second["jobs"] || !wkv.second["jobs"].IsSequence()) continue;
      for (const auto& entry : wkv.second["jobs"]) {
        // The job is the entry's key (`- build: {name: build-release, …}`
        // runs the job `build` under another name).
        std::string name;
        YAML::Node config;
        if (entry.IsScalar()) name = entry.Scalar();
        else if (entry.IsMap() && entry.size() == 1 && entry.begin()->first.IsScalar()) {
          name = entry.begin()->first.Scalar();
          config.reset(entry.begin()->second);
        }
        if (name.empty()) continue;
        bool tags = false;
        if (config.IsDefined() && config.IsMap()) {
          const YAML::Node& c = config;  // const reads add no keys
          const YAML::Node f = c["filters"];
          const YAML::Node ignore = f && f.IsMap() && f["branches"] && f["branches"].IsMap() ? f["branches"]["ignore"] : YAML::Node();
          auto all = [](const YAML::Node& n) { return n.IsScalar() && (n.Scalar() == "/.*/" || n.Scalar() == "/.+/"); };
          if (ignore && ignore.IsScalar()) tags = all(ignore);
          else if (ignore && ignore.IsSequence())
            tags = std::any_of(ignore.begin(), ignore.end(), [&](const YAML::Node& n) { return all(n); });
        }
        auto [it, fresh] = tag_only.try_emplace(name, tags);
        if (!fresh) it->second = it->second && tags;
      }
    }
    std::set<std::string> out;
    for (const auto& [job, only] : tag_only)
      if (only) out.insert(job);
    return out;
  }

  // A CI job (or workflow) named for releasing, deploying, publishing, the
  // docs or linting, or run only to ship (release_triggers, tag-only CircleCI
  // jobs): what it installs builds or checks something else.
  bool test_job(const std::string& rel, const std::string& job, bool runs_tests = false) const {
    return job_kind(rel, job, runs_tests) == JobKind::kTest;
  }
  // Whether the job ships (a release, deploy, package or image job, or one
  // run only to ship): the runtime it sets up builds what is shipped, not
  // what is tested. A lint or docs job's runtime is still one the project
  // runs (rubygems.org sets up Node only to lint its JavaScript).
  bool release_job(const std::string& rel, const std::string& job, bool runs_tests = false) const {
    return job_kind(rel, job, runs_tests) == JobKind::kRelease;
  }
  enum class JobKind { kTest, kRelease, kOther };
  // In order: a job named for testing tests; a job run only to ship ships;
  // a job whose steps run the test suite tests, whatever its file is called
  // (GitHub's python-package.yml template); then the name's words.
  JobKind job_kind(const std::string& rel, const std::string& job, bool runs_tests) const {
    std::string words;  // publishDocs → publish-Docs: camelCase words count too
    for (char ch : rel + "/" + job) {
      if (std::isupper(static_cast<unsigned char>(ch)) && !words.empty() &&
          std::islower(static_cast<unsigned char>(words.back())))
        words += '-';
      words += ch;
    }
    // A name that says test (test-in-docker, e2e) is a test job whatever else it says.
    if (has_word(words, {"test", "tests", "testing", "spec", "specs", "e2e", "rspec", "phpunit", "pytest"}))
      return JobKind::kTest;
    if (release_files_.count(rel) || release_jobs_.count({rel, job})) return JobKind::kRelease;
    if (runs_tests) return JobKind::kTest;
    if (has_word(words, {"release", "releases", "deploy", "deployment", "publish", "package", "packaging", "docker",
                         "image", "images"}))
      return JobKind::kRelease;
    if (has_word(words, {"docs", "doc", "pages", "lint", "linter", "linting", "notify", "notification", "spellcheck",
                         "spelling"}))
      return JobKind::kOther;
    return JobKind::kTest;
  }

  // `apt-get install` in a CI job: build needs, except the services a job
  // starts for its tests (a database server is another machine's, as in
  // install docs) and what the runner's own image is (Ubuntu's names that
  // Debian lacks are left to the router, which says so).
  void ci_packages(const std::string& rel, const std::string& where, const std::vector<ShellCommand>& commands) {
    for (const auto& c : commands)
      for (const auto& [name, apk] : installed_packages({c})) {
        if (apk || ci_service(name)) continue;
        ctx_.build_lib(name, "ci:" + rel, Evidence{rel, where, command_text(c)});
      }
  }

  // A server a CI job starts for its tests: postgresql, postgresql-16,
  // postgresql-contrib, mysql-server-8.0, redis-server, mongodb-org,
  // docker-ce … (postgresql-client, a program the tests run, is not one).
  static bool ci_service(const std::string& name) {
    static constexpr std::array<std::string_view, 9> kExact = {
        "postgresql", "postgresql-contrib", "redis", "memcached", "nginx", "apache2", "docker.io", "containerd",
        "default-mysql-server"};
    static constexpr std::array<std::string_view, 6> kPrefixes = {"mysql-server", "mariadb-server", "mongodb",
                                                                  "docker-", "rabbitmq-server", "elasticsearch"};
    if (std::find(kExact.begin(), kExact.end(), name) != kExact.end()) return true;
    if (name.starts_with("postgresql-") && name.size() > 11 && std::isdigit(static_cast<unsigned char>(name[11])))
      return true;
    if (name.ends_with("-server")) return true;  // redis-server, openssh-server, …
    return std::any_of(kPrefixes.begin(), kPrefixes.end(), [&](std::string_view p) { return name.starts_with(p); });
  }

  // CircleCI (.circleci/config.yml): each job's docker images (the first is
  // where the steps run: `cimg/php:8.2.5` tests PHP 8.2.5) and its `run` steps.
  void circleci_config(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    auto parsed = yaml_doc(rel, *text);
    if (!parsed) return;
    const YAML::Node doc = *parsed;
    if (!doc.IsMap() || !doc["jobs"] || !doc["jobs"].IsMap()) return;
    try {
      for (const auto& job : circleci_tag_only_jobs(doc)) release_jobs_.insert({rel, job});
      for (const auto& jkv : doc["jobs"]) {
        if (!jkv.first.IsScalar() || !jkv.second.IsMap()) continue;
        const std::string job = jkv.first.Scalar();
        const YAML::Node& j = jkv.second;
        const bool has_steps = j["steps"] && j["steps"].IsSequence();
        auto script_of = [](const YAML::Node& step) -> std::optional<std::string> {
          if (!step.IsMap() || !step["run"]) return std::nullopt;
          const YAML::Node& run = step["run"];
          if (run.IsScalar()) return run.Scalar();
          if (run.IsMap() && run["command"] && run["command"].IsScalar()) return run["command"].Scalar();
          return std::nullopt;
        };
        std::vector<std::string> scripts;
        if (has_steps)
          for (const auto& step : j["steps"])
            if (auto s = script_of(step)) scripts.push_back(*s);
        const bool suite = runs_tests(scripts);
        const bool tests = test_job(rel, job, suite);
        if (tests && j["docker"] && j["docker"].IsSequence() && j["docker"].size() > 0 && j["docker"][0].IsMap() &&
            j["docker"][0]["image"] && j["docker"][0]["image"].IsScalar())
          image(rel, "jobs." + job + ".docker[0].image", j["docker"][0]["image"].Scalar(), ConstraintKind::kTested);
        if (!has_steps) continue;
        const bool programs = tests && !circleci_other_os(j) && suite;
        std::size_t i = 0;
        for (const auto& step : j["steps"]) {
          std::string base = "jobs." + job + ".steps[" + std::to_string(i++) + "].run";
          if (auto s = script_of(step)) ci_script(rel, base, *s, tests, "", programs);
        }
      }
    } catch (const YAML::Exception& e) {
      ctx_.warn(rel, std::string("unexpected CircleCI config shape, partly read: ") + e.what());
    }
  }

  ScanContext& ctx_;
  const KnowledgeBase& kb_;
};

}  // namespace

bool build_env_file(std::string_view name) {
  return dockerfile_name(name) || name.ends_with(".yml") || name.ends_with(".yaml") || name == "devcontainer.json" ||
         name == ".devcontainer.json" || name.ends_with(".md") || name.ends_with(".rst") || name == "INSTALL";
}

void scan_build_envs(ScanContext& ctx) { BuildEnvScanner(ctx).run(); }

}  // namespace strata::contract
