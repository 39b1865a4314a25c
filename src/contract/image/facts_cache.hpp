// The facts of images already read, one small JSON file per image manifest
// digest under a directory ($STRATA_HOME/facts), so a provision hit reads
// one manifest and one file instead of every layer. An entry is used only
// when it parses, has this reader's kFactsFormat and names the digest it is
// filed under; anything else is read again and rewritten. Writes are
// atomic; racing writers write the same bytes. Thread-safe.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "contract/image/image_facts.hpp"

namespace strata::contract::image {

// The JSON form of facts (the cache entry; `strata preflight --json` shows it).
std::string facts_to_json(const ImageFacts& f);
Result<ImageFacts> facts_from_json(std::string_view text, std::string_view where);

class FactsCache {
 public:
  explicit FactsCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  std::optional<ImageFacts> find(const std::string& manifest_digest) const;
  // Best effort: a failed write only makes the next read slower.
  void remember(const ImageFacts& facts) const;
  std::filesystem::path entry_path(const std::string& manifest_digest) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace strata::contract::image
