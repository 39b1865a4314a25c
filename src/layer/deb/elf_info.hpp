// The facts ldconfig reads from a shared library: its ELF class, machine
// and DT_SONAME, turned into the ld.so.cache entry flags glibc uses
// (FLAG_ELF_LIBC6 plus the architecture bits). Pure; thread-safe. Reads only
// the bytes given; anything that is not a well-formed ELF shared object with
// a SONAME yields std::nullopt (ldconfig skips such files too).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata::layer {

struct ElfLibrary {
  std::string soname;
  std::int32_t cache_flags = 0;  // e.g. 0x0303 for x86-64 libc6
};

std::optional<ElfLibrary> read_elf_library(std::string_view bytes);

// True for names ldconfig considers: "lib*" or "ld-*" containing ".so".
bool looks_like_library_name(std::string_view name);

}  // namespace strata::layer
