// The Python ecosystem scanner: pyproject.toml (requires-python, PEP 621 and
// Poetry dependencies, build backends that compile, uv/poetry indexes),
// requirements*.txt (packages and -i/--extra-index-url/--find-links),
// Pipfile, setup.py C extensions, runtime.txt, .python-version (and its
// misspellings, which are reported), uv.lock and poetry.lock (streamed).
#pragma once

#include <string>
#include <string_view>

#include "contract/scan/scan_context.hpp"

namespace strata::contract {

void scan_python(ScanContext& ctx);

// One requirement ("mysqlclient==2.2.4") installed outside the manifests, as
// a Dockerfile's `pip install` names it: a direct dependency like a
// requirements file's, `file`/`field` its evidence.
void python_requirement(ScanContext& ctx, const std::string& file, const std::string& field, std::string_view text);

// PEP 503 normalisation: lowercase, runs of "-_." become "-".
std::string pep503(std::string_view name);

}  // namespace strata::contract
