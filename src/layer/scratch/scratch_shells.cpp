#include "layer/scratch/scratch_shells.hpp"

#include <algorithm>
#include <set>

#include "util/strings.hpp"

namespace strata::layer {

namespace {

// A line's shell: what precedes '#', as update-shells reads it (IFS='#').
std::string shell_of(std::string_view line) { return std::string(line.substr(0, line.find('#'))); }

}  // namespace

Shells update_shells(std::string_view template_text, const std::vector<std::pair<std::string, std::string>>& declared,
                     const std::function<std::string(const std::string&)>& real_dir) {
  auto files = declared;
  std::sort(files.begin(), files.end());
  std::vector<std::string> shells, twins, state;
  auto add_declared = [&](std::string_view text) {
    for (auto line : str::split(text, '\n')) {
      std::string s = shell_of(line);
      if (s.empty()) continue;
      shells.push_back(s);
      state.push_back(s);
      auto slash = s.rfind('/');
      if (slash == std::string::npos) continue;
      std::string dir = slash == 0 ? "/" : s.substr(0, slash);
      std::string real = real_dir(dir);
      std::string twin = (real == "/" ? "" : real) + s.substr(slash);
      if (twin != s) {
        twins.push_back(twin);
        state.push_back(twin);
      }
    }
  };
  add_declared(template_text);
  for (const auto& [name, text] : files) add_declared(text);

  Shells out;
  std::set<std::string> present;
  for (auto line : str::split(template_text, '\n')) {
    if (line.empty()) continue;
    std::string s = shell_of(line);
    if (!s.empty() && !present.insert(s).second) continue;
    out.etc_shells += std::string(line) + "\n";
  }
  for (const auto* list : {&shells, &twins}) {
    for (const auto& s : *list) {
      if (present.insert(s).second) out.etc_shells += s + "\n";
    }
  }
  for (const auto& s : state) out.state += s + "\n";
  return out;
}

}  // namespace strata::layer
