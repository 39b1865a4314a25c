#include "layer/overlay/layer_plan.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <random>

#include "oci/crc32.hpp"
#include "oci/tar_reader.hpp"
#include "oci/tar_writer.hpp"
#include "util/binary.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

namespace stdfs = std::filesystem;
using oci::TarEntryType;

std::string type_name(TarEntryType t) { return std::string(oci::tar_entry_type_name(t)); }

}  // namespace

Result<LayerPlan> plan_layer(const std::vector<const FragmentInfo*>& fragments, const std::vector<EffectFile>& effects) {
  LayerPlan plan;
  plan.drop.resize(fragments.size());
  std::map<std::string, oci::TarEntry> dirs;
  std::map<std::string, std::size_t> dir_owner;  // path → fragment that gave its metadata
  struct Holder {
    std::size_t fragment;
    TarEntryType type;
  };
  std::map<std::string, Holder> files;  // non-directory path → the last fragment shipping it
  auto who = [&](std::size_t i) { return fragments[i]->package + " " + fragments[i]->version; };
  for (std::size_t i = 0; i < fragments.size(); ++i) {
    const FragmentInfo& f = *fragments[i];
    for (const auto& d : f.directories) {
      if (auto it = files.find(d.path); it != files.end()) {
        return fail(ErrorCode::kInvalidArgument,
                    "/" + d.path + " is a " + type_name(it->second.type) + " in " + who(it->second.fragment) +
                        " and a directory in " + who(i) + "; dpkg would refuse this install (drop one of them)");
      }
      if (dirs.try_emplace(d.path, d).second) dir_owner.emplace(d.path, i);
    }
    for (const auto& e : f.entries) {
      if (e.type == TarEntryType::kDirectory) continue;
      if (auto d = dir_owner.find(e.path); d != dir_owner.end()) {
        if (e.type == TarEntryType::kSymlink) {  // dpkg: "symlink exists as directory", left alone
          plan.drop[i].insert(e.path);
          plan.notes.push_back("/" + e.path + ": the symlink of " + who(i) + " is left out; the directory of " +
                               who(d->second) + " stays, as dpkg leaves it");
          continue;
        }
        return fail(ErrorCode::kInvalidArgument,
                    "/" + e.path + " is a directory in " + who(d->second) + " and a " + type_name(e.type) + " in " +
                        who(i) + "; dpkg would refuse to overwrite a directory with it (drop one of them)");
      }
      auto [it, fresh] = files.try_emplace(e.path, Holder{i, e.type});
      if (!fresh) {
        plan.drop[it->second.fragment].insert(e.path);  // a later package's copy replaces it
        it->second = Holder{i, e.type};
      }
    }
  }
  for (const auto& fx : effects) {
    const oci::TarEntry& e = fx.entry;
    if (e.type == TarEntryType::kDirectory) {
      if (auto it = files.find(e.path); it != files.end()) {
        return fail(ErrorCode::kInvalidArgument, "an effect makes /" + e.path + " a directory where " +
                                                     who(it->second.fragment) + " ships a " +
                                                     type_name(it->second.type));
      }
      dirs[e.path] = e;  // what the scripts leave overrides what the packages shipped
      continue;
    }
    if (dirs.contains(e.path)) {
      return fail(ErrorCode::kInvalidArgument, "an effect writes the " + type_name(e.type) + " /" + e.path +
                                                   " where the layer has a directory");
    }
    if (auto it = files.find(e.path); it != files.end()) plan.drop[it->second.fragment].insert(e.path);
    plan.effect_files.push_back(fx);
  }
  plan.directories.reserve(dirs.size());
  for (auto& [p, d] : dirs) plan.directories.push_back(std::move(d));
  std::sort(plan.directories.begin(), plan.directories.end(),
            [](const oci::TarEntry& a, const oci::TarEntry& b) { return oci::tar_path_less(a.path, b.path); });
  std::sort(plan.effect_files.begin(), plan.effect_files.end(), [](const EffectFile& a, const EffectFile& b) {
    return oci::tar_path_less(a.entry.path, b.entry.path);
  });
  return plan;
}

Result<std::string> directories_tar(const std::vector<oci::TarEntry>& directories) {
  oci::StringSink out;
  oci::TarWriter w(out);
  for (const auto& d : directories) STRATA_TRY_VOID(w.add(d));
  STRATA_TRY_VOID(w.finish(oci::TarWriter::Trailer::kOmit));
  return std::move(out.str());
}

