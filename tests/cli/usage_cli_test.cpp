// What a new user types, through the binary, on local stores only: options
// before, between or after the positional arguments mean the same, a
// repeatable option takes one value per occurrence, an unknown or planned
// command says so, and a TMPDIR naming no directory is named. (resolve,
// build and key, which need an archive, are in packages_cli_test.cpp.)
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "oci/layout_store.hpp"
#include "support/random_image.hpp"
#include "support/cli_test.hpp"

namespace strata::testing {
namespace {

class UsageCli : public CliTest {
 protected:
  // An OCI layout holding a two-platform index tagged "multi"; returns its
  // reference and sets the digest of the linux/arm64 child.
  std::string multi_platform_layout() {
    auto store = std::move(*oci::LayoutStore::open(dir_ / "multi", oci::LayoutMode::kCreate));
    auto idx = make_index(*store, {"amd64", "arm64"}, 5);
    EXPECT_TRUE(store->put_manifest(idx, "multi"));
    auto parsed = oci::parse_manifest(idx.bytes, idx.descriptor.media_type, "index");
    arm64_ = std::get<oci::ImageIndex>(*parsed).manifests.at(1).digest.str();
    return "oci:" + (dir_ / "multi").string() + ":multi";
  }
  // An OCI layout holding one image tagged "one" (two layers); its reference.
  std::string single_platform_layout() {
    auto store = std::move(*oci::LayoutStore::open(dir_ / "single", oci::LayoutMode::kCreate));
    push_image(*store, "one", {4000, 3000}, 6);
    return "oci:" + (dir_ / "single").string() + ":one";
  }
  // A tiny root filesystem tarball.
  std::string rootfs() {
    std::filesystem::create_directories(dir_ / "root/etc");
    std::ofstream(dir_ / "root/etc/hostname") << "strata\n";
    auto tar = (dir_ / "rootfs.tar").string();
    EXPECT_EQ(run({"tar", "-C", (dir_ / "root").string(), "-cf", tar, "."}).code, 0);
    return tar;
  }
  static std::string digest_of(const RunResult& r) {
    auto line = trim_nl(r.out);
    return line.substr(line.rfind('@') + 1);
  }
  std::string arm64_;
};

TEST_F(UsageCli, CopyOptionsAnywhere) {
  auto src = multi_platform_layout();
  auto dst = [&](const std::string& name) { return "oci:" + (dir_ / name).string() + ":x"; };
  std::vector<std::vector<std::string>> orders{
      {"copy", "--platform", "linux/arm64", src, dst("a")},
      {"copy", src, "--platform", "linux/arm64", dst("b")},
      {"copy", src, dst("c"), "--platform", "linux/arm64"},
      // Repeated global options, before, between and after the positionals.
      {"copy", "--insecure-registry", "reg.a:5000", "--insecure-registry", "reg.b", src, dst("d"), "--platform",
       "linux/arm64"},
      {"copy", src, "--cert-dir", (dir_ / "certs-a").string(), dst("e"), "--cert-dir", (dir_ / "certs-b").string(),
       "--platform", "linux/arm64"},
      {"--insecure-registry", "reg.a", "--insecure-registry", "reg.b", "copy", src, dst("f"), "--platform=linux/arm64"},
  };
  for (const auto& args : orders) {
    auto r = strata(args);
    ASSERT_EQ(r.code, 0) << args.at(1) << " " << args.at(2) << ": " << r.err;
    EXPECT_EQ(digest_of(r), arm64_) << r.out;
  }
}

TEST_F(UsageCli, InspectOptionsAnywhere) {
  auto ref = multi_platform_layout();
  std::vector<std::vector<std::string>> orders{
      {"inspect", "--config", "--platform", "linux/arm64", ref},
      {"inspect", ref, "--platform", "linux/arm64", "--config"},
      {"inspect", "--platform", "linux/arm64", ref, "--config"},
      {"inspect", "--insecure-registry", "reg.a", ref, "--insecure-registry", "reg.b", "--config", "--platform",
       "linux/arm64"},
  };
  std::string first;
  for (const auto& args : orders) {
    auto r = strata(args);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["architecture"], "arm64") << r.out;
    if (first.empty()) first = r.out;
    EXPECT_EQ(r.out, first);
  }
}

TEST_F(UsageCli, TagsWithRepeatedGlobalOptionsAnywhere) {
  auto ref = multi_platform_layout();
  std::vector<std::vector<std::string>> orders{
      {"tags", ref},
      {"tags", "--cert-dir", (dir_ / "a").string(), "--cert-dir", (dir_ / "b").string(), ref},
      {"tags", ref, "--insecure-registry", "reg.a", "--insecure-registry", "reg.b"},
      {"--cert-dir", (dir_ / "a").string(), "tags", "--insecure-registry", "reg.a", ref, "--cert-dir",
       (dir_ / "b").string()},
  };
  for (const auto& args : orders) {
    auto r = strata(args);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "multi\n");
  }
}

