// strata build against apt-get install, path for path: on a real Debian root
// made offline from the host's own packages (tests/support/make_debian_base.py:
// apt, dpkg, a shell and their dependencies, with their dpkg database), the
// overlay of fixture packages that exercise every effect — a description
// line ending in a blank, an Architecture: all dependency, libraries with
// development links pointing at the file and through /lib, an ldconfig
// trigger, a conffile, alternatives, Replaces — against the base's own
// apt-get installing the same packages from the same archive in a chroot
// (tests/support/overlay_vs_apt.sh). No difference is expected but the
// paths docs/format/overlay.md "Compared with apt-get install" names.
//
// The wider request is what users install: ca-certificates curl tzdata
// uuid-runtime, and vim-runtime (its preinst adds diversions), on a real
// minbase (mmdebstrap, tests/support/make_minbase.sh, cached for the day)
// from the Debian archive the host's apt sources name, through the same
// path `strata build` always takes. A CA made at test time is in the
// base's /usr/local/share/ca-certificates, so both sides' update-ca-certificates
// take it; then, in the image, curl reaches a local TLS server signed by it
// with no --cacert, and fails against one signed by a CA the image lacks
// (tests/support/tls_in_image.sh).
#include <gtest/gtest.h>
#include <unistd.h>

#include <iostream>

#include "layer/overlay/overlay_fixture.hpp"
#include "support/json_run.hpp"
#include "support/run.hpp"
#include "support/source_dir.hpp"
#include "support/temp_dir.hpp"

namespace strata::testing {
namespace {

TEST(OverlayFidelity, TheSameTreeAsAptGetInstallPathForPath) {
  auto& fx = OverlayFixture::get();
  TempDir t;
  auto support = source_dir() / "tests/support";
  auto base = run({(support / "make_debian_base.py").string(), (t / "base.tar").string()});
  ASSERT_EQ(base.code, 0) << base.err;
  auto r = run({(support / "overlay_vs_apt.sh").string(), strata_binary(), (t / "base.tar").string(),
                fx.sources().string(), (t / "work").string(), "--", "libpal-dev", "greet", "hello-static",
                "shared-a", "shared-b"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" paths compared, 0 differ\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("etc/ld.so.cache: "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("ldconfig -p differs"), std::string::npos) << r.out;
  // What the comparison covers: the five places strata used to differ.
  std::string status = slurp(t / "work/apt-root/var/lib/dpkg/status");
  EXPECT_NE(status.find("Description: pal libraries (runtime version) \n"), std::string::npos);
  EXPECT_NE(slurp(t / "work/apt-root/var/lib/dpkg/status-old").find("Status: install ok unpacked\n"),
            std::string::npos);
  EXPECT_NE(slurp(t / "work/apt-root/var/lib/apt/extended_states")
                .find("Package: libpal-common\nArchitecture: amd64\nAuto-Installed: 1\n"),
            std::string::npos);
  std::string cache = sh("ldconfig -p -C " + (t / "work/strata-bundle/rootfs/etc/ld.so.cache").string());
  EXPECT_NE(cache.find("libpal.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libpal.so\n"), std::string::npos) << cache;
  EXPECT_NE(cache.find("libpalx.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libpalx.so\n"), std::string::npos) << cache;
}

bool have(const std::string& tool) { return run({"sh", "-c", "command -v " + tool}).code == 0; }

TEST(OverlayFidelity, AWiderRequestOnADebianMinbaseAndTlsInTheImage) {
  const char* sources_env = std::getenv("STRATA_FIDELITY_SOURCES");
  std::string sources = sources_env ? sources_env : "/etc/apt/sources.list.d/debian.sources";
  if (getuid() != 0 || !have("mmdebstrap") || !have("umoci") || !std::filesystem::exists(sources)) {
    GTEST_SKIP() << "needs root, mmdebstrap, umoci and apt sources (" << sources << ")";
  }
  if (std::getenv("STRATA_TEST_OFFLINE")) GTEST_SKIP() << "STRATA_TEST_OFFLINE: the Debian archive is not used";
  TempDir t;
  auto support = source_dir() / "tests/support";
  auto mb = run({(support / "make_minbase.sh").string(), "build", (t / "minbase").string(), sources});
  ASSERT_EQ(mb.code, 0) << mb.out << mb.err;
  // A CA of the test's own, installed in the base as an administrator
  // would: a .crt under /usr/local/share/ca-certificates.
  std::string ca_dir = (t / "ca").string();
  std::filesystem::create_directories(t / "ca/usr/local/share/ca-certificates");
  auto ca = run({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                 ca_dir + "/ca.key", "-subj", "/CN=strata fidelity test CA", "-days", "2", "-addext",
                 "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out",
                 ca_dir + "/usr/local/share/ca-certificates/strata-test-ca.crt"});
  ASSERT_EQ(ca.code, 0) << ca.err;
  std::filesystem::copy_file(t / "minbase/minbase.tar", t / "base.tar");
  auto add = run({"tar", "-C", ca_dir, "--owner=0", "--group=0", "--numeric-owner", "--mode=u=rwX,go=rX", "--no-recursion", "-rf",
                  (t / "base.tar").string(), "./usr/local/share/ca-certificates",
                  "./usr/local/share/ca-certificates/strata-test-ca.crt"});
  ASSERT_EQ(add.code, 0) << add.err;

  // strata's .debs are kept for the day beside the minbase, so apt's cache
  // is seeded from them and a rerun downloads only the indexes.
  const char* cache_env = std::getenv("STRATA_TEST_CACHE");
  std::string cache = cache_env ? cache_env : (std::filesystem::temp_directory_path() / "strata-test-cache").string();
  std::string home = "STRATA_HOME=" + cache + "/fidelity-home";
  auto r = run({(support / "overlay_vs_apt.sh").string(), strata_binary(), (t / "base.tar").string(), sources,
                (t / "work").string(), "--", "ca-certificates", "curl", "tzdata", "uuid-runtime", "vim-runtime"},
               home);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" paths compared, 0 differ\n"), std::string::npos) << r.out;
  std::cout << r.out;  // the counts, in the test's log
  // What the comparison covers: each effect that used to differ.
  auto a = t / "work/strata-bundle/rootfs";
  EXPECT_TRUE(std::filesystem::is_symlink(a / "etc/ssl/certs/ISRG_Root_X1.pem"));
  EXPECT_TRUE(std::filesystem::is_symlink(a / "etc/ssl/certs/strata-test-ca.pem"));
  EXPECT_GT(slurp(a / "etc/ssl/certs/ca-certificates.crt").size(), 100000u);
  EXPECT_NE(slurp(a / "etc/passwd").find("\nuuidd:x:"), std::string::npos);
  EXPECT_NE(slurp(a / "var/lib/dpkg/diversions").find("/usr/share/vim/vim90/doc/help.txt\n"), std::string::npos);
  EXPECT_EQ(trim_nl(slurp(a / "etc/timezone")), "Etc/UTC");

  auto tls = run({(support / "tls_in_image.sh").string(), a.string(),
                  ca_dir + "/usr/local/share/ca-certificates/strata-test-ca.crt", ca_dir + "/ca.key"});
  EXPECT_EQ(tls.code, 0) << tls.out << tls.err;
  std::cout << tls.out;
}

}  // namespace
}  // namespace strata::testing
