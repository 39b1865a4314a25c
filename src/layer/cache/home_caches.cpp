#include "layer/cache/home_caches.hpp"

#include <system_error>

namespace strata::layer {

std::vector<HomeCache> home_caches(const std::filesystem::path& home) {
  std::vector<HomeCache> out;
  for (const char* name : {"debs", "fragments", "indexes", "basefs"}) {
    HomeCache c;
    c.name = name;
    std::error_code ec;
    auto it = std::filesystem::recursive_directory_iterator(home / name, ec);
    for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code fe;
      if (!it->is_regular_file(fe) || fe) continue;
      auto size = it->file_size(fe);
      if (fe) continue;
      c.bytes += size;
      ++c.files;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace strata::layer
