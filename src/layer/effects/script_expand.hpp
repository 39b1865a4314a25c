// Reading the arguments a maintainer script computes, without running it:
// the small part of sh Debian's scripts use to build update-alternatives
// calls. xz-utils, for one, writes
//
//   slave () { dir=$1 filename=$2 target=$3; echo "--slave $dir/$filename $filename $dir/$target"; }
//   update-alternatives --install /usr/bin/lzma lzma /usr/bin/xz 20 $(
//     slave /usr/share/man/man1 lzma.1.gz xz.1.gz
//     for util in cat more less; do slave /usr/bin lz$util xz$util; done)
//
// ScriptExpander collects the script's functions and its top-level
// assignments of literal values. Its logical lines join backslash
// continuations and the lines of an open `$(`. command_words() splits one
// line into words as sh would, substituting each `$NAME`, `${NAME}` and
// `$( … )` it can evaluate: a substitution body may hold only echo, calls of
// the script's functions (positional parameters, assignments, echo),
// assignments and for-loops over words. What it cannot evaluate (other
// commands, arithmetic, backquotes, conditionals, unknown variables) is kept
// as written, so the caller sees a `$` and reports the call as not
// reproduced. Nothing is executed; depth, steps and output are bounded.
// Pure; thread-safe after construction.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::layer {

class ScriptExpander {
 public:
  explicit ScriptExpander(std::string_view script);

  // The script's commands outside function definitions, a logical line
  // each; comment lines dropped.
  const std::vector<std::string>& lines() const { return lines_; }
  // The words of one logical line, quotes removed, what can be evaluated
  // substituted (split into fields when unquoted); `;`, `&` and `|` are words
  // of their own, so the caller can find where a command ends.
  std::vector<std::string> command_words(std::string_view line) const;
  // Every command of the script outside function definitions, as
  // command_words splits it, with its for-loops unrolled: a loop's body once
  // per word, the loop variable and the body's assignments substituted
  //   for dsoname in intl gd; do inifile=${dsoname}.ini; ucf /usr/share/x/${inifile} …; done
  // gives the ucf command twice, with intl.ini and gd.ini. Conditionals are
  // not evaluated (their commands are all listed); bounded like the rest.
  std::vector<std::vector<std::string>> unrolled_commands() const;
  // A call of one of the script's functions (`words` as command_words gave
  // them, the function's name first): the command words of each command of
  // its body, $1…$9 set to the call's arguments. Empty when words[0] names
  // no function.
  std::vector<std::vector<std::string>> call_words(const std::vector<std::string>& words) const;

 private:
  using Vars = std::map<std::string, std::string>;
  // Commands left to evaluate before giving up (nested loops multiply).
  struct Budget {
    long steps = 100000;
  };
  std::optional<std::string> run(std::string_view body, Vars& vars, int depth, Budget& budget) const;
  void unroll(const std::vector<std::string>& cmds, Vars& vars, int depth, Budget& budget,
              std::vector<std::vector<std::string>>& out) const;
  // kStrict (inside a substitution): nullopt for anything not evaluated.
  // kLenient (a script line): that is kept as written instead.
  enum class Mode { kStrict, kLenient };
  std::optional<std::vector<std::string>> words(std::string_view text, const Vars& vars, int depth, Budget& budget,
                                                Mode mode) const;
  std::optional<std::string> variable(std::string_view name, const Vars& vars) const;

  std::vector<std::string> lines_;
  std::map<std::string, std::string> functions_;  // name → body
  Vars globals_;                                  // literal top-level assignments, each made once
};

}  // namespace strata::layer
