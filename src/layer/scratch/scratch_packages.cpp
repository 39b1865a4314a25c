#include "layer/scratch/scratch_packages.hpp"

#include <map>
#include <set>

#include "layer/debian/version.hpp"

namespace strata::layer {

Result<ScratchVariant> parse_scratch_variant(std::string_view text) {
  if (text == "minbase" || text.empty()) return ScratchVariant::kMinbase;
  if (text == "essential") return ScratchVariant::kEssential;
  return fail(ErrorCode::kInvalidArgument,
              "--variant " + std::string(text) + ": choose essential or minbase (as mmdebstrap names them)");
}

std::string_view scratch_variant_name(ScratchVariant v) {
  return v == ScratchVariant::kEssential ? "essential" : "minbase";
}

std::vector<std::string> scratch_requests(const std::vector<ScratchIndex>& indexes, const std::string& native_arch,
                                          ScratchVariant variant) {
  struct Best {
    const Package* pkg = nullptr;
    int priority = 0;
  };
  std::map<std::string, Best> candidate;
  for (const auto& idx : indexes) {
    for (const auto& p : *idx.packages) {
      if (p.architecture != "all" && p.architecture != native_arch) continue;
      auto& b = candidate[p.name];
      if (!b.pkg || idx.priority > b.priority ||
          (idx.priority == b.priority && compare_versions(p.version, b.pkg->version) > 0)) {
        b = {&p, idx.priority};
      }
    }
  }
  std::set<std::string> out;
  for (const auto& [name, b] : candidate) {
    if (b.priority <= 0) continue;
    if (b.pkg->essential || (variant == ScratchVariant::kMinbase && b.pkg->priority == 1)) out.insert(name);
  }
  if (variant == ScratchVariant::kMinbase && candidate.contains("apt")) out.insert("apt");
  return {out.begin(), out.end()};
}

}  // namespace strata::layer
