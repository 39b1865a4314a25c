// plan, preflight and provision through the binary, on real images and a
// real archive: the toolchain fixture archive (testdata/toolchain: a C
// compiler that compiles, runtimes at known versions) served on loopback,
// and bases imported from tests/support/make_overlay_base.sh (the host's
// libc, no compiler, no shell) — one plain, one whose ENV advertises an old
// Node, as a stale official image would.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_test.hpp"
#include "support/served_archive.hpp"
#include "support/served_toolchains.hpp"
#include "support/json_run.hpp"
#include "support/source_dir.hpp"
#include "util/sha.hpp"

namespace strata::testing {
namespace {

namespace stdfs = std::filesystem;

class DecisionFixture {
 public:
  static DecisionFixture& get() {
    static DecisionFixture* f = [] {
      auto* fx = new DecisionFixture;
      stdfs::path source = source_dir();
      char tmpl[] = "/tmp/strata-decide-XXXXXX";
      fx->root = ::mkdtemp(tmpl);
      must((source / "tests/support/make_overlay_base.sh").string() + " " + (fx->root / "base.tar").string());
      const std::string import = "SOURCE_DATE_EPOCH=1700000000 STRATA_HOME=" + (fx->root / "home").string() + " " +
                                 strata_binary() + " -q import " + (fx->root / "base.tar").string() +
                                 " --platform linux/amd64 --dest oci:" + (fx->root / "images").string();
      must(import + ":base >/dev/null");
      must(import + ":stale --change 'ENV NODE_VERSION=18.0.0' >/dev/null");
      fx->archive = std::make_unique<ServedArchive>(fx->root / "archive", source / "testdata/toolchain");
      fx->sources = fx->archive->write_sources(fx->root / "toolchain.list").string();
      fx->toolchains = std::make_unique<ServedToolchains>(fx->root / "dist");
      return fx;
    }();
    return *f;
  }
  std::string image(const std::string& tag) const { return "oci:" + (root / "images").string() + ":" + tag; }
  // `--base scratch`: the scratch fixture archive (testdata/scratch: its
  // Essential and required packages make the minbase) beside the toolchain
  // archive, served once, for the tests that start from scratch.
  const std::vector<std::string>& scratch_sources() {
    if (scratch_archive) return scratch_lists;
    scratch_archive = std::make_unique<ServedArchive>(root / "scratch-archive", source_dir() / "testdata/scratch");
    scratch_lists = {"--sources", scratch_archive->write_sources(root / "scratch.list").string(), "--sources", sources};
    return scratch_lists;
  }

