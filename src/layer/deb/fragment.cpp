#include "layer/deb/fragment.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "oci/crc32.hpp"
#include "layer/debian/deb822.hpp"
#include "layer/debian/dep5.hpp"
#include "layer/deb/deb_reader.hpp"
#include "layer/deb/elf_info.hpp"
#include "oci/tar_writer.hpp"
#include "util/binary.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {

std::string md5_hex(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, EVP_md5(), nullptr);
  return to_hex(std::span<const unsigned char>(out, len));
}

namespace {

using oci::TarEntryType;
namespace stdfs = std::filesystem;

struct Item {
  oci::TarEntry entry;     // placed
  std::string package_path;
  std::size_t offset = 0;  // into the content buffer
};

std::string dirname_of(const std::string& p) { return std::string(oci::parent_path(p)); }

bool in_library_dir(const std::string& placed) {
  std::string_view dir = oci::parent_path(placed);
  return dir.find("lib") != std::string_view::npos;
}

std::map<std::string, std::string> parse_md5sums(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto line : str::split(text, '\n')) {
    if (line.size() < 35) continue;
    std::string_view path = str::trim(line.substr(32));
    while (path.starts_with('/') || path.starts_with("./")) path.remove_prefix(path.starts_with('/') ? 1 : 2);
    out[std::string(path)] = std::string(line.substr(0, 32));
  }
  return out;
}

// info.bin: strata's binary encoding (util/binary.hpp), not JSON: control
// files and paths in a .deb need not be UTF-8.
constexpr std::string_view kInfoMagic = "STRATAFI";
constexpr std::uint32_t kInfoFormat = 3;

// The layout of info.bin, both directions (util/binary.hpp).
template <class Io, class Info>
void info_fields(Io& io, Info& f) {
  io.str(f.package, f.version, f.architecture, f.multi_arch, f.control, f.data_member, f.md5sums);
  bin::strings(io, f.control_files);
  bin::strings(io, f.list);
  bin::strings(io, f.conffile_md5);
  io.list(f.entries, 57, [&](auto& e) {
    io.str(e.path);
    io.enum8(e.type, TarEntryType::kFifo);
    io.str(e.link_target, e.md5);
    io.u32(e.mode);
    io.u64(e.uid, e.gid, e.size, e.mtime);
    io.u32(e.dev_major, e.dev_minor);
  });
  io.list(f.libraries, 12, [&](auto& l) {
    io.str(l.path, l.soname);
    io.u32(l.flags);
  });
  io.list(f.directories, 36, [&](auto& d) {  // decode_info sets their type
    io.str(d.path);
    io.u32(d.mode);
    io.u64(d.uid, d.gid, d.mtime);
    bin::strings(io, d.xattrs);
  });
  bin::strings(io, f.captured);
  bin::strings(io, f.summaries);
  bin::strings(io, f.notes);
  io.u64(f.tar_size);
  io.u32(f.tar_crc32);
  io.u64(f.compressed_size);
  io.u32(f.compressed_crc32);
}

std::string encode_info(const FragmentInfo& f) {
  return bin::encode_file(kInfoMagic, kInfoFormat, [&](bin::Writer& w) { info_fields(w, f); });
}

std::optional<FragmentInfo> decode_info(std::string_view bytes) {
  FragmentInfo f;
  if (!bin::decode_file(bytes, kInfoMagic, kInfoFormat, [&](bin::Reader& r) { info_fields(r, f); })) {
    return std::nullopt;
  }
  for (auto& d : f.directories) d.type = TarEntryType::kDirectory;
  return f;
}

// Errors naming the package: "<what>: <why>".
struct Refuse {
  const std::string& what;
  std::unexpected<Error> operator()(const std::string& why) const {
    return fail(ErrorCode::kInvalidArgument, what + ": " + why);
  }
};

// The data member as read: entries in archive order, regular files' content
// in one buffer.
struct DataContents {
  std::vector<Item> items;
  std::string content;
  std::map<std::string, std::size_t> by_package_path;  // into items
};