namespace {

constexpr std::string_view kPieceMagic = "STRATAFW";
constexpr std::uint32_t kPieceFormat = 1;

struct PieceSums {
  std::uint64_t tar_size = 0;
  std::uint32_t tar_crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint32_t compressed_crc32 = 0;
};

std::string encode_sums(const PieceSums& s) {
  std::string out(kPieceMagic);
  bin::Writer w(out);
  w.u32(kPieceFormat);
  w.u64(s.tar_size);
  w.u32(s.tar_crc32);
  w.u64(s.compressed_size);
  w.u32(s.compressed_crc32);
  return out;
}

std::optional<PieceSums> decode_sums(std::string_view bytes) {
  if (!bytes.starts_with(kPieceMagic)) return std::nullopt;
  bin::Reader r(bytes.substr(kPieceMagic.size()));
  if (r.u32() != kPieceFormat) return std::nullopt;
  PieceSums s;
  s.tar_size = r.u64();
  s.tar_crc32 = r.u32();
  s.compressed_size = r.u64();
  s.compressed_crc32 = r.u32();
  if (r.bad || !r.at_end()) return std::nullopt;
  return s;
}

Fragment piece_of(const Fragment& f, const stdfs::path& dir, const std::string& packed, const PieceSums& s) {
  Fragment out;
  out.info.package = f.info.package;
  out.info.version = f.info.version;
  out.info.architecture = f.info.architecture;
  out.tar = dir / "data.tar";
  out.compressed = dir / packed;
  out.info.tar_size = s.tar_size;
  out.info.tar_crc32 = s.tar_crc32;
  out.info.compressed_size = s.compressed_size;
  out.info.compressed_crc32 = s.compressed_crc32;
  return out;
}

// The cached piece in `dir`, when its files have the recorded sizes (the
// CRC-32s are checked by the layer hashing, as for any cached fragment).
std::optional<Fragment> cached_piece(const Fragment& f, const stdfs::path& dir, const std::string& packed) {
  auto bytes = fs::read_file(dir / "piece.bin", 4096);
  if (!bytes) return std::nullopt;
  auto sums = decode_sums(*bytes);
  if (!sums) return std::nullopt;
  Fragment out = piece_of(f, dir, packed, *sums);
  std::error_code ec;
  auto tar_size = stdfs::file_size(out.tar, ec);
  auto packed_size = ec ? 0 : stdfs::file_size(out.compressed, ec);
  if (ec || tar_size != sums->tar_size || packed_size != sums->compressed_size) return std::nullopt;
  return out;
}

// The fragment's tar (which has no end-of-archive blocks) followed by two
// zero blocks, for a TarReader.
class FragmentSource {
 public:
  explicit FragmentSource(const stdfs::path& path)
      : path_(path), file_(fs::ReadableFile::open(path)), fd_(file_ ? file_->fd() : -1) {}
  FragmentSource(const FragmentSource&) = delete;
  FragmentSource& operator=(const FragmentSource&) = delete;
  Result<void> ok() const {
    if (!file_) return fail(file_.error());
    return {};
  }
  Result<std::size_t> pull(std::span<std::byte> buf) {
    while (!eof_) {
      ssize_t n = ::read(fd_, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail(fs::io_error("reading", path_, errno));
      if (n > 0) return static_cast<std::size_t>(n);
      eof_ = true;
    }
    std::size_t k = std::min(buf.size(), trailer_left_);
    std::memset(buf.data(), 0, k);
    trailer_left_ -= k;
    return k;
  }

 private:
  stdfs::path path_;
  Result<fs::ReadableFile> file_;
  int fd_;
  bool eof_ = false;
  std::size_t trailer_left_ = 2 * oci::kTarBlock;
};

// Writes the content of the current reader entry to the tar writer.
class WriterSink final : public oci::ByteSink {
 public:
  explicit WriterSink(oci::TarWriter& w) : w_(w) {}
  Result<void> write(std::span<const std::byte> data) override { return w_.write_data(data); }

