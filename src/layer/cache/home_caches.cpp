#include "layer/cache/home_caches.hpp"

#include <sys/stat.h>

#include <system_error>

#include "util/fs.hpp"

namespace strata::layer {

std::vector<HomeCache> home_caches(const std::filesystem::path& home) {
  std::vector<HomeCache> out;
  for (const char* name : {"debs", "fragments", "indexes", "basefs", "basestate", "toolchains"}) {
    HomeCache c;
    c.name = name;
    std::error_code ec;
    auto it = std::filesystem::recursive_directory_iterator(home / name, ec);
    for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code fe;
      if (it.depth() == 0 && it->path().filename() == "tmp") it.disable_recursion_pending();  // in flight
      if (!it->is_regular_file(fe) || fe) continue;
      auto size = it->file_size(fe);
      if (fe) continue;
      c.bytes += size;
      ++c.files;
    }
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

namespace stdfs = std::filesystem;

constexpr std::string_view kGcPrefix = ".gc-";

std::int64_t mtime_of(const stdfs::path& p) {
  struct stat st{};
  return ::lstat(p.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_mtim.tv_sec) : 0;
}

// Every regular file under `dir` as one item each.
void files_of(const std::string& cache, const stdfs::path& dir, std::vector<HomeCacheItem>& out) {
  std::error_code ec;
  auto it = stdfs::recursive_directory_iterator(dir, ec);
  for (; !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code fe;
    if (!it->is_regular_file(fe) || fe) continue;
    if (it->path().filename().string().find(".tmp.") != std::string::npos) continue;  // a writer's, in flight
    HomeCacheItem item{cache, it->path(), false, it->file_size(fe), mtime_of(it->path())};
    if (!fe) out.push_back(std::move(item));
  }
}

}  // namespace

std::vector<HomeCacheItem> home_cache_items(const stdfs::path& home) {
  std::vector<HomeCacheItem> out;
  files_of("debs", home / "debs", out);
  files_of("indexes", home / "indexes", out);
  files_of("basefs", home / "basefs", out);
  files_of("basestate", home / "basestate", out);
  // Toolchains: each verified archive, layer blob, layer record and
  // remembered release is an item (tmp/ holds downloads in flight). A
  // record whose blob went is a miss: the layer is built again.
  for (const char* part : {"archives", "blobs", "layers", "releases"}) files_of("toolchains", home / "toolchains" / part, out);
  // A fragment is a directory (info.bin and its data files) read as one.
  std::error_code ec;
  for (const auto& d : stdfs::directory_iterator(home / "fragments", ec)) {
    std::error_code fe;
    if (!d.is_directory(fe) || d.path().filename().string().starts_with(".")) continue;
    if (!stdfs::exists(d.path() / "info.bin", fe)) continue;  // being written (a temporary name) or foreign
    HomeCacheItem item{"fragments", d.path(), true, 0, 0};  // its files' time: the directory's is its creation
    for (const auto& f : stdfs::directory_iterator(d.path(), fe)) {
      std::error_code se;
      if (!f.is_regular_file(se)) continue;
      item.bytes += f.file_size(se);
      item.mtime = std::max(item.mtime, mtime_of(f.path()));
    }
    out.push_back(std::move(item));
  }
  return out;
}

Result<void> remove_home_item(const HomeCacheItem& item) {
  if (!item.directory) return fs::remove_file(item.path);
  auto doomed = item.path.parent_path() / (std::string(kGcPrefix) + item.path.filename().string());
  STRATA_TRY_VOID(fs::rename_file(item.path, doomed));
  return fs::remove_tree(doomed);
}

Result<void> remove_home_leftovers(const stdfs::path& home) {
  std::error_code ec;
  for (const auto& d : stdfs::directory_iterator(home / "fragments", ec)) {
    if (d.path().filename().string().starts_with(kGcPrefix)) STRATA_TRY_VOID(fs::remove_tree(d.path()));
  }
  return {};
}

}  // namespace strata::layer