  stdfs::path root;
  std::unique_ptr<ServedArchive> archive;
  std::string sources;
  std::unique_ptr<ServedToolchains> toolchains;  // official release layouts (stand-in runtimes, a test key)
  std::unique_ptr<ServedArchive> scratch_archive;
  std::vector<std::string> scratch_lists;  // --sources scratch.list --sources toolchain.list
};

std::string repo(const std::string& name) { return (source_dir() / "testdata/repos" / name).string(); }

std::string last_line(const std::string& out) {
  auto end = out.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  auto start = out.rfind('\n', end);
  return out.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

class DecisionCli : public CliTest {
 protected:
  // The image a provision wrote into `layout` (its digest from --json),
  // unpacked with umoci into dir_/b: the root and the config's environment.
  struct Unpacked {
    stdfs::path root;
    std::string env;
  };
  Unpacked unpack_provisioned(const std::string& layout, const std::string& digest) {
    const std::string tag = sh("jq -r '.manifests[] | select(.digest == \"" + digest +
                               "\") | .annotations[\"org.opencontainers.image.ref.name\"]' " + layout + "/index.json");
    EXPECT_TRUE(tag.starts_with("provision-")) << tag;
    auto unpack = run({"umoci", "unpack", "--rootless", "--image", layout + ":" + tag.substr(0, tag.find('\n')),
                       (dir_ / "b").string()});
    EXPECT_EQ(unpack.code, 0) << unpack.err;
    auto config = nlohmann::json::parse(std::ifstream(dir_ / "b/config.json"));
    return {dir_ / "b/rootfs", config["process"]["env"].dump()};
  }
  // The fixture base has no shell: the host's bash, dash as /bin/sh (the
  // stand-in runtimes are scripts) and /etc/profile, as any base with a
  // shell has them, so `bash -lc` finds what a login shell would.
  void add_login_shell(const stdfs::path& root) {
    must("cp -L /bin/bash /bin/dash '" + root.string() + "/bin/' && ln -sf dash '" + root.string() +
         "/bin/sh' && mkdir -p '" + root.string() + "/etc' && cp /etc/profile '" + root.string() +
         "/etc/profile' && for l in $(ldd /bin/bash | awk '/=>/{print $3}'); do cp -Ln \"$l\" '" + root.string() +
         "'\"$(dirname $l)\"/; done");
  }
  DecisionFixture& fx_ = DecisionFixture::get();
  std::vector<std::string> preflight(const std::string& image, const std::string& name) {
    return {"preflight", "--image", image, "--repo", repo(name), "--sources", fx_.sources, "--platform", "linux/amd64"};
  }
  std::vector<std::string> provision(const std::string& name, const std::string& dest) {
    return {"provision", repo(name), "--base", fx_.image("base"), "--sources", fx_.sources, "--platform",
            "linux/amd64", "--dest", dest};
  }
  // COMMAND ARGS… --sources (the scratch and toolchain archives) --platform linux/amd64.
  std::vector<std::string> from_scratch(std::vector<std::string> args) {
    const auto& lists = fx_.scratch_sources();
    args.insert(args.end(), lists.begin(), lists.end());
    args.insert(args.end(), {"--platform", "linux/amd64"});
    return args;
  }

};

TEST_F(DecisionCli, PreflightOnABaseWithoutCcListsEveryGapInOneMessage) {
  auto r = strata(preflight(fx_.image("base"), "c-make-hello"));
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one message: " << r.err;
  EXPECT_NE(r.err.find("needs a C toolchain (overlay "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("has no cc, no make — run: strata provision " + repo("c-make-hello") + " --base " +
                       fx_.image("base")),
            std::string::npos)
      << r.err;

  // A Node monorepo compiling @vscode/sqlite3: every gap at once, the task
  // toolchain named as such, not as a gap.
  auto node = strata(preflight(fx_.image("base"), "real-ts-monorepo-vscode-sqlite3"));
  EXPECT_EQ(node.code, 3);
  ASSERT_EQ(std::count(node.err.begin(), node.err.end(), '\n'), 1) << node.err;
  for (const char* part : {"node >=20.18.0 (task toolchain)", "npm >=7.0.0 (project bootstrap)",
                           "egress registry.npmjs.org", "no cc", "no make", "no python3", "no g++"}) {
    EXPECT_NE(node.err.find(part), std::string::npos) << part << " in " << node.err;
  }

  // --json: the same as data.
  auto args = preflight(fx_.image("base"), "c-make-hello");
  args.insert(args.begin(), "--json");
  auto j = strata(args);
  EXPECT_EQ(j.code, 3);
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_FALSE(doc["ok"].get<bool>());
  ASSERT_EQ(doc["gaps"].size(), 1u) << j.out;  // one row: the C toolchain, with both commands
  EXPECT_EQ(doc["gaps"][0]["kind"], "missing");
  EXPECT_EQ(doc["gaps"][0]["found"], "no cc, no make");
}

TEST_F(DecisionCli, ProvisionBuildsAnOverlayThatCompilesAndTheSecondRunIsAHit) {
  const std::string layout = (dir_ / "out").string();
  auto args = provision("c-make-hello", "oci:" + layout);
  args.insert(args.begin(), "--json");
  auto first = strata(args);
  ASSERT_EQ(first.code, 0) << first.err;
  auto doc = nlohmann::json::parse(first.out);
  EXPECT_FALSE(doc["cached"].get<bool>());
  EXPECT_TRUE(doc["overlay"].get<bool>());
  EXPECT_EQ(doc["plan"]["overlay"]["packages"], nlohmann::json::array({"build-essential"}));
  EXPECT_TRUE(doc["preflight"]["ok"].get<bool>()) << first.out;
  const std::string key = doc["key"].get<std::string>();
  const std::string digest = doc["digest"].get<std::string>();
  // A layout's image by its tag (skopeo and umoci read `oci:DIR:TAG`, not
  // `oci:DIR:sha256:…`); the digest stays in --json, and strata's pinned form.
  EXPECT_EQ(doc["reference"], "oci:" + layout + ":overlay-" + key);
  EXPECT_EQ(doc["pinned"], "oci:" + layout + ":overlay-" + key + "@" + digest);
  auto skopeo = run({"skopeo", "inspect", "--raw", doc["reference"].get<std::string>()});
  ASSERT_EQ(skopeo.code, 0) << skopeo.err;
  EXPECT_EQ("sha256:" + sha256_hex(skopeo.out), digest);
  auto stat = run({"umoci", "stat", "--image", layout + ":overlay-" + key});
  EXPECT_EQ(stat.code, 0) << stat.err;
  auto pinned = strata({"inspect", "--raw", doc["pinned"].get<std::string>()});
  ASSERT_EQ(pinned.code, 0) << pinned.err;
  EXPECT_EQ(pinned.out, skopeo.out);

  // The image it returns compiles and runs a C program (tcc behind cc, make
  // running the recipe without a shell).
  auto unpack = run({"umoci", "unpack", "--rootless", "--image", layout + ":overlay-" + key, (dir_ / "b").string()});
  ASSERT_EQ(unpack.code, 0) << unpack.err;
  stdfs::path root = dir_ / "b/rootfs";
  stdfs::create_directories(root / "src");
  for (const char* f : {"Makefile", "hello.c"}) stdfs::copy_file(repo("c-make-hello") + "/" + f, root / "src" / f);
  auto made = run({"chroot", root.string(), "/usr/bin/make", "-C", "/src", "hello"});
  ASSERT_EQ(made.code, 0) << made.out << made.err;
  EXPECT_EQ(sh("chroot " + root.string() + " /src/hello"), "hello from a provisioned image: sqrt(2) = 1.414\n");

  // Nothing changed: a cache hit with the same digest; the reference is the last line.
  auto second = strata(provision("c-make-hello", "oci:" + layout));
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(last_line(second.out), "oci:" + layout + ":overlay-" + key);
  EXPECT_NE(second.err.find("overlay found by its key " + key), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("(pinned: oci:" + layout + ":overlay-" + key + "@" + digest + ")"), std::string::npos)
      << second.err;

  // Pre-flight of what provision returned passes.
  auto ok = strata(preflight(last_line(second.out), "c-make-hello"));
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("ok: "), std::string::npos) << ok.out;
}

TEST_F(DecisionCli, PrewarmOfARepositoryBuildsTheOverlayProvisionThenFinds) {
  // A pre-warm job names repositories, not packages: each is scanned and
  // routed as provision would, so the key it warms is the key provision
  // looks up; a repository the base already satisfies needs no overlay.
  const std::string layout = (dir_ / "cache").string();
  const stdfs::path config = dir_ / "prewarm.yaml";
  std::ofstream(config) << "cache: oci:" << layout << "\nplatforms: [linux/amd64]\nsources: [" << fx_.sources
                        << "]\nrepos:\n  - {path: " << repo("c-make-hello") << ", base: " << fx_.image("base")
                        << "}\n  - {path: " << repo("node-plain") << ", base: " << fx_.image("stale")
                        << "}\n  - {path: " << repo("c-make-hello") << ", base: " << fx_.image("base") << "}\n";
  // A dry run before the cache exists: an empty cache, every key would be
  // built, and nothing is created.
  auto dry = strata({"cache", "prewarm", "--dry-run", "--json", "--config", config.string()});
  ASSERT_EQ(dry.code, 0) << dry.err;
  auto planned = nlohmann::json::parse(dry.out);
  ASSERT_EQ(planned["overlays"].size(), 2u) << dry.out;
  EXPECT_EQ(planned["overlays"][0]["state"], "would-build");
  EXPECT_NE(dry.err.find("does not exist yet"), std::string::npos) << dry.err;
  EXPECT_FALSE(stdfs::exists(layout));

  auto warm = strata({"cache", "prewarm", "--json", "--config", config.string()});
  ASSERT_EQ(warm.code, 0) << warm.err;
  auto doc = nlohmann::json::parse(warm.out);
  ASSERT_EQ(doc["overlays"].size(), 2u) << warm.out;
  EXPECT_EQ(doc["overlays"][0]["state"], "built");
  EXPECT_EQ(doc["overlays"][0]["entries"].size(), 2u) << "the same repository twice is one key";
  EXPECT_EQ(doc["overlays"][1]["state"], "no-overlay");
  EXPECT_TRUE(doc["overlays"][1]["key"].is_null());
  const std::string key = doc["overlays"][0]["key"].get<std::string>();

  auto args = provision("c-make-hello", "oci:" + layout);
  args.insert(args.begin(), "--json");
  auto hit = strata(args);
  ASSERT_EQ(hit.code, 0) << hit.err;
  auto p = nlohmann::json::parse(hit.out);
  EXPECT_TRUE(p["cached"].get<bool>()) << "provision finds what prewarm built";
  EXPECT_EQ(p["key"], key);
  EXPECT_EQ(p["digest"], doc["overlays"][0]["digest"]);

  // A repository that cannot be scanned fails its entry, naming it.
  std::ofstream(config) << "cache: oci:" << layout << "\nsources: [" << fx_.sources << "]\nrepos:\n  - {path: "
                        << (dir_ / "no-such-repo").string() << ", base: " << fx_.image("base") << "}\n";
  auto bad = strata({"cache", "prewarm", "--config", config.string()});
  EXPECT_EQ(bad.code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("failed"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("repos[0]"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("no-such-repo"), std::string::npos) << bad.out;
}

TEST_F(DecisionCli, AStaleNodeVersionInEnvIsAGapEvenWithATaskToolchain) {
  auto r = strata(preflight(fx_.image("stale"), "real-ts-monorepo-vscode-sqlite3"));
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("a stale node: the image has node 18.0.0 (ENV NODE_VERSION=18.0.0), below >=20.18.0,"),
            std::string::npos)
      << r.err;
  // The plain base has no node at all: nothing stale there.
  auto plain = strata(preflight(fx_.image("base"), "real-ts-monorepo-vscode-sqlite3"));
  EXPECT_EQ(plain.err.find("stale"), std::string::npos) << plain.err;
}

TEST_F(DecisionCli, ARepoThatNeedsNothingBeyondTheBaseProvisionsTheBaseItself) {
  // node >=18 on the image whose ENV says Node 18.0.0; npm is the project's own.
  auto args = provision("node-plain", "oci:" + (dir_ / "unused").string());
  args[3] = fx_.image("stale");
  args.insert(args.begin(), "--json");
  auto r = strata(args);
  ASSERT_EQ(r.code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_FALSE(doc["overlay"].get<bool>());
  EXPECT_TRUE(doc["key"].is_null());
  EXPECT_TRUE(doc["plan"]["overlay"].is_null());
  EXPECT_EQ(doc["reference"], fx_.image("stale"));
  EXPECT_EQ(doc["pinned"], fx_.image("stale") + "@" + doc["digest"].get<std::string>());
  EXPECT_TRUE(doc["preflight"]["ok"].get<bool>());
  EXPECT_EQ(doc["preflight"]["satisfied"], nlohmann::json::array({"node >=18.0.0: ENV NODE_VERSION=18.0.0"}));
  // No overlay: the destination is never opened, so a layout is not created there.
  EXPECT_FALSE(std::filesystem::exists(dir_ / "unused"));
}

TEST_F(DecisionCli, AnEgressPolicyMustAllowEveryNeededHost) {
  // node-plain on the image that has its Node: only egress is left to check.
  auto policy = [&](const std::string& hosts) {
    auto file = dir_ / "policy.json";
    std::ofstream(file) << R"({"kind": "strata-egress-policy", "version": 1, "repo": "r", "contract_digest": "sha256:00",
      "strata_version": "0.1.0", "include": "all", "hosts": [)" << hosts << "]}";
    return file.string();
  };
  auto args = preflight(fx_.image("stale"), "node-plain");
  args.insert(args.end(), {"--egress-policy", policy(R"({"host": "example.org", "methods": ["GET", "HEAD"]})")});
  auto denied = strata(args);
  EXPECT_EQ(denied.code, 3);
  EXPECT_NE(denied.err.find("registry.npmjs.org not allowed by "), std::string::npos) << denied.err;
  args.back() = policy(R"({"host": "registry.npmjs.org", "methods": ["GET", "HEAD"]})");
  auto allowed = strata(args);
  EXPECT_EQ(allowed.code, 0) << allowed.err;
  args.back() = (dir_ / "missing.json").string();
  EXPECT_EQ(strata(args).code, 2) << "a missing policy file is a usage error";
}

TEST_F(DecisionCli, FactsAreCachedByManifestDigest) {
  auto args = preflight(fx_.image("stale"), "node-plain");
  args.insert(args.begin(), "--json");
  auto r = strata(args);
  ASSERT_EQ(r.code, 0) << r.err;
  std::string digest = nlohmann::json::parse(r.out)["image_digest"];
  auto entry = dir_ / "home/facts" / ("sha256-" + digest.substr(7) + ".json");
  ASSERT_TRUE(stdfs::exists(entry));
  auto facts = nlohmann::json::parse(slurp(entry));
  EXPECT_EQ(facts["runtimes"][0]["source"], "ENV NODE_VERSION=18.0.0");
  EXPECT_EQ(facts["packages"]["base-files"], "12.4");
  // A damaged entry is read again from the layers, not trusted.
  std::ofstream(entry) << "{not json";
  EXPECT_EQ(strata(args).code, 0);
  EXPECT_EQ(nlohmann::json::parse(slurp(entry))["manifest_digest"], digest);
}

TEST_F(DecisionCli, PlanPrintsATableOrOneJsonDocument) {
  auto text = strata({"plan", repo("c-make-hello"), "--base", fx_.image("base"), "--sources", fx_.sources,
                      "--platform", "linux/amd64"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(text.out.starts_with("KIND ")) << text.out;
  EXPECT_NE(text.out.find("toolchain  native build  cc make  overlay"), std::string::npos) << text.out;
  auto json = strata({"--json", "plan", repo("c-make-hello"), "--base", fx_.image("base"), "--sources", fx_.sources,
                      "--platform", "linux/amd64"});
  ASSERT_EQ(json.code, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_TRUE(doc["contract_digest"].get<std::string>().starts_with("sha256:"));
  EXPECT_EQ(doc["overlay"]["base"], fx_.image("base"));
  EXPECT_EQ(doc["overlay"]["key"].get<std::string>().size(), 64u);
}


// strata installs a task toolchain as a layer (provision), so an image
// without it has a gap whose fix names the toolchain and its source;
// --no-toolchain-layer (the task brings its runtimes) keeps it a task-time
// row. --toolchain-source moves the download and its host.
TEST_F(DecisionCli, ATaskToolchainIsAGapNamingItsSourceUnlessTheTaskBringsIt) {
  auto r = strata(preflight(fx_.image("base"), "real-ts-monorepo-vscode-sqlite3"));
  EXPECT_EQ(r.code, 3);
  ASSERT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("no node >=20.18.0,"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(", toolchain node 20.18.0 from https://nodejs.org/dist)"), std::string::npos) << r.err;

  auto args = preflight(fx_.image("base"), "real-ts-monorepo-vscode-sqlite3");
  args.insert(args.end(), {"--toolchain-source", "node=npm"});
  auto npm = strata(args);
  EXPECT_EQ(npm.code, 3);
  EXPECT_NE(npm.err.find("toolchain node 20.18.0 from npm:https://registry.npmjs.org)"), std::string::npos) << npm.err;
  EXPECT_NE(npm.err.find("--toolchain-source node=npm"), std::string::npos) << "the fix repeats it: " << npm.err;

  args = preflight(fx_.image("base"), "real-ts-monorepo-vscode-sqlite3");
  args.push_back("--no-toolchain-layer");
  auto task = strata(args);
  EXPECT_EQ(task.code, 3) << "the C toolchain is still missing";
  EXPECT_EQ(task.err.find("no node"), std::string::npos) << task.err;
  EXPECT_NE(task.err.find("node >=20.18.0 (task toolchain)"), std::string::npos) << task.err;

  auto plan = strata({"--json", "plan", repo("real-ts-monorepo-vscode-sqlite3"), "--base", fx_.image("base"),
                      "--sources", fx_.sources, "--platform", "linux/amd64", "--toolchain-source",
                      "node=https://mirror.example/node/"});
  ASSERT_EQ(plan.code, 0) << plan.err;
  auto doc = nlohmann::json::parse(plan.out);
  EXPECT_EQ(doc["rows"][0]["toolchain"]["source"], "https://mirror.example/node");
  EXPECT_EQ(doc["rows"][0]["toolchain"]["url"], "https://mirror.example/node/v20.18.0/node-v20.18.0-linux-x64.tar.xz");
  EXPECT_EQ(doc["rows"][0]["toolchain"]["hosts"], nlohmann::json::array({"mirror.example"}));
  auto text = strata({"plan", repo("real-ts-monorepo-vscode-sqlite3"), "--base", fx_.image("base"), "--sources",
                      fx_.sources, "--platform", "linux/amd64"});
  EXPECT_NE(text.out.find("toolchain: node 20.18.0 from https://nodejs.org/dist (nodejs.org)"), std::string::npos)
      << text.out;

  for (const auto& [value, why] : std::vector<std::pair<std::string, std::string>>{
           {"node", "--toolchain-source node: expected TOOL=npm|URL"},
           {"go=npm", "--toolchain-source go=npm: the npm registry carries node only"},
           {"node=ftp://mirror/node", "--toolchain-source node=ftp://mirror/node: not an https:// or http:// URL"},
           {"cmake=https://mirror/", "--toolchain-source cmake=https://mirror/: cmake has no task toolchain"}}) {
    args = preflight(fx_.image("base"), "real-ts-monorepo-vscode-sqlite3");
    args.insert(args.end(), {"--toolchain-source", value});
    auto bad = strata(args);
    EXPECT_EQ(bad.code, 2) << value << ": " << bad.err;
    EXPECT_NE(bad.err.find(why), std::string::npos) << bad.err;
  }
}

// `egress render` grants the contract's hosts; with --base also the hosts
// its plan adds (the task toolchain's nodejs.org), so pre-flight with that
// policy against the same base passes.
TEST_F(DecisionCli, EgressRenderWithABaseGrantsThePlansHosts) {
  const auto repo_dir = dir_ / "node22";
  stdfs::create_directories(repo_dir);
  std::ofstream(repo_dir / "package.json") << R"({"name": "n", "private": true, "engines": {"node": ">=22.0.0"}})";
  const std::vector<std::string> plan_opts = {"--sources", fx_.sources, "--platform", "linux/amd64"};
  auto render = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> args = {"egress", "render", "--repo", repo_dir.string(), "--format", "json", "-o", out};
    args.insert(args.end(), extra.begin(), extra.end());
    return strata(args);
  };
  auto check = [&](const std::string& policy, std::vector<std::string> extra) {
    std::vector<std::string> args = {"preflight", "--image", fx_.image("base"), "--repo", repo_dir.string(),
                                     "--egress-policy", policy};
    args.insert(args.end(), plan_opts.begin(), plan_opts.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return strata(args);
  };

  const std::string contract_only = (dir_ / "contract.json").string();
  ASSERT_EQ(render(contract_only, {}).code, 0);
  auto denied = check(contract_only, {"--no-toolchain-layer"});
  EXPECT_EQ(denied.code, 3);
  EXPECT_NE(denied.err.find("nodejs.org not allowed by "), std::string::npos) << denied.err;

  // With toolchain layers (the default) strata downloads node when it
  // provisions: the task's policy needs no nodejs.org.
  std::vector<std::string> extra = {"--base", fx_.image("base")};
  extra.insert(extra.end(), plan_opts.begin(), plan_opts.end());
  const std::string layered = (dir_ / "layered.json").string();
  ASSERT_EQ(render(layered, extra).code, 0);
  std::ifstream in0(layered);
  const std::string layered_text((std::istreambuf_iterator<char>(in0)), std::istreambuf_iterator<char>());
  EXPECT_EQ(layered_text.find("nodejs.org"), std::string::npos) << layered_text;

  // A task that installs node itself reaches the source: the policy grants it.
  const std::string with_plan = (dir_ / "plan.json").string();
  extra.push_back("--no-toolchain-layer");
  auto rendered = render(with_plan, extra);
  ASSERT_EQ(rendered.code, 0) << rendered.err;
  std::ifstream in(with_plan);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"nodejs.org\""), std::string::npos) << text;
  EXPECT_NE(text.find("task toolchain node 22.0.0"), std::string::npos) << text;
  auto allowed = check(with_plan, {"--no-toolchain-layer"});
  EXPECT_EQ(allowed.code, 0) << allowed.err;

  // Through the npm registry: no nodejs.org in the plan, nor in the policy.
  const std::string via_npm = (dir_ / "npm.json").string();
  extra.insert(extra.end(), {"--toolchain-source", "node=npm"});
  ASSERT_EQ(render(via_npm, extra).code, 0);  // still --no-toolchain-layer
  std::ifstream in2(via_npm);
  const std::string npm_text((std::istreambuf_iterator<char>(in2)), std::istreambuf_iterator<char>());
  EXPECT_EQ(npm_text.find("nodejs.org"), std::string::npos) << npm_text;
  EXPECT_EQ(check(via_npm, {"--no-toolchain-layer", "--toolchain-source", "node=npm"}).code, 0);

  auto usage = render(via_npm, {"--toolchain-source", "node=npm"});
  EXPECT_EQ(usage.code, 2) << "the plan's options need --base: " << usage.err;
}

}  // namespace
}  // namespace strata::testing

namespace strata::testing {
namespace {

// The design's own story: a TypeScript monorepo whose workspace compiles
// @vscode/sqlite3 and needs Node >= 20.18 on a base with no Node. The plan
// routes node to a task toolchain; provision now delivers it — the overlay
// (cc, make, python3) and a toolchain layer of the release from the source
// (here the fixture's official layout, its SHASUMS signed by a test key) —
// and pre-flights what it built.
TEST_F(DecisionCli, TheStoryProvisionsNodeAsAToolchainLayerThatALoginShellFinds) {
  const std::string layout = (dir_ / "out").string();
  auto args = provision("real-ts-monorepo-vscode-sqlite3", "oci:" + layout);
  args.insert(args.end(), {"--toolchain-source", "node=" + fx_.toolchains->url("node"), "--toolchain-keyring",
                           "node=" + fx_.toolchains->keyring().string()});
  auto with_json = args;
  with_json.insert(with_json.begin(), "--json");
  auto first = strata(with_json);
  ASSERT_EQ(first.code, 0) << first.err;
  auto doc = nlohmann::json::parse(first.out);
  ASSERT_EQ(doc["toolchains"].size(), 1u) << first.out;
  EXPECT_EQ(doc["toolchains"][0]["release"], "20.18.0") << "the newest 20.x the index lists, not the floor";
  EXPECT_FALSE(doc["toolchains"][0]["cached"].get<bool>());
  EXPECT_TRUE(doc["preflight"]["ok"].get<bool>()) << first.out;
  const std::string reference = doc["reference"].get<std::string>();
  const std::string digest = doc["digest"].get<std::string>();

  // Pre-flight of the result passes on its own; the node row is the image's now.
  auto pre_args = preflight(reference, "real-ts-monorepo-vscode-sqlite3");
  pre_args.insert(pre_args.begin(), "--json");
  auto pre = strata(pre_args);
  EXPECT_EQ(pre.code, 0) << pre.err;
  EXPECT_NE(pre.out.find("node >=20.18.0: file /opt/strata/toolchains/node/20.18.0/include/node/node_version.h"),
            std::string::npos)
      << pre.out;

  // The image: the toolchain under /opt/strata, linked from /usr/local/bin,
  // its PATH and node-gyp's nodedir in the config, an annotation naming it.
  auto [root, env] = unpack_provisioned(layout, digest);
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(stdfs::read_symlink(root / "usr/local/bin/node"), "/opt/strata/toolchains/node/20.18.0/bin/node");
  EXPECT_TRUE(stdfs::exists(root / "opt/strata/toolchains/node/20.18.0/include/node/common.gypi"));
  EXPECT_NE(env.find("PATH=/opt/strata/toolchains/node/20.18.0/bin:"), std::string::npos) << env;
  EXPECT_NE(env.find("npm_config_nodedir=/opt/strata/toolchains/node/20.18.0"), std::string::npos) << env;
  auto manifest = sh("jq -r '.annotations[\"dev.strata.toolchain.node\"]' " + layout + "/blobs/sha256/" +
                     digest.substr(7));
  EXPECT_NE(manifest.find("\"release\":\"20.18.0\""), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("SHASUMS256.txt.asc signed by " + fx_.toolchains->fingerprint()), std::string::npos)
      << manifest;

  // The image provision returns carries its SBOM: the overlay's Debian
  // packages and node as the toolchain it is, with its archive's digest;
  // and the provenance of the stacking, naming the archive it unpacked.
  auto spdx = strata({"sbom", reference});
  ASSERT_EQ(spdx.code, 0) << spdx.err;
  auto sbom_doc = nlohmann::json::parse(spdx.out);
  bool node_listed = false;
  for (const auto& p : sbom_doc["packages"]) {
    if (p["SPDXID"] == "SPDXRef-Toolchain-node-20.18.0") {
      node_listed = true;
      EXPECT_EQ(p["checksums"][0]["algorithm"], "SHA256") << p.dump();
      EXPECT_TRUE(p["externalRefs"][0]["referenceLocator"].get<std::string>().starts_with("pkg:generic/node@20.18.0?download_url="))
          << p.dump();
    }
  }
  EXPECT_TRUE(node_listed) << spdx.out.substr(0, 2000);
  auto prov = strata({"sbom", "--provenance", reference});
  ASSERT_EQ(prov.code, 0) << prov.err;
  EXPECT_NE(prov.out.find("https://strata.dev/buildtypes/toolchains/v1"), std::string::npos) << prov.out;
  EXPECT_NE(prov.out.find("node-v20.18.0-linux-x64"), std::string::npos) << prov.out;

  // A login shell resets PATH (Debian's /etc/profile) and still finds node,
  // and cc, make and python3 come from the overlay.
  add_login_shell(root);
  EXPECT_EQ(sh("chroot " + root.string() + " /bin/bash -lc 'command -v node; node --version'"),
            "/usr/local/bin/node\nv20.18.0\n");
  EXPECT_EQ(sh("chroot " + root.string() + " /bin/bash -lc 'command -v cc make python3'"),
            "/usr/bin/cc\n/usr/bin/make\n/usr/bin/python3\n");
  EXPECT_EQ(sh("chroot " + root.string() + " /bin/bash -lc 'python3 --version'"), "Python 3.11.2\n");

  // Nothing changed: a hit (the overlay by its key, the toolchain layer by its
  // key, no archive fetched) with the same digest.
  fx_.toolchains->clear_requests();
  auto second = strata(args);
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(last_line(second.out), reference);
  EXPECT_NE(second.err.find("toolchain node 20.18.0 from " + fx_.toolchains->url("node") + " (cached layer"),
            std::string::npos)
      << second.err;
  EXPECT_EQ(fx_.toolchains->requests("node/v20.18.0"), 0u) << "a hit downloads no archive";

  // --no-toolchain-layer: today's behaviour, the task installs its own node.
  args.push_back("--no-toolchain-layer");
  auto task = strata(args);
  EXPECT_EQ(task.code, 0) << task.err;
  EXPECT_NE(last_line(task.out), reference);
}

// A Java 21 floor on an archive without openjdk-21 (the toolchain fixture
// archive has none): Eclipse Temurin's JDK (the release the repository pins) as a toolchain layer, JAVA_HOME in
// the config, and `java` found by a login shell from /usr/local/bin.
TEST_F(DecisionCli, AJava21FloorProvisionsTemurinAsAToolchainLayerThatALoginShellFinds) {
  const std::string layout = (dir_ / "out").string();
  auto args = provision("jvm-gradle-kotlin", "oci:" + layout);
  args.insert(args.end(), {"--toolchain-source", "java=" + fx_.toolchains->url("java")});
  auto with_json = args;
  with_json.insert(with_json.begin(), "--json");
  auto first = strata(with_json);
  ASSERT_EQ(first.code, 0) << first.err;
  auto doc = nlohmann::json::parse(first.out);
  ASSERT_EQ(doc["toolchains"].size(), 1u) << first.out;
  EXPECT_EQ(doc["toolchains"][0]["tool"], "java") << first.out;
  // .sdkmanrc pins java=21.0.2-tem (Gradle's toolchain says 21): that release, not the newest 21.x.
  EXPECT_EQ(doc["toolchains"][0]["release"], "21.0.2") << first.out;
  EXPECT_TRUE(doc["preflight"]["ok"].get<bool>()) << first.out;
  const std::string reference = doc["reference"].get<std::string>();
  const std::string digest = doc["digest"].get<std::string>();

  auto [root, env] = unpack_provisioned(layout, digest);
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(stdfs::read_symlink(root / "usr/local/bin/java"), "/opt/strata/toolchains/java/21.0.2/bin/java");
  EXPECT_TRUE(stdfs::exists(root / "opt/strata/toolchains/java/21.0.2/release"));
  EXPECT_NE(env.find("PATH=/opt/strata/toolchains/java/21.0.2/bin:"), std::string::npos) << env;
  EXPECT_NE(env.find("JAVA_HOME=/opt/strata/toolchains/java/21.0.2"), std::string::npos) << env;
  auto manifest = sh("jq -r '.annotations[\"dev.strata.toolchain.java\"]' " + layout + "/blobs/sha256/" +
                     digest.substr(7));
  EXPECT_NE(manifest.find("\"release\":\"21.0.2\""), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("sha256 and size from the Adoptium API"), std::string::npos) << manifest;

  add_login_shell(root);
  EXPECT_EQ(sh("chroot " + root.string() + " /bin/bash -lc 'command -v java; java -version 2>&1'"),
            "/usr/local/bin/java\nopenjdk version \"21.0.2\" 2024-01-16 LTS\n"
            "OpenJDK Runtime Environment Temurin-21.0.2+13 (build 21.0.2+13-LTS)\n");

  // Nothing changed: a hit with the same digest, no archive fetched.
  fx_.toolchains->clear_requests();
  auto second = strata(args);
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(last_line(second.out), reference);
  EXPECT_EQ(fx_.toolchains->requests("java/binaries"), 0u) << "a hit downloads no archive";
}

// A .NET project (global.json 8.0.204, rollForward latestFeature): Debian has
// no SDK, so the newest SDK of the 8.0 channel with a linux-x64 build is a
// toolchain layer whose `dotnet` sits at the SDK's root, DOTNET_ROOT set.
TEST_F(DecisionCli, ADotnetProjectProvisionsTheSdkAsAToolchainLayer) {
  const std::string layout = (dir_ / "out").string();
  auto args = provision("dotnet-webapi", "oci:" + layout);
  args.insert(args.end(), {"--toolchain-source", "dotnet=" + fx_.toolchains->url("dotnet")});
  args.insert(args.begin(), "--json");
  auto r = strata(args);
  ASSERT_EQ(r.code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["toolchains"].size(), 1u) << r.out;
  EXPECT_EQ(doc["toolchains"][0]["release"], "8.0.404") << "8.0.405 has no linux-x64 build";
  EXPECT_EQ(doc["toolchains"][0]["prefix"], "/opt/strata/toolchains/dotnet/8.0.404") << r.out;
  EXPECT_TRUE(doc["preflight"]["ok"].get<bool>()) << r.out;
  const std::string digest = doc["digest"].get<std::string>();
  auto [root, env] = unpack_provisioned(layout, digest);
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(stdfs::read_symlink(root / "usr/local/bin/dotnet"), "/opt/strata/toolchains/dotnet/8.0.404/dotnet");
  EXPECT_TRUE(stdfs::exists(root / "opt/strata/toolchains/dotnet/8.0.404/sdk/8.0.404/dotnet.dll"));
  EXPECT_NE(env.find("PATH=/opt/strata/toolchains/dotnet/8.0.404:"), std::string::npos) << env;
  for (const char* v : {"DOTNET_ROOT=/opt/strata/toolchains/dotnet/8.0.404", "DOTNET_CLI_TELEMETRY_OPTOUT=1",
                        "DOTNET_NOLOGO=1"})
    EXPECT_NE(env.find(v), std::string::npos) << v << " in " << env;
  add_login_shell(root);
  EXPECT_EQ(sh("chroot " + root.string() + " /bin/bash -lc 'command -v dotnet; dotnet --version'"),
            "/usr/local/bin/dotnet\n8.0.404\n");
}

// --base scratch: the image `strata build --base scratch` makes (the
// minbase of the sources), built into the local store the first time and
// found by its key after; its facts are that image's, and the overlay goes on it.
TEST_F(DecisionCli, PlanOnScratchReadsTheFactsOfTheMinbaseStrataBuildMakes) {
  auto plan = strata(from_scratch({"--json", "plan", repo("c-make-hello"), "--base", "scratch"}));
  ASSERT_EQ(plan.code, 0) << plan.err;
  auto doc = nlohmann::json::parse(plan.out);
  EXPECT_EQ(doc["base"], "scratch");
  EXPECT_EQ(doc["overlay"]["packages"], nlohmann::json::array({"build-essential"}));
  ASSERT_EQ(doc["rows"].size(), 1u) << plan.out;
  EXPECT_EQ(doc["rows"][0]["why"], "no cc, no make in the base; archive candidate build-essential 12.9");
  EXPECT_NE(plan.err.find("the scratch base built, linux/amd64: 8 packages"), std::string::npos) << plan.err;

  // The same image `strata build --base scratch` makes from the same sources:
  // the base's digest is its digest, and it sits in the local store by its key.
  auto build = strata(from_scratch({"--json", "build", "--base", "scratch", "--dest", "oci:" + (dir_ / "b").string()}));
  ASSERT_EQ(build.code, 0) << build.err;
  auto built = nlohmann::json::parse(build.out);
  EXPECT_EQ(doc["base_digest"], built["digest"]) << build.out;
  auto listed = strata({"--json", "cache", "ls"});
  EXPECT_NE(listed.out.find(built["key"].get<std::string>()), std::string::npos) << listed.out;

  // A second plan is a hit: nothing is built again.
  auto again = strata(from_scratch({"plan", repo("c-make-hello"), "--base", "scratch"}));
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.err.find("built"), std::string::npos) << again.err;
  EXPECT_NE(again.out.find("overlay: scratch + build-essential (key " + doc["overlay"]["key"].get<std::string>()),
            std::string::npos)
      << again.out;

