#include "layer/effects/script_expand.hpp"

#include <algorithm>

#include <set>

#include "util/strings.hpp"

namespace strata::layer {

namespace {

constexpr int kMaxDepth = 8;
constexpr std::size_t kMaxOutput = std::size_t{1} << 20;

bool is_name_char(char c, bool first) {
  return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
}

bool is_name(std::string_view s) {
  if (s.empty() || !is_name_char(s[0], true)) return false;
  for (char c : s) {
    if (!is_name_char(c, false)) return false;
  }
  return true;
}

// Walks `s` from `from` with `depth` parentheses open, skipping quoted text
// and escapes: the index of the ')' that brings `depth` to zero, else npos
// at the end, with `depth` holding what is still open (negative when more
// were closed than opened).
std::size_t walk_parens(std::string_view s, std::size_t from, int& depth) {
  char quote = 0;
  for (std::size_t i = from; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"') ++i;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '\\') ++i;
    else if (c == '(') ++depth;
    else if (c == ')' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// The index of the ')' closing a '(' just before `from`; npos when unbalanced.
std::size_t closing_paren(std::string_view s, std::size_t from) {
  int depth = 1;
  return walk_parens(s, from, depth);
}

// Parentheses opened and not closed in `s`.
int open_parens(std::string_view s) {
  int depth = 0;
  for (std::size_t i = 0; (i = walk_parens(s, i, depth)) != std::string_view::npos; ++i) {
  }
  return depth;
}

// Commands of a body: split at newlines and ';' outside quotes and `$( )`.
std::vector<std::string> commands_of(std::string_view body) {
  std::vector<std::string> out;
  std::string cur;
  char quote = 0;
  int depth = 0;
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (quote) {
      if (c == quote) quote = 0;
      cur += c;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == '\n' || c == ';')) {
      out.emplace_back(str::trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.emplace_back(str::trim(cur));
  return out;
}

// "NAME ()", "NAME()", with "{" (and maybe a one-line body) after it.
std::optional<std::string> function_name(std::string_view line) {
  std::size_t paren = line.find("()");
  if (paren == std::string_view::npos) return std::nullopt;
  std::string_view name = str::trim(line.substr(0, paren));
  if (!is_name(name)) return std::nullopt;
  std::string_view rest = str::trim(line.substr(paren + 2));
  if (!rest.empty() && !rest.starts_with('{')) return std::nullopt;
  return std::string(name);
}

bool has_special(std::string_view s) { return s.find_first_of("'\"\\`;|&<>$(){}") != std::string_view::npos; }

}  // namespace

ScriptExpander::ScriptExpander(std::string_view script) {
  // Logical lines: continuations joined, an open `$(` joined up to its ')'.
  std::string cur;
  for (auto raw : str::split(script, '\n')) {
    std::string_view l = raw;
    if (cur.empty() && str::trim(l).starts_with('#')) continue;
    if (l.ends_with('\\')) {
      cur += std::string(l.substr(0, l.size() - 1)) + " ";
      continue;
    }
    cur += std::string(l);
    if (cur.find("$(") != std::string::npos && open_parens(cur) > 0) {
      cur += "\n";
      continue;
    }
    lines_.push_back(std::move(cur));
    cur.clear();
  }
  if (!cur.empty()) lines_.push_back(cur);

  // Functions, and top-level assignments of literal values.
  std::set<std::string> ambiguous;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    std::string_view line = str::trim(lines_[i]);
    if (auto name = function_name(line)) {
      std::string body;
      std::string_view rest = str::trim(line.substr(line.find("()") + 2));
      if (rest.starts_with('{') && rest.ends_with('}') && rest.size() >= 2) {  // one line: NAME () { …; }
        functions_[*name] = std::string(rest.substr(1, rest.size() - 2));
        continue;
      }
      std::size_t j = i + 1;
      if (rest.empty() && j < lines_.size() && str::trim(lines_[j]) == "{") ++j;
      for (; j < lines_.size() && str::trim(lines_[j]) != "}"; ++j) body += lines_[j] + "\n";
      if (j < lines_.size()) functions_[*name] = std::move(body);
      continue;  // the body's lines stay in lines_: a literal call inside still counts
    }
    std::size_t eq = line.find('=');
    if (eq == std::string_view::npos || !is_name(line.substr(0, eq))) continue;
    std::string name(line.substr(0, eq));
    std::string value(line.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    // A value made of literal text and earlier literal variables
    // (basedir=/usr/share/vim/$vimcur/doc) is literal too.
    if (has_special(value) && value.find('$') != std::string::npos) {
      std::string expanded;
      bool ok = true;
      for (std::size_t k = 0; ok && k < value.size(); ++k) {
        if (value[k] != '$') {
          expanded += value[k];
          continue;
        }
        bool braced = k + 1 < value.size() && value[k + 1] == '{';
        std::size_t start = k + (braced ? 2 : 1), n = 0;
        while (start + n < value.size() && is_name_char(value[start + n], n == 0)) ++n;
        std::string ref = value.substr(start, n);
        if (n == 0 || (braced && (start + n >= value.size() || value[start + n] != '}')) || ambiguous.contains(ref) ||
            !globals_.contains(ref)) {
          ok = false;
          break;
        }
        expanded += globals_.at(ref);
        k = start + n - (braced ? 0 : 1);
      }
      if (ok) value = expanded;
    }
    if (has_special(value) || value.find_first_of(" \t") != std::string::npos) {
      ambiguous.insert(name);
      continue;
    }
    auto [it, fresh] = globals_.emplace(name, value);
    if (!fresh && it->second != value) ambiguous.insert(name);
  }
  for (const auto& n : ambiguous) globals_.erase(n);
}

std::optional<std::string> ScriptExpander::variable(std::string_view name, const Vars& vars) const {
  if (auto it = vars.find(std::string(name)); it != vars.end()) return it->second;
  if (auto it = globals_.find(std::string(name)); it != globals_.end()) return it->second;
  return std::nullopt;
}

std::optional<std::vector<std::string>> ScriptExpander::words(std::string_view text, const Vars& vars, int depth,
                                                              Budget& budget, Mode mode) const {
  const bool lenient = mode == Mode::kLenient;
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  auto end_word = [&] {
    if (have) out.push_back(std::move(cur));
    cur.clear();
    have = false;
  };
  // Unquoted expansions are split into fields at blanks, as sh does.
  auto add = [&](std::string_view value, bool split) {
    have = have || !split;
    for (char v : value) {
      if (split && (v == ' ' || v == '\t' || v == '\n')) {
        end_word();
      } else {
        cur += v;
        have = true;
      }
    }
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote == '\'') {
      if (c == '\'') quote = 0;
      else cur += c;
      continue;
    }
    if (c == '$') {
      // The expansion's extent, then its value when it has one.
      std::string_view rest = text.substr(i + 1);
      std::size_t end = i + 1;  // one past the expansion
      std::optional<std::string> value;
      bool command = false;
      if (rest.starts_with('(') && !rest.starts_with("((")) {
        std::size_t close = closing_paren(text, i + 2);
        if (close != std::string_view::npos) {
          end = close + 1;
          command = true;
          Vars inner = vars;
          value = run(text.substr(i + 2, close - i - 2), inner, depth + 1, budget);
          while (value && !value->empty() && value->back() == '\n') value->pop_back();
        }
      } else if (rest.starts_with('{')) {
        std::size_t close = rest.find('}');
        if (close != std::string_view::npos) {
          end = i + 2 + close;
          value = variable(rest.substr(1, close - 1), vars);
        }
      } else if (!rest.empty() && rest[0] >= '1' && rest[0] <= '9') {
        end = i + 2;
        value = variable(rest.substr(0, 1), vars);
      } else {
        std::size_t n = 0;
        while (n < rest.size() && is_name_char(rest[n], n == 0)) ++n;
        end = i + 1 + n;
        if (n > 0) value = variable(rest.substr(0, n), vars);  // else $?, $@, $#, $((…)): none
      }
      // A lenient caller keeps what it cannot evaluate as written; so it
      // does with output it could not pass on as plain words.
      if (value && !(lenient && command && has_special(*value))) {
        add(*value, quote == 0);
      } else if (lenient) {
        cur += text.substr(i, end - i);
        have = true;
      } else {
        return std::nullopt;
      }
      i = end - 1;
      continue;
    }
    if (quote == '"') {
      if (c == '"') quote = 0;
      else if (c == '\\' && i + 1 < text.size() && std::string_view("$`\"\\").find(text[i + 1]) != std::string_view::npos)
        cur += text[++i];
      else if (c == '`' && !lenient) return std::nullopt;
      else cur += c;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      have = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      end_word();
    } else if (c == '\\' && i + 1 < text.size()) {
      cur += text[++i];
      have = true;
    } else if (lenient && (c == ';' || c == '&' || c == '|')) {
      end_word();
      out.emplace_back(1, c);  // a command separator
    } else if (!lenient && std::string_view("`;|&<>(){}").find(c) != std::string_view::npos) {
      return std::nullopt;  // more than a simple command
    } else {
      cur += c;
      have = true;
    }
  }
  if (quote && !lenient) return std::nullopt;
  end_word();
  return out;
}

std::vector<std::string> ScriptExpander::command_words(std::string_view line) const {
  Budget budget;
  return words(line, {}, 0, budget, Mode::kLenient).value_or(std::vector<std::string>{});
}

std::vector<std::vector<std::string>> ScriptExpander::unrolled_commands() const {
  // Function bodies are left out (a literal call's commands are call_words').
  std::string top;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    std::string_view line = str::trim(lines_[i]);
    if (auto name = function_name(line)) {
      std::string_view rest = str::trim(line.substr(line.find("()") + 2));
      if (rest.starts_with('{') && rest.ends_with('}')) continue;
      while (i < lines_.size() && str::trim(lines_[i]) != "}") ++i;
      continue;
    }
    top += lines_[i] + "\n";
  }
  std::vector<std::vector<std::string>> out;
  Vars vars;
  Budget budget;
  unroll(commands_of(top), vars, 0, budget, out);
  return out;
}

void ScriptExpander::unroll(const std::vector<std::string>& cmds, Vars& vars, int depth, Budget& budget,
                            std::vector<std::vector<std::string>>& out) const {
  if (depth > kMaxDepth) return;
  for (std::size_t k = 0; k < cmds.size(); ++k) {
    std::string_view cmd = cmds[k];
    if (--budget.steps < 0 || out.size() > kMaxOutput / 64) return;
    if (cmd.empty() || cmd.starts_with('#')) continue;
    if (cmd.starts_with("for ")) {
      // for NAME in WORDS; do BODY; done — the body up to its own `done`.
      auto head = words(cmd.substr(4), vars, depth, budget, Mode::kLenient);
      std::vector<std::string> body;
      int nested = 0;
      std::size_t j = k + 1;
      std::vector<std::string> rest(cmds.begin() + static_cast<long>(j), cmds.end());
      if (!rest.empty() && rest.front().starts_with("do ")) rest.front() = rest.front().substr(3);
      else if (!rest.empty() && rest.front() == "do") rest.erase(rest.begin());
      else rest.clear();
      std::size_t used = 0;
      bool closed = false;
      for (; used < rest.size(); ++used) {
        if (rest[used].starts_with("for ") || rest[used].starts_with("while ")) ++nested;
        if (rest[used] == "done" && nested-- == 0) {
          closed = true;
          break;
        }
        body.push_back(rest[used]);
      }
      bool readable = closed && head && head->size() >= 2 && is_name((*head)[0]) && (*head)[1] == "in";
      if (!readable) {
        out.push_back(command_words(cmd));  // the head as written; its body is walked as it stands
        continue;
      }
      for (std::size_t w = 2; w < head->size(); ++w) {
        vars[(*head)[0]] = (*head)[w];
        unroll(body, vars, depth + 1, budget, out);
      }
      k = j + used + (cmds[j] == "do" ? 1 : 0);
      continue;
    }
    auto w = words(cmd, vars, depth, budget, Mode::kLenient);
    if (!w || w->empty()) continue;
    bool assignments = std::all_of(w->begin(), w->end(), [](const std::string& a) {
      std::size_t eq = a.find('=');
      return eq != std::string::npos && eq > 0 && is_name(std::string_view(a).substr(0, eq));
    });
    if (assignments) {
      for (const auto& a : *w) {
        std::size_t eq = a.find('=');
        std::string value = a.substr(eq + 1);
        if (value.find('$') == std::string::npos && value.find('`') == std::string::npos)
          vars[a.substr(0, eq)] = value;
        else
          vars.erase(a.substr(0, eq));
      }
      continue;
    }
    out.push_back(std::move(*w));
  }
}

std::vector<std::vector<std::string>> ScriptExpander::call_words(const std::vector<std::string>& call) const {
  std::vector<std::vector<std::string>> out;
  if (call.empty()) return out;
  auto f = functions_.find(call[0]);
  if (f == functions_.end()) return out;
  Vars vars;
  for (std::size_t a = 1; a < call.size() && a <= 9; ++a) vars[std::to_string(a)] = call[a];
  Budget budget;
  for (const auto& cmd : commands_of(f->second)) {
    if (cmd.empty() || cmd.starts_with('#')) continue;
    if (auto w = words(cmd, vars, 0, budget, Mode::kLenient); w && !w->empty()) out.push_back(std::move(*w));
  }
  return out;
}

std::optional<std::string> ScriptExpander::run(std::string_view body, Vars& vars, int depth, Budget& budget) const {
  if (depth > kMaxDepth) return std::nullopt;
  std::vector<std::string> cmds = commands_of(body);
  std::string output;
  for (std::size_t k = 0; k < cmds.size(); ++k) {
    std::string_view cmd = cmds[k];
    if (--budget.steps < 0) return std::nullopt;
    if (cmd.empty() || cmd.starts_with('#') || cmd == "true" || cmd == ":") continue;
    if (cmd.starts_with("for ")) {
      // for NAME in WORDS; do BODY; done
      auto head = words(cmd.substr(4), vars, depth, budget, Mode::kStrict);
      if (!head || head->size() < 2 || !is_name((*head)[0]) || (*head)[1] != "in") return std::nullopt;
      std::string loop_body;
      int nested = 0;
      std::size_t j = k + 1;
      if (j < cmds.size() && cmds[j] == "do") ++j;
      else if (j < cmds.size() && cmds[j].starts_with("do ")) cmds[j] = cmds[j].substr(3);
      else return std::nullopt;
      for (; j < cmds.size(); ++j) {
        if (cmds[j].starts_with("for ")) ++nested;
        if (cmds[j] == "done" && nested-- == 0) break;
        loop_body += cmds[j] + "\n";
      }
      if (j == cmds.size()) return std::nullopt;
      for (std::size_t w = 2; w < head->size(); ++w) {
        vars[(*head)[0]] = (*head)[w];
        auto out = run(loop_body, vars, depth + 1, budget);
        if (!out) return std::nullopt;
        output += *out;
      }
      k = j;
    } else {
      auto w = words(cmd, vars, depth, budget, Mode::kStrict);
      if (!w || w->empty()) return std::nullopt;
      std::size_t first = (*w)[0] == "local" ? 1 : 0;
      bool assignments = true;
      for (std::size_t a = first; a < w->size(); ++a) {
        std::size_t eq = (*w)[a].find('=');
        if (eq == std::string::npos || !is_name(std::string_view((*w)[a]).substr(0, eq))) assignments = false;
      }
      if (assignments) {
        for (std::size_t a = first; a < w->size(); ++a) {
          std::size_t eq = (*w)[a].find('=');
          vars[(*w)[a].substr(0, eq)] = (*w)[a].substr(eq + 1);
        }
      } else if ((*w)[0] == "echo") {
        bool newline = !(w->size() > 1 && (*w)[1] == "-n");
        std::vector<std::string> args(w->begin() + (newline ? 1 : 2), w->end());
        output += str::join(args, " ") + (newline ? "\n" : "");
      } else if (auto f = functions_.find((*w)[0]); f != functions_.end()) {
        Vars call = vars;
        for (int n = 1; n <= 9; ++n) call.erase(std::to_string(n));
        for (std::size_t a = 1; a < w->size() && a <= 9; ++a) call[std::to_string(a)] = (*w)[a];
        auto out = run(f->second, call, depth + 1, budget);
        if (!out) return std::nullopt;
        output += *out;
      } else {
        return std::nullopt;  // a command we do not evaluate
      }
    }
    if (output.size() > kMaxOutput) return std::nullopt;
  }
  return output;
}

}  // namespace strata::layer
