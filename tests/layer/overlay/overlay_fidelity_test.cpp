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
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace strata::testing
