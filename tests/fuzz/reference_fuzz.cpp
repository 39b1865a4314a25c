// Fuzz target: image references, transports, digests, platforms.
#include <cstdint>
#include <string>

#include "oci/digest.hpp"
#include "oci/platform.hpp"
#include "oci/reference.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto r = strata::oci::parse_image_ref(text)) {
    // A parsed reference prints and re-parses to itself.
    if (r->transport == strata::oci::Transport::kDocker) {
      auto again = strata::oci::parse_docker_reference(r->docker.str());
      if (!again || again->str() != r->docker.str()) __builtin_trap();
    }
  }
  if (auto d = strata::oci::Digest::parse(text)) {
    if (d->str() != text) __builtin_trap();
  }
  // Only the parsing is under test (no crash, no hang, bounded work): a
  // result, value or error, is equally fine.
  (void)strata::oci::parse_platforms(text);
  return 0;
}