// Package, Version, Architecture, Multi-Arch and the control files.
Result<FragmentInfo> package_identity(const Deb822Stanza& st, const DebControl& control, const Refuse& refuse) {
  FragmentInfo info;
  info.package = std::string(st.get("Package").value_or(""));
  info.version = std::string(st.get("Version").value_or(""));
  info.architecture = std::string(st.get("Architecture").value_or(""));
  info.multi_arch = std::string(st.get("Multi-Arch").value_or(""));
  if (info.package.empty() || info.version.empty() || info.architecture.empty()) {
    return refuse("control file lacks Package, Version or Architecture");
  }
  info.control = control.control;
  info.control_files = control.files;
  return info;
}

// Reads every entry: metadata in order, content into one buffer; fills
// info's data member and dpkg's .list lines.
Result<DataContents> read_data(DebReader& reader, const Deb822Stanza& st, FragmentInfo& info, const Refuse& refuse) {
  STRATA_TRY(auto data, reader.data());
  info.data_member = reader.what();
  DataContents out;
  // Installed-Size (KiB) is close to the data's size: one allocation instead
  // of repeated doubling and copying of a large package's content.
  if (auto kib = str::parse_u64(str::trim(st.get("Installed-Size").value_or("")))) {
    out.content.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(*kib, std::uint64_t{4} << 20) * 1024 + 65536));
  }
  while (true) {
    STRATA_TRY(auto next, data->next());
    if (!next) break;
    oci::TarEntry& e = *next;
    info.list.push_back(e.path.empty() ? "/." : "/" + e.path);
    if (e.path.empty()) continue;
    if (e.type == TarEntryType::kCharDevice || e.type == TarEntryType::kBlockDevice) {
      return refuse("entry " + str::quote(e.path) + " is a device node; packages do not ship those");
    }
    Item item;
    item.package_path = e.path;
    if (e.type == TarEntryType::kRegular) {
      item.offset = out.content.size();
      oci::StringSink piece(out.content);
      STRATA_TRY_VOID(data->read_data(piece));
      if (out.content.size() - item.offset != e.size) return refuse("entry " + str::quote(e.path) + " is truncated");
    }
    if (out.by_package_path.contains(e.path)) {
      if (e.type == TarEntryType::kDirectory) continue;
      return refuse("entry " + str::quote(e.path) + " appears twice in " + info.data_member);
    }
    item.entry = std::move(e);
    out.by_package_path[item.package_path] = out.items.size();
    out.items.push_back(std::move(item));
  }
  STRATA_TRY_VOID(reader.finish());
  info.list.erase(std::unique(info.list.begin(), info.list.end()), info.list.end());
  return out;
}

// md5sums: shipped or generated (as dpkg does at unpack); and the md5 of
// each conffile's shipped content.
void checksums(const DebControl& control, const DataContents& data, FragmentInfo& info) {
  const auto& items = data.items;
  std::string_view content = data.content;
  if (auto it = control.files.find("md5sums"); it != control.files.end()) {
    info.md5sums = it->second;
  } else {
    // Every regular file, a hardlink too (dpkg hashes what it extracts:
    // a hardlink's hash is its target's).
    std::vector<std::pair<const Item*, const Item*>> regular;  // name, content
    for (const auto& it : items) {
      if (it.entry.type == TarEntryType::kRegular) regular.emplace_back(&it, &it);
      if (it.entry.type != TarEntryType::kHardlink) continue;
      std::string_view target = it.entry.link_target;
      while (target.starts_with("./") || target.starts_with('/')) target.remove_prefix(target.front() == '.' ? 2 : 1);
      auto t = data.by_package_path.find(std::string(target));
      if (t != data.by_package_path.end() && items[t->second].entry.type == TarEntryType::kRegular) {
        regular.emplace_back(&it, &items[t->second]);
      }
    }
    std::sort(regular.begin(), regular.end(),
              [](const auto& a, const auto& b) { return a.first->package_path < b.first->package_path; });
    for (const auto& [name, body] : regular) {
      info.md5sums += md5_hex(content.substr(body->offset, body->entry.size)) + "  " + name->package_path + "\n";
    }
  }
  if (auto cf = control.files.find("conffiles"); cf != control.files.end()) {
    for (auto line : str::split(cf->second, '\n')) {
      std::string_view path = str::trim(line);
      if (!path.starts_with('/')) continue;
      auto it = data.by_package_path.find(std::string(path.substr(1)));
      if (it == data.by_package_path.end() || items[it->second].entry.type != TarEntryType::kRegular) continue;
      const Item& item = items[it->second];
      info.conffile_md5[std::string(path)] = md5_hex(content.substr(item.offset, item.entry.size));
    }
  }
}

