// Line numbers of offsets in a file's text, by binary search over its
// newlines: evidence for many matches in a large file stays linear.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace strata::contract {

class LineIndex {
 public:
  explicit LineIndex(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') newlines_.push_back(i);
  }
  // The 1-based line holding `offset`.
  std::size_t at(std::size_t offset) const {
    return 1 + static_cast<std::size_t>(std::lower_bound(newlines_.begin(), newlines_.end(), offset) - newlines_.begin());
  }

 private:
  std::vector<std::size_t> newlines_;
};

}  // namespace strata::contract
