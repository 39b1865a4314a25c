// The .NET scanner: global.json (sdk.version with rollForward → the SDKs
// the dotnet host accepts, a pin), the target frameworks of project files
// (*.csproj, *.fsproj, *.vbproj) and Directory.Build.props read with
// pugixml (net8.0 needs an SDK 8.0 or newer: a support floor), and the
// NuGet feeds: api.nuget.org by default, and every source nuget.config
// adds (a <clear/> drops the default).
#pragma once

#include <string_view>

#include "contract/scan/scan_context.hpp"

namespace strata::contract {
bool dotnet_file(std::string_view name);
void scan_dotnet(ScanContext& ctx);
}  // namespace strata::contract
