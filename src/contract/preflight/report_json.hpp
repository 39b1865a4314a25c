// A pre-flight report as one JSON document: ok, the image and contract
// digests, every gap (kind, requirement, found, fix), what the image
// satisfies, what is provided at task time, the egress hosts and the one
// message. Pure.
#pragma once

#include <nlohmann/json.hpp>

#include "contract/preflight/preflight.hpp"

namespace strata::contract::preflight {

nlohmann::ordered_json report_to_json(const Report& r);

}  // namespace strata::contract::preflight
