#include "oci/tar_writer.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sys/stat.h>

#include "support/shell.hpp"
#include "util/sha.hpp"

namespace strata::oci {
namespace {

using oci::TarEntry;
using oci::TarEntryType;
using testing::TempDir;
using testing::shell_quote;
using testing::shell;

TarEntry reg_entry(std::string path, std::uint64_t size, std::uint32_t mode = 0644) {
  TarEntry e;
  e.path = std::move(path);
  e.type = TarEntryType::kRegular;
  e.mode = mode;
  e.size = size;
  e.mtime = 1700000000;
  return e;
}

TarEntry dir_entry(std::string path) {
  TarEntry e;
  e.path = std::move(path);
  e.type = TarEntryType::kDirectory;
  e.mode = 0755;
  e.mtime = 1700000000;
  return e;
}

TarEntry link_entry(std::string path, TarEntryType type, std::string target) {
  TarEntry e;
  e.path = std::move(path);
  e.type = type;
  e.mode = 0777;
  e.link_target = std::move(target);
  return e;
}

std::string octal_field(std::string_view block, std::size_t off, std::size_t len) {
  return std::string(block.substr(off, len));
}

TEST(TarWriter, SimpleHeaderHasExactUstarBytes) {
  auto h = oci::encode_tar_header(reg_entry("etc/hostname", 5));
  ASSERT_TRUE(h) << h.error().message();
  ASSERT_EQ(h->size(), 512u);
  std::string_view b = *h;
  EXPECT_EQ(b.substr(0, 13), std::string_view("etc/hostname\0", 13));
  EXPECT_EQ(octal_field(b, 100, 8), std::string("0000644\0", 8));
  EXPECT_EQ(octal_field(b, 108, 8), std::string("0000000\0", 8));
  EXPECT_EQ(octal_field(b, 116, 8), std::string("0000000\0", 8));
  EXPECT_EQ(octal_field(b, 124, 12), std::string("00000000005\0", 12));
  EXPECT_EQ(octal_field(b, 136, 12), std::string("14524770400\0", 12));  // 1700000000
  EXPECT_EQ(octal_field(b, 148, 8), std::string("010316\0 ", 8));
  EXPECT_EQ(b[156], '0');
  EXPECT_EQ(octal_field(b, 257, 8), std::string("ustar\0" "00", 8));
  EXPECT_EQ(b.substr(265, 64), std::string(64, '\0'));  // uname, gname empty
  EXPECT_EQ(b.substr(329, 512 - 329), std::string(512 - 329, '\0'));  // no dev numbers, prefix
}

TEST(TarWriter, UstarHeadersMatchPythonTarfileByteForByte) {
  // Python's tarfile is an independent ustar encoder with the same field
  // conventions (octal + NUL, checksum "%06o\0 ", empty names).
  struct Case {
    TarEntry e;
    std::string py;  // TarInfo setup
  };
  TarEntry dev;
  dev.path = "dev/null";
  dev.type = TarEntryType::kCharDevice;
  dev.mode = 0666;
  dev.dev_major = 1;
  dev.dev_minor = 3;
  dev.mtime = 5;
  TarEntry sym = link_entry("usr/lib/libx.so", TarEntryType::kSymlink, "libx.so.1");
  sym.uid = 1000;
  sym.gid = 100;
  std::vector<Case> cases = {
      {reg_entry("etc/hostname", 5), "t=I('etc/hostname');t.size=5;t.mode=0o644;t.mtime=1700000000"},
      {dir_entry("usr/share"), "t=I('usr/share/');t.type=tarfile.DIRTYPE;t.mode=0o755;t.mtime=1700000000"},
      {sym, "t=I('usr/lib/libx.so');t.type=tarfile.SYMTYPE;t.linkname='libx.so.1';t.mode=0o777;t.uid=1000;"
            "t.gid=100;t.mtime=0"},
      {dev, "t=I('dev/null');t.type=tarfile.CHRTYPE;t.devmajor=1;t.devminor=3;t.mode=0o666;t.mtime=5"},
  };
  for (const auto& c : cases) {
    auto h = oci::encode_tar_header(c.e);
    ASSERT_TRUE(h) << h.error().message();
    std::string py = "python3 -c \"import tarfile,sys;I=tarfile.TarInfo;" + c.py +
                     ";t.uname='';t.gname='';sys.stdout.buffer.write(t.tobuf(format=tarfile.USTAR_FORMAT))\"";
    auto r = shell(py);
    ASSERT_EQ(r.status, 0) << py;
    EXPECT_EQ(*h, r.out) << c.e.path;
  }
}

std::string write_archive(const std::vector<std::pair<TarEntry, std::string>>& entries,
                          oci::TarWriter::Trailer trailer = oci::TarWriter::Trailer::kWrite) {
  oci::StringSink sink;
  oci::TarWriter w(sink);
  for (const auto& [e, content] : entries) {
    auto r = e.type == TarEntryType::kRegular ? w.add_file(e, content) : w.add(e);
    EXPECT_TRUE(r) << r.error().message();
  }
  auto f = w.finish(trailer);
  EXPECT_TRUE(f) << f.error().message();
  return sink.str();
}

TEST(TarWriter, EndsWithExactlyTwoZeroBlocksAndNoRecordPadding) {
  std::string tar = write_archive({{reg_entry("a", 3), "abc"}});
  ASSERT_EQ(tar.size(), 512u + 512u + 1024u);
  EXPECT_EQ(tar.substr(512, 3), "abc");
  EXPECT_EQ(tar.substr(515), std::string(512 - 3 + 1024, '\0'));

  std::string frag = write_archive({{reg_entry("a", 3), "abc"}}, oci::TarWriter::Trailer::kOmit);
  EXPECT_EQ(frag.size(), 1024u);
  EXPECT_EQ(frag, tar.substr(0, 1024));
}

TEST(TarWriter, LongAndNonAsciiNamesUsePaxOnlyWhenNeeded) {
  std::string mid(120, 'm');  // 120-byte component: splits into prefix/name
  std::string longdir = "usr/share/" + std::string(90, 'd') + "/" + std::string(80, 'e');  // fits prefix+name
  std::string unsplittable = "opt/" + std::string(150, 'x');                              // needs PAX
  std::string utf8 = "usr/share/doc/caf\xc3\xa9.txt";
  std::string longlink(300, 'l');

  auto plain = oci::encode_tar_header(reg_entry(longdir, 0));
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->size(), 512u) << "a name that fits prefix+name needs no PAX header";
  auto pax = oci::encode_tar_header(reg_entry(unsplittable, 0));
  ASSERT_TRUE(pax);
  EXPECT_EQ(pax->size(), 1536u);
  EXPECT_EQ(pax->substr(0, 14), oci::kPaxHeaderName);
  EXPECT_EQ((*pax)[156], 'x');
  EXPECT_NE(pax->find(" path=" + unsplittable + "\n"), std::string::npos);

