#include "oci/tar_entry.hpp"

#include "util/strings.hpp"

namespace strata::oci {

std::string_view tar_entry_type_name(TarEntryType type) {
  switch (type) {
    case TarEntryType::kRegular: return "regular file";
    case TarEntryType::kDirectory: return "directory";
    case TarEntryType::kSymlink: return "symlink";
    case TarEntryType::kHardlink: return "hardlink";
    case TarEntryType::kCharDevice: return "character device";
    case TarEntryType::kBlockDevice: return "block device";
    case TarEntryType::kFifo: return "fifo";
  }
  return "unknown";
}

Result<std::string> canonical_entry_path(std::string_view name, bool allow_absolute) {
  if (name.find('\0') != std::string_view::npos) {
    return fail(ErrorCode::kInvalidArgument, "entry name " + str::quote(name) + " contains a NUL byte");
  }
  if (!name.empty() && name.front() == '/') {
    if (!allow_absolute) {
      return fail(ErrorCode::kInvalidArgument,
                  "entry name " + str::quote(name) + " is absolute; layer paths must be relative");
    }
  }
  std::string out;
  out.reserve(name.size());
  for (std::string_view part : str::split(name, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      return fail(ErrorCode::kInvalidArgument,
                  "entry name " + str::quote(name) + " has a '..' component (path traversal)");
    }
    if (!out.empty()) out.push_back('/');
    out.append(part);
  }
  return out;
}

bool is_canonical_entry_path(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.back() == '/') return false;
  if (path.find('\0') != std::string_view::npos) return false;
  for (std::string_view part : str::split(path, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

namespace {

bool is_whiteout_name(std::string_view component) { return component.starts_with(kWhiteoutPrefix); }

}  // namespace

bool tar_path_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (true) {
    if (i >= a.size()) return j < b.size();  // a is a prefix-path (parent) of b, or equal
    if (j >= b.size()) return false;
    std::size_t ea = a.find('/', i), eb = b.find('/', j);
    if (ea == std::string_view::npos) ea = a.size();
    if (eb == std::string_view::npos) eb = b.size();
    std::string_view ca = a.substr(i, ea - i), cb = b.substr(j, eb - j);
    if (ca != cb) {
      bool wa = is_whiteout_name(ca), wb = is_whiteout_name(cb);
      if (wa != wb) return wa;
      return ca < cb;  // std::string_view compares bytes as unsigned char
    }
    i = ea + 1;
    j = eb + 1;
    if (ea == a.size()) i = a.size();
    if (eb == b.size()) j = b.size();
  }
}

std::string_view parent_path(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

std::string_view base_name(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace strata::oci