TEST_F(UsageCli, ImportChangesAreRepeatableAndGoAnywhere) {
  auto tar = rootfs();
  auto dest = [&](const std::string& tag) { return "oci:" + (dir_ / "imports").string() + ":" + tag; };
  const std::string sde = "SOURCE_DATE_EPOCH=1700000000";
  std::vector<std::vector<std::string>> orders{
      {"import", "--change", "ENV A=1", "--change", "CMD [\"/bin/sh\"]", "--dest", dest("a"), tar},
      {"import", "--change", "ENV A=1", tar, "--change", "CMD [\"/bin/sh\"]", "--dest", dest("b")},
      {"import", tar, "--dest", dest("c"), "--change", "ENV A=1", "--change", "CMD [\"/bin/sh\"]"},
      {"import", "--platform", "linux/amd64", tar, "--compression", "gzip", "--change", "ENV A=1", "--dest", dest("d"),
       "--change", "CMD [\"/bin/sh\"]"},
  };
  std::string digest;
  for (const auto& args : orders) {
    auto r = strata(args, sde);
    ASSERT_EQ(r.code, 0) << r.err;
    if (digest.empty()) digest = digest_of(r);
    EXPECT_EQ(digest_of(r), digest);
  }
  auto config = strata({"inspect", "--config", dest("b")});
  ASSERT_EQ(config.code, 0) << config.err;
  auto j = nlohmann::json::parse(config.out);
  EXPECT_EQ(j["config"]["Cmd"], nlohmann::json::array({"/bin/sh"}));
  EXPECT_NE(j["config"]["Env"].dump().find("A=1"), std::string::npos) << j.dump();
}

TEST_F(UsageCli, ContractScanFormatAnywhere) {
  auto repo = (source_dir() / "testdata/repos/cmake-native").string();
  auto before = strata({"contract", "scan", "--format", "json", repo});
  auto after = strata({"contract", "scan", repo, "--format", "json"});
  auto global = strata({"contract", "--json", "scan", repo});
  ASSERT_EQ(before.code, 0) << before.err;
  ASSERT_EQ(after.code, 0) << after.err;
  ASSERT_EQ(global.code, 0) << global.err;
  EXPECT_EQ(nlohmann::json::parse(before.out)["runtime_floors"]["cmake"]["floor"], "3.20.0");
  EXPECT_EQ(before.out, after.out);
  EXPECT_EQ(before.out, global.out);
}

TEST_F(UsageCli, UnknownCommandsSuggestTheNearestAndExitTwo) {
  auto typo = strata({"copyy", "a", "b"});
  EXPECT_EQ(typo.code, 2);
  EXPECT_EQ(typo.err, "strata: unknown command `strata copyy`; did you mean `strata copy`?\n");
  auto nested = strata({"contract", "scann", "."});
  EXPECT_EQ(nested.code, 2);
  EXPECT_EQ(nested.err, "strata: unknown command `strata contract scann`; did you mean `strata contract scan`?\n");
  auto far = strata({"--json", "frobnicate"});
  EXPECT_EQ(far.code, 2);
  EXPECT_EQ(far.err, "strata: unknown command `strata frobnicate`; see `strata --help`\n");
  auto none = strata({});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("A subcommand is required"), std::string::npos) << none.err;
}

// bundle's usage errors are the parser's (exit 2, naming the option); a
// missing input is a failure naming it (exit 1).
TEST_F(UsageCli, BundleUsageErrorsNameTheInput) {
  auto create = strata({"bundle", "create", "--lock", "/nonexistent.lock"});
  EXPECT_EQ(create.code, 2) << create.err;
  EXPECT_NE(create.err.find("/nonexistent.lock"), std::string::npos) << create.err;
  auto out = strata({"bundle", "create", "--mirror", (dir_ / "none.yaml").string(), "--out", (dir_ / "b").string()});
  EXPECT_EQ(out.code, 2) << out.err;
  EXPECT_NE(out.err.find("none.yaml"), std::string::npos) << out.err;
  auto nothing = strata({"bundle", "create", "--out", (dir_ / "b").string()});
  EXPECT_EQ(nothing.code, 1) << nothing.err;
  EXPECT_NE(nothing.err.find("--mirror FILE, --lock FILE"), std::string::npos) << nothing.err;
  auto load = strata({"bundle", "load", (dir_ / "missing.tar").string()});
  EXPECT_EQ(load.code, 1);
  EXPECT_NE(load.err.find("missing.tar does not exist"), std::string::npos) << load.err;
  auto sub = strata({"bundle", "lod", "x"});
  EXPECT_EQ(sub.code, 2);
  EXPECT_NE(sub.err.find("did you mean `strata bundle load`"), std::string::npos) << sub.err;
  EXPECT_EQ(strata({"bundle", "--help"}).code, 0);
}

