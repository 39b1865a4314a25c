// Dockerfile-style config changes ("ENV K=V", "CMD [\"bash\"]", …) as used by
// `strata import --change` and `docker import --change`: a pure function from
// the runtime config and one instruction to the new runtime config.
//
// Supported: ENV, CMD, ENTRYPOINT (JSON array or shell form, which becomes
// ["/bin/sh", "-c", …]), WORKDIR, USER, LABEL, EXPOSE. Values may be quoted
// with "" or '' and use backslash escapes, as in a Dockerfile.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/error.hpp"

namespace strata::layer {

// The "config" object of an OCI image config, limited to what changes edit.
struct RuntimeConfig {
  std::string user;
  std::set<std::string> exposed_ports;  // "80/tcp"
  std::vector<std::string> env;         // "K=V", first-set order
  std::optional<std::vector<std::string>> entrypoint;
  std::optional<std::vector<std::string>> cmd;
  std::string working_dir;
  std::map<std::string, std::string> labels;
};

// Applies one instruction. kInvalidArgument, quoting the instruction, when it
// is malformed or not supported.
Result<RuntimeConfig> apply_change(RuntimeConfig config, std::string_view instruction);

// The JSON object with image-spec field names in the order Go tools write
// them (User, ExposedPorts, Env, Entrypoint, Cmd, WorkingDir, Labels); empty
// fields are left out.
nlohmann::ordered_json to_json(const RuntimeConfig& config);

}  // namespace strata::layer
