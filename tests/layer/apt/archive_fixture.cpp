#include "layer/apt/archive_fixture.hpp"

#include <unistd.h>

#include "support/served_archive.hpp"
#include "support/source_dir.hpp"

namespace strata::testing {

ArchiveFixture& ArchiveFixture::get() {
  static ArchiveFixture* f = [] {
    auto* fx = new ArchiveFixture;
    char tmpl[] = "/tmp/strata-archive-XXXXXX";
    fx->root_ = ::mkdtemp(tmpl);
    fx->script_ = source_dir() / "tests/support/make_archive.sh";
    fx->archive_ = std::make_unique<ServedArchive>(fx->root_);
    fx->keyring_ = fx->archive_->keyring();
    return fx;
  }();
  return *f;
}

std::string ArchiveFixture::url(const std::string& variant) const { return archive_->url(variant); }

std::filesystem::path ArchiveFixture::make_variant(const std::string& name) const {
  auto dst = root_ / name;
  std::filesystem::remove_all(dst);
  std::filesystem::create_directories(dst);
  for (const char* d : {"dists", "pool"})
    std::filesystem::copy(root_ / "main" / d, dst / d, std::filesystem::copy_options::recursive);
  return dst;
}

void ArchiveFixture::resign(const std::string& variant, const std::string& suite, const std::string& env) const {
  must(env + " STRATA_ARCHIVE_GNUPGHOME=" + archive_->gnupg_home().string() + " " + script_.string() + " release " +
       (root_ / variant).string() + " " + suite);
}

}  // namespace strata::testing
