#include "layer/overlay/overlay.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <queue>
#include <thread>

#include "layer/effects/accounts.hpp"
#include "layer/effects/alternatives.hpp"
#include "layer/effects/ca_certificates.hpp"
#include "layer/effects/diversions.hpp"
#include "layer/effects/services.hpp"
#include "layer/effects/ucf.hpp"
#include "layer/debian/deb822.hpp"
#include "layer/effects/dpkg_database.hpp"
#include "layer/effects/effects.hpp"
#include "layer/deb/fragment.hpp"
#include "layer/overlay/layer_hashing.hpp"
#include "layer/overlay/layer_plan.hpp"
#include "layer/effects/ldconfig.hpp"
#include "layer/debian/relation.hpp"
#include "layer/deb/rewrite_rules.hpp"
#include "oci/tar_writer.hpp"
#include "oci/append_layer.hpp"
#include "oci/copy.hpp"
#include "oci/media_types.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

namespace stdfs = std::filesystem;
using oci::TarEntryType;

// Drops the first `skip` bytes, forwards the rest.
class SkipSink final : public oci::ByteSink {
 public:
  SkipSink(oci::ByteSink& next, std::uint64_t skip) : next_(next), skip_(skip) {}
  Result<void> write(std::span<const std::byte> data) override {
    std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(skip_, data.size()));
    skip_ -= k;
    data = data.subspan(k);
    if (data.empty()) return {};
    return next_.write(data);
  }

 private:
  oci::ByteSink& next_;
  std::uint64_t skip_;
};

// Converts (or finds) every fragment on `jobs` threads, the largest .debs
// first so the longest conversions do not start last, publishing each to
// `feed` (slot = index in `debs`) as it is ready; each conversion also
// compresses up to `jobs` chunks at once.
void all_fragments(const std::vector<OverlayDeb>& debs, const RewriteRules& rules, const OverlayOptions& o,
                   FragmentFeed& feed) {
  FragmentCache cache(o.home);
  std::vector<std::pair<std::uintmax_t, std::size_t>> by_size;
  for (std::size_t i = 0; i < debs.size(); ++i) {
    std::error_code ec;
    auto size = stdfs::file_size(debs[i].path, ec);
    by_size.emplace_back(ec ? 0 : size, i);
  }
  std::sort(by_size.begin(), by_size.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  unsigned compress_jobs = std::clamp(o.jobs, 1u, 8u);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t k = next++; k < by_size.size(); k = next++) {
      std::size_t i = by_size[k].second;
      const auto& d = debs[i];
      feed.publish(i, cache.get(d.path, d.sha256, rules, o.compression,
                                d.name + "_" + d.version + "_" + d.architecture + ".deb", compress_jobs));
    }
  };
  unsigned n = std::max(1u, std::min<unsigned>(o.jobs, static_cast<unsigned>(debs.size())));
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
}

std::set<std::string> replaces_of(const FragmentInfo& p) {
  std::set<std::string> out;
  auto stanzas = parse_deb822(p.control, p.package);
  if (!stanzas || stanzas->empty()) return out;
  auto field = stanzas->front().get("Replaces");
  if (!field) return out;
  auto groups = parse_relations(*field, p.package + " Replaces", Alternatives::kForbidden);
  if (!groups) return out;
  for (const auto& g : *groups) {
    for (const auto& r : g) out.insert(r.name);
  }
  return out;
}

