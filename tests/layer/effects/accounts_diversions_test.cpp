// System accounts and diversions reproduced (layer/effects/accounts.hpp,
// layer/effects/diversions.hpp): the calls read from real maintainer
// scripts (uuid-runtime's postinst, vim-runtime's preinst, as bookworm ships
// them), applied as adduser/shadow and dpkg-divert leave the files — the
// expected bytes are what apt-get install left on a bookworm minbase — and
// hostile calls and files refused with a reason, changing nothing.
#include <gtest/gtest.h>

#include "layer/effects/accounts.hpp"
#include "layer/effects/diversions.hpp"

namespace strata::layer {
namespace {

constexpr std::string_view kUuidRuntimePostinst = R"SH(#!/bin/sh
set -e

# add uuidd user/group if needed.
if ! getent group uuidd >/dev/null; then
	addgroup --system uuidd
fi
if ! getent passwd uuidd >/dev/null; then
	adduser --system --quiet --ingroup uuidd \
		--home /run/uuidd --no-create-home \
		uuidd
fi

chown uuidd:uuidd /var/lib/libuuid
chmod 2775 /var/lib/libuuid

if [ "$1" = "configure" ] || [ "$1" = "abort-upgrade" ] ; then
	if [ -z "${DPKG_ROOT:-}" ] && [ -x "/etc/init.d/uuidd" ]; then
		update-rc.d uuidd defaults >/dev/null
	fi
fi
)SH";

// The tail of a bookworm minbase's files.
const AccountFiles kMinbase{
    "root:x:0:0:root:/root:/bin/bash\n_apt:x:42:65534::/nonexistent:/usr/sbin/nologin\n"
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
    "root:x:0:\nshadow:x:42:\nusers:x:100:\nnogroup:x:65534:\n",
    "root:*:19600:0:99999:7:::\n_apt:*:19600:0:99999:7:::\nnobody:*:19600:0:99999:7:::\n",
    "root:*::\nshadow:*::\nusers:*::\nnogroup:*::\n",
};

TEST(Accounts, UuidRuntimesPostinstAsAptGetInstallLeavesIt) {
  AccountScript s = parse_account_calls(kUuidRuntimePostinst);
  EXPECT_TRUE(s.unreadable.empty()) << s.unreadable.front();
  ASSERT_EQ(s.accounts.size(), 2u);
  EXPECT_EQ(s.accounts[0].kind, AccountCall::Kind::kGroup);
  EXPECT_EQ(s.accounts[1].ingroup, "uuidd");
  EXPECT_EQ(s.accounts[1].home, "/run/uuidd");
  EXPECT_TRUE(s.accounts[1].no_create_home);
  ASSERT_EQ(s.ownership.size(), 2u);
  EXPECT_EQ(s.ownership[0].user, "uuidd");
  EXPECT_EQ(s.ownership[0].group, "uuidd");
  EXPECT_EQ(s.ownership[1].mode, 02775u);

  AccountsResult r = apply_account_calls(kMinbase, s.accounts, {}, 1700000000 / 86400);
  EXPECT_TRUE(r.failed.empty());
  // uid 100 is free; gid 100 is users', so the group takes 101.
  EXPECT_EQ(*r.files.passwd, *kMinbase.passwd + "uuidd:x:100:101::/run/uuidd:/usr/sbin/nologin\n");
  EXPECT_EQ(*r.files.group, *kMinbase.group + "uuidd:x:101:\n");
  EXPECT_EQ(*r.files.shadow, *kMinbase.shadow + "uuidd:!:19675::::::\n");
  EXPECT_EQ(*r.files.gshadow, *kMinbase.gshadow + "uuidd:!::\n");
  EXPECT_EQ(r.backups.passwd, kMinbase.passwd);
  EXPECT_EQ(r.backups.group, kMinbase.group);
  EXPECT_TRUE(r.homes.empty());
}

TEST(Accounts, WithoutShadowTheLockedPasswordIsInPasswdAndGroupsAreSeparate) {
  AccountFiles plain{"root:x:0:0:root:/root:/bin/bash\n", "root:x:0:\nnogroup:x:65534:\n", std::nullopt, std::nullopt};
  AccountScript s = parse_account_calls("adduser --system --group --home /var/lib/foo foo\nadduser --system bar\n");
  ASSERT_EQ(s.accounts.size(), 2u);
  AccountsResult r = apply_account_calls(plain, s.accounts, {}, 19675);
  EXPECT_EQ(*r.files.passwd, *plain.passwd + "foo:!:100:100::/var/lib/foo:/usr/sbin/nologin\n"
                                             "bar:!:101:65534::/nonexistent:/usr/sbin/nologin\n");
  EXPECT_EQ(*r.files.group, *plain.group + "foo:x:100:\n");
  EXPECT_FALSE(r.files.shadow);
  ASSERT_EQ(r.homes.size(), 1u);
  EXPECT_EQ(std::get<0>(r.homes[0]), "/var/lib/foo");
  // passwd- is passwd before the last useradd.
  EXPECT_EQ(*r.backups.passwd, *plain.passwd + "foo:!:100:100::/var/lib/foo:/usr/sbin/nologin\n");
}

TEST(Accounts, HostileCallsAreReportedAndChangeNothing) {
  AccountScript s = parse_account_calls(
      "adduser --system 'bad:name'\n"
      "adduser --system $NAME\n"
      "adduser --system --uid many x\n"
      "adduser --system --home '/a:b' y\n"
      "adduser --frobnicate --system z\n"
      "adduser notsystem\n"
      "useradd -r svc\n"
      "chown -R foo /var/lib/foo\n"
      "chmod u+x /usr/bin/foo\n");
  EXPECT_TRUE(s.accounts.empty());
  EXPECT_TRUE(s.ownership.empty());
  EXPECT_EQ(s.unreadable.size(), 9u);
  // A range with nothing free: the call fails as adduser would, nothing written.
  AdduserConfig tight;
  tight.first_system_uid = 0;
  tight.last_system_uid = 0;
  AccountScript one = parse_account_calls("adduser --system svc\n");
  AccountsResult r = apply_account_calls(kMinbase, one.accounts, tight, 1);
  ASSERT_EQ(r.failed.size(), 1u);
  EXPECT_EQ(*r.files.passwd, *kMinbase.passwd);
  EXPECT_EQ(parse_adduser_conf("FIRST_SYSTEM_UID=200\nLAST_SYSTEM_UID=\"300\"\n# x\nbogus\nLAST_SYSTEM_GID=-1\n")
                .last_system_uid,
            300u);
}

constexpr std::string_view kVimRuntimePreinst = R"SH(#!/bin/sh
set -e

vimcur="vim90"
basedir=/usr/share/vim/$vimcur/doc

add_diversion() {
  dpkg-divert --package vim-runtime --add --rename \
    --divert "$1.vim-tiny" "$1"
}

major_upgrade() {
  oldver="${1#?:}"
  oldver="vim$(echo ${oldver%.*-*} | sed 's/\.//g')"
  [ "$oldver" != "$vimcur" ]
}

if [ "$1" != "upgrade" ] || major_upgrade $2; then
  add_diversion $basedir/help.txt
  add_diversion $basedir/tags
fi

exit 0
)SH";

