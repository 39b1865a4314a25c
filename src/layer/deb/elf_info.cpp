#include "layer/deb/elf_info.hpp"

#include <cstring>

namespace strata::layer {

namespace {

// glibc sysdeps/generic/ldconfig.h
constexpr std::int32_t kFlagElfLibc6 = 0x0003;
constexpr std::int32_t kFlagX8664Lib64 = 0x0300;
constexpr std::int32_t kFlagS390Lib64 = 0x0400;
constexpr std::int32_t kFlagPowerpcLib64 = 0x0500;
constexpr std::int32_t kFlagArmLibhf = 0x0900;
constexpr std::int32_t kFlagAarch64Lib64 = 0x0a00;
constexpr std::int32_t kFlagRiscvFloatAbiDouble = 0x1000 | 0x0b00;  // riscv64 lp64d

class Bytes {
 public:
  Bytes(std::string_view b, bool le) : b_(b), le_(le) {}
  bool ok(std::uint64_t off, std::uint64_t n) const { return off <= b_.size() && n <= b_.size() - off; }
  std::uint64_t u(std::uint64_t off, int n) const {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) {
      auto byte = static_cast<std::uint64_t>(static_cast<unsigned char>(b_[off + i]));
      v |= le_ ? byte << (8 * i) : byte << (8 * (n - 1 - i));
    }
    return v;
  }

 private:
  std::string_view b_;
  bool le_;
};

}  // namespace

bool looks_like_library_name(std::string_view name) {
  return (name.starts_with("lib") || name.starts_with("ld-")) && name.find(".so") != std::string_view::npos;
}

std::optional<ElfLibrary> read_elf_library(std::string_view b) {
  if (b.size() < 64 || std::memcmp(b.data(), "\x7f" "ELF", 4) != 0) return std::nullopt;
  bool is64 = b[4] == 2;
  bool le = b[5] == 1;
  if ((b[4] != 1 && b[4] != 2) || (b[5] != 1 && b[5] != 2)) return std::nullopt;
  Bytes r(b, le);
  if (r.u(16, 2) != 3) return std::nullopt;  // ET_DYN
  std::uint64_t machine = r.u(18, 2);
  std::uint64_t phoff = is64 ? r.u(32, 8) : r.u(28, 4);
  std::uint64_t phentsize = is64 ? r.u(54, 2) : r.u(42, 2);
  std::uint64_t phnum = is64 ? r.u(56, 2) : r.u(44, 2);
  std::uint64_t eflags = is64 ? r.u(48, 4) : r.u(36, 4);
  if (phnum == 0 || phentsize < (is64 ? 56u : 32u) || !r.ok(phoff, phnum * phentsize)) return std::nullopt;
  struct Seg { std::uint64_t type, offset, vaddr, filesz; };
  auto seg = [&](std::uint64_t i) {
    std::uint64_t o = phoff + i * phentsize;
    if (is64) return Seg{r.u(o, 4), r.u(o + 8, 8), r.u(o + 16, 8), r.u(o + 32, 8)};
    return Seg{r.u(o, 4), r.u(o + 4, 4), r.u(o + 8, 4), r.u(o + 16, 4)};
  };
  auto to_offset = [&](std::uint64_t vaddr) -> std::optional<std::uint64_t> {
    for (std::uint64_t i = 0; i < phnum; ++i) {
      Seg s = seg(i);
      if (s.type == 1 && vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz) return s.offset + (vaddr - s.vaddr);
    }
    return std::nullopt;
  };
  std::optional<Seg> dynamic;
  for (std::uint64_t i = 0; i < phnum; ++i) {
    if (seg(i).type == 2) dynamic = seg(i);
  }
  if (!dynamic || !r.ok(dynamic->offset, dynamic->filesz)) return std::nullopt;
  std::uint64_t entsize = is64 ? 16 : 8;
  std::optional<std::uint64_t> strtab, soname;
  for (std::uint64_t o = dynamic->offset; o + entsize <= dynamic->offset + dynamic->filesz; o += entsize) {
    std::uint64_t tag = is64 ? r.u(o, 8) : r.u(o, 4);
    std::uint64_t val = is64 ? r.u(o + 8, 8) : r.u(o + 4, 4);
    if (tag == 0) break;
    if (tag == 5) strtab = val;   // DT_STRTAB
    if (tag == 14) soname = val;  // DT_SONAME
  }
  if (!strtab || !soname) return std::nullopt;
  auto str_off = to_offset(*strtab);
  if (!str_off || !r.ok(*str_off + *soname, 1)) return std::nullopt;
  const char* s = b.data() + *str_off + *soname;
  std::size_t max = b.size() - (*str_off + *soname);
  std::size_t len = strnlen(s, max);
  if (len == 0 || len == max) return std::nullopt;
  ElfLibrary lib;
  lib.soname.assign(s, len);
  lib.cache_flags = kFlagElfLibc6;
  switch (machine) {
    case 62: lib.cache_flags |= kFlagX8664Lib64; break;        // EM_X86_64
    case 183: lib.cache_flags |= kFlagAarch64Lib64; break;     // EM_AARCH64
    case 22: if (is64) lib.cache_flags |= kFlagS390Lib64; break;
    case 21: lib.cache_flags |= kFlagPowerpcLib64; break;      // EM_PPC64
    case 40: if (eflags & 0x400) lib.cache_flags |= kFlagArmLibhf; break;  // EF_ARM_ABI_FLOAT_HARD
    case 243: if (is64) lib.cache_flags = kFlagElfLibc6 | kFlagRiscvFloatAbiDouble; break;
    default: break;
  }
  return lib;
}

}  // namespace strata::layer
