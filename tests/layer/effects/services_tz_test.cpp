// Service enablement and tzdata reproduced (layer/effects/services.hpp,
// tzdata_effects in layer/effects/effects.hpp) on a small merged-/usr base
// built in memory: uuid-runtime's real postinst calls and units give the
// links and deb-systemd-helper state apt-get install left on a bookworm
// minbase; tzdata gives Etc/UTC, keeps a zone the base names, and refuses a
// zone that is a path out of zoneinfo. Hostile headers and calls change
// nothing.
#include <gtest/gtest.h>

#include "layer/deb/rewrite_rules.hpp"
#include "layer/effects/services.hpp"
#include "layer/effects/effect_nodes.hpp"

namespace strata::layer {
namespace {

using oci::FsNode;
using oci::TarEntryType;

using testing::by_path;
using testing::dir;
using testing::file;
using testing::link;

oci::ImageFilesystem merged_usr_base(std::map<std::string, FsNode> extra = {}) {
  std::map<std::string, FsNode> nodes{{"etc", dir()},      {"usr", dir()},        {"usr/lib", dir()},
                                      {"lib", link("usr/lib")}, {"etc/rc0.d", dir()}, {"etc/rc2.d", dir()},
                                      {"var", dir()},      {"var/lib", dir()}};
  for (auto& [k, v] : extra) nodes[k] = std::move(v);
  return oci::ImageFilesystem::from_nodes(std::move(nodes), 1);
}

constexpr std::string_view kInitScript =
    "#! /bin/sh\n### BEGIN INIT INFO\n# Provides:          uuidd\n# Required-Start:    $time $local_fs $remote_fs\n"
    "# Default-Start:     2 3 4 5\n# Default-Stop:      0 1 6\n# Short-Description: uuidd daemon\n"
    "### END INIT INFO\n";

FragmentInfo uuid_runtime() {
  FragmentInfo p;
  p.package = "uuid-runtime";
  p.control_files["postinst"] =
      "#!/bin/sh\nset -e\n"
      "if [ \"$1\" = \"configure\" ] ; then\n"
      "\tif [ -z \"${DPKG_ROOT:-}\" ] && [ -x \"/etc/init.d/uuidd\" ]; then\n"
      "\t\tupdate-rc.d uuidd defaults >/dev/null\n\tfi\nfi\n"
      "if [ \"$1\" = \"configure\" ] ; then\n"
      "\tdeb-systemd-helper unmask 'uuidd.service' >/dev/null || true\n"
      "\tif deb-systemd-helper --quiet was-enabled 'uuidd.service'; then\n"
      "\t\tdeb-systemd-helper enable 'uuidd.service' >/dev/null || true\n"
      "\telse\n\t\tdeb-systemd-helper update-state 'uuidd.service' >/dev/null || true\n\tfi\nfi\n"
      "if [ \"$1\" = \"configure\" ] ; then\n"
      "\tif deb-systemd-helper --quiet was-enabled 'uuidd.socket'; then\n"
      "\t\tdeb-systemd-helper enable 'uuidd.socket' >/dev/null || true\n\tfi\nfi\n";
  p.captured["etc/init.d/uuidd"] = std::string(kInitScript);
  p.captured["usr/lib/systemd/system/uuidd.service"] = "[Unit]\nDescription=uuidd\n\n[Install]\nAlso=uuidd.socket\n";
  p.captured["usr/lib/systemd/system/uuidd.socket"] = "[Socket]\nListenStream=/run/uuidd/request\n\n[Install]\nWantedBy=sockets.target\n";
  for (const char* path : {"etc/init.d/uuidd", "usr/lib/systemd/system/uuidd.service", "usr/lib/systemd/system/uuidd.socket"}) {
    p.entries.push_back({path, TarEntryType::kRegular, "", ""});
  }
  return p;
}

TEST(Services, UuidRuntimeAsAptGetInstallLeavesIt) {
  auto base = merged_usr_base();
  auto rules = RewriteRules::from_base(base, 1700000000);
  ASSERT_TRUE(rules) << rules.error().message();
  FragmentInfo p = uuid_runtime();
  OverlayView view(base, *rules, {&p});
  std::vector<std::string> handled;
  auto fx = service_effects(view, 1700000000, handled);
  ASSERT_TRUE(fx) << fx.error().message();
  EXPECT_TRUE(fx->unreproduced.empty()) << fx->unreproduced.front();
  EXPECT_EQ(handled, std::vector<std::string>{"uuid-runtime"});
  auto files = by_path(*fx);
  EXPECT_EQ(files["etc/rc2.d/S01uuidd"], "-> ../init.d/uuidd");
  EXPECT_EQ(files["etc/rc5.d/S01uuidd"], "-> ../init.d/uuidd");
  EXPECT_EQ(files["etc/rc6.d/K01uuidd"], "-> ../init.d/uuidd");
  EXPECT_EQ(files.count("etc/rcS.d/S01uuidd"), 0u);
  EXPECT_EQ(files["etc/systemd/system/sockets.target.wants/uuidd.socket"], "-> /lib/systemd/system/uuidd.socket");
  EXPECT_EQ(files["var/lib/systemd/deb-systemd-helper-enabled/sockets.target.wants/uuidd.socket"], "");
  EXPECT_EQ(files["var/lib/systemd/deb-systemd-helper-enabled/uuidd.service.dsh-also"],
            "/etc/systemd/system/sockets.target.wants/uuidd.socket\n");
  EXPECT_EQ(files["var/lib/systemd/deb-systemd-helper-enabled/uuidd.socket.dsh-also"],
            "/etc/systemd/system/sockets.target.wants/uuidd.socket\n");
  EXPECT_EQ(files.size(), 11u);
}

TEST(Services, HostileHeadersAndCallsChangeNothing) {
  EXPECT_TRUE(lsb_default_levels("#!/bin/sh\n# Default-Start: 2 3\n").first.empty());  // outside the header
  auto levels = lsb_default_levels("### BEGIN INIT INFO\n# Default-Start: 2 ../x 33 S\n### END INIT INFO\n");
  EXPECT_EQ(levels.first, (std::vector<std::string>{"2", "S"}));
  auto install = unit_install_section("[Install]\nWantedBy=a.target b.target\n[Service]\nWantedBy=no.target\n");
  ASSERT_EQ(install.size(), 2u);
  EXPECT_EQ(install[1].second, "b.target");

  auto base = merged_usr_base();
  auto rules = RewriteRules::from_base(base, 1);
  ASSERT_TRUE(rules);
  FragmentInfo p;
  p.package = "evil";
  p.control_files["postinst"] =
      "deb-systemd-helper enable '../../etc/passwd'\n"
      "deb-systemd-helper enable $UNIT\n"
      "deb-systemd-helper enable missing.service\n"
      "deb-systemd-helper disable x.service\n"
      "update-rc.d ../x defaults\n"
      "update-rc.d x start 20 2 .\n"
      "deb-systemd-helper enable alias.service\n";  // its Alias is a path: no link
  p.captured["usr/lib/systemd/system/alias.service"] = "[Install]\nAlias=../../../etc/shadow\n";
  OverlayView view(base, *rules, {&p});
  std::vector<std::string> handled;
  auto fx = service_effects(view, 1, handled);
  ASSERT_TRUE(fx);
  EXPECT_TRUE(fx->files.empty());
  EXPECT_EQ(fx->unreproduced.size(), 6u);
  EXPECT_EQ(handled, std::vector<std::string>{"evil"});  // each call it could not do is listed on its own
}

TEST(Tzdata, EtcUtcOrTheBasesZoneNeverAPathOutOfZoneinfo) {
  FragmentInfo tz;
  tz.package = "tzdata";
  tz.entries.push_back({"usr/share/zoneinfo/Etc/UTC", TarEntryType::kRegular, "", ""});
  tz.entries.push_back({"usr/share/zoneinfo/Europe/Paris", TarEntryType::kRegular, "", ""});
  {
    auto base = merged_usr_base();
    auto rules = RewriteRules::from_base(base, 1);
    ASSERT_TRUE(rules);
    OverlayView view(base, *rules, {&tz});
    auto files = by_path(tzdata_effects(view, 1));
    EXPECT_EQ(files["etc/localtime"], "-> /usr/share/zoneinfo/Etc/UTC");
    EXPECT_EQ(files["etc/timezone"], "Etc/UTC\n");
  }
  {
    auto base = merged_usr_base({{"etc/localtime", link("../usr/share/zoneinfo/Europe/Paris")}});
    auto rules = RewriteRules::from_base(base, 1);
    ASSERT_TRUE(rules);
    OverlayView view(base, *rules, {&tz});
    auto files = by_path(tzdata_effects(view, 1));
    EXPECT_EQ(files.count("etc/localtime"), 0u);  // already names the zone
    EXPECT_EQ(files["etc/timezone"], "Europe/Paris\n");
  }
  {
    auto base = merged_usr_base({{"etc/timezone", file("../../../etc/passwd extra\n")}});
    auto rules = RewriteRules::from_base(base, 1);
    ASSERT_TRUE(rules);
    OverlayView view(base, *rules, {&tz});
    Effects fx = tzdata_effects(view, 1);
    auto files = by_path(fx);
    EXPECT_EQ(files["etc/timezone"], "Etc/UTC\n");
    ASSERT_EQ(fx.notes.size(), 1u);
    EXPECT_NE(fx.notes[0].find("../../../etc/passwd"), std::string::npos);
  }
  {
    auto base = merged_usr_base();
    auto rules = RewriteRules::from_base(base, 1);
    ASSERT_TRUE(rules);
    FragmentInfo other;
    other.package = "curl";
    OverlayView view(base, *rules, {&other});
    EXPECT_TRUE(tzdata_effects(view, 1).files.empty());
  }
}

}  // namespace
}  // namespace strata::layer