  // --variant belongs to the base scratch.
  auto variant = strata(from_scratch({"plan", repo("c-make-hello"), "--base", fx_.image("base"), "--variant",
                                      "essential"}));
  EXPECT_EQ(variant.code, 2) << variant.err;
  EXPECT_NE(variant.err.find("--variant essential: only with the base scratch"), std::string::npos) << variant.err;
}

TEST_F(DecisionCli, ProvisionFromScratchRunsItsProgramsAndTheSecondRunIsAHit) {
  const std::string layout = (dir_ / "out").string();
  auto args = from_scratch({"provision", repo("c-make-hello"), "--base", "scratch", "--dest", "oci:" + layout + ":app"});
  auto with_json = args;
  with_json.insert(with_json.begin(), "--json");
  auto first = strata(with_json);
  ASSERT_EQ(first.code, 0) << first.err;
  auto doc = nlohmann::json::parse(first.out);
  EXPECT_FALSE(doc["cached"].get<bool>());
  EXPECT_TRUE(doc["preflight"]["ok"].get<bool>()) << first.out;
  const std::string digest = doc["digest"].get<std::string>();
  // The tag the user gave is the one printed, and skopeo reads it.
  EXPECT_EQ(doc["reference"], "oci:" + layout + ":app");
  auto skopeo = run({"skopeo", "inspect", "--raw", "oci:" + layout + ":app"});
  ASSERT_EQ(skopeo.code, 0) << skopeo.err;
  EXPECT_EQ("sha256:" + sha256_hex(skopeo.out), digest);

  // One image: the minbase's layer, then the overlay's.
  auto manifest = nlohmann::json::parse(strata({"inspect", "oci:" + layout + ":app"}).out);
  ASSERT_EQ(manifest["layers"].size(), 2u) << manifest.dump();

  // It runs: make and cc from the overlay on the minbase's libc-less root
  // (libc6 comes with build-essential), the minbase's own static sh.
  auto unpack = run({"umoci", "unpack", "--rootless", "--image", layout + ":app", (dir_ / "b").string()});
  ASSERT_EQ(unpack.code, 0) << unpack.err;
  stdfs::path root = dir_ / "b/rootfs";
  EXPECT_EQ(stdfs::read_symlink(root / "bin"), "usr/bin");
  EXPECT_TRUE(stdfs::exists(root / "var/lib/dpkg/info/base-passwd.list"));
  stdfs::create_directories(root / "src");
  for (const char* f : {"Makefile", "hello.c"}) stdfs::copy_file(repo("c-make-hello") + "/" + f, root / "src" / f);
  auto made = run({"chroot", root.string(), "/usr/bin/make", "-C", "/src", "hello"});
  ASSERT_EQ(made.code, 0) << made.out << made.err;
  EXPECT_EQ(sh("chroot " + root.string() + " /src/hello"), "hello from a provisioned image: sqrt(2) = 1.414\n");
  EXPECT_EQ(sh("chroot " + root.string() + " /bin/sh -c true"), "tinysh -c true\n");

  // Nothing changed: the scratch base and the overlay are found by their keys.
  auto second = strata(args);
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(last_line(second.out), "oci:" + layout + ":app");
  EXPECT_NE(second.err.find("overlay found by its key " + doc["key"].get<std::string>()), std::string::npos)
      << second.err;
  EXPECT_EQ(second.err.find("built"), std::string::npos) << second.err;

  // --offline: everything is cached, so it works and gives the same image.
  auto offline = args;
  offline.insert(offline.begin(), "--offline");
  auto off = strata(offline);
  ASSERT_EQ(off.code, 0) << off.err;
  EXPECT_EQ(last_line(off.out), "oci:" + layout + ":app");

  // A home that never fetched the archive: --offline names what is missing and the next step.
  auto cold = run({strata_binary(), "--home", (dir_ / "cold").string(), "--offline", "plan", repo("c-make-hello"),
                   "--base", "scratch", "--sources", fx_.scratch_sources()[1], "--platform", "linux/amd64"});
  EXPECT_EQ(cold.code, 1);
  EXPECT_NE(cold.err.find("the scratch base (minbase from the apt sources): --offline: "), std::string::npos)
      << cold.err;
  EXPECT_NE(cold.err.find("/InRelease"), std::string::npos) << cold.err;
  EXPECT_NE(cold.err.find("this command without --offline"), std::string::npos) << cold.err;
}

TEST_F(DecisionCli, PreflightOfScratchChecksTheImageProvisionStartsFrom) {
  // The minbase has no C toolchain: one message, the fix names --base scratch.
  auto gaps = strata(from_scratch({"preflight", "--image", "scratch", "--repo", repo("c-make-hello")}));
  EXPECT_EQ(gaps.code, 3) << gaps.err;
  EXPECT_NE(gaps.err.find("image scratch has no cc, no make — run: strata provision " + repo("c-make-hello") +
                          " --base scratch --sources "),
            std::string::npos)
      << gaps.err;
  // A repository that needs nothing the minbase lacks passes.
  stdfs::create_directories(dir_ / "plain");
  std::ofstream(dir_ / "plain/README.md") << "# notes\n";
  auto ok = strata(from_scratch({"preflight", "--image", "scratch", "--repo", (dir_ / "plain").string()}));
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("ok: scratch satisfies "), std::string::npos) << ok.out;
}

TEST_F(DecisionCli, PrewarmOfScratchEntriesWarmsWhatProvisionFinds) {
  const std::string layout = (dir_ / "cache").string();
  const stdfs::path config = dir_ / "prewarm.yaml";
  const auto& lists = fx_.scratch_sources();
  std::ofstream(config) << "cache: oci:" << layout << "\nplatforms: [linux/amd64]\nsources: [" << lists[1] << ", "
                        << lists[3] << "]\nrepos:\n  - {path: " << repo("c-make-hello")
                        << ", base: scratch}\noverlays:\n  - {base: scratch, packages: [make]}\n";
  auto warm = strata({"cache", "prewarm", "--json", "--config", config.string()});
  ASSERT_EQ(warm.code, 0) << warm.err;
  auto doc = nlohmann::json::parse(warm.out);
  ASSERT_EQ(doc["overlays"].size(), 2u) << warm.out;
  for (const auto& o : doc["overlays"]) EXPECT_EQ(o["state"], "built") << warm.out;

  auto args = from_scratch({"--json", "provision", repo("c-make-hello"), "--base", "scratch", "--dest", "oci:" + layout});
  auto hit = strata(args);
  ASSERT_EQ(hit.code, 0) << hit.err;
  auto p = nlohmann::json::parse(hit.out);
  EXPECT_TRUE(p["cached"].get<bool>()) << "provision finds what prewarm built";
  bool warmed = false;
  for (const auto& o : doc["overlays"]) warmed = warmed || (o["key"] == p["key"] && o["digest"] == p["digest"]);
  EXPECT_TRUE(warmed) << warm.out << hit.out;
}

}  // namespace
}  // namespace strata::testing

