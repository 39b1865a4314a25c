// LayoutStore: an OCI image layout directory (image-layout 1.0) as a Store —
// `oci:DIR[:TAG]`, and strata's embedded default store under $STRATA_HOME.
//
//   DIR/oci-layout             {"imageLayoutVersion":"1.0.0"}
//   DIR/index.json             the entry point; tags are the annotation
//                              org.opencontainers.image.ref.name
//   DIR/blobs/<alg>/<hex>      content, verified before it gets this name
//   DIR/.strata/ingest/        partial downloads, named by digest (resumable)
//   DIR/.strata/index.lock     flock held while index.json is rewritten
//   DIR/.strata/gc.lock        the lease: held shared by every process that
//                              has the layout open for writing (kCreate),
//                              exclusive by `strata cache gc` while it
//                              removes blobs; flock, so a crashed writer
//                              releases it (docs/ARCHITECTURE.md "Cache gc")
//
// Durability: a blob is renamed into blobs/ only after its size and digest are
// verified and it is fsynced; index.json is replaced atomically under the lock,
// so concurrent processes, a SIGKILL at any moment, and a failed write, fsync
// or rename (a full disk, an I/O error) leave a layout that strata, umoci and
// skopeo read. A failed blob commit keeps the ingest file (a rerun resumes
// from the bytes that verify); a failed index.json write leaves no temporary
// file. Every write goes through fs::env(). Thread-safe; safe across processes.
//
// index.json lists its entries in one fixed order whatever order they were
// put in (parallel copies finish in any order): tagged entries by tag, then
// untagged ones by digest. The same images give the same bytes.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "oci/store.hpp"
#include "util/fs.hpp"

namespace strata::oci {

// index.json is read and written up to this size, by one constant so the
// store never writes an index it then refuses to read: 64 MiB holds about
// 200 000 tagged entries (a store collecting overlay-<key> tags; 100 000
// take about 30 MB). Past it, put_manifest refuses with what to do.
inline constexpr std::size_t kMaxLayoutIndexBytes = std::size_t{64} << 20;

enum class LayoutMode { kReadOnly, kCreate };

class LayoutStore final : public Store {
 public:
  // Opens DIR. kCreate makes an empty layout when DIR does not hold one; a
  // non-empty directory that is not a layout is refused (what a creation
  // that failed part-way left is taken up again).
  static Result<std::unique_ptr<LayoutStore>> open(std::filesystem::path dir, LayoutMode mode);

  std::string describe() const override;
  Result<Descriptor> resolve(std::string_view ref) override;
  Result<RawManifest> get_manifest(std::string_view ref) override;
  Result<void> put_manifest(const RawManifest& manifest, std::optional<std::string_view> tag) override;
  Result<void> put_manifests(const std::vector<RawManifest>& manifests) override;
  Result<bool> has_blob(const Descriptor& desc) override;
  Result<void> fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset) override;
  Result<std::unique_ptr<BlobWriter>> blob_writer(const Descriptor& desc) override;
  Result<std::unique_ptr<UnnamedBlobWriter>> unnamed_blob_writer() override;
  std::optional<std::filesystem::path> blob_file(const Descriptor& desc) override;
  Result<bool> link_blob(const Descriptor& desc, Store& source) override;
  Result<std::vector<std::string>> list_tags() override;
  Result<void> delete_manifest(const Digest& digest) override;
  Result<ImageIndex> referrers(const Digest& digest) override;

  // Removes a tag from index.json (the manifest stays if otherwise referenced).
  Result<void> delete_tag(std::string_view tag);
  // Removes every index.json entry `drop` selects, in one atomic rewrite;
  // returns how many went.
  Result<std::size_t> remove_entries(const std::function<bool(const Descriptor&)>& drop);
  // The lease file (.strata/gc.lock) of the layout in `dir`.
  static std::filesystem::path lease_path(const std::filesystem::path& dir);
  // The descriptors of index.json, as found.
  Result<std::vector<Descriptor>> entries();
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path blob_path(const Digest& d) const;

 private:
  explicit LayoutStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
  // index.json, parsed; the last parse is reused while the file is the same
  // one (device, inode, size, mtime, ctime): with 100 000 tags a parse costs
  // over a second, and one command reads the index several times.
  Result<std::shared_ptr<const ImageIndex>> read_index();
  void remember_index(const ImageIndex& idx);
  // Read-modify-write of index.json under the lock.
  template <class F>
  Result<void> update_index(F&& mutate);
  std::filesystem::path dir_;
  std::optional<fs::FileLock> lease_;  // held shared while open for writing
  struct IndexStamp {
    std::uint64_t dev = 0, ino = 0, size = 0;
    std::int64_t mtime_ns = 0, ctime_ns = 0;
    bool operator==(const IndexStamp&) const = default;
  };
  std::mutex index_mu_;
  std::optional<IndexStamp> index_stamp_;
  std::shared_ptr<const ImageIndex> index_;
};

}  // namespace strata::oci
