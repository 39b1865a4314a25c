// The egress policy of a repository, before it takes a format: every host a
// sandbox may read from, with its port, whether the repository declared it
// or strata inferred it (and from what), and a header naming the repository,
// the contract's digest and the strata version. Built from a contract by
// build_policy(); each renderer (json, openshell, cilium, squid) writes this
// model and nothing else. Read-only is the only access: GET and HEAD.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "contract/model/contract.hpp"
#include "util/error.hpp"

namespace strata::contract::egress {

// Which hosts go into the policy: `declared` lets a platform grant only what
// a repository declares; `inferred` only what strata found; `all` both.
enum class Include { kAll, kDeclared, kInferred };
const char* include_name(Include i);
Result<Include> parse_include(std::string_view s);  // all | declared | inferred (| both)

struct PolicyHost {
  std::string host;  // lower case; "*.example.com" only when declared so
  int port = 443;
  bool declared = false;            // from .mac/project.yaml; else inferred
  EgressOrigin origin = EgressOrigin::kDefault;
  std::string reason;
  std::vector<Evidence> evidence;
  bool npm_registry = false;        // npm clients ask for /@scope%2Fname
  bool wildcard() const { return host.starts_with("*."); }
  const char* label() const { return declared ? "declared" : "inferred"; }
  // "declared", or "inferred (lockfile)": for comments.
  std::string described() const { return declared ? "declared" : std::string("inferred (") + egress_origin_name(origin) + ")"; }
};

struct PolicyHeader {
  std::string repo;             // the repository as scanned (the contract's root)
  std::string contract_digest;  // sha256:<hex> of the contract's canonical JSON
  std::string strata_version;
  Include include = Include::kAll;
};

struct Policy {
  PolicyHeader header;
  std::vector<PolicyHost> hosts;   // sorted by host, then port
  std::vector<std::string> notes;  // inferred hosts left out, and why
};

// The read-only methods every renderer grants.
inline constexpr std::string_view kReadMethods[] = {"GET", "HEAD"};

// Builds the policy of `c`. A contract with rejected declarations
// (`egress_rejected`) is refused, every rejection listed with its file and
// entry: a policy must not silently drop what a repository asked for. An
// inferred host that breaks the host-name rule is left out with a note; a
// declared one that does is refused (contracts written by hand).
Result<Policy> build_policy(const Contract& c, PolicyHeader header);

// A format's function that makes repository text safe in one of its
// comments (yaml_comment, squid_comment), given the most bytes to keep.
using CommentText = std::string (*)(std::string_view, std::size_t);

// The header as comment lines ("# strata egress policy …"), shared by the
// YAML and squid formats; the repository and the notes go through `comment`.
std::string header_comment(const Policy& p, std::string_view format, CommentText comment);

}  // namespace strata::contract::egress
