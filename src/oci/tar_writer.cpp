#include "oci/tar_writer.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "util/strings.hpp"

namespace strata::oci {

namespace {

using oci::TarEntry;
using oci::TarEntryType;

// Largest values the ustar numeric fields hold in octal.
constexpr std::uint64_t kMaxOctal7 = 07777777;        // mode, uid, gid, devmajor, devminor
constexpr std::uint64_t kMaxOctal11 = 077777777777;   // size, mtime

bool is_ascii_printable(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7f;
  });
}

// A fallback for a ustar text field whose real value lives in a PAX record:
// non-ASCII bytes become '_' and the result is cut to the field size.
std::string ascii_fallback(std::string_view s, std::size_t width) {
  std::string out(s.substr(0, width));
  for (char& c : out) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) c = '_';
  }
  return out;
}

void put_string(std::string& block, std::size_t off, std::size_t width, std::string_view s) {
  // An empty view may have a null data(), which memcpy must not be given.
  if (s.empty()) return;
  std::memcpy(block.data() + off, s.data(), std::min(width, s.size()));
}

// width-1 zero-padded octal digits followed by NUL ("0000644\0").
void put_octal(std::string& block, std::size_t off, std::size_t width, std::uint64_t v) {
  std::string digits(width - 1, '0');
  for (std::size_t i = width - 1; i-- > 0 && v != 0;) {
    digits[i] = static_cast<char>('0' + (v & 7));
    v >>= 3;
  }
  std::memcpy(block.data() + off, digits.data(), digits.size());
  block[off + width - 1] = '\0';
}

char typeflag(TarEntryType t) {
  switch (t) {
    case TarEntryType::kRegular: return '0';
    case TarEntryType::kHardlink: return '1';
    case TarEntryType::kSymlink: return '2';
    case TarEntryType::kCharDevice: return '3';
    case TarEntryType::kBlockDevice: return '4';
    case TarEntryType::kDirectory: return '5';
    case TarEntryType::kFifo: return '6';
  }
  return '0';
}

// One PAX record: "<len> <key>=<value>\n", where len counts the whole record.
std::string pax_record(std::string_view key, std::string_view value) {
  std::size_t body = 1 + key.size() + 1 + value.size() + 1;  // " key=value\n"
  std::size_t len = body + 1;
  while (std::to_string(len).size() + body != len) len = std::to_string(len).size() + body;
  std::string r = std::to_string(len);
  r += ' ';
  r += key;
  r += '=';
  r += value;
  r += '\n';
  return r;
}

// Splits a name that does not fit the 100-byte name field into ustar prefix
// and name at the last '/' that leaves a prefix of at most 155 bytes and a
// non-empty name of at most 100 bytes. False when no such '/' exists.
bool split_ustar(std::string_view full, std::string_view& prefix, std::string_view& name) {
  std::size_t limit = std::min<std::size_t>(full.size() - 1, 155);
  for (std::size_t i = limit + 1; i-- > 0;) {
    if (full[i] != '/' || i + 1 == full.size()) continue;
    if (full.size() - i - 1 > 100) return false;  // a shorter prefix only makes the name longer
    if (i == 0) return false;
    prefix = full.substr(0, i);
    name = full.substr(i + 1);
    return !name.empty();
  }
  return false;
}

std::string ustar_block(std::string_view name, std::string_view prefix, std::uint32_t mode,
                        std::uint64_t uid, std::uint64_t gid, std::uint64_t size, std::uint64_t mtime,
                        char type, std::string_view linkname, std::uint32_t devmajor,
                        std::uint32_t devminor) {
  std::string b(kTarBlock, '\0');
  put_string(b, 0, 100, name);
  put_octal(b, 100, 8, mode);
  put_octal(b, 108, 8, uid);
  put_octal(b, 116, 8, gid);
  put_octal(b, 124, 12, size);
  put_octal(b, 136, 12, mtime);
  b[156] = type;
  put_string(b, 157, 100, linkname);
  put_string(b, 257, 6, std::string_view("ustar\0", 6));
  put_string(b, 263, 2, "00");
  // uname (265) and gname (297) stay empty: owners are numeric only.
  if (type == '3' || type == '4') {  // device numbers only for devices; NUL otherwise
    put_octal(b, 329, 8, devmajor);
    put_octal(b, 337, 8, devminor);
  }
  put_string(b, 345, 155, prefix);
  // Checksum: sum of all bytes with the checksum field read as spaces,
  // written as six octal digits, NUL, space.
  std::memset(b.data() + 148, ' ', 8);
  std::uint32_t sum = 0;
  for (char c : b) sum += static_cast<unsigned char>(c);
  put_octal(b, 148, 7, sum);
  b[155] = ' ';
  return b;
}