// A FIFO where a layout keeps a blob or index.json, or as a bundle: copy,
// inspect and bundle load return with an error naming it (they used to wait
// for a writer forever). `timeout` only detects such a hang: 124 is a hang.
TEST_F(UsageCli, AFifoInAStoreIsRefusedNotWaitedFor) {
  auto img = single_platform_layout();  // oci:DIR:one
  const auto lay = dir_ / "single";
  auto fifo_at = [](const std::filesystem::path& p) {
    std::filesystem::remove(p);
    ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0) << p;
  };
  auto bounded = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"timeout", "120", strata_binary(), "--home", (dir_ / "home").string()});
    return run(args);
  };
  auto entries = oci::LayoutStore::open(lay, oci::LayoutMode::kReadOnly);
  ASSERT_TRUE(entries);
  auto raw = (*entries)->get_manifest("one");
  ASSERT_TRUE(raw);
  auto m = std::get<oci::ImageManifest>(*oci::parse_manifest(raw->bytes, raw->descriptor.media_type, "m"));
  const auto blob = lay / "blobs" / "sha256" / std::string(m.layers.at(0).digest.hex());
  fifo_at(blob);
  auto copy = bounded({"copy", img, "oci:" + (dir_ / "out").string() + ":one"});
  EXPECT_EQ(copy.code, 1) << copy.err;
  EXPECT_NE(copy.err.find(blob.string() + " is not a regular file (a FIFO)"), std::string::npos) << copy.err;

  fifo_at(lay / "index.json");
  auto inspect = bounded({"inspect", img});
  EXPECT_EQ(inspect.code, 1) << inspect.err;
  EXPECT_NE(inspect.err.find((lay / "index.json").string() + " is not a regular file (a FIFO)"), std::string::npos)
      << inspect.err;
  auto load = bounded({"bundle", "load", lay.string(), "--dest", "oci:" + (dir_ / "loaded").string()});
  EXPECT_EQ(load.code, 1) << load.err;
  EXPECT_NE(load.err.find("is not a regular file (a FIFO)"), std::string::npos) << load.err;
  fifo_at(dir_ / "b.tar");
  auto load_tar = bounded({"bundle", "load", (dir_ / "b.tar").string()});
  EXPECT_EQ(load_tar.code, 1) << load_tar.err;
  EXPECT_NE(load_tar.err.find((dir_ / "b.tar").string() + " is not a regular file (a FIFO)"), std::string::npos)
      << load_tar.err;
}

// What copy prints for every transport it writes is a reference strata reads
// back: the same image.
TEST_F(UsageCli, WhatCopyPrintsIsAReferenceStrataReads) {
  auto img = single_platform_layout();
  for (const std::string& dst :
       {"oci:" + (dir_ / "o").string() + ":t", "oci:" + (dir_ / "o2").string(),
        "oci-archive:" + (dir_ / "o.tar").string() + ":t", "docker-archive:" + (dir_ / "d.tar").string() + ":x/y:t",
        std::string("local:x/y:t")}) {
    auto copied = strata({"copy", img, dst});
    ASSERT_EQ(copied.code, 0) << dst << ": " << copied.err;
    const std::string printed = trim_nl(copied.out);
    EXPECT_EQ(printed, dst + "@" + digest_of(copied));
    auto back = strata({"inspect", "--raw", printed});
    ASSERT_EQ(back.code, 0) << printed << ": " << back.err;
    EXPECT_EQ(oci::Digest::sha256_of(back.out).str(), digest_of(copied)) << printed;
  }
}

