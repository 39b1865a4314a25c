// The Elixir scanner: mix.exs (the project's `elixir:` version requirement,
// git and GitHub dependencies), mix.lock (every hex package, locked; the
// ones the knowledge base knows build native code: NIFs through elixir_make,
// rustler (a Rust toolchain), bcrypt_elixir, argon2_elixir, exqlite), and
// the hosts mix reaches: hex.pm, repo.hex.pm, builds.hex.pm (mix local.hex
// and local.rebar), and git dependencies' hosts. Mix files are read by
// pattern, never evaluated. Erlang/OTP is needed with Elixir; its version
// comes from version files (.tool-versions).
#pragma once

#include <string_view>

#include "contract/scan/scan_context.hpp"

namespace strata::contract {
bool elixir_file(std::string_view name);
void scan_elixir(ScanContext& ctx);
}  // namespace strata::contract
