// terminal_safe: what a terminal would act on comes out escaped and visible;
// everything else, UTF-8 included, byte for byte.
#include "util/terminal_text.hpp"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(TerminalSafe, ControlCharactersAreEscapedVisibly) {
  EXPECT_EQ(terminal_safe("a\x1b]0;owned\x07" "b"), "a\\x1b]0;owned\\x07b");
  EXPECT_EQ(terminal_safe("line\r\nforged"), "line\\x0d\\x0aforged");
  EXPECT_EQ(terminal_safe(std::string_view("nul\0tab\tdel\x7f", 12)), "nul\\x00tab\\x09del\\x7f");
  EXPECT_EQ(terminal_safe("\xc2\x85\xc2\x9b"), "\\u0085\\u009b") << "C1 controls, encoded";
  EXPECT_EQ(terminal_safe("a\xe2\x80\xa8" "b\xe2\x80\xa9"), "a\\u2028b\\u2029");
  EXPECT_EQ(terminal_safe("\xe2\x80\xaegpj.exe"), "\\u202egpj.exe") << "a right-to-left override";
  EXPECT_EQ(terminal_safe("\xe2\x81\xa6x\xe2\x81\xa9"), "\\u2066x\\u2069");
}

TEST(TerminalSafe, TextThatIsNotUtf8BecomesReplacementCharacters) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(terminal_safe("\x9b" "31m"), r + "31m") << "a raw 8-bit CSI";
  EXPECT_EQ(terminal_safe("caf\xe9"), "caf" + r) << "Latin-1";
  EXPECT_EQ(terminal_safe("\xc0\xaf"), r + r) << "an overlong '/'";
  EXPECT_EQ(terminal_safe("\xed\xa0\x80"), r + r + r) << "a surrogate";
  EXPECT_EQ(terminal_safe("\xe2\x80"), r) << "a truncated sequence is one maximal subpart";
  EXPECT_EQ(terminal_safe("\xf4\x90\x80\x80"), r + r + r + r) << "past U+10FFFF";
}

TEST(TerminalSafe, OrdinaryTextIsUnchanged) {
  for (std::string s : {"", "overlay-0123abcd", "debian:bookworm-slim", "C:\\path\\x1b", "naïve café 日本語 🙂",
                        "a\xe2\x80\x8b" "b"}) {
    EXPECT_EQ(terminal_safe(s), s);
  }
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// An error listing entries keeps its lines; each line is made safe.
TEST(TerminalSafe, LinesKeepTheirLineFeedsAndLoseEverythingElse) {
  EXPECT_EQ(terminal_safe_lines("2 entries:\n  a\x1b[2J\n  b\r"), "2 entries:\n  a\\x1b[2J\n  b\\x0d");
  EXPECT_EQ(terminal_safe_lines("one"), "one");
  EXPECT_EQ(terminal_safe_lines("\n"), "\n");
}

}  // namespace
}  // namespace strata
