// Pre-flight on plans: every gap in one message with its fix; what is
// provided at task time is not a gap; a stale runtime is; egress against an
// allowlist.
#include "contract/preflight/preflight.hpp"

#include <gtest/gtest.h>

namespace strata::contract::preflight {
namespace {

using route::Kind;
using route::Layer;
using route::Row;

route::Plan plan_with(std::vector<Row> rows) {
  route::Plan p;
  p.root = "app";
  p.overlay_key = std::string(64, 'a');
  p.rows = std::move(rows);
  return p;
}

Row row(Kind k, std::string name, std::string need, Layer l) {
  return Row{.kind = k, .name = std::move(name), .need = std::move(need), .layer = l};
}

TEST(Preflight, EveryGapInOneMessageWithTheFix) {
  Row tc = row(Kind::kToolchain, "native build", "cc make", Layer::kOverlay);
  tc.commands = {"cc", "make"};
  image::ImageFacts img;
  img.commands = {{"make", "/usr/bin/make"}};
  auto p = plan_with({row(Kind::kRuntime, "node", ">=22.0.0", Layer::kTaskToolchain), tc,
                      row(Kind::kCommand, "python3", "on PATH", Layer::kOverlay),
                      row(Kind::kEgress, "nodejs.org", "read-only", Layer::kEgress)});
  Report r = check(p, img, "oci:img", "strata provision app --base oci:img");
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.gaps.size(), 2u);
  EXPECT_EQ(r.gaps[0].found, "no cc");
  EXPECT_EQ(r.message,
            "app needs node >=22.0.0 (task toolchain), a C toolchain and python3 (overlay aaaaaaaaaaaa), egress "
            "nodejs.org; image oci:img has no cc, no python3 — run: strata provision app --base oci:img (overlay "
            "aaaaaaaaaaaa)");
  EXPECT_EQ(r.task_time.size(), 1u);
  EXPECT_EQ(r.egress_hosts, std::vector<std::string>{"nodejs.org"});
}

TEST(Preflight, SatisfiedWhenEverythingIsInTheImageOrProvidedAtTaskTime) {
  Row node = row(Kind::kRuntime, "node", ">=22.0.0", Layer::kBase);
  node.why = "ENV NODE_VERSION=22.11.0";
  Report r = check(plan_with({node, row(Kind::kRuntime, "pnpm", ">=9.0.0", Layer::kProjectBootstrap)}), {}, "img", "x");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.message, "");
  EXPECT_EQ(r.satisfied, std::vector<std::string>{"node >=22.0.0: ENV NODE_VERSION=22.11.0"});
}

TEST(Preflight, AStaleRuntimeIsAGapAndEgressIsCheckedAgainstThePolicy) {
  Row node = row(Kind::kRuntime, "node", ">=22.0.0", Layer::kTaskToolchain);
  node.shadow = "the image has node 18.0.0 (ENV NODE_VERSION=18.0.0), below >=22.0.0";
  Row skipped = row(Kind::kEgress, "github.com", "read-only", Layer::kEgress);
  skipped.needed = false;
  EgressCheck egress{"policy.json", [](std::string_view h) { return h == "registry.npmjs.org"; }};
  Report r = check(plan_with({node, row(Kind::kEgress, "nodejs.org", "read-only", Layer::kEgress), skipped,
                              row(Kind::kEgress, "registry.npmjs.org", "read-only", Layer::kEgress)}),
                   {}, "img", "x", &egress);
  ASSERT_EQ(r.gaps.size(), 2u);
  EXPECT_EQ(r.gaps[0].kind, GapKind::kStale);
  EXPECT_EQ(r.gaps[1].kind, GapKind::kEgress);
  EXPECT_EQ(r.gaps[1].requirement, "nodejs.org");
  EXPECT_TRUE(r.egress_checked);
  EXPECT_NE(r.message.find("allow nodejs.org (GET/HEAD) in policy.json"), std::string::npos) << r.message;
  EXPECT_EQ(r.message.find("github.com"), std::string::npos) << "a host the plan does not need: " << r.message;
}

}  // namespace
}  // namespace strata::contract::preflight
