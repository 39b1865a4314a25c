#include "oci/tar_reader.hpp"

#include <gtest/gtest.h>

#include "support/source_dir.hpp"

#include <cstdlib>
#include <fstream>

#include <libdeflate.h>

#include "oci/compress.hpp"
#include "oci/tar_writer.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"
#include "support/test_store.hpp"

namespace strata::oci {
namespace {

using oci::TarWriter;
using testing::TempDir;

std::filesystem::path bad_dir() {
  return strata::testing::source_dir() / "testdata" / "bad" / "layer";
}

TarEntry entry(std::string path, TarEntryType type, std::uint64_t size = 0) {
  TarEntry e;
  e.path = std::move(path);
  e.type = type;
  e.mode = type == TarEntryType::kDirectory ? 0755 : 0644;
  e.size = size;
  e.mtime = 1234567890;
  return e;
}

// A sample layer exercising every entry type and the PAX cases.
std::string sample_tar() {
  StringSink out;
  oci::TarWriter w(out);
  auto ok = [](Result<void> r) { ASSERT_TRUE(r) << r.error().message(); };
  TarEntry big = entry("bin/big-ids", TarEntryType::kRegular, 3);
  big.uid = 70000000;
  big.gid = 3000000;
  big.xattrs["security.capability"] = std::string("\x01\x00\x00\x02\x00\x20", 6);
  TarEntry sym = entry("bin/sh", TarEntryType::kSymlink);
  sym.link_target = "/usr/bin/dash";
  TarEntry hard = entry("bin/zz-hard", TarEntryType::kHardlink);
  hard.link_target = "bin/big-ids";
  TarEntry dev = entry("dev/null", TarEntryType::kCharDevice);
  dev.dev_major = 1;
  dev.dev_minor = 3;
  std::string longname = "usr/share/" + std::string(200, 'n');
  ok(w.add(entry("bin", TarEntryType::kDirectory)));
  ok(w.add_file(big, "abc"));
  ok(w.add(sym));
  ok(w.add(hard));
  ok(w.add(entry("dev", TarEntryType::kDirectory)));
  ok(w.add(entry("dev/fifo", TarEntryType::kFifo)));
  ok(w.add(dev));
  ok(w.add(entry("usr", TarEntryType::kDirectory)));
  ok(w.add(entry("usr/share", TarEntryType::kDirectory)));
  ok(w.add_file(entry("usr/share/caf\xc3\xa9", TarEntryType::kRegular, 2), "ok"));
  ok(w.add_file(entry(longname, TarEntryType::kRegular, 1), "L"));
  ok(w.finish());
  return out.str();
}

std::vector<TarEntry> read_all(TarReader& r, std::map<std::string, std::string>* contents = nullptr) {
  std::vector<TarEntry> out;
  while (true) {
    auto e = r.next();
    EXPECT_TRUE(e) << e.error().message();
    if (!e || !*e) break;
    if (contents && (*e)->type == TarEntryType::kRegular) {
      auto c = r.read_data_string(1 << 20);
      EXPECT_TRUE(c);
      (*contents)[(*e)->path] = *c;
    }
    out.push_back(**e);
  }
  return out;
}

std::string compress(const std::string& tar, oci::Compression c) {
  StringSink out;
  auto sink = oci::CompressingSink::create(c, out);
  EXPECT_TRUE((*sink)->write(as_bytes(tar)));
  EXPECT_TRUE((*sink)->finish());
  return out.str();
}

TEST(TarReader, ReadsBackWhatTheWriterWroteInEveryCompression) {
  std::string tar = sample_tar();
  for (auto c : {oci::Compression::kNone, oci::Compression::kGzip, oci::Compression::kZstd}) {
    std::string blob = compress(tar, c);
    std::size_t off = 0;
    auto r = TarReader::open(
        [&](std::span<std::byte> buf) -> Result<std::size_t> {
          std::size_t n = std::min(buf.size(), blob.size() - off);
          std::memcpy(buf.data(), blob.data() + off, n);
          off += n;
          return n;
        },
        {}, "sample");
    ASSERT_TRUE(r) << r.error().message();
    std::map<std::string, std::string> contents;
    auto entries = read_all(**r, &contents);
    ASSERT_EQ(entries.size(), 11u);
    EXPECT_EQ(entries[0].path, "bin");
    EXPECT_EQ(entries[0].type, TarEntryType::kDirectory);
    EXPECT_EQ(entries[1].uid, 70000000u);
    EXPECT_EQ(entries[1].gid, 3000000u);
    EXPECT_EQ(entries[1].xattrs.at("security.capability"), std::string("\x01\x00\x00\x02\x00\x20", 6));
    EXPECT_EQ(entries[1].mtime, 1234567890);
    EXPECT_EQ(entries[2].link_target, "/usr/bin/dash");
    EXPECT_EQ(entries[3].type, TarEntryType::kHardlink);
    EXPECT_EQ(entries[3].link_target, "bin/big-ids");
    EXPECT_EQ(entries[5].type, TarEntryType::kFifo);
    EXPECT_EQ(entries[6].dev_major, 1u);
    EXPECT_EQ(entries[6].dev_minor, 3u);
    EXPECT_EQ(entries[9].path, "usr/share/caf\xc3\xa9");
    EXPECT_EQ(entries[10].path, "usr/share/" + std::string(200, 'n'));
    EXPECT_EQ(contents["bin/big-ids"], "abc");
    EXPECT_EQ(contents["usr/share/caf\xc3\xa9"], "ok");
  }
}

TEST(TarReader, RefusesTheHostileCorpusNamingTheEntry) {
  struct Case {
    std::string file, entry, reason;
  };
  std::vector<Case> cases = {
      {"traversal.tar.gz", "../evil", "path traversal"},
      {"traversal-deep.tar.gz", "a/../../evil", "path traversal"},
      {"absolute.tar.gz", "/etc/passwd", "absolute path"},
      {"symlink-escape.tar.gz", "a/link", "escaping symlink"},
      {"symlink-component-absolute.tar.gz", "evil/passwd", "writing through a symlink"},
      {"symlink-component-relative.tar.gz", "up/up/file", "writing through a symlink"},
      {"hardlink-absolute.tar.gz", "h", "links out of the layer"},
      {"hardlink-traversal.tar.gz", "h", "escapes the root"},
      {"hardlink-outside-layer.tar.gz", "h", "links out of the layer"},
  };
  for (const auto& c : cases) {
    auto r = TarReader::open_file(bad_dir() / c.file, {});
    ASSERT_TRUE(r) << c.file << ": " << r.error().message();
    Result<std::optional<TarEntry>> e = std::optional<TarEntry>();
    do {
      e = (*r)->next();
    } while (e && *e);
    ASSERT_FALSE(e) << c.file << " was accepted";
    const std::string& msg = e.error().message();
    EXPECT_NE(msg.find(c.file), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"" + c.entry + "\""), std::string::npos) << c.file << ": " << msg;
    EXPECT_NE(msg.find(c.reason), std::string::npos) << c.file << ": " << msg;
  }
}

// A tar with one `bytes`-sized zero file, compressed.
std::string zero_layer(std::uint64_t bytes, oci::Compression c) {
  StringSink out;
  auto sink = oci::CompressingSink::create(c, out);
  oci::TarWriter w(**sink);
  EXPECT_TRUE(w.add(entry("zeros", TarEntryType::kRegular, bytes)));
  std::string mib(1 << 20, '\0');
  for (std::uint64_t left = bytes; left > 0;) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, mib.size()));
    EXPECT_TRUE(w.write_data(as_bytes(std::string_view(mib).substr(0, n))));
    left -= n;
  }
  EXPECT_TRUE(w.finish());
  EXPECT_TRUE((*sink)->finish());
  return out.str();
}

