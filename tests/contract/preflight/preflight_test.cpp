// Pre-flight on plans: every gap in one message with its fix; what is
// provided at task time is not a gap; a stale runtime is; egress against an
// allowlist.
#include "contract/preflight/preflight.hpp"

#include <gtest/gtest.h>

#include "layer/overlay/overlay.hpp"

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

// With --no-toolchain-layer (the task installs its own runtimes) a
// task-toolchain row is provided at task time, as before strata delivered
// toolchains.
TEST(Preflight, EveryGapInOneMessageWithTheFix) {
  Row tc = row(Kind::kToolchain, "native build", "cc make", Layer::kOverlay);
  tc.commands = {"cc", "make"};
  image::ImageFacts img;
  img.commands = {{"make", "/usr/bin/make"}};
  auto p = plan_with({row(Kind::kRuntime, "node", ">=22.0.0", Layer::kTaskToolchain), tc,
                      row(Kind::kCommand, "python3", "on PATH", Layer::kOverlay),
                      row(Kind::kEgress, "nodejs.org", "read-only", Layer::kEgress)});
  p.toolchain_layer = false;
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

// A row the plan reports but does not provision (a run need: what only the
// production image needs) is not the image's to have: no gap, no overlay.
TEST(Preflight, ARowThePlanLeavesOutIsNotAGap) {
  Row gs = row(Kind::kRunLib, "ghostscript", "installed", Layer::kOverlay);
  gs.packages = {"ghostscript"};
  gs.purpose = Purpose::kRun;
  gs.needed = false;
  Row host = row(Kind::kEgress, "downloads.example-media.org", "read-only", Layer::kEgress);
  host.purpose = Purpose::kRun;
  host.needed = false;
  auto p = plan_with({gs, host});
  p.overlay_key.clear();
  Report r = check(p, {}, "img", "x");
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(r.gaps.empty());
  EXPECT_TRUE(r.egress_hosts.empty());
}

// A fix is a command that changes the result: an image that already is the
// overlay the plan would build, or a plan with nothing for provision to
// deliver, gets no "run: strata provision" (issue 30's loop).
TEST(Preflight, NeverSuggestsAProvisionThatCannotChangeTheResult) {
  EXPECT_EQ(kOverlayKeyAnnotation, layer::kAnnotationKey);
  Row libpq = row(Kind::kBuildLib, "libpq-dev", "installed", Layer::kOverlay);
  libpq.packages = {"libpq-dev"};
  image::ImageFacts built;
  built.annotations[std::string(kOverlayKeyAnnotation)] = std::string(64, 'a');
  Report again = check(plan_with({libpq}), built, "oci:out", "strata provision app --base oci:out");
  ASSERT_EQ(again.gaps.size(), 1u);
  EXPECT_EQ(again.message.find("run: strata provision"), std::string::npos) << again.message;
  EXPECT_NE(again.message.find("this image is the overlay provision builds (aaaaaaaaaaaa): provision cannot add it"),
            std::string::npos)
      << again.message;

  auto nothing = plan_with({libpq});
  nothing.overlay_key.clear();
  Report r = check(nothing, {}, "oci:img", "strata provision app --base oci:img");
  EXPECT_EQ(r.message.find("run: strata provision"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("use a base image that has it"), std::string::npos) << r.message;
}

route::TaskToolchain node_toolchain() {
  return {.tool = "node", .version = "20.18.0", .range = ">=20.18.0 <21.0.0",
          .url = "https://nodejs.org/dist/v20.18.0/node-v20.18.0-linux-x64.tar.xz", .hosts = {"nodejs.org"},
          .source = "https://nodejs.org/dist"};
}

// strata installs a task toolchain as a layer of the image (provision), so
// an image without it has a gap, fixed by the same provision that builds the
// overlay; the fix names the toolchain and where it comes from.
TEST(Preflight, ATaskToolchainStrataDeliversIsAGapNamingItsSource) {
  Row node = row(Kind::kRuntime, "node", ">=20.18.0 <21.0.0", Layer::kTaskToolchain);
  node.toolchain = node_toolchain();
  Row npm = row(Kind::kCommand, "npx", "on PATH", Layer::kTaskToolchain);  // carried by the toolchain
  auto p = plan_with({node, npm, row(Kind::kCommand, "python3", "on PATH", Layer::kOverlay),
                      row(Kind::kRuntime, "pnpm", ">=9.0.0", Layer::kProjectBootstrap)});
  Report r = check(p, {}, "oci:img", "strata provision app --base oci:img");
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.gaps.size(), 3u);
  EXPECT_EQ(r.gaps[0].kind, GapKind::kMissing);
  EXPECT_EQ(r.gaps[0].requirement, "node >=20.18.0 <21.0.0");
  EXPECT_EQ(r.gaps[0].found, "no node >=20.18.0 <21.0.0");
  const std::string fix =
      "strata provision app --base oci:img (overlay aaaaaaaaaaaa, toolchain node 20.18.0 from https://nodejs.org/dist)";
  EXPECT_EQ(r.gaps[0].fix, fix);
  EXPECT_EQ(r.gaps[1].requirement, "npx");
  EXPECT_EQ(r.gaps[1].fix, fix);
  EXPECT_EQ(r.gaps[2].fix, fix) << "one provision for the overlay and the toolchain";
  EXPECT_EQ(r.task_time, std::vector<std::string>{"pnpm >=9.0.0: project-bootstrap — "}) << "a bootstrap stays task-time";
  EXPECT_EQ(r.message,
            "app needs node >=20.18.0 <21.0.0 (task toolchain), npx (task toolchain), pnpm >=9.0.0 (project "
            "bootstrap), python3 (overlay aaaaaaaaaaaa); image oci:img has no node >=20.18.0 <21.0.0, no npx, no "
            "python3 — run: " + fix);

  // The task brings its own runtimes: provided at task time, no gap.
  p.toolchain_layer = false;
  p.rows.erase(p.rows.begin() + 2);  // without the overlay row
  Report at_task_time = check(p, {}, "oci:img", "strata provision app --base oci:img");
  EXPECT_TRUE(at_task_time.ok()) << at_task_time.message;
  EXPECT_EQ(at_task_time.task_time.size(), 3u);
}

TEST(Preflight, AStaleRuntimeUnderATaskToolchainStrataDeliversIsFixedByProvision) {
  Row node = row(Kind::kRuntime, "node", ">=20.18.0 <21.0.0", Layer::kTaskToolchain);
  node.toolchain = node_toolchain();
  node.toolchain->source = "npm:https://registry.npmjs.org";
  node.shadow = "the image has node 18.19.0 (dpkg nodejs 18.19.0+dfsg-6~deb12u2), below >=20.18.0 <21.0.0";
  auto p = plan_with({node});
  Report r = check(p, {}, "img", "strata provision app --base img");
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_EQ(r.gaps[0].kind, GapKind::kStale);
  EXPECT_EQ(r.gaps[0].found, node.shadow);
  EXPECT_EQ(r.gaps[0].fix,
            "strata provision app --base img (toolchain node 20.18.0 from npm:https://registry.npmjs.org)");
}

}  // namespace
}  // namespace strata::contract::preflight
