// Fuzz target: a mirror's tag filter over a registry's tag list. The input's
// first three lines are an include pattern, an exclude pattern and a semver
// range (each may be empty: none); every further line is a listed tag. The
// patterns and the tags are both untrusted (a config, a registry): whatever
// they are, select_tags must return (RE2: linear time, no recursion per
// character), never keep a tag that breaks the tag grammar, and account for
// every listed tag as kept, dropped by the filter, or set aside as invalid.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "oci/reference.hpp"
#include "oci/tag_filter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> lines;
  while (!text.empty()) {
    auto nl = text.find('\n');
    lines.emplace_back(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  lines.resize(std::max<std::size_t>(lines.size(), 3));
  strata::oci::TagFilter f;
  if (!lines[0].empty()) f.include = {lines[0]};
  if (!lines[1].empty()) f.exclude = {lines[1]};
  f.semver = lines[2];
  const std::vector<std::string> tags(lines.begin() + 3, lines.end());
  auto checked = strata::oci::check_tag_filter(f, "fuzz.yaml: repositories[0]: tags");
  std::vector<std::string> invalid;
  auto kept = strata::oci::select_tags(tags, f, "fuzz.yaml: repositories[0]: tags", &invalid);
  if (checked.has_value() != kept.has_value()) __builtin_trap();  // one judge of a filter
  if (!kept) {
    if (kept.error().message().find("fuzz.yaml: repositories[0]: tags") == std::string::npos) __builtin_trap();
    return 0;
  }
  std::size_t listed_invalid = 0;
  for (const auto& t : tags) listed_invalid += strata::oci::is_valid_tag(t) ? 0 : 1;
  if (invalid.size() != listed_invalid) __builtin_trap();
  if (kept->size() + invalid.size() > tags.size()) __builtin_trap();
  for (const auto& t : *kept)
    if (!strata::oci::is_valid_tag(t)) __builtin_trap();
  for (const auto& t : invalid)
    if (strata::oci::is_valid_tag(t)) __builtin_trap();
  return 0;
}