// The base's dpkg path filters: which items are kept. Excluded
// non-directories go; an excluded directory stays while it still holds
// something.
std::vector<bool> apply_filters(const std::vector<Item>& items, const RewriteRules& rules, FragmentInfo& info) {
  std::set<std::string> kept_dirs;
  std::vector<bool> keep(items.size(), true);
  std::size_t filtered = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& e = items[i].entry;
    if (e.type == TarEntryType::kDirectory) continue;
    if (rules.excluded(e.path)) {
      keep[i] = false;
      ++filtered;
      continue;
    }
    for (std::string d = dirname_of(e.path); !d.empty(); d = dirname_of(d)) {
      if (!kept_dirs.insert(d).second) break;
    }
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& e = items[i].entry;
    if (e.type == TarEntryType::kDirectory && rules.excluded(e.path) && !kept_dirs.contains(e.path)) {
      keep[i] = false;
    }
  }
  if (filtered > 0) {
    info.notes.push_back(std::to_string(filtered) + " path(s) of " + info.package +
                         " left out by the base's dpkg path-exclude filters");
  }
  return keep;
}

// Hardlinks: the first member of each set in output order carries the
// content. `order` is sorted; `by_placed` finds the items by placed path.
void reroot_hardlinks(const std::vector<Item*>& order, const std::map<std::string, Item*>& by_placed) {
  std::map<std::string, std::string> holder;  // original content path → holder path
  for (Item* it : order) {
    if (it->entry.type != TarEntryType::kHardlink) continue;
    const std::string original = it->entry.link_target;
    auto h = holder.find(original);
    if (h != holder.end()) {
      it->entry.link_target = h->second;
      continue;
    }
    Item* file = by_placed.at(original);
    if (oci::tar_path_less(it->entry.path, original)) {
      std::string link_path = it->entry.path;
      oci::TarEntry moved = file->entry;
      moved.path = link_path;
      oci::TarEntry link = it->entry;
      link.path = original;
      link.link_target = link_path;
      std::swap(it->offset, file->offset);
      std::swap(it->package_path, file->package_path);
      it->entry = std::move(moved);
      file->entry = std::move(link);
      holder[original] = link_path;
    } else {
      holder[original] = original;
    }
  }
}