TEST_F(UsageCli, AMissingTmpdirIsNamed) {
  auto tar = rootfs();
  auto layout = multi_platform_layout();
  auto archive = (dir_ / "multi.tar").string();
  ASSERT_EQ(strata({"copy", "--all", layout, "oci-archive:" + archive + ":multi"}).code, 0);
  const std::string want = "strata: TMPDIR=/nonexistent-strata-tmp: no such directory; set TMPDIR to a writable "
                           "directory or unset it\n";
  const std::string env = "TMPDIR=/nonexistent-strata-tmp";
  auto inspect = strata({"inspect", "oci-archive:" + archive + ":multi"}, env);  // reading an archive stages it
  EXPECT_EQ(inspect.code, 1);
  EXPECT_EQ(inspect.err, want);
  auto import = strata({"import", tar, "--dest", "oci:" + (dir_ / "i").string() + ":x"}, env);  // spools content
  EXPECT_EQ(import.code, 1);
  EXPECT_EQ(import.err, want);
  auto file = strata({"import", tar, "--dest", "oci:" + (dir_ / "i").string() + ":x"}, "TMPDIR=" + tar);
  EXPECT_EQ(file.code, 1);
  EXPECT_EQ(file.err, "strata: TMPDIR=" + tar + ": not a directory; set TMPDIR to a writable directory or unset it\n");
}


// containerd's socket when nothing usable is there: one line naming the
// reference, the socket and the next step, before any gRPC is attempted;
// the environment's address is the default, the option overrides it.
TEST_F(UsageCli, AContainerdSocketThatIsNotThereIsNamedWithTheNextStep) {
  const std::string missing = (dir_ / "no.sock").string();
  auto absent = strata({"inspect", "containerd:app:1", "--containerd-address", missing});
  EXPECT_EQ(absent.code, 1);
  EXPECT_EQ(absent.err, "strata: containerd:docker.io/library/app:1: cannot reach containerd at " + missing +
                            ": no such socket; start containerd, or name its socket with --containerd-address or "
                            "CONTAINERD_ADDRESS\n");
  const std::string file = rootfs();
  auto not_socket = strata({"copy", multi_platform_layout(), "containerd:app:1"},
                           "CONTAINERD_ADDRESS=unix://" + file);
  EXPECT_EQ(not_socket.code, 1);
  EXPECT_NE(not_socket.err.find("cannot reach containerd at " + file + ": not a socket;"), std::string::npos)
      << not_socket.err;
  auto overridden = strata({"inspect", "containerd:app:1", "--containerd-address", missing},
                           "CONTAINERD_ADDRESS=unix://" + file);
  EXPECT_NE(overridden.err.find(missing + ": no such socket"), std::string::npos) << overridden.err;
}

// A namespace containerd would refuse, or a lease time that is not one, is
// one line naming it (and where it came from) before any socket is tried:
// the namespace failed only at containerd's first answer, in its words and
// under the reference twice; a lease time such as "2h" was silently an hour.
TEST_F(UsageCli, AContainerdNamespaceOrLeaseTimeThatIsNotOneIsNamed) {
  const std::string missing = (dir_ / "no.sock").string();
  auto spaced = strata({"inspect", "containerd:app:1", "--containerd-address", missing, "--containerd-namespace", "a b"});
  EXPECT_EQ(spaced.code, 1);
  EXPECT_EQ(spaced.err, "strata: containerd:docker.io/library/app:1: --containerd-namespace \"a b\" is not a containerd "
                        "namespace (letters and digits, joined by single '.', '_' or '-', at most 76 characters); name "
                        "one `ctr namespaces ls` lists, as default or k8s.io\n");
  for (const std::string& ns : std::vector<std::string>{"x..y", "-x", "x.", std::string(77, 'a')}) {
    auto r = strata({"copy", multi_platform_layout(), "containerd:app:1", "--containerd-address", missing},
                    "CONTAINERD_NAMESPACE=" + ns);
    EXPECT_EQ(r.code, 1) << ns;
    EXPECT_NE(r.err.find("CONTAINERD_NAMESPACE \"" + ns + "\" is not a containerd namespace"), std::string::npos) << r.err;
  }
  // A namespace containerd takes goes on to the socket.
  auto k8s = strata({"inspect", "containerd:app:1", "--containerd-address", missing, "--containerd-namespace", "k8s.io"});
  EXPECT_NE(k8s.err.find(": no such socket;"), std::string::npos) << k8s.err;
  auto lease = strata({"inspect", "containerd:app:1", "--containerd-address", missing}, "STRATA_CONTAINERD_LEASE_SECONDS=2h");
  EXPECT_EQ(lease.code, 1);
  EXPECT_EQ(lease.err, "strata: containerd:docker.io/library/app:1: STRATA_CONTAINERD_LEASE_SECONDS=\"2h\" is not a number "
                       "of seconds from 1 to 2678400 (31 days); set it to one, as 7200, or unset it for an hour\n");
}

}  // namespace
}  // namespace strata::testing
