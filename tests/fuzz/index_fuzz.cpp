// Fuzz target: walking indexes (copy --all and one platform, over documents
// that refer to each other) and reading a layout's index.json.
//
// Input: up to 10 documents separated by "\n--\n"; document 0 is the root,
// tagged "root". In document i, "@N" (N a digit greater than i) stands for
// the digest of document N, so chains, diamonds and deep nests of indexes
// can be spelled (a digest cannot be guessed by mutation). Document 0 is also
// written as the index.json of an OCI layout that is then read.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "oci/copy.hpp"
#include "oci/layout_store.hpp"
#include "oci/media_types.hpp"
#include "oci/memory_store.hpp"

namespace {

std::vector<std::string> split_documents(std::string_view text) {
  std::vector<std::string> docs;
  while (docs.size() < 9) {
    auto at = text.find("\n--\n");
    if (at == std::string_view::npos) break;
    docs.emplace_back(text.substr(0, at));
    text.remove_prefix(at + 4);
  }
  docs.emplace_back(text);
  return docs;
}

const std::filesystem::path& layout_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("strata-fuzz-index-" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    auto s = strata::oci::LayoutStore::open(d, strata::oci::LayoutMode::kCreate);
    if (!s) __builtin_trap();
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace strata::oci;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto docs = split_documents(text);
  std::vector<Digest> digests(docs.size(), Digest::sha256_of(""));
  for (std::size_t i = docs.size(); i-- > 0;) {
    std::string& d = docs[i];
    for (std::size_t at = d.find('@'); at != std::string::npos && at + 1 < d.size(); at = d.find('@', at + 1)) {
      char c = d[at + 1];
      if (c < '0' || c > '9') continue;
      std::size_t n = static_cast<std::size_t>(c - '0');
      if (n <= i || n >= docs.size()) continue;
      std::string digest = digests[n].str();
      d.replace(at, 2, digest);
      at += digest.size() - 1;
    }
    digests[i] = Digest::sha256_of(d);
  }

  MemoryStore src("fuzz-src");
  for (std::size_t i = 0; i < docs.size(); ++i) {
    auto mt = sniff_manifest_media_type(docs[i], "fuzz");
    RawManifest raw = make_raw_manifest(mt ? *mt : std::string(media::kOciManifest), docs[i]);
    // A document the store refuses is part of the input space: the layout
    // below is read whatever was written.
    (void)src.put_manifest(raw, i == 0 ? std::optional<std::string_view>("root") : std::nullopt);
  }
  for (bool all : {true, false}) {
    MemoryStore dst("fuzz-dst");
    CopyOptions o;
    o.all = all;
    o.jobs = 1;
    auto copied = copy_image(src, "root", dst, "copy", o);
    // What was copied reads back bit-exactly.
    if (copied) {
      auto back = dst.get_manifest("copy");
      if (!back || back->descriptor.digest != copied->root.digest) __builtin_trap();
    }
  }

  const auto& dir = layout_dir();
  {
    std::ofstream out(dir / "index.json", std::ios::binary | std::ios::trunc);  // no fsync: a scratch dir
    out << docs[0];
  }
  auto layout = LayoutStore::open(dir, LayoutMode::kReadOnly);
  if (!layout) return 0;
  // Reading a damaged layout must fail cleanly, not crash: any result is fine.
  (void)(*layout)->entries();
  (void)(*layout)->list_tags();
  (void)(*layout)->resolve("");
  (void)(*layout)->resolve("latest");
  (void)(*layout)->resolve(digests[docs.size() > 1 ? 1 : 0].str());
  (void)(*layout)->referrers(digests[0]);
  return 0;
}