Result<void> read_through(const std::string& blob, ReadLimits limits) {
  testing::TestStore store;
  auto d = store.put_blob(std::string(media::kOciLayerGzip), blob);
  STRATA_TRY(auto r, TarReader::open_blob(store, d, limits));
  while (true) {
    STRATA_TRY(auto e, r->next());
    if (!e) return {};
  }
}

TEST(TarReader, RefusesDecompressionBombs) {
  for (auto c : {oci::Compression::kGzip, oci::Compression::kZstd}) {
    std::string bomb = zero_layer(std::uint64_t{48} << 20, c);  // ratio far above 100 for both
    ASSERT_LT(bomb.size(), std::size_t{1} << 20);
    ReadLimits ratio;
    ratio.max_ratio = 100;
    ratio.ratio_grace_bytes = 4 << 20;
    auto r = read_through(bomb, ratio);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("decompression bomb"), std::string::npos) << r.error().message();
    EXPECT_NE(r.error().message().find("\"zeros\""), std::string::npos) << r.error().message();

    ReadLimits total;
    total.max_uncompressed_bytes = 8 << 20;
    r = read_through(bomb, total);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("more than 8"), std::string::npos) << r.error().message();

    EXPECT_TRUE(read_through(bomb, ReadLimits{})) << "default limits accept a 48 MiB layer";
  }
}