  TarEntry big = reg_entry("var/big", 0);
  big.uid = 5000000;
  big.gid = 4000000;
  big.xattrs = {{"user.b", "2"}, {"security.capability", std::string("\x01\x00\x00\x02", 4)}};
  auto bigh = oci::encode_tar_header(big);
  ASSERT_TRUE(bigh);
  // Records sorted by key: SCHILY.xattr.security..., SCHILY.xattr.user.b, gid, uid.
  auto p1 = bigh->find("SCHILY.xattr.security.capability="), p2 = bigh->find("SCHILY.xattr.user.b=2"),
       p3 = bigh->find("gid=4000000"), p4 = bigh->find("uid=5000000");
  ASSERT_NE(p1, std::string::npos);
  EXPECT_LT(p1, p2);
  EXPECT_LT(p2, p3);
  EXPECT_LT(p3, p4);

  TempDir d;
  std::string tar = write_archive({
      {dir_entry("opt"), ""},
      {reg_entry(unsplittable, 4), "long"},
      {dir_entry("usr"), ""},
      {dir_entry("usr/share"), ""},
      {dir_entry("usr/share/" + std::string(90, 'd')), ""},
      {reg_entry(longdir, 2), "ld"},
      {dir_entry("usr/share/doc"), ""},
      {reg_entry(utf8, 1), "e"},
      {link_entry("usr/share/ll", TarEntryType::kSymlink, longlink), ""},
      {dir_entry("usr/share/" + mid), ""},
      {big, ""},
  });
  (void)big;
  testing::write_file(d / "t.tar", tar);
  auto listing = shell("LC_ALL=C.UTF-8 tar --numeric-owner -tvf " + shell_quote((d / "t.tar").string()));
  ASSERT_EQ(listing.status, 0) << listing.out;
  EXPECT_NE(listing.out.find(unsplittable), std::string::npos);
  EXPECT_NE(listing.out.find(longdir), std::string::npos);
  EXPECT_NE(listing.out.find("caf\xc3\xa9.txt"), std::string::npos) << listing.out;
  EXPECT_NE(listing.out.find("-> " + longlink), std::string::npos);
  EXPECT_NE(listing.out.find("5000000/4000000"), std::string::npos) << listing.out;