// Checks files shipped twice and orders fragments: by name, a replacing
// package after the one it replaces.
Result<std::vector<std::size_t>> order_fragments(const std::vector<const Fragment*>& frags) {
  std::vector<std::set<std::string>> replaces;
  for (const Fragment* f : frags) replaces.push_back(replaces_of(f->info));
  std::map<std::string, std::pair<std::size_t, const FragmentEntry*>> owner;
  std::vector<std::set<std::size_t>> after(frags.size());  // i must come after each of after[i]
  for (std::size_t i = 0; i < frags.size(); ++i) {
    for (const auto& e : frags[i]->info.entries) {
      if (e.type == TarEntryType::kDirectory) continue;
      auto [it, fresh] = owner.emplace(e.path, std::pair{i, &e});
      if (fresh) continue;
      std::size_t j = it->second.first;
      const FragmentEntry& other = *it->second.second;
      const auto& a = frags[i]->info;
      const auto& b = frags[j]->info;
      bool same_content = other.type == e.type && other.md5 == e.md5 && other.link_target == e.link_target;
      if (a.package == b.package && a.multi_arch == "same" && same_content) continue;
      if (replaces[i].contains(b.package)) {
        after[i].insert(j);
        it->second = {i, &e};
      } else if (replaces[j].contains(a.package)) {
        after[j].insert(i);
      } else {
        return fail(ErrorCode::kInvalidArgument,
                    "/" + e.path + " is shipped by both " + b.package + " " + b.version + " and " + a.package +
                        " " + a.version + " and neither Replaces the other; dpkg would refuse this install "
                        "(drop one of them from the request)");
      }
    }
  }
  auto less = [&](std::size_t x, std::size_t y) {
    const auto& a = frags[x]->info;
    const auto& b = frags[y]->info;
    return std::tie(a.package, a.architecture) > std::tie(b.package, b.architecture);  // min-heap
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(less)> ready(less);
  std::vector<std::size_t> pending(frags.size());
  std::vector<std::vector<std::size_t>> before_of(frags.size());
  for (std::size_t i = 0; i < frags.size(); ++i) {
    pending[i] = after[i].size();
    for (std::size_t j : after[i]) before_of[j].push_back(i);
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    std::size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::size_t k : before_of[i]) {
      if (--pending[k] == 0) ready.push(k);
    }
  }
  if (order.size() != frags.size()) {
    return fail(ErrorCode::kInvalidArgument, "packages replace each other's files in a cycle; cannot order them");
  }
  return order;
}

// The effects, one per path, missing parent directories added.
Result<std::vector<EffectFile>> complete_effects(std::vector<EffectFile> files, const OverlayView& view,
                                                 std::int64_t epoch) {
  std::map<std::string, EffectFile> by_path;
  for (auto& f : files) {
    auto [it, fresh] = by_path.emplace(f.entry.path, f);
    if (!fresh && !(it->second.entry == f.entry && it->second.content == f.content)) {
      return fail(ErrorCode::kInvalidArgument, "two effects write /" + f.entry.path + " differently");
    }
  }
  std::vector<std::string> dirs;
  for (const auto& [path, f] : by_path) {
    for (std::string_view p = oci::parent_path(path); !p.empty(); p = oci::parent_path(p)) {
      std::string d(p);
      if (view.rules().base_has_directory(d) || by_path.contains(d)) break;
      const FragmentEntry* e = view.layer_entry(d);
      if (e && e->type == TarEntryType::kDirectory) break;
      dirs.push_back(d);
    }
  }
  for (const auto& d : dirs) {
    EffectFile f;
    f.entry.path = d;
    f.entry.type = TarEntryType::kDirectory;
    f.entry.mode = 0755;
    f.entry.mtime = epoch;
    by_path.emplace(d, std::move(f));
  }
  std::vector<EffectFile> out;
  out.reserve(by_path.size());
  for (auto& [p, f] : by_path) out.push_back(std::move(f));
  return out;
}

// The effects piece (no trailer): the effects that are not directories
// (those are in the directories piece), sorted.
Result<std::string> effects_tar(const std::vector<EffectFile>& sorted) {
  oci::StringSink out;
  oci::TarWriter w(out);
  for (const EffectFile& f : sorted) {
    if (f.entry.type == TarEntryType::kRegular) {
      STRATA_TRY_VOID(w.add_file(f.entry, f.content));
    } else {
      STRATA_TRY_VOID(w.add(f.entry));
    }
  }
  STRATA_TRY_VOID(w.finish(oci::TarWriter::Trailer::kOmit));
  return std::move(out.str());
}

// A piece compressed on its own (nothing for an empty one).
Result<std::string> compress_piece(oci::Compression compression, std::string_view plain) {
  oci::StringSink packed;
  if (plain.empty()) return std::string();
  STRATA_TRY(auto c, oci::CompressingSink::create(compression, packed, 1, oci::DiffId::kSkip));
  STRATA_TRY_VOID(c->write(oci::as_bytes(plain)));
  STRATA_TRY(auto d, c->finish());
  (void)d;
  return std::move(packed.str());
}

