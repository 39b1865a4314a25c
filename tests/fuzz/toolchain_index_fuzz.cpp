// Fuzz target: the release indexes of the toolchain kinds whose index is
// JSON read through an API — Adoptium's (java: available_releases and a
// feature release's assets) and .NET's release metadata (dotnet:
// releases-index.json and a channel's releases.json). Every GET is answered
// with the input, as a hostile or broken server could (bodies above the
// request's max_body refused, as the real transport does). Whatever the
// bytes, resolve_release gives an error naming a URL or a release whose one
// archive is what strata can verify: a plain .tar.gz name, an http(s) link,
// a digest of the right form, an admitted release version.
#include <algorithm>
#include <cstdint>
#include <string>

#include "layer/toolchain/release.hpp"

namespace {

namespace tc = strata::layer::toolchain;

class Answering final : public strata::oci::http::Transport {
 public:
  explicit Answering(std::string body) : body_(std::move(body)) {}
  strata::Result<strata::oci::http::Response> send(strata::oci::http::Request& r) override {
    if (body_.size() > r.max_body) return strata::fail(strata::ErrorCode::kFailedPrecondition, "body too large");
    strata::oci::http::Response out;
    out.status = 200;
    out.body = body_;
    out.effective_url = r.url;
    return out;
  }

 private:
  std::string body_;
};

bool lower_hex(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Answering http(std::string(reinterpret_cast<const char*>(data), size));
  struct Case {
    const char* tool;
    const char* line;  // "": no line, the list of lines is read first
    const char* prefix;
  };
  for (const Case& c : {Case{"java", "21", "21."}, Case{"java", "", ""}, Case{"dotnet", "8.0", "8.0."},
                        Case{"dotnet", "", ""}}) {
    for (const char* arch : {"amd64", "arm64"}) {
      tc::ResolveRequest q;
      q.tool = c.tool;
      q.arch = arch;
      q.source = tc::official_source(c.tool);
      const std::string prefix = c.prefix;
      q.want.line = c.line;
      q.want.text = "fuzz";
      q.want.admits = [prefix](std::string_view v) { return v.starts_with(prefix); };
      auto rel = tc::resolve_release(http, q);
      if (!rel) {
        if (rel.error().message().find("https://") == std::string::npos) __builtin_trap();
        continue;
      }
      if (rel->archives.size() != 1 || !tc::is_release_version(rel->version) || !rel->version.starts_with(prefix))
        __builtin_trap();
      const tc::Archive& a = rel->archives[0];
      const std::size_t hex = a.algorithm == "sha256" ? 64 : a.algorithm == "sha512" ? 128 : 0;
      if (hex == 0 || a.hex.size() != hex || !lower_hex(a.hex)) __builtin_trap();
      if (!a.name.ends_with(".tar.gz") || a.name.find('/') != std::string::npos || a.name.starts_with("."))
        __builtin_trap();
      if (!a.url.starts_with("https://")) __builtin_trap();  // the official source: https links only
      if (std::string(c.tool) == "java" && (a.size == 0 || a.size > (std::uint64_t{2} << 30))) __builtin_trap();
    }
  }
  return 0;
}
