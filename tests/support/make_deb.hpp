// make_deb: a .deb for tests (the hostile ones included).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/run.hpp"

namespace strata::testing {

// Writes NAME.deb in `dir` with a data.tar holding the given entries
// (python tarfile lets us write names tar(1) refuses), then applies `mangle`
// ("truncate" or "oversize") to the ar archive.
inline std::filesystem::path make_deb(const std::filesystem::path& dir, const std::string& name,
                                      const std::string& entries_py, const std::string& mangle = "",
                                      const std::string& control_py =
                                          "'Package: evil\\nVersion: 1\\nArchitecture: all\\n"
                                          "Maintainer: x\\nDescription: x\\n'") {
  std::string script = R"PY(
import io, sys, tarfile
out, mangle = sys.argv[1], sys.argv[2]
def tar(entries, gz=False):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode='w:gz' if gz else 'w', format=tarfile.GNU_FORMAT) as t:
        for e in entries:
            info = tarfile.TarInfo(e[0]); data = b''
            if e[1] == 'file': data = e[2] if isinstance(e[2], bytes) else e[2].encode(); info.size = len(data)
            elif e[1] == 'dir': info.type = tarfile.DIRTYPE
            elif e[1] == 'sym': info.type = tarfile.SYMTYPE; info.linkname = e[2]
            elif e[1] == 'hard': info.type = tarfile.LNKTYPE; info.linkname = e[2]
            t.addfile(info, io.BytesIO(data) if data else None)
    return b.getvalue()
control = tar([('./control', 'file', CONTROL)], True)
data = tar(ENTRIES)
def member(name, body, declared=None):
    size = len(body) if declared is None else declared
    h = name.ljust(16).encode() + '0'.ljust(12).encode() + '0'.ljust(6).encode() + '0'.ljust(6).encode() + \
        '100644'.ljust(8).encode() + str(size).ljust(10).encode() + b'`\n'
    return h + body + (b'\n' if len(body) % 2 else b'')
blob = b'!<arch>\n' + member('debian-binary', b'2.0\n') + member('control.tar.gz', control)
if mangle == 'truncate': blob += member('data.tar', data)[:60 + len(data) // 2]
elif mangle == 'oversize': blob += member('data.tar', data, len(data) - 1024)
else: blob += member('data.tar', data)
open(out, 'wb').write(blob)
)PY";
  script.replace(script.find("ENTRIES"), 7, entries_py);
  script.replace(script.find("CONTROL"), 7, control_py);
  std::ofstream(dir / "mk.py") << script;
  std::filesystem::path deb = dir / (name + ".deb");
  auto r = run({"python3", (dir / "mk.py").string(), deb.string(), mangle.empty() ? "-" : mangle});
  EXPECT_EQ(r.code, 0) << r.err;
  return deb;
}

}  // namespace strata::testing
