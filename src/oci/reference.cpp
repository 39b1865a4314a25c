#include "oci/reference.hpp"

#include "util/strings.hpp"

namespace strata::oci {
namespace {

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// path-component ::= [a-z0-9]+ (separator [a-z0-9]+)*, separator ::= [_.] | "__" | "-"+
bool valid_path_component(std::string_view c) {
  if (c.empty() || !is_lower_alnum(c.front()) || !is_lower_alnum(c.back())) return false;
  for (std::size_t i = 0; i < c.size();) {
    if (is_lower_alnum(c[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < c.size() && !is_lower_alnum(c[j])) ++j;
    std::string_view sep = c.substr(i, j - i);
    bool ok = sep == "." || sep == "_" || sep == "__" || sep.find_first_not_of('-') == std::string_view::npos;
    if (!ok) return false;
    i = j;
  }
  return true;
}

bool valid_registry(std::string_view h) {
  if (h.empty() || h.size() > 255) return false;
  std::string_view host = h;
  if (h.front() == '[') {  // [::1]:5000
    auto close = h.find(']');
    if (close == std::string_view::npos) return false;
    host = h.substr(1, close - 1);
    std::string_view rest = h.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':' || !str::parse_u64(rest.substr(1))) return false;
    }
    for (char c : host)
      if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.')) return false;
    return true;
  }
  auto colon = h.rfind(':');
  if (colon != std::string_view::npos) {
    auto port = str::parse_u64(h.substr(colon + 1));
    if (!port || *port == 0 || *port > 65535) return false;
    host = h.substr(0, colon);
  }
  if (host.empty()) return false;
  for (char c : host)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-')) return false;
  return host.front() != '-' && host.front() != '.' && host.back() != '-' && host.back() != '.';
}

}  // namespace

bool is_valid_tag(std::string_view t) {
  if (t.empty() || t.size() > 128) return false;
  auto ok_first = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (!ok_first(t[0])) return false;
  for (char c : t.substr(1))
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) return false;
  return true;
}

std::string DockerReference::name() const { return registry + "/" + repository; }

std::string DockerReference::tag_or_digest() const {
  if (digest) return digest->str();
  return tag.value_or(std::string(kDefaultTag));
}

std::string DockerReference::str() const {
  std::string s = name();
  if (tag) s += ":" + *tag;
  if (digest) s += "@" + digest->str();
  if (!tag && !digest) s += ":" + std::string(kDefaultTag);
  return s;
}

Result<DockerReference> parse_docker_reference(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::kInvalidArgument,
                "invalid image reference " + str::quote(text) + ": " + std::string(why));
  };
  if (text.empty()) return bad("empty");
  if (text.size() > 512) return bad("too long");
  for (char c : text)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return bad("contains whitespace or control characters");
  DockerReference ref;
  std::string_view rest = text;
  if (auto at = rest.find('@'); at != std::string_view::npos) {
    auto d = Digest::parse(rest.substr(at + 1));
    if (!d) return bad(d.error().message());
    ref.digest = *d;
    rest = rest.substr(0, at);
  }
  // The tag is after the last ':' that follows the last '/'.
  auto slash = rest.rfind('/');
  auto colon = rest.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    std::string_view tag = rest.substr(colon + 1);
    if (!is_valid_tag(tag)) return bad("invalid tag " + str::quote(tag));
    ref.tag = std::string(tag);
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) return bad("missing repository name");
  auto first_slash = rest.find('/');
  // A lone host ("127.0.0.1:5000", "registry.internal", "localhost:5000")
  // names no repository: no Docker Hub name has a dot, and reading it as
  // docker.io/library/127.0.0.1 would send the image somewhere else.
  if (first_slash == std::string_view::npos &&
      (rest.find('.') != std::string_view::npos || rest == "localhost" || rest.front() == '[')) {
    std::string host = std::string(rest) + (ref.tag ? ":" + *ref.tag : "");
    return bad("names the registry " + str::quote(host) + " but no repository; write " + host + "/REPOSITORY[:TAG]");
  }
  std::string_view first = rest.substr(0, first_slash);
  bool has_registry = first_slash != std::string_view::npos &&
                      (first.find('.') != std::string_view::npos || first.find(':') != std::string_view::npos ||
                       first == "localhost" || first.front() == '[');
  std::string_view path = rest;
  if (has_registry) {
    if (!valid_registry(first)) return bad("invalid registry host " + str::quote(first));
    ref.registry = std::string(first);
    ref.registry_named = true;
    path = rest.substr(first_slash + 1);
  } else {
    ref.registry = std::string(kDefaultRegistry);
  }
  if (ref.registry == "index.docker.io" || ref.registry == "registry-1.docker.io") ref.registry = "docker.io";
  for (auto comp : str::split(path, '/')) {
    if (!valid_path_component(comp)) {
      if (comp != str::lower(comp)) return bad("repository names must be lowercase");
      return bad("invalid repository path component " + str::quote(comp));
    }
  }
  ref.repository = std::string(path);
  if (ref.registry == kDefaultRegistry && ref.repository.find('/') == std::string::npos) {
    ref.repository = "library/" + ref.repository;
  }
  if (ref.name().size() > 255) return bad("name longer than 255 characters");
  return ref;
}

