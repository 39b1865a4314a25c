#include "contract/scan/shell_words.hpp"

#include <algorithm>
#include <array>

namespace strata::contract {
namespace {

// Words that run the next word as the program.
bool runs_next(std::string_view w) {
  static constexpr std::array<std::string_view, 9> kPrefix = {"sudo", "env", "exec", "nohup", "time",
                                                              "command", "nice", "builtin", "!"};
  return std::find(kPrefix.begin(), kPrefix.end(), w) != kPrefix.end();
}

bool assignment(std::string_view w) {
  auto eq = w.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  for (std::size_t i = 0; i < eq; ++i)
    if (!(std::isalnum(static_cast<unsigned char>(w[i])) || w[i] == '_')) return false;
  return true;
}

void finish_command(std::vector<ShellCommand>& out, ShellCommand& cmd) {
  if (cmd.words.empty()) return;
  std::size_t i = 0;
  while (i < cmd.words.size()) {
    const std::string& w = cmd.words[i];
    bool option_of_prefix = i > 0 && w.starts_with('-') && runs_next(cmd.words[i - 1]);
    if (!assignment(w) && !runs_next(w) && !option_of_prefix) break;
    ++i;
  }
  cmd.start = i;
  out.push_back(std::move(cmd));
  cmd = ShellCommand{};
}

}  // namespace

std::vector<ShellCommand> shell_commands_of(std::string_view line) {
  std::vector<ShellCommand> out;
  ShellCommand cmd;
  std::string word;
  bool in_word = false;
  auto end_word = [&] {
    if (in_word) cmd.words.push_back(std::move(word));
    word.clear();
    in_word = false;
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\'') {  // '…': literal up to the next quote
      auto close = line.find('\'', i + 1);
      if (close == std::string_view::npos) close = line.size();
      word.append(line.substr(i + 1, close - i - 1));
      in_word = true;
      i = close;
      continue;
    }
    if (c == '"') {  // "…": \" \\ \$ \` escape; the rest literal
      std::size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size() && std::string_view("\"\\$`").find(line[j + 1]) != std::string_view::npos)
          ++j;
        word += line[j];
      }
      in_word = true;
      i = j;
      continue;
    }
    if (c == '\\') {
      if (i + 1 < line.size() && line[i + 1] != '\n') {
        word += line[++i];
        in_word = true;
      } else if (i + 1 < line.size()) {
        ++i;  // a continued line
      }
      continue;
    }
    if (c == '#' && !in_word) {  // a comment runs to the end of the line
      while (i < line.size() && line[i] != '\n') ++i;
      end_word();
      finish_command(out, cmd);
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      end_word();
      continue;
    }
    bool separator = c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '`' || c == '\n' ||
                     (c == '$' && i + 1 < line.size() && line[i + 1] == '(');
    if (separator) {
      end_word();
      finish_command(out, cmd);
      if (c == '$') ++i;
      continue;
    }
    word += c;
    in_word = true;
  }
  end_word();
  finish_command(out, cmd);
  return out;
}

std::string_view program_base(std::string_view word) {
  if (auto slash = word.rfind('/'); slash != std::string_view::npos) word.remove_prefix(slash + 1);
  return word;
}

}  // namespace strata::contract