std::string pad_to_block(std::string s) {
  std::size_t rem = s.size() % kTarBlock;
  if (rem != 0) s.append(kTarBlock - rem, '\0');
  return s;
}

}  // namespace

Result<std::string> encode_tar_header(const TarEntry& e) {
  if (!oci::is_canonical_entry_path(e.path)) {
    return fail(ErrorCode::kInvalidArgument,
                "tar entry " + str::quote(e.path) +
                    ": not a canonical layer path (relative, no '.', '..' or empty components, "
                    "no leading './' or '/', no trailing '/')");
  }
  if ((e.mode & ~07777u) != 0) {
    return fail(ErrorCode::kInvalidArgument, "tar entry " + str::quote(e.path) +
                                                 ": mode has bits beyond 07777; the type goes in the entry type");
  }
  if (e.type != TarEntryType::kRegular && e.size != 0) {
    return fail(ErrorCode::kInvalidArgument, "tar entry " + str::quote(e.path) + ": a " +
                                                 std::string(oci::tar_entry_type_name(e.type)) +
                                                 " cannot have content");
  }
  bool is_link = e.type == TarEntryType::kSymlink || e.type == TarEntryType::kHardlink;
  if (is_link && (e.link_target.empty() || e.link_target.find('\0') != std::string::npos)) {
    return fail(ErrorCode::kInvalidArgument,
                "tar entry " + str::quote(e.path) + ": link target is empty or contains NUL");
  }
  if (e.type == TarEntryType::kHardlink && !oci::is_canonical_entry_path(e.link_target)) {
    return fail(ErrorCode::kInvalidArgument, "tar entry " + str::quote(e.path) + ": hardlink target " +
                                                 str::quote(e.link_target) + " is not a canonical layer path");
  }
  if (!is_link && !e.link_target.empty()) {
    return fail(ErrorCode::kInvalidArgument,
                "tar entry " + str::quote(e.path) + ": only links have a link target");
  }
  if (e.dev_major > kMaxOctal7 || e.dev_minor > kMaxOctal7) {
    return fail(ErrorCode::kUnsupported, "tar entry " + str::quote(e.path) +
                                             ": device numbers above 2097151 cannot be written");
  }

  std::string full = e.path;
  if (e.type == TarEntryType::kDirectory) full += '/';

  std::vector<std::pair<std::string, std::string>> pax;  // sorted below
  std::string_view name_field = full, prefix_field;
  std::string name_fallback;
  if (!is_ascii_printable(full)) {
    pax.emplace_back("path", full);
    name_fallback = ascii_fallback(full, 100);
    name_field = name_fallback;
  } else if (full.size() > 100 && !split_ustar(full, prefix_field, name_field)) {
    pax.emplace_back("path", full);
    name_fallback = full.substr(0, 100);
    name_field = name_fallback;
    prefix_field = {};
  }
  std::string link_field = e.link_target;
  if (e.link_target.size() > 100 || !is_ascii_printable(e.link_target)) {
    pax.emplace_back("linkpath", e.link_target);
    link_field = ascii_fallback(e.link_target, 100);
  }
  std::uint64_t uid = e.uid, gid = e.gid, size = e.size, mtime = 0;
  if (e.uid > kMaxOctal7) {
    pax.emplace_back("uid", std::to_string(e.uid));
    uid = 0;
  }
  if (e.gid > kMaxOctal7) {
    pax.emplace_back("gid", std::to_string(e.gid));
    gid = 0;
  }
  if (e.size > kMaxOctal11) {
    pax.emplace_back("size", std::to_string(e.size));
    size = 0;
  }
  if (e.mtime < 0 || static_cast<std::uint64_t>(e.mtime) > kMaxOctal11) {
    pax.emplace_back("mtime", std::to_string(e.mtime));
  } else {
    mtime = static_cast<std::uint64_t>(e.mtime);
  }
  for (const auto& [key, value] : e.xattrs) {
    if (key.empty() || key.find('=') != std::string::npos || key.find('\0') != std::string::npos) {
      return fail(ErrorCode::kInvalidArgument,
                  "tar entry " + str::quote(e.path) + ": invalid xattr name " + str::quote(key));
    }
    pax.emplace_back("SCHILY.xattr." + key, value);
  }

  std::string out;
  if (!pax.empty()) {
    std::sort(pax.begin(), pax.end());
    std::string records;
    for (const auto& [k, v] : pax) records += pax_record(k, v);
    out = ustar_block(kPaxHeaderName, {}, 0, 0, 0, records.size(), 0, 'x', {}, 0, 0);
    out += pad_to_block(std::move(records));
  }
  out += ustar_block(name_field, prefix_field, e.mode, uid, gid, size, mtime, typeflag(e.type), link_field,
                     e.dev_major, e.dev_minor);
  return out;
}

