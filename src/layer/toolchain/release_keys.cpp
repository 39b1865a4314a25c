#include "layer/toolchain/release_keys.hpp"

#include <string>

namespace strata::layer::toolchain {

const std::vector<std::string>& release_fingerprints(std::string_view tool) {
  // keys.list of the Node.js release keys: every releaser, active and retired.
  static const std::vector<std::string> kNode = {
      "108F52B48DB57BB0CC439B2997B01419BD92F80A",
      "114F43EE0176B71C7BC219DD50A3051F888C628D",
      "141F07595B7B3FFE74309A937405533BE57C7D57",
      "1C050899334244A8AF75E53792EF661D867B9DFA",
      "4ED778F539E3634C779C87C6D7062848A1AB005C",
      "56730D5401028683275BD23C23EFEFE93C4CFFFE",
      "5BE8A3F6C8A5C01D106C0AD820B1A390B168D356",
      "61FC681DFB92A079F1685E77973F295594EC4689",
      "655F3B5C1FB3FA8D1A0CA6BDE4A7D232B936D2FD",
      "71DCFD284A79C3B38668286BC97EC7A07EDE3FC1",
      "74F12602B6F1C4E913FAA37AD3A89613643B6201",
      "77984A986EBC2AA786BC0F66B01FBB92821C587A",
      "7937DFD2AB06298B2293C3187D33FF9D0246406D",
      "890C08DB8579162FEE0DF9DB8BEAB4DFCF555EF4",
      "8FCCA13FEF1D0C2E91008E09770F7A9A5AE15600",
      "93C7E9E91B49E432C2F75674B0A78B0A6C481CF6",
      "94AE36675C464D64BAFA68DD7434390BDBE9B9C5",
      "9554F04D7259F04124DE6B476D5A82AC7E37093B",
      "A363A499291CBBC940DD62E41F10027AF002F8B0",
      "A48C2BEE680E841632CD4E44F07496B3EB3C1762",
      "B9AE9905FFD7803F25714661B63B535A4C206CA9",
      "B9E2F5981AA6E0CD28160D9FF13993A75599653C",
      "C0D6248439F1D5604AAFFB4021D900FFDB233756",
      "C4F0DFFF4E8C1A8236409D08E73BC641CC11F4C8",
      "C82FA3AE1CBEDC6BE46B9360C43CEC45C17AB93C",
      "CC68F5A3106FF448322E48ED27F5E38D5B0A215F",
      "DD792F5973C6DE52C432CBDAC77ABFA00DDBF2B7",
      "DD8F2338BAE7501E3DD5AC78C273792F7D83545D",
      "FD3A5288F042B6850C66B31F09FE44734EB7990E",
  };
  static const std::vector<std::string> kRust = {"108F66205EAEB0AAA8DD5E1C85AB96E6FA1BE5FE"};
  static const std::vector<std::string> kNone;
  if (tool == "node") return kNode;
  if (tool == "rust") return kRust;
  return kNone;
}

TrustedKeys release_keys(std::string_view tool, const std::vector<std::filesystem::path>& extra) {
  TrustedKeys keys;
  if (tool == "node") keys.armored_keys.emplace_back(kNodeReleaseKeys);
  if (tool == "rust") keys.armored_keys.emplace_back(kRustReleaseKeys);
  if (extra.empty()) keys.fingerprints = release_fingerprints(tool);
  keys.keyrings = extra;
  keys.trust = "strata's " + std::string(tool) + " release keys";
  keys.next_step = "if the project's release keys changed, pass --toolchain-keyring " + std::string(tool) +
                   "=FILE with the new key; otherwise the source serves files its project did not sign";
  return keys;
}

}  // namespace strata::layer::toolchain
