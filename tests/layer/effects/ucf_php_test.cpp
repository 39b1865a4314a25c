// Configuration files installed with ucf and the PHP modules Debian's PHP
// packages enable (layer/effects/ucf.hpp), from the bookworm packages' real
// postinst calls on a small base built in memory: php8.2-common's and
// php8.2-intl's loops over their modules, php8.2-cli's php.ini from
// php8.2-common's template and its alternatives loop. What phpenmod leaves:
// mods-available, the conf.d links with the ini's priority, the state and
// registry files; ucf's hashfile and registry. A module the base's admin
// disabled stays off, a configuration file the base has is kept, and calls
// that name paths outside the tree change nothing.
#include <gtest/gtest.h>

#include "layer/deb/fragment.hpp"
#include "layer/deb/rewrite_rules.hpp"
#include "layer/effects/alternatives.hpp"
#include "layer/effects/effect_nodes.hpp"
#include "layer/effects/ucf.hpp"

namespace strata::layer {
namespace {

using oci::FsNode;
using oci::TarEntryType;

using testing::by_path;
using testing::dir;
using testing::file;

oci::ImageFilesystem php_base(std::map<std::string, FsNode> extra = {}) {
  std::map<std::string, FsNode> nodes{{"etc", dir()}, {"usr", dir()}, {"usr/lib", dir()}, {"var", dir()},
                                      {"var/lib", dir()}};
  for (auto& [k, v] : extra) nodes[k] = std::move(v);
  return oci::ImageFilesystem::from_nodes(std::move(nodes), 1);
}

// The postinst php8.2-<name> ships for its modules (bookworm, 8.2.36).
std::string module_postinst(const std::string& package, const std::string& dir, const std::string& mods) {
  return "#!/bin/sh\n\nset -e\n\nif [ \"$1\" = \"configure\" ]; then\n"
         "    # Install the new versioned configuration\n    inidir=/etc/php/8.2/mods-available\n\n"
         "    if [ -e /usr/lib/php/php-maintscript-helper ] ; then\n\t. /usr/lib/php/php-maintscript-helper\n\n"
         "\tfor dsoname in " + mods + "; do\n\t    inifile=${dsoname}.ini\n\n"
         "\t    # Register new conffile with UCF\n"
         "\t    ucf /usr/share/" + package + "/" + dir + "/${inifile} ${inidir}/${inifile}\n"
         "\t    ucfr --force " + package + " ${inidir}/${inifile}\n\t    \n"
         "\t    if [ -f \"${inidir}/${inifile}.dpkg-new\" ]; then\n"
         "\t\tmd5sum=\"$(md5sum ${inidir}/${inifile}.dpkg-new | sed -e 's/ .*//')\"\n"
         "\t\told_md5sum=\"$(md5sum ${inidir}/${inifile} | sed -e 's/ .*//')\"\n"
         "\t\tif [ \"$md5sum\" = \"$old_md5sum\" ]; then\n"
         "\t\t    mv \"${inidir}/${inifile}.dpkg-new\" \"${inidir}/${inifile}\"\n\t\tfi\n\t    fi\n\t\n"
         "\t    php_invoke enmod 8.2 ALL ${dsoname}\n\tdone\n    fi\nfi\n\n\n\nexit 0\n";
}

constexpr std::string_view kCliPostinst =
    "#!/bin/sh\n\nset -e\n\nif [ \"$1\" = \"configure\" ]; then\n"
    "    for binary in php phar phar.phar; do\n        update-alternatives \\\n"
    "\t    --install /usr/bin/${binary} ${binary} /usr/bin/${binary}8.2 82 \\\n"
    "\t    --slave /usr/share/man/man1/${binary}.1.gz ${binary}.1.gz /usr/share/man/man1/${binary}8.2.1.gz\n"
    "    done\nfi\n\nCONFDIR=/etc/php/8.2/cli/conf.d\n\nif [ \"$1\" = \"configure\" ]; then\n"
    "    phpini=\"/etc/php/8.2/cli/php.ini\"\n\n    if [ \"cli\" = \"cli\" ]; then\n"
    "\tucf /usr/lib/php/8.2/php.ini-production.cli $phpini\n    else\n"
    "\tucf /usr/lib/php/8.2/php.ini-production $phpini\n    fi\n    ucfr php8.2-cli $phpini\n\n"
    "    if [ -e /usr/lib/php/php-maintscript-helper ]; then\n\t. /usr/lib/php/php-maintscript-helper\n\t\n"
    "\tmods=$(phpquery -M -v 8.2)\n\tfor mod in $mods; do\n\t    php_invoke enmod 8.2 cli $mod\n\tdone\n    fi\nfi\n\nexit 0\n";

struct Php {
  FragmentInfo common, cli, intl;
  Php() {
    common.package = "php8.2-common";
    common.control_files["postinst"] = module_postinst("php8.2-common", "common", "ctype pdo");
    common.captured["usr/share/php8.2-common/common/ctype.ini"] = "; configuration for php ctype module\n; priority=20\nextension=ctype.so\n";
    common.captured["usr/share/php8.2-common/common/pdo.ini"] = "; configuration for php PDO module\n; priority=10\nextension=pdo.so\n";
    common.captured["usr/lib/php/8.2/php.ini-production.cli"] = "[PHP]\nmemory_limit = -1\n";
    common.captured["usr/lib/php/8.2/php.ini-production"] = "[PHP]\nmemory_limit = 128M\n";
    cli.package = "php8.2-cli";
    cli.control_files["postinst"] = std::string(kCliPostinst);
    for (const char* path : {"etc/php/8.2/cli/conf.d", "usr/lib/php/8.2/sapi/cli", "usr/bin/php8.2"})
      cli.entries.push_back({path, std::string(path).ends_with("conf.d") ? TarEntryType::kDirectory : TarEntryType::kRegular, "", ""});
    intl.package = "php8.2-intl";
    intl.control_files["postinst"] = module_postinst("php8.2-intl", "intl", "intl");
    intl.captured["usr/share/php8.2-intl/intl/intl.ini"] = "; configuration for php intl module\n; priority=20\nextension=intl.so\n";
  }
};

TEST(UcfPhp, DebiansPhpModulesAsAptGetInstallLeavesThem) {
  auto base = php_base();
  auto rules = RewriteRules::from_base(base, 1700000000);
  ASSERT_TRUE(rules) << rules.error().message();
  Php php;
  OverlayView view(base, *rules, {&php.common, &php.cli, &php.intl});
  std::vector<std::string> handled;
  auto fx = ucf_effects(view, 1700000000, handled);
  ASSERT_TRUE(fx) << fx.error().message();
  EXPECT_TRUE(fx->unreproduced.empty()) << fx->unreproduced.front();
  EXPECT_EQ(handled, (std::vector<std::string>{"php8.2-common", "php8.2-cli", "php8.2-intl"}));
  auto files = by_path(*fx);
  EXPECT_EQ(files["etc/php/8.2/mods-available/pdo.ini"], php.common.captured["usr/share/php8.2-common/common/pdo.ini"]);
  EXPECT_EQ(files["etc/php/8.2/mods-available/intl.ini"], php.intl.captured["usr/share/php8.2-intl/intl/intl.ini"]);
  EXPECT_EQ(files["etc/php/8.2/cli/php.ini"], "[PHP]\nmemory_limit = -1\n");  // the first ucf call wins
  EXPECT_EQ(files["etc/php/8.2/cli/conf.d/10-pdo.ini"], "-> /etc/php/8.2/mods-available/pdo.ini");
  EXPECT_EQ(files["etc/php/8.2/cli/conf.d/20-ctype.ini"], "-> /etc/php/8.2/mods-available/ctype.ini");
  EXPECT_EQ(files["etc/php/8.2/cli/conf.d/20-intl.ini"], "-> /etc/php/8.2/mods-available/intl.ini");
  for (const char* mod : {"ctype", "pdo", "intl"}) {
    EXPECT_EQ(files.count(std::string("var/lib/php/modules/8.2/cli/enabled_by_maint/") + mod), 1u) << mod;
    EXPECT_EQ(files.count(std::string("var/lib/php/modules/8.2/registry/") + mod), 1u) << mod;
  }
  EXPECT_EQ(files["var/lib/ucf/hashfile"],
            md5_hex(php.common.captured["usr/share/php8.2-common/common/ctype.ini"]) +
                "  /etc/php/8.2/mods-available/ctype.ini\n" +
                md5_hex(php.common.captured["usr/share/php8.2-common/common/pdo.ini"]) +
                "  /etc/php/8.2/mods-available/pdo.ini\n" + md5_hex("[PHP]\nmemory_limit = -1\n") +
                "  /etc/php/8.2/cli/php.ini\n" + md5_hex(php.intl.captured["usr/share/php8.2-intl/intl/intl.ini"]) +
                "  /etc/php/8.2/mods-available/intl.ini\n");
  EXPECT_EQ(files["var/lib/ucf/registry"],
            "php8.2-common \t /etc/php/8.2/mods-available/ctype.ini\n"
            "php8.2-common \t /etc/php/8.2/mods-available/pdo.ini\n"
            "php8.2-cli \t /etc/php/8.2/cli/php.ini\n"
            "php8.2-intl \t /etc/php/8.2/mods-available/intl.ini\n");
  EXPECT_EQ(files.size(), 15u);  // 3 + 1 configuration files, 3 links, 6 state files, ucf's 2
}

TEST(UcfPhp, AnAdminDisabledModuleStaysOffAndAnExistingConfigurationFileIsKept) {
  auto base = php_base({{"etc/php", dir()},
                         {"etc/php/8.2", dir()},
                         {"etc/php/8.2/mods-available", dir()},
                         {"etc/php/8.2/mods-available/pdo.ini", file("; priority=10\nextension=pdo.so ; edited\n")},
                         {"var/lib/php", dir()},
                         {"var/lib/php/modules", dir()},
                         {"var/lib/php/modules/8.2", dir()},
                         {"var/lib/php/modules/8.2/cli", dir()},
                         {"var/lib/php/modules/8.2/cli/disabled_by_admin", dir()},
                         {"var/lib/php/modules/8.2/cli/disabled_by_admin/intl", file("")},
                         {"var/lib/ucf", dir()},
                         {"var/lib/ucf/hashfile", file("0123  /etc/other.conf\n")}});
  auto rules = RewriteRules::from_base(base, 1);
  ASSERT_TRUE(rules);
  Php php;
  OverlayView view(base, *rules, {&php.common, &php.cli, &php.intl});
  std::vector<std::string> handled;
  auto fx = ucf_effects(view, 1, handled);
  ASSERT_TRUE(fx) << fx.error().message();
  auto files = by_path(*fx);
  EXPECT_EQ(files.count("etc/php/8.2/mods-available/pdo.ini"), 0u) << "ucf keeps the file the base has";
  EXPECT_EQ(files["etc/php/8.2/cli/conf.d/10-pdo.ini"], "-> /etc/php/8.2/mods-available/pdo.ini");
  EXPECT_EQ(files.count("etc/php/8.2/cli/conf.d/20-intl.ini"), 0u) << "disabled by the admin";
  EXPECT_TRUE(files["var/lib/ucf/hashfile"].starts_with("0123  /etc/other.conf\n"));
}

TEST(UcfPhp, CallsOutsideTheTreeOrUnreadableChangeNothing) {
  auto base = php_base();
  auto rules = RewriteRules::from_base(base, 1);
  ASSERT_TRUE(rules);
  FragmentInfo p;
  p.package = "evil";
  p.control_files["postinst"] =
      "ucf /usr/share/evil/x.conf /etc/../../root/.ssh/authorized_keys\n"
      "ucf /usr/share/evil/x.conf $DEST\n"
      "ucf /usr/share/evil/missing.conf /etc/evil.conf\n"
      "if [ -z ucf ]; then :; fi\n"
      "ucfr evil /etc/../shadow\n";
  p.captured["usr/share/evil/x.conf"] = "x\n";
  p.entries.push_back({"usr/lib/php/../../../etc/sapi/cli", TarEntryType::kRegular, "", ""});
  OverlayView view(base, *rules, {&p});
  std::vector<std::string> handled;
  auto fx = ucf_effects(view, 1, handled);
  ASSERT_TRUE(fx) << fx.error().message();
  EXPECT_TRUE(fx->files.empty()) << fx->files.front().entry.path;
  EXPECT_EQ(fx->unreproduced.size(), 3u);
  EXPECT_TRUE(handled.empty());
}

TEST(Alternatives, InstallCallsInsideAForLoopAreUnrolled) {
  std::vector<std::string> unreadable;
  auto calls = parse_alternative_installs(kCliPostinst, unreadable);
  EXPECT_TRUE(unreadable.empty()) << unreadable.front();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].link, "/usr/bin/php");
  EXPECT_EQ(calls[0].path, "/usr/bin/php8.2");
  EXPECT_EQ(calls[2].name, "phar.phar");
  ASSERT_EQ(calls[2].slaves.size(), 1u);
  EXPECT_EQ(calls[2].slaves[0].path, "/usr/share/man/man1/phar.phar8.2.1.gz");
}

}  // namespace
}  // namespace strata::layer
