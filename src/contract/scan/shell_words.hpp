// The commands of a shell line as the shell would see them, for reading
// what a Dockerfile RUN instruction, a workflow run step or an install
// document runs: quotes removed (a quoted string is one word, never a
// command), backslash escapes applied, a `#` comment dropped, and the line
// cut into commands at `;`, `&&`, `||`, `|`, `&`, parentheses, backquotes,
// `$(` and newlines. Not a shell: no expansion, no here-documents.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace strata::contract {

struct ShellCommand {
  std::vector<std::string> words;
  std::size_t start = 0;  // index of the program: after assignments and sudo/env/exec/nohup/…
  const std::string* program() const { return start < words.size() ? &words[start] : nullptr; }
};

std::vector<ShellCommand> shell_commands_of(std::string_view line);

// The program's name without its directory ("/usr/bin/curl" → "curl").
std::string_view program_base(std::string_view word);

}  // namespace strata::contract