// Places every kept entry (RewriteRules: symlinked directories, diversions,
// statoverrides; mtimes clamped to the epoch), leaves out directories the
// base has, points hardlinks at placed paths; the output order (sorted, the
// content on each hardlink set's first member).
Result<std::vector<Item*>> place_entries(std::vector<Item>& items, const std::vector<bool>& keep,
                                         const RewriteRules& rules, const std::string& package, const Refuse& refuse) {
  std::map<std::string, std::string> placed_of;  // package path → placed path
  std::vector<Item*> order;
  std::map<std::string, Item*> by_placed;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!keep[i]) continue;
    Item& it = items[i];
    std::string placed = rules.place(it.package_path, package);
    placed_of[it.package_path] = placed;
    oci::TarEntry& e = it.entry;
    if (e.type == TarEntryType::kDirectory && rules.base_has_directory(placed)) continue;
    e.path = placed;
    if (e.mtime > rules.epoch()) e.mtime = rules.epoch();
    if (const auto* so = rules.stat_override(placed)) {
      e.uid = so->uid;
      e.gid = so->gid;
      e.mode = so->mode;
    }
    e.xattrs.erase("security.selinux");
    if (auto [pos, inserted] = by_placed.emplace(placed, &it); !inserted) {
      if (e.type == TarEntryType::kDirectory && pos->second->entry.type == TarEntryType::kDirectory) continue;
      return refuse("entries " + str::quote(pos->second->package_path) + " and " + str::quote(it.package_path) +
                    " both land on " + str::quote("/" + placed) + " through the base's symlinks");
    }
    order.push_back(&it);
  }
  for (Item* it : order) {
    if (it->entry.type != TarEntryType::kHardlink) continue;
    auto target = placed_of.find(it->entry.link_target);
    if (target == placed_of.end() || !by_placed.contains(target->second)) {
      return refuse("hardlink " + str::quote(it->package_path) + " points at " +
                    str::quote(it->entry.link_target) + ", which is not in the package's kept files");
    }
    it->entry.link_target = target->second;
  }
  std::sort(order.begin(), order.end(),
            [](const Item* a, const Item* b) { return oci::tar_path_less(a->entry.path, b->entry.path); });
  reroot_hardlinks(order, by_placed);
  return order;
}

// Writes the tar and its compressed form in one pass into `out_dir`; records
// the entries, libraries and ld.so.conf files, sizes and CRC-32s in `info`.
// Directories are only recorded (info.directories): the overlay writes every
// directory of a layer once, ahead of the fragments. A fragment of
// directories alone is two empty files.
bool is_ucf_source(std::string_view placed, std::string_view postinst) {
  // Debian's PHP: each SAPI package's postinst installs its php.ini from the
  // php.ini-production* template php<VERSION>-common ships.
  if (placed.starts_with("usr/lib/php/") && oci::base_name(placed).starts_with("php.ini-")) return true;
  if (postinst.find("ucf ") == std::string_view::npos) return false;
  std::string path = "/" + std::string(placed);
  if (postinst.find(path) != std::string_view::npos) return true;
  auto slash = path.rfind('/');
  return slash > 0 && postinst.find(path.substr(0, slash + 1)) != std::string_view::npos;
}

