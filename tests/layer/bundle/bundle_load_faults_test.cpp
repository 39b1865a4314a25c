// `bundle load X.tar` with TMPDIR full: the archive is unpacked into the
// temporary directory, and a failure there is said as such (which
// directory, that it is full, free space or set TMPDIR), never as a path
// inside the bundle.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "layer/bundle/bundle_load.hpp"
#include "oci/archive_store.hpp"
#include "support/fault_env.hpp"
#include "support/random_image.hpp"
#include "support/scoped_env_var.hpp"
#include "support/temp_dir.hpp"

namespace strata::layer {
namespace {

TEST(BundleLoadFaults, AFullTmpdirIsNamedWithTheNextStep) {
  testing::TempDir dir;
  const auto bundle = dir / "b.tar";
  {
    auto archive = oci::ArchiveStore::open(bundle, oci::ArchiveFormat::kOci, oci::ArchiveMode::kWrite);
    ASSERT_TRUE(archive) << archive.error().message();
    testing::push_image(**archive, "v1", {20000, 3000}, 4);
    ASSERT_TRUE((*archive)->close());
  }
  testing::TempDir tmp;
  testing::ScopedEnvVar tmpdir("TMPDIR", tmp.path().string());
  const testing::Fault full{"ENOSPC", {fs::Op::kOpen, fs::Op::kWrite, fs::Op::kSync, fs::Op::kMakeDir,
                                       fs::Op::kRename, fs::Op::kLink, fs::Op::kTruncate}, ENOSPC};
  std::size_t in_tmpdir = 0;
  for (std::size_t step = 0; step < 200; ++step) {
    testing::FaultEnv env(full, step);
    Result<BundleLoadReport> r = fail(ErrorCode::kCancelled, "not run");
    {
      fs::ScopedEnv installed(env);
      BundleLoadRequest req;
      req.bundle = bundle;
      req.home = dir / "home";
      r = load_bundle(req);
    }
    // Past the unpacking: the faults hit other files (or none).
    if (!env.fired() || !env.fired_path().string().starts_with(tmp.path().string())) break;
    ++in_tmpdir;
    SCOPED_TRACE(env.what_fired());
    ASSERT_FALSE(r);
    const std::string& m = r.error().message();
    EXPECT_NE(m.find("the temporary directory " + tmp.path().string() + " (TMPDIR) is full"), std::string::npos) << m;
    EXPECT_NE(m.find("free space there or set TMPDIR to a directory with room"), std::string::npos) << m;
    EXPECT_EQ(m.find(bundle.string() + "/"), std::string::npos) << "a path inside the bundle: " << m;
  }
  EXPECT_GT(in_tmpdir, 0u) << "no fault hit the unpacking in TMPDIR";
}

}  // namespace
}  // namespace strata::layer