TEST(Diversions, VimRuntimesPreinstInDpkgsOrder) {
  std::vector<std::string> unreadable;
  auto calls = parse_divert_calls(kVimRuntimePreinst, "vim-runtime", unreadable);
  EXPECT_TRUE(unreadable.empty()) << unreadable.front();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].diversion.path, "/usr/share/vim/vim90/doc/help.txt");
  EXPECT_EQ(calls[0].diversion.divert_to, "/usr/share/vim/vim90/doc/help.txt.vim-tiny");
  EXPECT_EQ(calls[1].diversion.package, "vim-runtime");
  EXPECT_TRUE(calls[1].rename);
  // A bookworm minbase's diversions (dash's), then vim-runtime's: the file
  // apt-get install left.
  auto base = parse_diversions("/usr/share/man/man1/sh.1.gz\n/usr/share/man/man1/sh.distrib.1.gz\ndash\n"
                               "/bin/sh\n/bin/sh.distrib\ndash\n");
  ASSERT_TRUE(base) << base.error().message();
  for (const auto& c : calls) base->push_back(c.diversion);
  EXPECT_EQ(format_diversions(*base),
            "/usr/share/man/man1/sh.1.gz\n/usr/share/man/man1/sh.distrib.1.gz\ndash\n"
            "/usr/share/vim/vim90/doc/help.txt\n/usr/share/vim/vim90/doc/help.txt.vim-tiny\nvim-runtime\n"
            "/usr/share/vim/vim90/doc/tags\n/usr/share/vim/vim90/doc/tags.vim-tiny\nvim-runtime\n"
            "/bin/sh\n/bin/sh.distrib\ndash\n");
}

TEST(Diversions, DefaultsAndHostileCalls) {
  std::vector<std::string> unreadable;
  auto calls = parse_divert_calls(
      "dpkg-divert --add /usr/bin/a\n"
      "dpkg-divert --local --divert /usr/bin/b.real /usr/bin/b\n"
      "dpkg-divert --list '*'\n"
      "dpkg-divert --remove /usr/bin/c\n"
      "dpkg-divert --add relative/path\n"
      "dpkg-divert --add $FILE\n"
      "dpkg-divert --frob /usr/bin/d\n",
      "pkg", unreadable);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].diversion.divert_to, "/usr/bin/a.distrib");
  EXPECT_EQ(calls[0].diversion.package, "pkg");
  EXPECT_EQ(calls[1].diversion.package, ":");
  EXPECT_EQ(unreadable.size(), 4u);  // --remove, relative, $FILE, --frob; --list is a query
  auto bad = parse_diversions("/a\n/a.distrib\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("/var/lib/dpkg/diversions"), std::string::npos);
}

}  // namespace
}  // namespace strata::layer
