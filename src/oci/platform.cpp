#include "oci/platform.hpp"

#include <sys/utsname.h>

#include "util/strings.hpp"

namespace strata::oci {

std::string Platform::str() const {
  std::string s = os + "/" + architecture;
  if (!variant.empty()) s += "/" + variant;
  return s;
}

static void normalise(Platform& p) {
  if (p.architecture == "x86_64" || p.architecture == "x86-64") p.architecture = "amd64";
  if (p.architecture == "aarch64") p.architecture = "arm64";
  if (p.architecture == "armhf") { p.architecture = "arm"; if (p.variant.empty()) p.variant = "v7"; }
  if (p.architecture == "armel") { p.architecture = "arm"; if (p.variant.empty()) p.variant = "v6"; }
  if (p.architecture == "i686" || p.architecture == "i386") p.architecture = "386";
}

Result<Platform> parse_platform(std::string_view text) {
  auto parts = str::split(str::trim(text), '/');
  auto bad = [&] {
    return fail(ErrorCode::kInvalidArgument,
                "invalid platform " + str::quote(text) + ": expected OS/ARCH[/VARIANT], e.g. linux/arm64");
  };
  if (parts.size() < 2 || parts.size() > 3) return bad();
  for (auto p : parts) {
    if (p.empty() || p.size() > 64) return bad();
    for (char c : p)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return bad();
  }
  Platform p{str::lower(parts[0]), str::lower(parts[1]), parts.size() == 3 ? str::lower(parts[2]) : "", ""};
  normalise(p);
  return p;
}

Result<std::vector<Platform>> parse_platforms(std::string_view text) {
  std::vector<Platform> out;
  for (auto part : str::split(text, ',')) {
    STRATA_TRY(auto p, parse_platform(part));
    out.push_back(std::move(p));
  }
  return out;
}

Platform host_platform() {
  struct utsname u{};
  ::uname(&u);
  Platform p{"linux", u.machine, "", ""};
  normalise(p);
  if (p.architecture == "arm" && p.variant.empty()) p.variant = "v7";
  return p;
}

bool platform_matches(const Platform& want, const Platform& c) {
  if (want.os != c.os || want.architecture != c.architecture) return false;
  if (want.variant.empty()) return true;
  if (want.architecture == "arm64") {
    auto v = [](const std::string& s) { return s.empty() ? std::string("v8") : s; };
    return v(want.variant) == v(c.variant);
  }
  return want.variant == c.variant;
}

}  // namespace strata::oci