// The layer blob into `dest`, ending with `tail` (the effects and the
// end-of-archive blocks, compressed). With `direct` (a destination that names
// a blob after its bytes) `hashing`'s compressed side has been writing it as
// it read the pieces; otherwise that side hashed them, and the pieces are
// written now unless the destination has the blob (its writer verifies the
// digest, so a fragment changed since it was hashed cannot slip in).
Result<oci::WrittenBlob> write_layer(LayerHashing& hashing, oci::UnnamedBlobWriter* direct, const LayerPieces& pieces,
                                     const std::vector<const Fragment*>& frags, const std::string& tail,
                                     const std::string& media_type, oci::Store& dest) {
  auto failed = [&](const Error& e) { return fail(e.context("writing the overlay layer to " + dest.describe())); };
  auto packed = hashing.compressed();
  if (direct) {
    Result<void> r = packed ? direct->write(oci::as_bytes(tail)) : Result<void>(fail(packed.error()));
    Result<oci::WrittenBlob> blob = r ? direct->commit() : Result<oci::WrittenBlob>(fail(r.error()));
    if (!blob) {
      direct->abort();
      return failed(blob.error());
    }
    return blob;
  }
  if (!packed) return fail(packed.error());
  packed->hasher.update(tail);
  oci::WrittenBlob blob{oci::Digest::from_hex(HashAlgorithm::kSha256, packed->hasher.finish_hex()),
                        static_cast<std::int64_t>(packed->size + tail.size())};
  oci::Descriptor desc;
  desc.media_type = media_type;
  desc.digest = blob.digest;
  desc.size = blob.size;
  STRATA_TRY(bool present, dest.has_blob(desc));
  if (present) return blob;
  STRATA_TRY(auto w, dest.blob_writer(desc));
  SkipSink out(*w, w->offset());  // resuming an interrupted write: skip what is there
  Result<void> r = out.write(oci::as_bytes(pieces.head_packed));
  for (std::size_t i : hashing.order()) {
    if (!r) break;
    auto s = pieces.substitutes.find(i);
    const Fragment& f = s == pieces.substitutes.end() ? *frags[i] : s->second;
    r = fs::read_chunks(f.compressed, [&](std::string_view piece) { return out.write(oci::as_bytes(piece)); });
  }
  if (r) r = out.write(oci::as_bytes(tail));
  if (r) r = w->commit();
  if (!r) {
    w->abort();
    return failed(r.error());
  }
  return blob;
}

// The layer as the build wrote it, entry by entry in layer order, with what
// the build kept of each file: the directories piece, each fragment without
// its dropped paths, the effects' files. nullopt when a fragment loses a
// hardlink's target (fragment_without re-roots the link set; its headers
// are then only in the piece's tar). The entries point into `plan` and
// `packages`.
std::optional<std::vector<oci::KnownEntry>> known_layer(const LayerPlan& plan, const std::vector<const FragmentInfo*>& packages) {
  std::vector<oci::KnownEntry> out;
  for (const auto& d : plan.directories) out.push_back({d});
  for (std::size_t k = 0; k < packages.size(); ++k) {
    const FragmentInfo& f = *packages[k];
    const std::set<std::string>& drop = plan.drop[k];
    for (const FragmentEntry& e : f.entries) {
      if (e.type == TarEntryType::kDirectory) continue;  // in the directories piece
      if (drop.contains(e.path)) continue;
      if (e.type == TarEntryType::kHardlink && drop.contains(e.link_target)) return std::nullopt;
      oci::KnownEntry known;
      known.entry.path = e.path;
      known.entry.type = e.type;
      known.entry.link_target = e.link_target;
      known.entry.mode = e.mode;
      known.entry.uid = e.uid;
      known.entry.gid = e.gid;
      known.entry.size = e.size;
      known.entry.mtime = e.mtime;
      known.entry.dev_major = e.dev_major;
      known.entry.dev_minor = e.dev_minor;
      if (auto c = f.captured.find(e.path); c != f.captured.end()) known.content = &c->second;
      if (auto m = f.summaries.find(e.path); m != f.summaries.end()) known.summary = &m->second;
      out.push_back(std::move(known));
    }
  }
  for (const auto& e : plan.effect_files) out.push_back({e.entry, &e.content});
  return out;
}

