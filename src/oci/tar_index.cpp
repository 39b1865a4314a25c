#include "oci/tar_index.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <optional>
#include <cstring>
#include <vector>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::oci {

namespace {

constexpr std::size_t kBlock = 512;
constexpr std::size_t kMaxName = 64 << 10;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Result<void> pread_all(int fd, void* buf, std::size_t n, std::uint64_t at, const std::string& what) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t got = ::pread(fd, p, n, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fail(ErrorCode::kIoError, what + ": cannot read: " + std::strerror(errno));
    if (got == 0) return fail(ErrorCode::kInvalidArgument, what + ": truncated archive");
    p += got;
    n -= static_cast<std::size_t>(got);
    at += static_cast<std::uint64_t>(got);
  }
  return {};
}

// A numeric header field: octal, or GNU base-256 (high bit set).
std::optional<std::uint64_t> number(const char* f, std::size_t n) {
  if (n > 0 && (static_cast<unsigned char>(f[0]) & 0x80)) {
    std::uint64_t v = static_cast<unsigned char>(f[0]) & 0x7f;
    for (std::size_t i = 1; i < n; ++i) {
      if (v >> 56) return std::nullopt;
      v = (v << 8) | static_cast<unsigned char>(f[i]);
    }
    return v;
  }
  std::uint64_t v = 0;
  std::size_t i = 0;
  while (i < n && (f[i] == ' ' || f[i] == '\0')) ++i;
  bool any = false;
  for (; i < n && f[i] >= '0' && f[i] <= '7'; ++i) {
    if (v >> 60) return std::nullopt;
    v = v * 8 + static_cast<std::uint64_t>(f[i] - '0');
    any = true;
  }
  for (; i < n; ++i)
    if (f[i] != ' ' && f[i] != '\0') return std::nullopt;
  if (!any) return 0;
  return v;
}

std::string field(const char* f, std::size_t n) { return std::string(f, strnlen(f, n)); }

bool checksum_ok(const std::array<char, kBlock>& h) {
  auto want = number(h.data() + 148, 8);
  if (!want) return false;
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < kBlock; ++i)
    sum += (i >= 148 && i < 156) ? static_cast<unsigned char>(' ') : static_cast<unsigned char>(h[i]);
  return sum == *want;
}

// The records of a pax extended header that name the next member.
struct PaxHeader {
  std::string path;
  bool sized = false;  // a plain flag and value: g++ 12 at -O2 takes an optional's value for uninitialised
  std::uint64_t size = 0;
};

// "LEN key=value\n" records of a pax extended header.
void pax_records(std::string_view body, PaxHeader& pax) {
  while (!body.empty()) {
    auto space = body.find(' ');
    if (space == std::string_view::npos) return;
    auto len = str::parse_u64(body.substr(0, space));
    if (!len || *len <= space + 1 || *len > body.size()) return;
    std::string_view rec = body.substr(space + 1, *len - space - 1);
    if (rec.ends_with('\n')) rec.remove_suffix(1);
    auto eq = rec.find('=');
    if (eq != std::string_view::npos) {
      auto key = rec.substr(0, eq), value = rec.substr(eq + 1);
      if (key == "path") pax.path = std::string(value);
      if (key == "size") {
        auto size = str::parse_u64(value);
        pax.sized = size.has_value();
        pax.size = size.value_or(0);
      }
    }
    body.remove_prefix(*len);
  }
}

std::string clean_name(std::string name) {
  while (name.starts_with("./")) name.erase(0, 2);
  while (name.size() > 1 && name.ends_with('/')) name.pop_back();
  return name;
}

}  // namespace

Result<bool> tar_is_compressed(const std::filesystem::path& file) {
  STRATA_TRY(auto opened, fs::ReadableFile::open(file));
  Fd f;
  f.fd = opened.release();
  unsigned char m[6] = {};
  ssize_t n = ::pread(f.fd, m, sizeof m, 0);
  if (n < 0) return fail(fs::io_error("cannot read", file, errno));
  auto starts = [&](std::initializer_list<unsigned char> magic) {
    if (static_cast<std::size_t>(n) < magic.size()) return false;
    return std::equal(magic.begin(), magic.end(), m);
  };
  return starts({0x1f, 0x8b}) || starts({0x28, 0xb5, 0x2f, 0xfd}) || starts({0xfd, '7', 'z', 'X', 'Z', 0x00}) ||
         starts({'B', 'Z', 'h'});
}

