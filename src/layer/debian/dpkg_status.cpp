#include "layer/debian/dpkg_status.hpp"

#include <map>

#include "oci/image_fs.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

// dpkg status words for which the package has files on disk.
bool counts_as_installed(std::string_view status_word) {
  return status_word == "installed" || status_word == "unpacked" || status_word == "half-configured" ||
         status_word == "half-installed" || status_word == "triggers-awaited" ||
         status_word == "triggers-pending";
}

Result<void> read_one(const StatusFile& file, bool require_status, std::vector<InstalledPackage>& out,
                      std::map<std::string, std::string>& seen) {
  return for_each_deb822_stanza(file.contents, file.origin, [&](Deb822Stanza&& s) -> Result<void> {
    std::string where = file.origin + ":" + std::to_string(s.line);
    if (auto status = s.get("Status")) {
      auto words = str::split_ws(*status);
      if (words.size() != 3) {
        return fail(ErrorCode::kInvalidArgument,
                    where + ": Status must be 'want flag status', found " + str::quote(*status, 60));
      }
      if (!counts_as_installed(words[2])) return {};
    } else if (require_status) {
      return fail(ErrorCode::kInvalidArgument, where + ": stanza has no Status field");
    }
    STRATA_TRY(Package p, package_from_stanza(s, StanzaKind::kStatus, file.origin));
    std::string key = p.name + ":" + p.architecture;
    auto [it, inserted] = seen.emplace(key, where);
    if (!inserted) {
      return fail(ErrorCode::kInvalidArgument,
                  where + ": package " + key + " is listed twice (first at " + it->second + ")");
    }
    InstalledPackage installed{std::move(p), std::string(s.get("Maintainer").value_or("")),
                               std::string(s.get("Homepage").value_or("")), file.origin};
    out.push_back(std::move(installed));
    return {};
  });
}

}  // namespace

Result<std::vector<InstalledPackage>> read_installed_packages(const StatusFile& status,
                                                              const std::vector<StatusFile>& status_d) {
  std::vector<InstalledPackage> out;
  std::map<std::string, std::string> seen;
  STRATA_TRY_VOID(read_one(status, true, out, seen));
  for (const auto& f : status_d) STRATA_TRY_VOID(read_one(f, false, out, seen));
  return out;
}

Result<std::vector<Package>> read_dpkg_status(const StatusFile& status, const std::vector<StatusFile>& status_d) {
  STRATA_TRY(auto installed, read_installed_packages(status, status_d));
  std::vector<Package> out;
  out.reserve(installed.size());
  for (auto& i : installed) out.push_back(std::move(i.package));
  return out;
}

std::vector<std::string> dpkg_database_capture() { return {"var/lib/dpkg/status", "var/lib/dpkg/status.d/*"}; }

Result<ImageDpkgDatabase> read_image_dpkg_database(const oci::ImageFilesystem& fs) {
  ImageDpkgDatabase db;
  StatusFile status{"/var/lib/dpkg/status", ""};
  if (fs.exists("var/lib/dpkg/status")) {
    STRATA_TRY(status.contents, fs.read_small_file("var/lib/dpkg/status"));
    db.present = true;
  }
  std::vector<StatusFile> status_d;
  if (auto names = fs.list("var/lib/dpkg/status.d")) {
    db.present = true;
    for (const auto& n : *names) {
      if (n.ends_with(".md5sums")) continue;  // distroless keeps md5sums beside the stanzas
      std::string path = "var/lib/dpkg/status.d/" + n;
      auto text = fs.read_small_file(path);
      if (!text) continue;  // a directory or an uncaptured oversize file
      status_d.push_back({"/" + path, std::move(*text)});
    }
  }
  STRATA_TRY(db.packages, read_installed_packages(status, status_d));
  return db;
}

}  // namespace strata::layer