namespace strata::testing {
namespace {

// One list of needed hosts: for each repository the decision tests use, the
// policy `egress render --base` writes grants every host the plan needs —
// with toolchain layers and with the task installing its own runtimes — and
// strata's own pre-flight of that policy finds no egress gap.
TEST_F(DecisionCli, EveryFixturesPolicyGrantsEveryHostItsPlanNeeds) {
  for (const char* name : {"c-make-hello", "node-plain", "real-ts-monorepo-vscode-sqlite3", "python-django-psycopg2",
                           "needs-production-image"}) {
    for (const bool layer : {true, false}) {
      SCOPED_TRACE(std::string(name) + (layer ? "" : " --no-toolchain-layer"));
      std::vector<std::string> opts = {"--sources", fx_.sources, "--platform", "linux/amd64"};
      if (!layer) opts.push_back("--no-toolchain-layer");
      const std::string policy = (dir_ / (std::string(name) + (layer ? "" : "-task") + ".json")).string();
      std::vector<std::string> render = {"egress", "render", "--repo", repo(name), "--format", "json", "-o", policy,
                                         "--base", fx_.image("base")};
      render.insert(render.end(), opts.begin(), opts.end());
      auto r = strata(render);
      ASSERT_EQ(r.code, 0) << r.err;
      std::ifstream in(policy);
      const auto granted = nlohmann::json::parse(in);

      std::vector<std::string> plan = {"--json", "plan", repo(name), "--base", fx_.image("base")};
      plan.insert(plan.end(), opts.begin(), opts.end());
      auto p = strata(plan);
      ASSERT_EQ(p.code, 0) << p.err;
      const auto planned = nlohmann::json::parse(p.out);
      for (const auto& row : planned["rows"]) {
        if (row["kind"] != "egress" || !row["needed"].get<bool>()) continue;
        EXPECT_NE(granted.dump().find("\"" + row["name"].get<std::string>() + "\""), std::string::npos)
            << row["name"] << " is needed by the plan and not in the policy";
      }

      std::vector<std::string> check = {"--json", "preflight", "--image", fx_.image("base"), "--repo", repo(name),
                                        "--egress-policy", policy};
      check.insert(check.end(), opts.begin(), opts.end());
      auto pf = strata(check);
      ASSERT_NE(pf.out, "") << pf.err;
      const auto report = nlohmann::json::parse(pf.out);
      for (const auto& gap : report["gaps"])
        EXPECT_NE(gap["kind"], "egress") << gap.dump();
    }
  }
}

}  // namespace
}  // namespace strata::testing