  // Python's tarfile sees the same names, targets, ids and xattrs.
  std::string script =
      "import tarfile,sys\n"
      "t=tarfile.open(sys.argv[1])\n"
      "for m in t.getmembers():\n"
      "  x=sorted(k for k in m.pax_headers if k.startswith('SCHILY'))\n"
      "  print(repr(m.name), m.type.decode(), m.size, m.uid, m.gid, m.linkname, ','.join(x))\n";
  testing::write_file(d / "read.py", script);
  auto py = shell("python3 " + shell_quote((d / "read.py").string()) + " " + shell_quote((d / "t.tar").string()));
  ASSERT_EQ(py.status, 0);
  EXPECT_NE(py.out.find("'" + unsplittable + "' 0 4 0 0"), std::string::npos) << py.out;
  EXPECT_NE(py.out.find("'usr/share/doc/caf\xc3\xa9.txt' 0 1"), std::string::npos) << py.out;
  EXPECT_NE(py.out.find("'usr/share/ll' 2 0 0 0 " + longlink), std::string::npos) << py.out;
  EXPECT_NE(py.out.find("'var/big' 0 0 5000000 4000000  SCHILY.xattr.security.capability,SCHILY.xattr.user.b"),
            std::string::npos)
      << py.out;
  EXPECT_NE(py.out.find("'usr/share/" + mid + "' 5"), std::string::npos) << py.out;
}

TEST(TarWriter, ConcatenatedFragmentsFormOneValidArchive) {
  std::string a = write_archive({{dir_entry("a"), ""}, {reg_entry("a/x", 1), "x"}}, oci::TarWriter::Trailer::kOmit);
  std::string b = write_archive({{dir_entry("b"), ""}, {reg_entry("b/y", 2), "yy"}}, oci::TarWriter::Trailer::kOmit);
  std::string end = write_archive({});
  EXPECT_EQ(end, std::string(1024, '\0'));
  TempDir d;
  testing::write_file(d / "t.tar", a + b + end);
  auto r = shell("tar -tf " + shell_quote((d / "t.tar").string()));
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "a/\na/x\nb/\nb/y\n");
}

TEST(TarWriter, RefusesBadNamesOrderAndSizes) {
  for (std::string bad : std::vector<std::string>{"/etc/passwd", "./etc", "a/../b", "..", "a//b", "a/", "", "a/./b",
                          std::string("a\0b", 3)}) {
    oci::StringSink sink;
    oci::TarWriter w(sink);
    auto r = w.add(reg_entry(bad, 0));
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  }
  {
    oci::StringSink sink;
    oci::TarWriter w(sink);
    ASSERT_TRUE(w.add(dir_entry("b")));
    auto r = w.add(dir_entry("a"));
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("out of order"), std::string::npos);
  }
  {
    oci::StringSink sink;
    oci::TarWriter w(sink);
    ASSERT_TRUE(w.add(dir_entry("a")));
    auto r = w.add(dir_entry("a"));
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("duplicate"), std::string::npos);
  }
  {
    oci::StringSink sink;
    oci::TarWriter w(sink);
    ASSERT_TRUE(w.add(reg_entry("a", 4)));
    ASSERT_TRUE(w.write_data(oci::as_bytes("ab")));
    auto r = w.finish();
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("never written"), std::string::npos);
  }
  {
    oci::StringSink sink;
    oci::TarWriter w(sink);
    ASSERT_TRUE(w.add(reg_entry("a", 1)));
    EXPECT_FALSE(w.write_data(oci::as_bytes("ab")));
  }
  EXPECT_FALSE(oci::encode_tar_header(link_entry("h", TarEntryType::kHardlink, "../x")));
  TarEntry d = dir_entry("d");
  d.size = 3;
  EXPECT_FALSE(oci::encode_tar_header(d));
}

TEST(TarWriter, PathOrderPutsParentsFirstAndWhiteoutsBeforeSiblings) {
  std::vector<std::string> paths = {"a-b", "a/b", "a", "d/x", "d/.wh.y", "d", "d/.a", "A"};
  std::sort(paths.begin(), paths.end(), [](const auto& x, const auto& y) { return oci::tar_path_less(x, y); });
  EXPECT_EQ(paths, (std::vector<std::string>{"A", "a", "a/b", "a-b", "d", "d/.wh.y", "d/.a", "d/x"}));
}

TEST(TarWriter, BytesDoNotDependOnUmaskOrTimezone) {
  auto build = [] {
    return write_archive({{dir_entry("etc"), ""}, {link_entry("etc/l", TarEntryType::kSymlink, "motd"), ""},
                          {reg_entry("etc/motd", 5, 0600), "hello"}});
  };
  std::string first = build();
  mode_t old = ::umask(0077);
  const char* oldtz = std::getenv("TZ");
  std::string saved_tz = oldtz ? oldtz : "";
  ::setenv("TZ", "Asia/Kathmandu", 1);
  ::tzset();
  std::string second = build();
  ::umask(old);
  if (oldtz) ::setenv("TZ", saved_tz.c_str(), 1);
  else ::unsetenv("TZ");
  ::tzset();
  EXPECT_EQ(sha256_hex(first), sha256_hex(second));
}

}  // namespace
}  // namespace strata::oci
