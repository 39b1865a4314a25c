#include "contract/model/contract.hpp"

namespace strata::contract {

const char* build_kind_name(BuildKind k) {
  switch (k) {
    case BuildKind::kNone: return "none";
    case BuildKind::kPrebuilt: return "prebuilt";
    case BuildKind::kDownload: return "download";
    case BuildKind::kCompile: return "compile";
  }
  return "none";
}

const char* certainty_name(Certainty c) {
  switch (c) {
    case Certainty::kKnown: return "known";
    case Certainty::kInferred: return "inferred";
    case Certainty::kAssumed: return "assumed";
  }
  return "assumed";
}

const char* constraint_kind_name(ConstraintKind k) {
  switch (k) {
    case ConstraintKind::kSupport: return "support";
    case ConstraintKind::kPin: return "pin";
    case ConstraintKind::kTested: return "tested";
  }
  return "support";
}

const char* purpose_name(Purpose p) { return p == Purpose::kRun ? "run" : "build"; }

const char* egress_origin_name(EgressOrigin o) {
  switch (o) {
    case EgressOrigin::kDeclared: return "declared";
    case EgressOrigin::kLockfile: return "lockfile";
    case EgressOrigin::kConfig: return "config";
    case EgressOrigin::kDefault: return "default";
    case EgressOrigin::kInstallTime: return "install-time";
  }
  return "default";
}

}  // namespace strata::contract