// OverlayResult::fs and fs_unknown.
struct ResultFs {
  std::optional<oci::ImageFilesystem> fs;
  std::string unknown;
};

// `fs` is the base's filesystem, `base_layers` its manifest's layer count:
// a scratch root's base filesystem is its skeleton, which the layer itself
// carries (its effects), so the image starts empty.
ResultFs result_filesystem(oci::ImageFilesystem fs, std::size_t base_layers, const LayerPlan& plan,
                           const std::vector<const FragmentInfo*>& packages, const oci::ImageFsOptions& needs) {
  if (base_layers == 0) fs = oci::ImageFilesystem();
  if (fs.layers() != base_layers)
    return {std::nullopt, "the base's filesystem has " + std::to_string(fs.layers()) + " layers, its manifest " +
                              std::to_string(base_layers)};
  auto entries = known_layer(plan, packages);
  if (!entries) return {std::nullopt, "a package's hardlinked file is replaced by another package or an effect"};
  if (auto applied = fs.apply_known_layer(*entries, needs, "the new layer"); !applied)
    return {std::nullopt, applied.error().message()};
  return {std::move(fs), ""};
}

}  // namespace

oci::ImageFsOptions overlay_base_needs() {
  oci::ImageFsOptions needs;
  needs.capture = [rules = oci::capture_paths(RewriteRules::capture_patterns())](std::string_view path) {
    return rules(path) || ldconfig_capture(path) || ca_certificates_capture(path) || accounts_capture(path) || path == "etc/timezone";
  };
  needs.summarize_paths = ldconfig_library;
  needs.summarize = [](std::string_view, std::string_view content) { return ldconfig_summary(content); };
  return needs;
}

