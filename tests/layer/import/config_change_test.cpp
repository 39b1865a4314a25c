#include "layer/import/config_change.hpp"

#include <gtest/gtest.h>

namespace strata::layer {
namespace {

RuntimeConfig apply_all(std::vector<std::string> changes) {
  RuntimeConfig c;
  for (const auto& ch : changes) {
    auto r = apply_change(c, ch);
    EXPECT_TRUE(r) << ch << ": " << r.error().message();
    if (r) c = *r;
  }
  return c;
}

TEST(ConfigChange, AppliesEachInstruction) {
  auto c = apply_all({"ENV PATH=/usr/bin LANG=C.UTF-8", "env GREETING hello world", "ENV PATH=/bin",
                      "LABEL org.opencontainers.image.title=\"my base\" a=b", "CMD [\"/bin/bash\", \"-l\"]",
                      "ENTRYPOINT exec tini -- \"$@\"", "WORKDIR /srv", "WORKDIR app", "USER 1000:1000",
                      "EXPOSE 80 53/udp"});
  EXPECT_EQ(c.env, (std::vector<std::string>{"PATH=/bin", "LANG=C.UTF-8", "GREETING=hello world"}));
  EXPECT_EQ(c.labels.at("org.opencontainers.image.title"), "my base");
  EXPECT_EQ(*c.cmd, (std::vector<std::string>{"/bin/bash", "-l"}));
  EXPECT_EQ(*c.entrypoint, (std::vector<std::string>{"/bin/sh", "-c", "exec tini -- \"$@\""}));
  EXPECT_EQ(c.working_dir, "/srv/app");
  EXPECT_EQ(c.user, "1000:1000");
  EXPECT_EQ(c.exposed_ports, (std::set<std::string>{"53/udp", "80/tcp"}));
  EXPECT_EQ(to_json(c).dump(),
            R"({"User":"1000:1000","ExposedPorts":{"53/udp":{},"80/tcp":{}},)"
            R"("Env":["PATH=/bin","LANG=C.UTF-8","GREETING=hello world"],)"
            R"("Entrypoint":["/bin/sh","-c","exec tini -- \"$@\""],"Cmd":["/bin/bash","-l"],)"
            R"("WorkingDir":"/srv/app","Labels":{"a":"b","org.opencontainers.image.title":"my base"}})");
}

TEST(ConfigChange, RefusesMalformedInstructions) {
  for (const char* bad : {"RUN apt-get update", "ENV", "ENV =x", "ENV A=1 B", "LABEL x", "CMD", "CMD [1, 2]",
                          "CMD [\"unterminated\"", "EXPOSE 70000", "EXPOSE 80/icmp", "USER", "WORKDIR a b",
                          "ENV A=\"open"}) {
    auto r = apply_change({}, bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.error().message().find("--change"), std::string::npos);
  }
  EXPECT_EQ(to_json(RuntimeConfig{}).dump(), "{}");
}

}  // namespace
}  // namespace strata::layer
