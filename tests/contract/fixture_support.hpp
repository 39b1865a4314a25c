// Helpers for the fixture tests: scan a repo under testdata/repos and look up
// findings by name, so each test states its reviewed expectations directly.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "contract/scan/scan.hpp"

namespace strata::contract::testing {

inline std::string fixture(const std::string& name) { return std::string(STRATA_TESTDATA_DIR) + "/repos/" + name; }

inline Contract scan_fixture(const std::string& name) {
  auto c = scan_repository(fixture(name));
  EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().message());
  return c ? *c : Contract{};
}

inline std::string floor_of(const Contract& c, const std::string& tool) {
  auto it = c.runtime_floors.find(tool);
  return it == c.runtime_floors.end() ? "<absent>" : it->second.floor;
}

inline const RuntimeFloor* floors(const Contract& c, const std::string& tool) {
  auto it = c.runtime_floors.find(tool);
  return it == c.runtime_floors.end() ? nullptr : &it->second;
}

inline const NativePackage* native(const Contract& c, const std::string& eco, const std::string& name) {
  for (const auto& n : c.native_packages)
    if (n.ecosystem == eco && n.name == name) return &n;
  return nullptr;
}

inline std::string build_of(const Contract& c, const std::string& eco, const std::string& name) {
  auto* n = native(c, eco, name);
  return n ? build_kind_name(n->build) : "<absent>";
}

inline const EgressHost* egress(const Contract& c, const std::string& host) {
  for (const auto& h : c.egress_hosts)
    if (h.host == host) return &h;
  return nullptr;
}

inline std::string origin_of(const Contract& c, const std::string& host) {
  auto* h = egress(c, host);
  return h ? egress_origin_name(h->origin) : "<absent>";
}

inline const SystemLib* lib(const std::vector<SystemLib>& libs, const std::string& pkg) {
  for (const auto& l : libs)
    if (l.package == pkg) return &l;
  return nullptr;
}

inline bool required_by(const std::vector<SystemLib>& libs, const std::string& pkg, const std::string& by) {
  auto* l = lib(libs, pkg);
  return l && std::find(l->required_by.begin(), l->required_by.end(), by) != l->required_by.end();
}

inline bool has_command(const Contract& c, const std::string& name) {
  return std::any_of(c.required_commands.begin(), c.required_commands.end(),
                     [&](const RequiredCommand& r) { return r.name == name; });
}

inline bool warned(const Contract& c, const std::string& file, const std::string& needle) {
  return std::any_of(c.warnings.begin(), c.warnings.end(), [&](const Diagnostic& d) {
    return d.file == file && d.message.find(needle) != std::string::npos;
  });
}

inline bool noted(const Contract& c, const std::string& file, const std::string& needle) {
  return std::any_of(c.notes.begin(), c.notes.end(), [&](const Diagnostic& d) {
    return d.file == file && d.message.find(needle) != std::string::npos;
  });
}

inline bool has_workspace(const Contract& c, const std::string& path) {
  return std::any_of(c.workspaces.begin(), c.workspaces.end(), [&](const Workspace& w) { return w.path == path; });
}

}  // namespace strata::contract::testing
