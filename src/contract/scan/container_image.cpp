#include "contract/scan/container_image.hpp"

#include "contract/model/host_name.hpp"
#include "oci/reference.hpp"

namespace strata::contract {

std::optional<ImagePull> image_pull(std::string_view ref) {
  if (ref.empty() || ref.find('$') != std::string_view::npos || ref == "scratch") return std::nullopt;
  auto parsed = oci::parse_docker_reference(ref);
  if (!parsed) return std::nullopt;
  ImagePull out;
  out.registry_named = parsed->registry_named;
  if (parsed->registry == oci::kDefaultRegistry) {
    out.docker_hub = true;
    out.hosts = {"registry-1.docker.io", "auth.docker.io", "production.cloudflare.docker.com"};
    return out;
  }
  std::string_view host = parsed->registry;
  if (auto colon = host.rfind(':'); colon != std::string_view::npos && host.front() != '[') host = host.substr(0, colon);
  if (host.front() == '[' || host_name_problem(host, false)) return std::nullopt;
  out.hosts = {parsed->registry};
  return out;
}

}  // namespace strata::contract
