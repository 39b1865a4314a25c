#include "layer/overlay/overlay_fixture.hpp"

#include <unistd.h>

#include "support/run.hpp"
#include "support/served_archive.hpp"
#include "support/source_dir.hpp"

namespace strata::testing {

OverlayFixture& OverlayFixture::get() {
  static OverlayFixture* f = [] {
    auto* fx = new OverlayFixture;
    std::filesystem::path source = source_dir();
    char tmpl[] = "/tmp/strata-overlay-XXXXXX";
    fx->root_ = ::mkdtemp(tmpl);
    must((source / "tests/support/make_overlay_base.sh").string() + " " + (fx->root_ / "base.tar").string());
    must("SOURCE_DATE_EPOCH=1700000000 STRATA_HOME=" + (fx->root_ / "home").string() + " " + strata_binary() +
         " -q import " + (fx->root_ / "base.tar").string() + " --dest oci:" + (fx->root_ / "images").string() +
         ":base --platform linux/amd64 >/dev/null");
    fx->archive_ = std::make_unique<ServedArchive>(fx->root_ / "archive", source / "testdata/overlay");
    fx->sources_ = fx->archive_->write_sources(fx->root_ / "overlay.list");
    return fx;
  }();
  return *f;
}

}  // namespace strata::testing
