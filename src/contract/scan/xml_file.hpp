// Reading an XML file of the repository (pom.xml, *.csproj,
// Directory.Build.props, nuget.config) with pugixml (Debian's
// libpugixml-dev): the manifest size limit of repo_fs applies, and a file
// that does not parse is a contract warning naming the file and line, never
// an exception. pugixml expands no external entities and fetches nothing.
// Element names are read as written (MSBuild and Maven files use a default
// namespace, so no prefixes).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "contract/scan/scan_context.hpp"

namespace strata::contract {

// Loads `rel` into `doc`; false (with a warning) when unreadable or malformed.
bool read_xml(ScanContext& ctx, const std::string& rel, pugi::xml_document& doc);

// The trimmed text of the first child element called `name` ("" when none).
std::string child_text(const pugi::xml_node& node, std::string_view name);

// Every descendant element called `name`, document order, at most `max`.
std::vector<pugi::xml_node> descendants(const pugi::xml_node& node, std::string_view name, std::size_t max = 1000);

}  // namespace strata::contract