Result<void> write_fragment(const std::vector<Item*>& order, std::string_view content, oci::Compression compression,
                            const stdfs::path& out_dir, unsigned compress_jobs, FragmentInfo& info) {
  auto md5 = parse_md5sums(info.md5sums);
  bool plain = compression == oci::Compression::kNone;  // data.tar is the packed form too
  STRATA_TRY(auto tar_file, oci::FileSink::open(out_dir / "data.tar"));
  std::optional<oci::FileSink> packed_file;
  if (!plain) {
    STRATA_TRY(auto opened, oci::FileSink::open(out_dir / packed_name(compression)));
    packed_file.emplace(std::move(opened));
  }
  oci::Crc32Sink tar_crc(tar_file);
  oci::StringSink nothing;  // a fragment of directories alone packs no bytes
  oci::Crc32Sink packed_crc(packed_file ? static_cast<oci::ByteSink&>(*packed_file) : nothing);
  bool has_files = std::any_of(order.begin(), order.end(),
                               [](const Item* it) { return it->entry.type != TarEntryType::kDirectory; });
  std::unique_ptr<oci::CompressingSink> compressor;  // none for a plain layer: data.tar is its packed form
  if (!plain) {
    STRATA_TRY(compressor, oci::CompressingSink::create(
                               compression, has_files ? static_cast<oci::ByteSink&>(packed_crc) : nothing,
                               compress_jobs, oci::DiffId::kSkip));
  }
  std::optional<oci::TeeSink> tee;
  if (compressor) tee.emplace(tar_crc, *compressor);
  oci::TarWriter writer(tee ? static_cast<oci::ByteSink&>(*tee) : tar_crc);
  const auto post = info.control_files.find("postinst");
  const std::string_view postinst = post == info.control_files.end() ? std::string_view() : post->second;
  for (Item* it : order) {
    const oci::TarEntry& e = it->entry;
    FragmentEntry fe{e.path, e.type, e.link_target, "", e.mode, e.uid, e.gid, e.size, e.mtime, e.dev_major, e.dev_minor};
    if (auto m = md5.find(it->package_path); m != md5.end()) fe.md5 = m->second;
    if (e.type == TarEntryType::kDirectory) {
      info.directories.push_back(e);
    } else if (e.type == TarEntryType::kRegular) {
      std::string_view body = content.substr(it->offset, e.size);
      STRATA_TRY_VOID(writer.add_file(e, body));
      std::string name(oci::base_name(e.path));
      if (in_library_dir(e.path) && looks_like_library_name(name)) {
        if (auto lib = read_elf_library(body)) info.libraries.push_back({e.path, lib->soname, lib->cache_flags});
      }
      if (e.path == "etc/ld.so.conf" || e.path.starts_with("etc/ld.so.conf.d/")) info.captured[e.path] = body;
      if (e.path == "etc/os-release" || e.path == "usr/lib/os-release") info.captured[e.path] = body;
      if (is_copyright_path(e.path)) info.summaries[e.path] = copyright_summary(body);
      if (is_certificate_path(e.path) && body.size() <= kMaxCapturedCertificateBytes) info.captured[e.path] = body;
      if ((e.path == "etc/adduser.conf" || is_service_definition_path(e.path) || is_ucf_source(e.path, postinst)) &&
          body.size() <= kMaxCapturedCertificateBytes) {
        info.captured[e.path] = body;
      }
    } else {
      STRATA_TRY_VOID(writer.add(e));
    }
    info.entries.push_back(std::move(fe));
  }
  STRATA_TRY_VOID(writer.finish(oci::TarWriter::Trailer::kOmit));
  std::uint64_t packed_size = 0;
  if (compressor) {
    STRATA_TRY(oci::LayerDigests digests, compressor->finish());
    packed_size = static_cast<std::uint64_t>(digests.size);
  }
  // Durable before the directory is renamed into the cache.
  STRATA_TRY_VOID(tar_file.sync());
  STRATA_TRY_VOID(tar_file.close());
  if (packed_file) {
    STRATA_TRY_VOID(packed_file->sync());
    STRATA_TRY_VOID(packed_file->close());
  }
  info.tar_size = tar_file.written();
  info.tar_crc32 = tar_crc.crc();
  info.compressed_size = plain ? info.tar_size : has_files ? packed_size : 0;
  info.compressed_crc32 = plain ? info.tar_crc32 : packed_crc.crc();
  return {};
}

}  // namespace

bool is_certificate_path(std::string_view placed) {
  return placed.starts_with("usr/share/ca-certificates/") || placed.starts_with("usr/local/share/ca-certificates/");
}

bool is_service_definition_path(std::string_view placed) {
  for (std::string_view dir : {"etc/init.d/", "lib/systemd/system/", "usr/lib/systemd/system/"}) {
    if (placed.starts_with(dir) && placed.find('/', dir.size()) == std::string_view::npos) return true;
  }
  return false;
}

std::string_view compression_extension(oci::Compression c) {
  switch (c) {
    case oci::Compression::kGzip: return "gz";
    case oci::Compression::kZstd: return "zst";
    default: return "raw";
  }
}

std::string packed_name(oci::Compression c) {
  return c == oci::Compression::kNone ? "data.tar" : "data.tar." + std::string(compression_extension(c));
}