 private:
  oci::TarWriter& w_;
};

// Rewrites the fragment's entries without `drop`: when a hardlink set's
// holder is dropped, its first kept member carries the content.
Result<void> rewrite_without(const Fragment& f, const std::set<std::string>& drop, oci::TarWriter& w) {
  std::set<std::string> link_targets;
  for (const auto& e : f.info.entries) {
    if (e.type == TarEntryType::kHardlink) link_targets.insert(e.link_target);
  }
  FragmentSource source(f.tar);
  STRATA_TRY_VOID(source.ok());
  STRATA_TRY(auto reader, oci::TarReader::open([&](std::span<std::byte> b) { return source.pull(b); }, {},
                                               f.tar.string()));
  struct Dropped {
    oci::TarEntry entry;
    std::string content;
    std::optional<std::string> new_holder;
  };
  std::map<std::string, Dropped> dropped_holders;
  WriterSink content(w);
  while (true) {
    STRATA_TRY(auto next, reader->next());
    if (!next) break;
    oci::TarEntry& e = *next;
    if (drop.contains(e.path)) {
      if (e.type == TarEntryType::kRegular && link_targets.contains(e.path)) {
        STRATA_TRY(std::string body, reader->read_data_string(std::size_t{1} << 31));
        dropped_holders[e.path] = Dropped{e, std::move(body), std::nullopt};
      }
      continue;
    }
    if (e.type == TarEntryType::kHardlink) {
      if (auto h = dropped_holders.find(e.link_target); h != dropped_holders.end()) {
        if (!h->second.new_holder) {  // this member takes the content
          oci::TarEntry holder = h->second.entry;
          holder.path = e.path;
          STRATA_TRY_VOID(w.add_file(holder, h->second.content));
          h->second.new_holder = e.path;
          continue;
        }
        e.link_target = *h->second.new_holder;
      }
    }
    STRATA_TRY_VOID(w.add(e));
    if (e.type == TarEntryType::kRegular) STRATA_TRY_VOID(reader->read_data(content));
  }
  return w.finish(oci::TarWriter::Trailer::kOmit);
}

}  // namespace

Result<Fragment> fragment_without(const Fragment& f, const std::set<std::string>& drop, oci::Compression compression,
                                  unsigned compress_jobs) {
  std::string packed_file = packed_name(compression);
  std::string list;
  for (const auto& p : drop) list += p + '\n';
  stdfs::path dir = f.tar.parent_path() / ("without-" + sha256_hex(list).substr(0, 32));
  if (auto hit = cached_piece(f, dir, packed_file)) return *hit;

  oci::StringSink tar;
  oci::StringSink compressed;
  {
    oci::TarWriter w(tar);
    STRATA_TRY_VOID(with_context(rewrite_without(f, drop, w), "leaving paths out of " + f.info.package + "'s fragment"));
  }
  bool plain = compression == oci::Compression::kNone;  // data.tar is the packed form too
  if (!tar.str().empty() && !plain) {  // an empty piece is written as nothing (layer.md member boundary rule)
    STRATA_TRY(auto c, oci::CompressingSink::create(compression, compressed, compress_jobs, oci::DiffId::kSkip));
    STRATA_TRY_VOID(c->write(oci::as_bytes(tar.str())));
    STRATA_TRY(auto d, c->finish());
    (void)d;
  }
  const std::string& packed = plain ? tar.str() : compressed.str();
  PieceSums sums{tar.str().size(), oci::crc32_update(0, tar.str()), packed.size(), oci::crc32_update(0, packed)};

  std::random_device rd;
  stdfs::path tmp = f.tar.parent_path() / (".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  // On failure only, after the error that is reported; a leftover .tmp-
  // directory is never read as a piece.
  auto cleanup = [&] { (void)fs::remove_tree(tmp); };
  auto written = fs::make_dirs(tmp);
  if (written) written = fs::write_file_atomic(tmp / "data.tar", tar.str());
  if (written && !plain) written = fs::write_file_atomic(tmp / packed_file, packed);
  if (written) written = fs::write_file_atomic(tmp / "piece.bin", encode_sums(sums));
  if (!written) {
    cleanup();
    return fail(written.error());
  }
  if (auto removed = fs::remove_tree(dir); !removed) {  // damaged: replaced
    cleanup();
    return fail(removed.error());
  }
  if (auto renamed = fs::rename_file(tmp, dir); !renamed) {
    cleanup();  // another builder won the race with the same bytes
    if (!cached_piece(f, dir, packed_file)) return fail(renamed.error().context("storing a fragment piece"));
  }
  Fragment out = piece_of(f, dir, packed_file, sums);
  out.converted = true;
  return out;
}

}  // namespace strata::layer
