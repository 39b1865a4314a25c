#include "layer/debian/deb822.hpp"

#include <gtest/gtest.h>

#include "layer/debian/dpkg_status.hpp"
#include "layer/debian/relation.hpp"

namespace strata::layer {
namespace {

TEST(Deb822, ParsesStanzasAndContinuations) {
  auto r = parse_deb822("Package: a\nDescription: short\n long line\n .\n more\n\n\n \nPackage: b\r\nX: y\n", "f");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].get("description").value(), "short\nlong line\n\nmore");
  EXPECT_EQ((*r)[1].line, 9u);
  EXPECT_EQ((*r)[1].get("Package").value(), "b");
  EXPECT_FALSE((*r)[1].get("Nope").has_value());
}

TEST(Deb822, RejectsHostileInputNamingFileAndLine) {
  struct Case { const char* text; const char* message; };
  for (auto c : std::vector<Case>{
           {"Package: a\nno colon here\n", "f:2: expected 'Field: value', found"},
           {" starts with space\n", "f:1: continuation line without a field"},
           {"Package: a\npackage: b\n", "f:2: duplicate field package"},
           {"Pack age: a\n", "f:1: invalid field name"},
           {": a\n", "f:1: invalid field name"},
           {"A: b\n# comment\n", "f:2: comment lines are not allowed here"},
           {"A: b\0c\n", "f:1: NUL byte"},
       }) {
    auto r = parse_deb822(std::string_view(c.text, std::char_traits<char>::length(c.text) +
                                                        (std::string_view(c.message).find("NUL") != std::string_view::npos ? 4 : 0)),
                          "f");
    ASSERT_FALSE(r.has_value()) << c.text;
    EXPECT_NE(r.error().message().find(c.message), std::string::npos) << r.error().message();
  }
  Deb822Options small;
  small.max_line = 8;
  EXPECT_FALSE(parse_deb822("Field: 0123456789\n", "f", small).has_value());
  Deb822Options comments;
  comments.allow_comments = true;
  EXPECT_TRUE(parse_deb822("# hi\nA: b\n", "f", comments).has_value());
}

TEST(Relations, ParsesOperatorsArchQualifiersAndAlternatives) {
  auto r = parse_relations("a (>= 1.0), b:any | c (<<2~1) , d:i386 (= 1:2-3), e (> 1), f (< 2),", "x");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  ASSERT_EQ(r->size(), 5u);
  EXPECT_EQ((*r)[0][0].str(), "a (>= 1.0)");
  EXPECT_EQ((*r)[1][0].str(), "b:any");
  EXPECT_EQ((*r)[1][1].str(), "c (<< 2~1)");
  EXPECT_EQ((*r)[2][0].str(), "d:i386 (= 1:2-3)");
  EXPECT_EQ((*r)[3][0].op, RelOp::kGreaterEq);
  EXPECT_EQ((*r)[4][0].op, RelOp::kLessEq);
}

TEST(Relations, RejectsMalformedItems) {
  for (const char* bad : {"a (>= )", "a (!= 1)", "A", "a,,b", "a [amd64]", "a <!nocheck>", "a (>= 1", "a:", "a | "}) {
    auto r = parse_relations(bad, "pkg Depends");
    EXPECT_FALSE(r.has_value()) << bad;
    if (!r) {
      EXPECT_EQ(r.error().message().rfind("pkg Depends", 0), 0u) << r.error().message();
    }
  }
  EXPECT_FALSE(parse_relations("a | b", "x", Alternatives::kForbidden).has_value());
}

TEST(Package, RequiresArchiveFieldsInPackagesIndexes) {
  auto st = parse_deb822("Package: a\nVersion: 1\nArchitecture: amd64\nFilename: pool/a.deb\nSize: 10\n", "P");
  ASSERT_TRUE(st.has_value());
  auto p = package_from_stanza((*st)[0], StanzaKind::kPackagesIndex, "P");
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error().message(), "P:1 (a): missing or invalid SHA256 field");
  st = parse_deb822("Package: a\nVersion: 1\nArchitecture: amd64\nFilename: ../../etc/passwd\nSize: 1\nSHA256: " +
                        std::string(64, 'a') + "\n",
                    "P");
  p = package_from_stanza((*st)[0], StanzaKind::kPackagesIndex, "P");
  ASSERT_FALSE(p.has_value());
  EXPECT_NE(p.error().message().find("unsafe Filename"), std::string::npos);
  st = parse_deb822("Package: a\nVersion: x1\nArchitecture: amd64\n", "P");
  EXPECT_FALSE(package_from_stanza((*st)[0], StanzaKind::kStatus, "P").has_value());
  st = parse_deb822("Package: a\nVersion: 1\nArchitecture: amd64\nProvides: b (>= 1)\n", "P");
  EXPECT_FALSE(package_from_stanza((*st)[0], StanzaKind::kStatus, "P").has_value());
}

TEST(DpkgStatus, KeepsInstalledStatesAndReadsStatusD) {
  StatusFile status{"status",
                    "Package: a\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\n\n"
                    "Package: gone\nStatus: deinstall ok config-files\nVersion: 1\nArchitecture: amd64\n\n"
                    "Package: half\nStatus: install ok unpacked\nVersion: 2\nArchitecture: all\n"};
  std::vector<StatusFile> d{{"status.d/b", "Package: b\nVersion: 3\nArchitecture: arm64\n"}};
  auto r = read_dpkg_status(status, d);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].name, "a");
  EXPECT_EQ((*r)[1].name, "half");
  EXPECT_EQ((*r)[2].architecture, "arm64");
}

TEST(DpkgStatus, RejectsDuplicatesAndBadStatus) {
  StatusFile dup{"status", "Package: a\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\n\n"
                           "Package: a\nStatus: install ok installed\nVersion: 2\nArchitecture: amd64\n"};
  auto r = read_dpkg_status(dup);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message(), "status:6: package a:amd64 is listed twice (first at status:1)");
  StatusFile bad{"status", "Package: a\nStatus: installed\nVersion: 1\nArchitecture: amd64\n"};
  EXPECT_FALSE(read_dpkg_status(bad).has_value());
  StatusFile missing{"status", "Package: a\nVersion: 1\nArchitecture: amd64\n"};
  EXPECT_FALSE(read_dpkg_status(missing).has_value());
}

}  // namespace
}  // namespace strata::layer