Result<void> TarWriter::emit(std::span<const std::byte> data) {
  auto r = out_.write(data);
  if (!r) {
    error_ = r.error();
    return r;
  }
  written_ += data.size();
  return {};
}

Result<void> TarWriter::close_entry() {
  if (remaining_ != 0) {
    Error e(ErrorCode::kInvalidArgument, "tar entry " + str::quote(last_path_.value_or("")) + ": " +
                                             std::to_string(remaining_) + " of " + std::to_string(entry_size_) +
                                             " content bytes were never written");
    error_ = e;
    return fail(e);
  }
  std::size_t rem = entry_size_ % kTarBlock;
  entry_size_ = 0;
  if (rem == 0) return {};
  static const std::array<std::byte, kTarBlock> zeros{};
  return emit(std::span(zeros.data(), kTarBlock - rem));
}

Result<void> TarWriter::add(const TarEntry& entry) {
  if (error_) return fail(*error_);
  if (finished_) return fail(ErrorCode::kInvalidArgument, "tar writer: add() after finish()");
  STRATA_TRY_VOID(close_entry());
  if (last_path_ && !oci::tar_path_less(*last_path_, entry.path)) {
    return fail(ErrorCode::kInvalidArgument,
                "tar entry " + str::quote(entry.path) + " comes after " + str::quote(*last_path_) +
                    (entry.path == *last_path_ ? " (duplicate path)" : " out of order (entries must be sorted)"));
  }
  STRATA_TRY(std::string header, encode_tar_header(entry));
  STRATA_TRY_VOID(emit(oci::as_bytes(header)));
  last_path_ = entry.path;
  remaining_ = entry_size_ = entry.size;
  ++entries_;
  return {};
}

Result<void> TarWriter::write_data(std::span<const std::byte> data) {
  if (error_) return fail(*error_);
  if (data.size() > remaining_) {
    Error e(ErrorCode::kInvalidArgument, "tar entry " + str::quote(last_path_.value_or("")) +
                                             ": more content than its declared size " +
                                             std::to_string(entry_size_));
    error_ = e;
    return fail(e);
  }
  remaining_ -= data.size();
  return emit(data);
}

Result<void> TarWriter::add_file(const TarEntry& entry, std::string_view content) {
  if (entry.size != content.size()) {
    return fail(ErrorCode::kInvalidArgument, "tar entry " + str::quote(entry.path) + ": size " +
                                                 std::to_string(entry.size) + " but " +
                                                 std::to_string(content.size()) + " content bytes given");
  }
  STRATA_TRY_VOID(add(entry));
  return write_data(oci::as_bytes(content));
}

Result<void> TarWriter::finish(Trailer trailer) {
  if (error_) return fail(*error_);
  if (finished_) return {};
  STRATA_TRY_VOID(close_entry());
  finished_ = true;
  if (trailer == Trailer::kOmit) return {};
  static const std::array<std::byte, 2 * kTarBlock> zeros{};
  return emit(zeros);
}

}  // namespace strata::oci
