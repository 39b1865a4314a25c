#include "layer/deb/deb_reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <cstring>

#include "util/strings.hpp"

namespace strata::layer {

namespace {

constexpr std::size_t kMaxControlMember = std::size_t{64} << 20;

std::string archive_message(archive* a) {
  const char* m = archive_error_string(a);
  return m ? m : "unknown libarchive error";
}

bool member_is(std::string_view name, std::string_view stem) {
  if (!name.starts_with(stem)) return false;
  std::string_view rest = name.substr(stem.size());
  return rest.empty() || rest == ".gz" || rest == ".xz" || rest == ".zst" || rest == ".bz2";
}

}  // namespace

struct DebReader::Impl {
  archive* a = nullptr;
  ~Impl() {
    if (a) archive_read_free(a);
  }
};

DebReader::DebReader(std::unique_ptr<Impl> impl, std::string what) : impl_(std::move(impl)), what_(std::move(what)) {}
DebReader::~DebReader() = default;

bool is_info_control_file(std::string_view name) {
  return name == "conffiles" || name == "md5sums" || name == "preinst" || name == "postinst" || name == "prerm" ||
         name == "postrm" || name == "config" || name == "templates" || name == "triggers" || name == "shlibs" ||
         name == "symbols";
}

Result<std::unique_ptr<DebReader>> DebReader::open(const std::filesystem::path& path, std::string what) {
  auto impl = std::make_unique<Impl>();
  impl->a = archive_read_new();
  if (!impl->a) return fail(ErrorCode::kIoError, what + ": out of memory");
  archive_read_support_format_ar(impl->a);
  if (archive_read_open_filename(impl->a, path.c_str(), 256 * 1024) != ARCHIVE_OK) {
    return fail(ErrorCode::kInvalidArgument,
                what + ": not a readable .deb (" + archive_message(impl->a) + ")");
  }
  return std::unique_ptr<DebReader>(new DebReader(std::move(impl), std::move(what)));
}

Result<bool> DebReader::next_member(std::string& name) {
  archive_entry* e = nullptr;
  while (true) {
    int rc = archive_read_next_header(impl_->a, &e);
    if (rc == ARCHIVE_EOF) return false;
    if (rc < ARCHIVE_WARN) {
      return fail(ErrorCode::kInvalidArgument, what_ + ": damaged ar archive (" +
                                                   archive_message(impl_->a) +
                                                   "); download it again");
    }
    const char* n = archive_entry_pathname(e);
    name = n ? n : "";
    if (name.starts_with("_")) continue;  // dpkg ignores members starting with '_'
    return true;
  }
}

Result<DebControl> DebReader::control() {
  auto bad = [&](std::string why) { return fail(ErrorCode::kInvalidArgument, what_ + ": " + why); };
  std::string name;
  STRATA_TRY(bool have, next_member(name));
  if (!have || name != "debian-binary") return bad("first member is not debian-binary; not a .deb");
  char ver[16] = {};
  la_ssize_t n = archive_read_data(impl_->a, ver, sizeof ver - 1);
  if (n < 4 || std::strncmp(ver, "2.", 2) != 0) return bad("unsupported .deb format version (want 2.x)");
  STRATA_TRY(have, next_member(name));
  if (!have || !member_is(name, "control.tar")) return bad("second member is " + str::quote(name) + ", not control.tar");
  std::string member;
  char buf[65536];
  while ((n = archive_read_data(impl_->a, buf, sizeof buf)) > 0) {
    member.append(buf, static_cast<std::size_t>(n));
    if (member.size() > kMaxControlMember) return bad("control member larger than 64 MiB");
  }
  if (n < 0) return bad("truncated control member (" + archive_message(impl_->a) + ")");
  std::size_t off = 0;
  auto pull = [&member, &off](std::span<std::byte> out) -> Result<std::size_t> {
    std::size_t k = std::min(out.size(), member.size() - off);
    std::memcpy(out.data(), member.data() + off, k);
    off += k;
    return k;
  };
  STRATA_TRY(auto reader, oci::TarReader::open(pull, {}, what_ + " " + name));
  DebControl c;
  bool saw_control = false;
  while (true) {
    STRATA_TRY(auto entry, reader->next());
    if (!entry) break;
    if (entry->type != oci::TarEntryType::kRegular || entry->path.find('/') != std::string::npos) continue;
    STRATA_TRY(std::string text, reader->read_data_string(kMaxControlMember));
    if (entry->path == "control") {
      c.control = std::move(text);
      saw_control = true;
    } else {
      c.files[entry->path] = std::move(text);
    }
  }
  if (!saw_control) return bad(name + " has no control file");
  control_ = c;
  have_control_ = true;
  return c;
}

Result<std::unique_ptr<oci::TarReader>> DebReader::data(oci::ReadLimits limits) {
  if (!have_control_) return fail(ErrorCode::kFailedPrecondition, what_ + ": control() must come before data()");
  std::string name;
  STRATA_TRY(bool have, next_member(name));
  if (!have || !member_is(name, "data.tar")) {
    return fail(ErrorCode::kInvalidArgument,
                what_ + ": third member is " + (have ? str::quote(name) : std::string("missing")) +
                    ", not data.tar[.gz|.xz|.zst|.bz2]");
  }
  control_.data_member = name;
  archive* a = impl_->a;
  std::string what = what_ + " " + name;
  auto pull = [a, what](std::span<std::byte> out) -> Result<std::size_t> {
    la_ssize_t n = archive_read_data(a, out.data(), out.size());
    if (n < 0) {
      return fail(ErrorCode::kInvalidArgument,
                  what + ": truncated or damaged (" + archive_message(a) + ")");
    }
    return static_cast<std::size_t>(n);
  };
  return oci::TarReader::open(pull, limits, what);
}

Result<void> DebReader::finish() {
  std::string name;
  auto more = next_member(name);
  if (!more) {
    return fail(ErrorCode::kInvalidArgument,
                what_ + ": bytes after " + control_.data_member + " are not an ar member (a member larger than "
                        "its header declares?); the .deb is damaged");
  }
  if (*more) return fail(ErrorCode::kInvalidArgument, what_ + ": unexpected member " + str::quote(name) + " after " + control_.data_member);
  return {};
}

}  // namespace strata::layer