// One gzip member (RFC 1952) whose deflate data are stored blocks, so a byte
// of content can be changed without breaking the deflate stream: only the
// member's trailer (CRC-32, ISIZE) tells.
std::string stored_gzip(std::string_view data) {
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
  auto le = [&](std::uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  std::size_t off = 0;
  do {
    std::size_t n = std::min<std::size_t>(65535, data.size() - off);
    out.push_back(off + n == data.size() ? '\x01' : '\x00');  // BFINAL, BTYPE=00 (stored)
    le(static_cast<std::uint32_t>(n), 2);
    le(static_cast<std::uint32_t>(~n & 0xffff), 2);
    out.append(data.substr(off, n));
    off += n;
  } while (off < data.size());
  le(libdeflate_crc32(0, data.data(), data.size()), 4);
  le(static_cast<std::uint32_t>(data.size()), 4);
  return out;
}

Result<std::map<std::string, std::string>> read_contents(const std::string& blob) {
  std::size_t off = 0;
  STRATA_TRY(auto r, TarReader::open(
                         [&](std::span<std::byte> buf) -> Result<std::size_t> {
                           std::size_t n = std::min(buf.size(), blob.size() - off);
                           std::memcpy(buf.data(), blob.data() + off, n);
                           off += n;
                           return n;
                         },
                         {}, "stored.tar.gz"));
  std::map<std::string, std::string> out;
  while (true) {
    STRATA_TRY(auto e, r->next());
    if (!e) return out;
    if (e->type == TarEntryType::kRegular) {
      STRATA_TRY(out[e->path], r->read_data_string(1 << 20));
    }
  }
}

TEST(TarReader, RefusesGzipMembersWhoseTrailerDoesNotMatch) {
  std::string tar = sample_tar();
  std::string good = stored_gzip(tar);
  auto ok = read_contents(good);
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(ok->at("bin/big-ids"), "abc");
  // "abc" is bin/big-ids' content: one flipped bit keeps the deflate stream
  // valid (gzip -t fails on the CRC).
  std::string flipped = good;
  auto at = flipped.find("abc");
  ASSERT_NE(at, std::string::npos);
  flipped[at + 1] ^= 0x01;
  auto bad = read_contents(flipped);
  ASSERT_FALSE(bad) << "a member with a wrong CRC-32 was read as " << bad->at("bin/big-ids");
  EXPECT_NE(bad.error().message().find("CRC"), std::string::npos) << bad.error().message();
  EXPECT_NE(bad.error().message().find("stored.tar.gz"), std::string::npos) << bad.error().message();
  // A wrong ISIZE (the length mod 2^32) is refused too.
  std::string short_size = good;
  short_size[short_size.size() - 4] ^= 0x01;
  auto sized = read_contents(short_size);
  ASSERT_FALSE(sized);
  EXPECT_NE(sized.error().message().find("length"), std::string::npos) << sized.error().message();
  // Concatenated members are one stream, each member checked; the same
  // from a file.
  TempDir d;
  testing::write_file(d / "two.tar.gz", stored_gzip(tar.substr(0, 1024)) + stored_gzip(tar.substr(1024)));
  testing::write_file(d / "bad.tar.gz", stored_gzip(tar.substr(0, 1024)) + flipped);
  auto two = TarReader::open_file(d / "two.tar.gz", {});
  ASSERT_TRUE(two) << two.error().message();
  auto entries = read_all(**two);
  EXPECT_EQ(entries.size(), 11u);
  auto file_bad = TarReader::open_file(d / "bad.tar.gz", {});
  Result<std::optional<TarEntry>> e = file_bad ? (*file_bad)->next() : fail(file_bad.error());
  while (e && *e) e = (*file_bad)->next();
  ASSERT_FALSE(e) << "bad.tar.gz was accepted";
  EXPECT_NE(e.error().message().find("bad.tar.gz"), std::string::npos) << e.error().message();
}

// A GNU sparse tar of one file `size` bytes long with no data at all (a
// truncate'd file), or with `data` written at `data_at`.
std::string sparse_tar(const TempDir& d, const std::string& name, std::uint64_t size,
                       const std::string& data = "", std::uint64_t data_at = 0) {
  auto dir = d / ("src-" + name);
  std::filesystem::create_directories(dir);
  auto f = dir / name;
  std::filesystem::remove(f);
  if (!data.empty()) {
    std::fstream out(f, std::ios::out | std::ios::binary);
    out.seekp(static_cast<std::streamoff>(data_at));
    out << data;
  }
  auto st = testing::shell("truncate -s " + std::to_string(size) + " " + f.string() + " && tar --sparse -C " +
                           dir.string() + " -cf " + (d / (name + ".tar")).string() + " " + name);
  EXPECT_EQ(st.status, 0);
  return (d / (name + ".tar")).string();
}

TEST(TarReader, SparseHolesCountAgainstTheBudgetAndAreRead) {
  TempDir d;
  // 10 GiB declared in a 10 KiB archive (a few bytes of data, then a hole):
  // the holes are bytes the reader produces, so the bomb guard sees them.
  auto bomb = sparse_tar(d, "big", std::uint64_t{10} << 30, "boot sector");
  ASSERT_LT(std::filesystem::file_size(bomb), 64u << 10);
  ReadLimits one_gib;
  one_gib.max_uncompressed_bytes = std::uint64_t{1} << 30;
  for (const ReadLimits& limits : {ReadLimits(), one_gib}) {
    auto r = TarReader::open_file(bomb, limits);
    ASSERT_TRUE(r) << r.error().message();
    auto e = (*r)->next();
    ASSERT_TRUE(e && *e) << (e ? "no entry" : e.error().message());
    EXPECT_EQ((*e)->size, std::uint64_t{10} << 30);
    struct Count final : ByteSink {
      std::uint64_t n = 0;
      Result<void> write(std::span<const std::byte> b) override {
        n += b.size();
        return {};
      }
    } count;
    auto read = (*r)->read_data(count);
    ASSERT_FALSE(read) << "10 GiB of holes were read past the decompression budget";
    EXPECT_NE(read.error().message().find("decompression bomb"), std::string::npos) << read.error().message();
    EXPECT_NE(read.error().message().find("\"big\""), std::string::npos) << read.error().message();
    EXPECT_LE(count.n, (std::uint64_t{1} << 30) + (1 << 20));
    // Skipping the entry costs the same budget.
    auto again = TarReader::open_file(bomb, limits);
    ASSERT_TRUE(again);
    ASSERT_TRUE((*again)->next());
    auto skipped = (*again)->next();
    ASSERT_FALSE(skipped);
    EXPECT_NE(skipped.error().message().find("decompression bomb"), std::string::npos) << skipped.error().message();
  }
  // A file that is all hole (GNU tar extracts it as zeros) reads as zeros.
  auto hole = sparse_tar(d, "hole", 1 << 20);
  auto r = TarReader::open_file(hole, {});
  ASSERT_TRUE(r) << r.error().message();
  auto e = (*r)->next();
  ASSERT_TRUE(e && *e) << (e ? "no entry" : e.error().message());
  EXPECT_EQ((*e)->size, 1u << 20);
  auto content = (*r)->read_data_string(2 << 20);
  ASSERT_TRUE(content) << content.error().message();
  EXPECT_EQ(*content, std::string(1 << 20, '\0'));
  // Data between holes lands at its offset; the trailing hole is there too.
  auto mixed = sparse_tar(d, "mixed", 1 << 20, "payload", 300000);
  r = TarReader::open_file(mixed, {});
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_TRUE((*r)->next());
  content = (*r)->read_data_string(2 << 20);
  ASSERT_TRUE(content) << content.error().message();
  std::string want(1 << 20, '\0');
  want.replace(300000, 7, "payload");
  EXPECT_TRUE(*content == want);
}

TEST(TarReader, RefusesAbsurdEntryCounts) {
  StringSink out;
  oci::TarWriter w(out);
  for (int i = 0; i < 100; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "f%03d", i);
    ASSERT_TRUE(w.add(entry(name, TarEntryType::kFifo)));
  }
  ASSERT_TRUE(w.finish());
  ReadLimits limits;
  limits.max_entries = 50;
  auto r = read_through(compress(out.str(), oci::Compression::kGzip), limits);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("more than 50 entries"), std::string::npos);
}