namespace strata::testing {
namespace {

// Issue 30's loop: a Django app whose Python floor the archive does not meet
// and whose psycopg2 compiles. Python goes to a task toolchain and its
// headers with it (not Debian's python3-dev for 3.11), the C toolchain and
// libpq-dev to the overlay; the image provision builds passes its own
// pre-flight, and pre-flight of it alone passes too.
TEST_F(DecisionCli, ADjangoAppAboveTheArchivesPythonProvisionsAnImageThatPassesItsOwnPreflight) {
  const std::string layout = (dir_ / "out").string();
  auto args = provision("python-floor-above-archive", "oci:" + layout);
  args.insert(args.end(), {"--toolchain-source", "python=" + fx_.toolchains->url("python/20241016")});
  args.insert(args.begin(), "--json");
  auto r = strata(args);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_TRUE(doc["preflight"]["ok"].get<bool>()) << r.out;
  ASSERT_EQ(doc["toolchains"].size(), 1u) << r.out;
  EXPECT_EQ(doc["toolchains"][0]["release"], "3.12.7");
  const auto packages = doc["plan"]["overlay"]["packages"].dump();
  EXPECT_NE(packages.find("libpq-dev"), std::string::npos) << packages;
  EXPECT_EQ(packages.find("python3"), std::string::npos) << "Debian's Python pieces are another version's: " << packages;

  auto pre_args = preflight(doc["reference"].get<std::string>(), "python-floor-above-archive");
  pre_args.insert(pre_args.end(), {"--toolchain-source", "python=" + fx_.toolchains->url("python/20241016")});
  auto pre = strata(pre_args);
  EXPECT_EQ(pre.code, 0) << pre.err;
}

}  // namespace
}  // namespace strata::testing

namespace strata::testing {
namespace {

// The local store's image is printed by the name strata shows it
// (`local:strata/provisioned@sha256:…`), which strata reads back.
TEST_F(DecisionCli, ProvisionIntoTheLocalStorePrintsTheFamiliarName) {
  auto args = provision("c-make-hello", "local:strata/provisioned");
  auto r = strata(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string ref = last_line(r.out);
  EXPECT_TRUE(ref.starts_with("local:strata/provisioned@sha256:")) << ref;
  auto back = strata({"inspect", "--raw", ref});
  EXPECT_EQ(back.code, 0) << back.err;
}

}  // namespace
}  // namespace strata::testing
