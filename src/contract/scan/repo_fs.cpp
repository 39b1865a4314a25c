#include "contract/scan/repo_fs.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <system_error>
#include <vector>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::contract {

namespace stdfs = std::filesystem;

bool skipped_directory(std::string_view name) {
  static constexpr std::array<std::string_view, 14> kSkip = {
      ".git", ".hg", ".svn", "node_modules", ".pnpm-store", ".yarn", "target", ".venv",
      "venv", "__pycache__", ".tox", ".mypy_cache", "bower_components", ".next"};
  return std::find(kSkip.begin(), kSkip.end(), name) != kSkip.end();
}

RepoFs::RepoFs(stdfs::path root, RepoLimits limits) : limits_(limits) {
  std::error_code ec;
  root_ = stdfs::canonical(root, ec);
  if (ec) root_ = stdfs::absolute(root, ec);
}

void RepoFs::warn(std::string file, std::string message) {
  warnings_.push_back({std::move(file), std::move(message)});
}
void RepoFs::note(std::string file, std::string message) {
  notes_.push_back({std::move(file), std::move(message)});
}

void RepoFs::walk(const std::function<bool(std::string_view)>& interesting) {
  std::error_code ec;
  stdfs::recursive_directory_iterator it(root_, stdfs::directory_options::skip_permission_denied, ec);
  if (ec) {
    warn(".", "cannot list the repository: " + ec.message());
    return;
  }
  std::size_t seen = 0;
  for (; it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      note(".", "directory listing stopped early: " + ec.message());
      break;
    }
    if (++seen > limits_.max_walk_entries) {
      note(".", "walk stopped after " + std::to_string(limits_.max_walk_entries) + " entries");
      break;
    }
    const auto& entry = *it;
    std::string name = entry.path().filename().string();
    // The iterator does not follow directory symlinks, so a link to / or to
    // a sibling checkout is listed but never entered.
    if (entry.is_directory(ec) && !entry.is_symlink(ec)) {
      if (skipped_directory(name) || it.depth() >= limits_.max_depth) it.disable_recursion_pending();
      continue;
    }
    if (!interesting(name)) continue;
    std::string rel = entry.path().lexically_relative(root_).generic_string();
    by_name_[name].push_back(std::move(rel));
  }
  for (auto& [name, paths] : by_name_) std::sort(paths.begin(), paths.end());
}

std::vector<std::string> RepoFs::files_named(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> RepoFs::files_ending(std::string_view suffix) const {
  std::vector<std::string> out;
  for (const auto& [name, paths] : by_name_)
    if (name.size() >= suffix.size() && name.ends_with(suffix))
      out.insert(out.end(), paths.begin(), paths.end());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<stdfs::path> RepoFs::resolve(std::string_view rel, bool report) {
  if (rel.empty() || rel.front() == '/' || rel.find("..") != std::string_view::npos) return std::nullopt;
  stdfs::path p = root_ / stdfs::path(std::string(rel));
  std::error_code ec;
  if (!stdfs::exists(p, ec)) return std::nullopt;
  stdfs::path real = stdfs::canonical(p, ec);
  if (ec) return std::nullopt;
  auto [r, _] = std::mismatch(root_.begin(), root_.end(), real.begin(), real.end());
  if (r != root_.end()) {
    if (report) note(std::string(rel), "symlink leaves the repository; not followed");
    return std::nullopt;
  }
  return real;
}

bool RepoFs::is_file(std::string_view rel) const {
  auto self = const_cast<RepoFs*>(this);  // resolve() only records notes when asked to
  auto p = self->resolve(rel, false);
  std::error_code ec;
  return p && stdfs::is_regular_file(*p, ec);
}

bool RepoFs::is_dir(std::string_view rel) const {
  if (rel == "." || rel.empty()) return true;
  auto p = const_cast<RepoFs*>(this)->resolve(rel, false);
  std::error_code ec;
  return p && stdfs::is_directory(*p, ec);
}

std::vector<std::string> RepoFs::list_dir(std::string_view rel) const {
  std::vector<std::string> out;
  auto p = (rel == "." || rel.empty()) ? std::optional<stdfs::path>(root_)
                                        : const_cast<RepoFs*>(this)->resolve(rel, false);
  if (!p) return out;
  std::error_code ec;
  for (stdfs::directory_iterator it(*p, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<stdfs::path> RepoFs::open_path(std::string_view rel, std::uint64_t limit) {
  auto p = resolve(rel, true);
  if (!p) return std::nullopt;
  std::error_code ec;
  if (!stdfs::is_regular_file(*p, ec)) {
    note(std::string(rel), "not a regular file; skipped");
    return std::nullopt;
  }
  auto size = stdfs::file_size(*p, ec);
  if (ec) {
    warn(std::string(rel), "cannot stat: " + ec.message());
    return std::nullopt;
  }
  if (size > limit) {
    note(std::string(rel), "skipped: " + str::human_bytes(size) + " exceeds the " +
                               str::human_bytes(limit) + " limit for this kind of file");
    return std::nullopt;
  }
  return p;
}

std::optional<std::string> RepoFs::read_text(std::string_view rel, std::uint64_t limit) {
  if (limit == 0) limit = limits_.max_manifest_bytes;
  auto p = open_path(rel, limit);
  if (!p) return std::nullopt;
  auto data = fs::read_file(*p, limit);
  if (!data) {
    warn(std::string(rel), data.error().message());
    return std::nullopt;
  }
  std::string text = std::move(*data);
  if (text.starts_with("\xEF\xBB\xBF")) {
    text.erase(0, 3);
  } else if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF")) {
    warn(std::string(rel), "UTF-16 encoded; re-save it as UTF-8 (not read)");
    return std::nullopt;
  }
  std::string_view head(text.data(), std::min<std::size_t>(text.size(), 8192));
  if (head.find('\0') != std::string_view::npos) {
    note(std::string(rel), "binary content; skipped");
    return std::nullopt;
  }
  return text;
}

std::string dir_of(std::string_view rel) {
  auto slash = rel.rfind('/');
  return slash == std::string_view::npos ? "." : std::string(rel.substr(0, slash));
}

std::string join_rel(std::string_view dir, std::string_view name) {
  if (dir.empty() || dir == ".") return std::string(name);
  return std::string(dir) + "/" + std::string(name);
}

std::optional<std::string> resolve_rel(std::string_view dir, std::string_view path) {
  std::vector<std::string_view> parts;
  for (std::string_view whole : {dir, path})
    for (auto x : str::split(whole, '/')) {
      if (x.empty() || x == ".") continue;
      if (x != "..") {
        parts.push_back(x);
      } else if (parts.empty()) {
        return std::nullopt;  // above the repository
      } else {
        parts.pop_back();
      }
    }
  if (parts.empty()) return ".";
  std::string out;
  for (auto x : parts) {
    if (!out.empty()) out += '/';
    out += x;
  }
  return out;
}

}  // namespace strata::contract