std::string_view transport_name(Transport t) {
  switch (t) {
    case Transport::kDocker: return "docker";
    case Transport::kOciLayout: return "oci";
    case Transport::kOciArchive: return "oci-archive";
    case Transport::kDockerArchive: return "docker-archive";
    case Transport::kScratch: return "scratch";
    case Transport::kLocal: return "local";
    case Transport::kContainerd: return "containerd";
    case Transport::kDockerDaemon: return "docker-daemon";
    case Transport::kPodman: return "podman";
  }
  return "?";
}

bool is_runtime_store(Transport t) {
  return t == Transport::kContainerd || t == Transport::kDockerDaemon || t == Transport::kPodman;
}

std::string ImageRef::str() const {
  switch (transport) {
    case Transport::kDocker: return "docker://" + docker.str();
    case Transport::kScratch: return "scratch";
    case Transport::kLocal:
    case Transport::kContainerd:
    case Transport::kDockerDaemon:
    case Transport::kPodman: return std::string(transport_name(transport)) + ":" + docker.str();
    default: {
      std::string s = std::string(transport_name(transport)) + ":" + path;
      if (!ref.empty()) s += ":" + ref;
      return s;
    }
  }
}

Result<ImageRef> parse_image_ref(std::string_view text) {
  ImageRef r;
  r.original = std::string(text);
  auto path_and_ref = [&](std::string_view body, Transport t) -> Result<ImageRef> {
    r.transport = t;
    if (body.empty()) {
      return fail(ErrorCode::kInvalidArgument, "invalid image reference " + str::quote(text) +
                                                   ": missing path after " + std::string(transport_name(t)) + ":");
    }
    auto colon = body.find(':');
    // "PATH@DIGEST": the image of that digest, as strata prints an image it
    // wrote to "oci:PATH"; skopeo spells it "PATH:DIGEST", and both are read.
    // "PATH:TAG@DIGEST" (what strata prints for "oci:PATH:TAG") keeps
    // "TAG@DIGEST" as its ref: a layout reads a tag of that whole name (a
    // bundle's pinned names), else the digest (LayoutStore::resolve).
    auto pin = [](std::string_view d) {
      auto parsed = Digest::parse(d);
      return parsed && parsed->verifiable();  // sha256 or sha512: "a@b:c" stays a path and a tag
    };
    if (auto at = body.find('@'); at < colon && pin(body.substr(at + 1))) {
      r.path = std::string(body.substr(0, at));
      r.ref = std::string(body.substr(at + 1));
    } else {
      r.path = std::string(body.substr(0, colon));
      if (colon != std::string_view::npos) r.ref = std::string(body.substr(colon + 1));
    }
    if (r.path.empty()) return fail(ErrorCode::kInvalidArgument, "invalid image reference " + str::quote(text) + ": empty path");
    for (char c : r.path)
      if (c == '\0' || c == '\n') return fail(ErrorCode::kInvalidArgument, "invalid image reference " + str::quote(text) + ": bad path");
    if (!r.ref.empty()) {
      if (t == Transport::kDockerArchive && !pin(r.ref)) {
        STRATA_TRY(r.docker, parse_docker_reference(r.ref));
      } else if (r.ref.find('@') != std::string::npos || r.ref.starts_with("sha256:") || r.ref.starts_with("sha512:")) {
        std::string_view d = r.ref;
        if (auto at = d.find('@'); at != std::string_view::npos) d = d.substr(at + 1);
        STRATA_TRY_VOID(with_context(Digest::parse(d), "invalid image reference " + str::quote(text)));
      } else {
        // Layout tags may be fully qualified references (mirror bundles), so
        // allow the ref.name grammar: alphanumerics and [-._:@+/].
        for (char c : r.ref)
          if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-._:@+/").find(c) != std::string_view::npos))
            return fail(ErrorCode::kInvalidArgument, "invalid image reference " + str::quote(text) + ": invalid tag " + str::quote(r.ref));
      }
    }
    return r;
  };
  if (text == "scratch") {
    r.transport = Transport::kScratch;
    return r;
  }
  if (text.starts_with("docker://")) {
    r.transport = Transport::kDocker;
    STRATA_TRY(r.docker, parse_docker_reference(text.substr(9)));
    return r;
  }
  if (text.starts_with("local:")) {
    r.transport = Transport::kLocal;
    STRATA_TRY(r.docker, parse_docker_reference(text.substr(6)));
    return r;
  }
  for (Transport t : {Transport::kContainerd, Transport::kDockerDaemon, Transport::kPodman}) {
    std::string prefix = std::string(transport_name(t)) + ":";
    if (!text.starts_with(prefix)) continue;
    r.transport = t;
    std::string_view name = text.substr(prefix.size());
    if (name.empty()) {
      return fail(ErrorCode::kInvalidArgument, "invalid image reference " + str::quote(text) + ": missing image name after " + prefix +
                                                   " (" + prefix + "NAME[:TAG])");
    }
    // "containerd://app:1", spelled as docker:// is: the store is no URL.
    if (name.starts_with("//")) {
      return fail(ErrorCode::kInvalidArgument, "invalid image reference " + str::quote(text) + ": " + prefix +
                                                   " takes no \"//\" (" + prefix + std::string(str::strip(name, '/')) + ")");
    }
    STRATA_TRY(r.docker, with_context(parse_docker_reference(name), std::string(text)));
    // Docker and podman keep images by name and tag; an image's digest there
    // is not its manifest's (they store configs and layers), so a pin could
    // not be honoured.
    if (t != Transport::kContainerd && r.docker.digest) {
      return fail(ErrorCode::kInvalidArgument, "invalid image reference " + str::quote(text) + ": " + prefix +
                                                   " names an image by NAME[:TAG]; the daemon keeps no manifest digest to pin");
    }
    return r;
  }
  if (text.starts_with("oci:")) return path_and_ref(text.substr(4), Transport::kOciLayout);
  if (text.starts_with("oci-archive:")) return path_and_ref(text.substr(12), Transport::kOciArchive);
  if (text.starts_with("docker-archive:")) return path_and_ref(text.substr(15), Transport::kDockerArchive);
  for (std::string_view other : {"dir:", "containers-storage:", "ostree:", "sif:"}) {
    if (text.starts_with(other)) {
      return fail(ErrorCode::kUnsupported, "transport " + std::string(other) + " in " + str::quote(text) +
                                               " is not supported; use docker://, oci:, oci-archive:, docker-archive:, "
                                               "containerd:, docker-daemon: or podman:");
    }
  }
  r.transport = Transport::kDocker;
  STRATA_TRY(r.docker, parse_docker_reference(text));
  return r;
}

}  // namespace strata::oci