Result<TarIndex> index_tar(const std::filesystem::path& file, const std::string& what, std::size_t max_members) {
  STRATA_TRY(auto opened, with_context(fs::ReadableFile::open(file), what));
  const std::uint64_t total = opened.size();
  Fd f;
  f.fd = opened.release();
  TarIndex index;
  std::uint64_t at = 0;
  std::string long_name;
  PaxHeader pax;
  std::size_t headers = 0;
  std::array<char, kBlock> h{};
  while (at + kBlock <= total) {
    if (++headers > 2 * max_members + 16)
      return fail(ErrorCode::kInvalidArgument, what + ": more than " + std::to_string(max_members) + " members");
    STRATA_TRY_VOID(pread_all(f.fd, h.data(), kBlock, at, what));
    if (std::all_of(h.begin(), h.end(), [](char c) { return c == 0; })) return index;  // end of archive
    if (!checksum_ok(h))
      return fail(ErrorCode::kInvalidArgument, what + ": corrupt archive (bad tar header checksum at byte " +
                                                   std::to_string(at) + ")");
    auto size = number(h.data() + 124, 12);
    if (!size) return fail(ErrorCode::kInvalidArgument, what + ": corrupt archive (bad size at byte " + std::to_string(at) + ")");
    const char type = h[156];
    const std::uint64_t data = at + kBlock;
    const std::uint64_t len = pax.sized && type != 'x' && type != 'g' && type != 'L' ? pax.size : *size;
    if (data + len > total || data + len < data)
      return fail(ErrorCode::kInvalidArgument, what + ": truncated archive (a member runs past the end)");
    const std::uint64_t next = data + (len + kBlock - 1) / kBlock * kBlock;
    if (type == 'x' || type == 'L') {
      if (len > kMaxName) return fail(ErrorCode::kInvalidArgument, what + ": a tar extended header is too long");
      std::string body(len, '\0');
      STRATA_TRY_VOID(pread_all(f.fd, body.data(), body.size(), data, what));
      if (type == 'L') long_name = body.substr(0, strnlen(body.data(), body.size()));
      else pax_records(body, pax);
      at = next;
      continue;
    }
    if (type == 'g') {
      at = next;
      continue;
    }
    std::string name = !pax.path.empty() ? pax.path : !long_name.empty() ? long_name : [&] {
      std::string prefix = field(h.data() + 345, 155), base = field(h.data(), 100);
      // POSIX ustar ("ustar\0") has a prefix field; GNU ("ustar  ") keeps times there.
      bool ustar = std::memcmp(h.data() + 257, "ustar\0", 6) == 0;
      return ustar && !prefix.empty() ? prefix + "/" + base : base;
    }();
    index.members[clean_name(std::move(name))] = TarMember{data, len, type == '\0' ? '0' : type};
    if (index.members.size() > max_members)
      return fail(ErrorCode::kInvalidArgument, what + ": more than " + std::to_string(max_members) + " members");
    long_name.clear();
    pax = PaxHeader{};
    at = next;
  }
  if (at == total && total == 0) return fail(ErrorCode::kInvalidArgument, what + ": empty archive");
  // No end-of-archive blocks: accepted as tar readers do, when the last member ended cleanly.
  if (at != total) return fail(ErrorCode::kInvalidArgument, what + ": truncated archive");
  return index;
}

Result<void> read_tar_member(int fd, const TarMember& m, std::uint64_t from, ByteSink& sink, const std::string& what) {
  if (from > m.size) return fail(ErrorCode::kInvalidArgument, what + ": read past the end of a member");
  std::uint64_t at = m.offset + from, left = m.size - from;
  fs::ReadBuffer buf(left);
  while (left > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, buf.size()));
    STRATA_TRY_VOID(pread_all(fd, buf.data(), n, at, what));
    STRATA_TRY_VOID(sink.write(std::span<const std::byte>(buf.data(), n)));
    at += n;
    left -= n;
  }
  return {};
}

}  // namespace strata::oci
