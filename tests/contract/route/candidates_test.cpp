// Candidates over a loaded archive's by-name indexes: apt's candidate (the
// higher pin priority, then the higher version, among the native
// architecture and "all"), providers that are real packages of that
// architecture, real names by prefix; a copy answers the same.
#include "contract/route/candidates.hpp"

#include <gtest/gtest.h>

namespace strata::contract::route {
namespace {

layer::Package pkg(std::string name, std::string version, std::string arch, std::vector<std::string> provides = {}) {
  layer::Package p;
  p.name = std::move(name);
  p.version = std::move(version);
  p.architecture = std::move(arch);
  for (auto& v : provides) {
    layer::Relation r;
    r.name = std::move(v);
    p.provides.push_back(std::move(r));
  }
  return p;
}

TEST(Candidates, ApplyAptsCandidateRulesAcrossTheIndexes) {
  layer::LoadedArchive archive;
  archive.sources.resize(2);
  archive.sources[0].priority = 500;
  archive.sources[1].priority = 990;  // pinned
  layer::LoadedIndex main_index, pinned_index;
  main_index.source = 0;
  main_index.index = layer::NameIndex::of({pkg("python3.11", "3.11.2-6", "amd64"), pkg("python3.11", "3.11.9-1", "arm64"),
                                           pkg("python3.12", "3.12.1-1", "amd64"), pkg("mawk", "1.3.4", "amd64", {"awk"}),
                                           pkg("gawk", "5.2.1", "arm64", {"awk"}), pkg("tzdata", "2024a", "all"),
                                           pkg("tzdata", "2025a", "all")});
  pinned_index.source = 1;
  pinned_index.index = layer::NameIndex::of({pkg("python3.12", "3.12.0-1", "amd64")});
  archive.indexes = {main_index, pinned_index};

  Candidates c(archive, "amd64");
  ASSERT_NE(c.version("python3.11"), nullptr);
  EXPECT_EQ(*c.version("python3.11"), "3.11.2-6");  // arm64's higher version is not native
  ASSERT_NE(c.version("python3.12"), nullptr);
  EXPECT_EQ(*c.version("python3.12"), "3.12.0-1");  // the pinned source wins over a higher version
  ASSERT_NE(c.version("tzdata"), nullptr);
  EXPECT_EQ(*c.version("tzdata"), "2025a");  // "all": the highest
  EXPECT_EQ(c.version("gawk"), nullptr);      // only for another architecture
  EXPECT_EQ(c.version("awk"), nullptr);       // only provided
  EXPECT_EQ(c.satisfier("awk"), "mawk");      // gawk provides it too, for arm64 only
  EXPECT_EQ(c.satisfier("mawk"), "mawk");
  EXPECT_EQ(c.satisfier("nothing"), "");
  EXPECT_EQ(c.with_prefix("python3."), (std::vector<std::string>{"python3.11", "python3.12"}));
  EXPECT_EQ(c.with_prefix("g"), std::vector<std::string>{});

  // A source pinned to -1 (apt_preferences "never install from here") gives
  // no candidate, whatever its versions, the same rule the resolver applies.
  layer::LoadedArchive never = archive;
  never.sources.resize(3);
  never.sources[2].priority = -1;
  layer::LoadedIndex backports;
  backports.source = 2;
  backports.index = layer::NameIndex::of({pkg("tzdata", "2099a", "all"), pkg("nodejs", "22.1.0", "amd64")});
  never.indexes.push_back(backports);
  Candidates n(never, "amd64");
  ASSERT_NE(n.version("tzdata"), nullptr);
  EXPECT_EQ(*n.version("tzdata"), "2025a");
  EXPECT_EQ(n.version("nodejs"), nullptr);

  Candidates copy = c;
  ASSERT_NE(copy.version("python3.12"), nullptr);
  EXPECT_EQ(*copy.version("python3.12"), "3.12.0-1");
  EXPECT_EQ(copy.satisfier("awk"), "mawk");
}

}  // namespace
}  // namespace strata::contract::route
