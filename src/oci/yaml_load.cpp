#include "oci/yaml_load.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "util/strings.hpp"

namespace strata::oci {
namespace {

// Why a document is refused; thrown out of the parser's callbacks, which
// is the only way to stop yaml-cpp's Parser midway.
struct Refused {
  std::string why;
};

// Counts, as the parser reports events, what the document is with every
// alias expanded, and throws Refused once that passes the limits.
class ExpansionCounter final : public YAML::EventHandler {
 public:
  explicit ExpansionCounter(const YamlLimits& limits) : limits_(limits) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor, 0); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    leaf(mark, anchor, value.size());
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    // yaml-cpp checked that the anchor exists; one not complete yet is one
    // this alias lies inside.
    if (it == anchors_.end()) {
      refuse(mark, "a YAML alias refers to a node that contains it (a recursive alias, which no reader can expand)");
    }
    const Size s = it->second;
    alias_nodes_ += s.nodes;
    alias_bytes_ += s.bytes;
    if (alias_nodes_ > limits_.max_alias_nodes) {
      refuse(mark, "YAML aliases expand to more than " + std::to_string(limits_.max_alias_nodes) +
                       " nodes (a 'billion laughs' document)");
    }
    if (alias_bytes_ > limits_.max_alias_bytes) {
      refuse(mark, "YAML aliases expand to more than " + str::human_bytes(limits_.max_alias_bytes) +
                       " of text (a 'billion laughs' document)");
    }
    if (open_.size() + s.height > limits_.max_depth) too_deep(mark);
    add(s);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  // A node with its aliases expanded: nodes, scalar bytes, and how many
  // collections deep it goes (0 for a scalar).
  struct Size {
    std::uint64_t nodes = 0;
    std::uint64_t bytes = 0;
    std::size_t height = 0;
  };
  struct Open {
    YAML::anchor_t anchor;
    Size size;
  };

  [[noreturn]] void refuse(const YAML::Mark& mark, std::string why) {
    throw Refused{"line " + std::to_string(mark.line + 1) + ": " + std::move(why) + "; refusing it"};
  }
  [[noreturn]] void too_deep(const YAML::Mark& mark) {
    refuse(mark, "YAML nested more than " + std::to_string(limits_.max_depth) + " levels deep (aliases expanded)");
  }

  // A complete node at the current position counts in the collection
  // holding it.
  void add(const Size& s) {
    if (open_.empty()) return;
    Size& p = open_.back().size;
    p.nodes += s.nodes;
    p.bytes += s.bytes;
    p.height = std::max(p.height, s.height + 1);
  }
  void leaf(const YAML::Mark&, YAML::anchor_t anchor, std::uint64_t bytes) {
    const Size s{1, bytes, 0};
    if (anchor != YAML::NullAnchor) anchors_[anchor] = s;
    add(s);
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (open_.size() + 1 > limits_.max_depth) too_deep(mark);
    open_.push_back({anchor, Size{1, 0, 1}});
  }
  void close() {
    Open o = open_.back();
    open_.pop_back();
    if (o.anchor != YAML::NullAnchor) anchors_[o.anchor] = o.size;
    add(o.size);
  }

  const YamlLimits& limits_;
  std::vector<Open> open_;                              // collections being read, outermost first
  std::unordered_map<YAML::anchor_t, Size> anchors_;    // anchored nodes read whole
  std::uint64_t alias_nodes_ = 0;                       // what aliases added so far
  std::uint64_t alias_bytes_ = 0;
};

}  // namespace

Result<YAML::Node> load_yaml(std::string_view text, std::string_view what, const YamlLimits& limits) {
  auto refused = [&](std::string why) {
    Error e(ErrorCode::kInvalidArgument, std::move(why));
    return fail(what.empty() ? e : e.context(what));
  };
  const std::string doc(text);
  try {
    // Counted first, then built: yaml-cpp's NodeBuilder is not public, so
    // the counting pass cannot feed it; parsing twice costs CPU, never
    // memory.
    std::istringstream in(doc);
    YAML::Parser parser(in);
    ExpansionCounter counter(limits);
    parser.HandleNextDocument(counter);
    return YAML::Load(doc);
  } catch (const Refused& r) {
    return refused(r.why);
  } catch (const YAML::Exception& e) {
    return refused(std::string("not valid YAML: ") + e.what());
  }
}

Result<void> yaml_known_keys(const YAML::Node& node, std::initializer_list<std::string_view> keys,
                             const std::string& where) {
  if (!node.IsMap()) return fail(ErrorCode::kInvalidArgument, where + ": expected a mapping");
  for (const auto& kv : node) {
    const auto key = kv.first.as<std::string>("");
    if (std::ranges::find(keys, key) == keys.end()) {
      std::vector<std::string> names(keys.begin(), keys.end());
      return fail(ErrorCode::kInvalidArgument,
                  where + ": unknown key `" + key + "` (expected " + str::join(names, ", ") + ")");
    }
  }
  return {};
}

Result<std::string> yaml_text(const YAML::Node& node, const char* key, const std::string& where, bool required) {
  auto v = node[key];
  if (!v) {
    if (required) return fail(ErrorCode::kInvalidArgument, where + ": `" + key + "` is required (a string)");
    return std::string();
  }
  if (!v.IsScalar() || v.Scalar().empty())
    return fail(ErrorCode::kInvalidArgument, where + ": `" + key + "` must be a non-empty string");
  return v.Scalar();
}

}  // namespace strata::oci
