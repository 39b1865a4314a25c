#include "contract/scan/shell_words.hpp"

#include <algorithm>
#include <array>

namespace strata::contract {
namespace {

// Words that run the next word as the program.
bool runs_next(std::string_view w) {
  static constexpr std::array<std::string_view, 11> kPrefix = {"sudo", "env", "exec", "nohup", "time", "command",
                                                               "nice", "builtin", "!", "xargs", "eval"};
  return std::find(kPrefix.begin(), kPrefix.end(), w) != kPrefix.end();
}

bool assignment(std::string_view w) {
  auto eq = w.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  for (std::size_t i = 0; i < eq; ++i)
    if (!(std::isalnum(static_cast<unsigned char>(w[i])) || w[i] == '_')) return false;
  return true;
}

// Shell keywords after which a command starts: `if psql …; then`,
// `until pg_isready …; do`, `while ! redis-cli ping`.
bool keyword(std::string_view w) {
  static constexpr std::array<std::string_view, 9> kKeywords = {"if", "then", "elif", "else", "do",
                                                                "while", "until", "{", "!"};
  return std::find(kKeywords.begin(), kKeywords.end(), w) != kKeywords.end();
}

// Options of the prefixes that take a value: `sudo -u postgres psql`,
// `nice -n 10 make`, `env -u HOME cmd`, `timeout -s KILL 30 cmd`.
bool option_takes_value(std::string_view prefix, std::string_view opt) {
  if (prefix == "sudo") return opt == "-u" || opt == "-g" || opt == "-C" || opt == "-h" || opt == "-p" || opt == "-U";
  if (prefix == "nice") return opt == "-n";
  if (prefix == "env") return opt == "-u" || opt == "-C" || opt == "-S";
  if (prefix == "timeout") return opt == "-s" || opt == "-k";
  return false;
}

void finish_command(std::vector<ShellCommand>& out, ShellCommand& cmd) {
  if (cmd.words.empty()) return;
  std::size_t i = 0;
  while (i < cmd.words.size()) {
    const std::string& w = cmd.words[i];
    if (assignment(w) || keyword(w)) {
      ++i;
      continue;
    }
    const bool timeout = w == "timeout";
    if (!runs_next(w) && !timeout) break;
    const std::string prefix = w;
    ++i;
    while (i < cmd.words.size() && cmd.words[i].starts_with('-') && cmd.words[i] != "-")
      i += option_takes_value(prefix, cmd.words[i]) ? 2 : 1;
    if (timeout && i < cmd.words.size()) ++i;  // the duration
  }
  cmd.start = i;
  out.push_back(std::move(cmd));
  cmd = ShellCommand{};
}

}  // namespace

static std::vector<ShellCommand> commands_of(std::string_view line, int depth);

std::vector<ShellCommand> shell_commands_of(std::string_view line) { return commands_of(line, 0); }

// `$(…)` inside a double-quoted string still runs its command
// (`echo "$(/sbin/ip route)"`): its text, from `from` (after "$("), up to the
// matching parenthesis, single-quoted parts skipped; npos when it does not close.
// Looked for within 4 KiB: an unclosed "$( $( $( … is not rescanned to its end each time.
static std::size_t substitution_end(std::string_view line, std::size_t from) {
  int depth = 0;
  for (std::size_t k = from; k < line.size() && k < from + 4096 && line[k] != '"'; ++k) {
    if (line[k] == '\'') {
      k = line.find('\'', k + 1);
      if (k == std::string_view::npos) return k;
    } else if (line[k] == '(') {
      ++depth;
    } else if (line[k] == ')' && depth-- == 0) {
      return k;
    }
  }
  return std::string_view::npos;
}

static std::vector<ShellCommand> commands_of(std::string_view line, int depth) {
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
    if (c == '"') {  // "…": \" \\ \$ \` escape; the rest literal, but for the commands $(…) runs
      std::size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size() && std::string_view("\"\\$`").find(line[j + 1]) != std::string_view::npos)
          ++j;
        else if (line[j] == '$' && j + 1 < line.size() && line[j + 1] == '(' && depth < 8)  // nested at most 8 deep
          if (auto end = substitution_end(line, j + 2); end != std::string_view::npos)
            for (auto& inner : commands_of(line.substr(j + 2, end - j - 2), depth + 1)) out.push_back(std::move(inner));
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