Result<OverlayResult> build_overlay(BaseImage base, oci::Store& base_store, const std::vector<OverlayDeb>& debs,
                                    const OverlayOptions& o, oci::Store& dest) {
  if (o.compression == oci::Compression::kUnknown) {
    return fail(ErrorCode::kInvalidArgument, "overlay layers are gzip, zstd or none");
  }
  OverlayResult result;
  STRATA_TRY(RewriteRules rules, RewriteRules::from_base(base.fs, o.epoch));
  for (const auto& w : rules.warnings()) result.notes.push_back(w);
  result.warnings = base.fs.warnings();
  FragmentFeed feed(debs.size());
  all_fragments(debs, rules, o, feed);
  STRATA_TRY(std::vector<const Fragment*> frags, feed.all());
  for (const Fragment* f : frags) (f->converted ? result.converted : result.reused)++;
  STRATA_TRY(auto order, order_fragments(frags));

  std::vector<const FragmentInfo*> packages;
  for (std::size_t i : order) {
    packages.push_back(&frags[i]->info);
    for (const auto& n : frags[i]->info.notes) result.notes.push_back(n);
  }
  OverlayView view(base.fs, rules, packages);
  std::vector<std::string> ca_handled;
  STRATA_TRY(Effects ca, ca_certificates_effects(view, o.epoch, ca_handled));
  std::vector<std::string> accounts_handled;
  STRATA_TRY(Effects accounts, accounts_effects(view, o.epoch, accounts_handled));
  Effects tz = tzdata_effects(view, o.epoch);
  std::vector<std::string> divert_handled;
  STRATA_TRY(Effects divert, diversion_effects(view, o.epoch, divert_handled));
  std::vector<std::string> service_handled;
  STRATA_TRY(Effects services, service_effects(view, o.epoch, service_handled));
  std::vector<std::string> ucf_handled;
  STRATA_TRY(Effects ucf, ucf_effects(view, o.epoch, ucf_handled));
  for (std::size_t i : order) {
    const FragmentInfo& p = frags[i]->info;
    std::set<std::string> reproduced;
    if (std::find(ca_handled.begin(), ca_handled.end(), p.package) != ca_handled.end()) {
      reproduced = {"update-ca-certificates", "update-ca-certificates-fresh", "chown", "dpkg-statoverride"};
    }
    if (std::find(accounts_handled.begin(), accounts_handled.end(), p.package) != accounts_handled.end()) {
      for (const char* t : {"adduser", "addgroup", "chown"}) reproduced.insert(t);
    }
    if (std::find(divert_handled.begin(), divert_handled.end(), p.package) != divert_handled.end()) {
      reproduced.insert("dpkg-divert");
    }
    if (std::find(service_handled.begin(), service_handled.end(), p.package) != service_handled.end()) {
      reproduced.insert("deb-systemd-helper");
      reproduced.insert("update-rc.d");
    }
    if (std::find(ucf_handled.begin(), ucf_handled.end(), p.package) != ucf_handled.end()) {
      reproduced.insert("php_invoke");
    }
    for (auto& u : unreproduced_script_effects(p, reproduced)) result.unreproduced.push_back(std::move(u));
  }
  std::vector<EffectFile> files;
  STRATA_TRY(files, dpkg_database_effects(base.fs, packages, o.requested, o.debian_arch, o.epoch));
  STRATA_TRY(Effects alts, alternatives_effects(view, o.epoch));
  STRATA_TRY(Effects ld, ldconfig_effects(view, o.debian_arch, o.epoch));
  Effects extra;
  if (o.extra_effects) {
    STRATA_TRY(extra, o.extra_effects(view, result.unreproduced));
  }
  result.reproduced.push_back("dpkg database");
  if (!alts.files.empty()) result.reproduced.push_back("alternatives");
  if (!ld.files.empty()) result.reproduced.push_back("ldconfig");
  if (!ca.files.empty()) result.reproduced.push_back("CA certificates");
  if (!accounts.files.empty()) result.reproduced.push_back("system accounts");
  if (!tz.files.empty()) result.reproduced.push_back("time zone");
  if (!divert.files.empty()) result.reproduced.push_back("diversions");
  if (!services.files.empty()) result.reproduced.push_back("service links");
  if (!ucf.files.empty()) result.reproduced.push_back("configuration files (ucf), PHP modules");
  if (!extra.files.empty() && !o.extra_effects_name.empty()) result.reproduced.push_back(o.extra_effects_name);
  for (Effects* fx : {&alts, &ld, &ca, &accounts, &tz, &divert, &services, &ucf, &extra}) {
    files.insert(files.end(), fx->files.begin(), fx->files.end());
    result.unreproduced.insert(result.unreproduced.end(), fx->unreproduced.begin(), fx->unreproduced.end());
    result.notes.insert(result.notes.end(), fx->notes.begin(), fx->notes.end());
  }
  if (auto arch = dpkg_arch_effect(base.fs, packages, o.debian_arch, o.epoch)) files.push_back(std::move(*arch));
  STRATA_TRY(std::vector<EffectFile> effect_entries, complete_effects(std::move(files), view, o.epoch));

  // Every path once (layer_plan.hpp): the directories of every fragment and
  // effect first, the fragments without directories (and, where another
  // piece holds one of their paths, without it), the effects' files.
  STRATA_TRY(LayerPlan plan, plan_layer(packages, effect_entries));
  for (auto& n : plan.notes) result.notes.push_back(std::move(n));
  // The result's filesystem is made from the plan while the layer is hashed
  // and written (the hashing leaves most of a core idle), from the base's,
  // which nothing below reads; nothing below changes `plan` or `packages`,
  // and the future waits before they go.
  std::future<ResultFs> result_fs;
  if (o.result_fs) {
    result_fs = std::async(std::launch::async | std::launch::deferred,
                           [&, fs = std::move(base.fs), layers = base.manifest.layers.size()]() mutable {
                             return result_filesystem(std::move(fs), layers, plan, packages, *o.result_fs);
                           });
  }
  LayerPieces pieces;
  unsigned compress_jobs = std::clamp(o.jobs, 1u, 8u);
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (plan.drop[k].empty()) continue;
    STRATA_TRY(Fragment piece, fragment_without(*frags[order[k]], plan.drop[k], o.compression, compress_jobs));
    pieces.substitutes.emplace(order[k], std::move(piece));
  }
  STRATA_TRY(pieces.head_plain, directories_tar(plan.directories));
  STRATA_TRY(pieces.head_packed, compress_piece(o.compression, pieces.head_plain));
  bool plain_layer = o.compression == oci::Compression::kNone;  // its digest is its diff_id
  // Where the destination can name a blob after its bytes (an OCI layout),
  // the layer is written as it is read; elsewhere it is hashed, then written.
  STRATA_TRY(std::unique_ptr<oci::UnnamedBlobWriter> direct, dest.unnamed_blob_writer());
  LayerHashing hashing(feed, order, &pieces, plain_layer ? LayerHashing::Layer::kPlain : LayerHashing::Layer::kCompressed,
                       direct.get());

  // Effects, then the end-of-archive blocks as their own compressed piece.
  STRATA_TRY(std::string effects, effects_tar(plan.effect_files));
  oci::StringSink effects_packed;
  {
    STRATA_TRY(auto c, oci::CompressingSink::create(o.compression, effects_packed, 1, oci::DiffId::kSkip));
    STRATA_TRY_VOID(c->write(oci::as_bytes(effects)));
    STRATA_TRY_VOID(c->end_member());
    STRATA_TRY_VOID(c->write(oci::as_bytes(std::string(2 * oci::kTarBlock, '\0'))));
    STRATA_TRY(auto d, c->finish());
    (void)d;
  }
  std::string tail_plain = effects + std::string(2 * oci::kTarBlock, '\0');

  result.layer.media_type = std::string(oci::layer_media_type(o.compression));
  STRATA_TRY(oci::WrittenBlob blob, write_layer(hashing, direct.get(), pieces, frags, effects_packed.str(),
                                                result.layer.media_type, dest));
  result.digests.digest = result.layer.digest = blob.digest;
  result.digests.size = result.layer.size = blob.size;

  // Between two OCI layouts on one filesystem a base blob is hardlinked, not
  // copied: the base's layers are most of an overlay's bytes.
  oci::CopyOptions blob_copy;
  blob_copy.link_blobs = true;
  for (const auto& l : base.manifest.layers) {
    auto copied = oci::copy_blob(base_store, dest, l, blob_copy);
    if (!copied) return fail(copied.error().context("copying the base's layers"));
  }
  if (plain_layer) {
    result.digests.diff_id = result.digests.digest;
    result.digests.uncompressed_size = static_cast<std::uint64_t>(result.digests.size);
  } else {
    STRATA_TRY(HashedPieces plain, hashing.uncompressed());
    plain.hasher.update(tail_plain);
    result.digests.diff_id = oci::Digest::from_hex(HashAlgorithm::kSha256, plain.hasher.finish_hex());
    result.digests.uncompressed_size = plain.size + tail_plain.size();
  }

  // The image: the base's config and layers with this layer on top.
  oci::LayerOnTop image{base.config.json, base.manifest.layers, result.layer, *result.digests.diff_id, o.epoch,
                        o.created_by, o.annotations};
  if (base.descriptor.size > 0) {  // a scratch base has no manifest
    image.annotations["org.opencontainers.image.base.digest"] = base.descriptor.digest.str();
  }
  image.annotations["org.opencontainers.image.created"] = str::rfc3339(o.epoch);
  if (!result.unreproduced.empty()) {
    image.annotations[std::string(kAnnotationUnreproduced)] = str::join(result.unreproduced, "\n");
  }
  std::optional<std::string_view> tag;
  if (o.tag) tag = *o.tag;
  STRATA_TRY(oci::AppendedImage written, oci::append_layer(dest, std::move(image), tag));
  result.config = written.config;
  result.manifest = written.manifest;

  if (result_fs.valid()) {
    ResultFs made = result_fs.get();
    result.fs = std::move(made.fs);
    result.fs_unknown = std::move(made.unknown);
  }
  return result;
}

}  // namespace strata::layer