Result<FragmentInfo> convert_deb(const stdfs::path& deb, const RewriteRules& rules, oci::Compression compression,
                                 const stdfs::path& out_dir, const std::string& what, unsigned compress_jobs) {
  Refuse refuse{what};
  STRATA_TRY(auto reader, DebReader::open(deb, what));
  STRATA_TRY(DebControl control, reader->control());
  STRATA_TRY(auto stanzas, parse_deb822(control.control, what + " control"));
  if (stanzas.size() != 1) return refuse("control file must hold exactly one stanza");
  const auto& st = stanzas.front();
  STRATA_TRY(FragmentInfo info, package_identity(st, control, refuse));
  STRATA_TRY(DataContents data, read_data(*reader, st, info, refuse));
  checksums(control, data, info);
  std::vector<bool> keep = apply_filters(data.items, rules, info);
  STRATA_TRY(std::vector<Item*> order, place_entries(data.items, keep, rules, info.package, refuse));
  STRATA_TRY_VOID(write_fragment(order, data.content, compression, out_dir, compress_jobs, info));
  return info;
}

std::string FragmentCache::key(const std::string& deb_sha256, const RewriteRules& rules, oci::Compression c) const {
  return sha256_hex("strata fragment " + std::to_string(kFragmentRecipe) + "." +
                    std::to_string(kCopyrightSummaryVersion) + "\n" + deb_sha256 + "\n" +
                    rules.hash() + "\n" + std::string(compression_extension(c)) + "\n");
}

Result<Fragment> FragmentCache::lookup(const stdfs::path& dir, oci::Compression compression) const {
  Fragment f;
  f.tar = dir / "data.tar";
  f.compressed = dir / packed_name(compression);
  STRATA_TRY(std::string bytes, fs::read_file(dir / "info.bin", std::uint64_t{1} << 30));
  auto info = decode_info(bytes);
  if (!info) return fail(ErrorCode::kCorruption, (dir / "info.bin").string() + ": damaged or of another format");
  f.info = std::move(*info);
  std::error_code ec;
  auto tar_size = stdfs::file_size(f.tar, ec);
  auto packed_size = ec ? 0 : stdfs::file_size(f.compressed, ec);
  if (ec || tar_size != f.info.tar_size || packed_size != f.info.compressed_size) {
    return fail(ErrorCode::kCorruption, dir.string() + ": fragment files do not match info.bin");
  }
  return f;
}

Result<Fragment> FragmentCache::get(const stdfs::path& deb, const std::string& deb_sha256, const RewriteRules& rules,
                                    oci::Compression compression, const std::string& what, unsigned compress_jobs) const {
  stdfs::path dir = dir_ / key(deb_sha256, rules, compression);
  std::error_code ec;  // the non-throwing forms: this runs on worker threads
  if (stdfs::exists(dir, ec)) {
    auto hit = lookup(dir, compression);
    if (hit) {
      fs::mark_used(dir / "info.bin");  // a fragment's last use is its newest file's time (`cache gc`)
      return hit;
    }
    STRATA_TRY_VOID(fs::remove_tree(dir));  // damaged or of another format: convert again
  }
  STRATA_TRY_VOID(fs::make_dirs(dir_));
  std::random_device rd;
  stdfs::path tmp = dir_ / (".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  STRATA_TRY_VOID(fs::make_dirs(tmp));
  // On failure only, after the error that is reported; a leftover .tmp-
  // directory is never read as a fragment.
  auto cleanup = [&] { (void)fs::remove_tree(tmp); };
  auto info = convert_deb(deb, rules, compression, tmp, what, compress_jobs);
  if (!info) {
    cleanup();
    return fail(info.error());
  }
  auto written = fs::write_file_atomic(tmp / "info.bin", encode_info(*info));
  if (!written) {
    cleanup();
    return fail(written.error());
  }
  if (auto renamed = fs::rename_file(tmp, dir); !renamed) {
    cleanup();  // another builder won the race with the same bytes
    if (!stdfs::exists(dir / "info.bin", ec)) return fail(renamed.error().context("storing the fragment of " + what));
  }
  STRATA_TRY_VOID(fs::sync_dir(dir_));
  STRATA_TRY(Fragment f, lookup(dir, compression));
  f.converted = true;
  return f;
}

}  // namespace strata::layer