TEST(TarReader, BlobWithWrongDigestFailsEvenAfterTheTrailer) {
  std::string blob = compress(sample_tar(), oci::Compression::kGzip);
  // The descriptor promises one byte more than the store has: the reader
  // must not report success just because the tar trailer was reached.
  testing::TestStore lying;
  auto real = lying.put_blob(std::string(media::kOciLayerGzip), blob);
  Descriptor wrong = real;
  wrong.size = real.size + 1;
  auto r = TarReader::open_blob(lying, wrong, {});
  ASSERT_TRUE(r);
  Result<std::optional<TarEntry>> e = std::optional<TarEntry>();
  do {
    e = (*r)->next();
  } while (e && *e);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find(real.digest.str()), std::string::npos) << e.error().message();
}

TEST(TarReader, GarbageIsNotATar) {
  TempDir d;
  testing::write_file(d / "x.tar", std::string(4096, 'x'));
  auto r = TarReader::open_file(d / "x.tar", {});
  Result<std::optional<TarEntry>> e = r ? (*r)->next() : fail(r.error());
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("x.tar"), std::string::npos) << e.error().message();
}

TEST(TarReader, PathsNamedTwiceAreCountedOrRefusedAsContainersStorageDoes) {
  // "./usr/" and "usr" are one path to dockerd and containers/storage.
  testing::TempDir d;
  std::string py =
      "import tarfile,io,sys\n"
      "def add(t,n,data=b'',typ=tarfile.REGTYPE):\n"
      "  i=tarfile.TarInfo(n); i.type=typ; i.size=len(data) if typ==tarfile.REGTYPE else 0\n"
      "  t.addfile(i, io.BytesIO(data) if i.size else None)\n"
      "with tarfile.open(sys.argv[1],'w') as t:\n"
      "  add(t,'usr',typ=tarfile.DIRTYPE); add(t,'usr/x',b'1'); add(t,'./usr/',typ=tarfile.DIRTYPE)\n"
      "  add(t,'usr/x',b'2'); add(t,'usr/y',b'3')\n";
  testing::write_file(d / "mk.py", py);
  ASSERT_EQ(testing::shell("python3 " + (d / "mk.py").string() + " " + (d / "dup.tar").string()).status, 0);
  auto read_all_of = [&](DuplicatePaths mode) -> Result<std::unique_ptr<TarReader>> {
    ReadLimits limits;
    limits.duplicates = mode;
    STRATA_TRY(auto r, TarReader::open_file(d / "dup.tar", limits));
    while (true) {
      STRATA_TRY(auto e, r->next());
      if (!e) break;
    }
    return r;
  };
  auto reported = read_all_of(DuplicatePaths::kReport);
  ASSERT_TRUE(reported) << reported.error().message();
  EXPECT_EQ((*reported)->duplicate_entries(), 2u);
  EXPECT_EQ((*reported)->duplicate_paths(), (std::vector<std::string>{"usr", "usr/x"}));
  std::string line = describe_duplicate_paths(**reported);
  EXPECT_NE(line.find("dup.tar: 2 entries repeat a path of the same layer (/usr, /usr/x)"), std::string::npos) << line;
  EXPECT_NE(line.find("podman"), std::string::npos) << line;
  auto refused = read_all_of(DuplicatePaths::kRefuse);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("entry \"./usr/\": appears a second time"), std::string::npos)
      << refused.error().message();
}

}  // namespace
}  // namespace strata::oci
