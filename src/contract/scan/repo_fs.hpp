// RepoFs: read-only, defensive access to the repository being scanned.
//
// Every file a scanner reads goes through here so the robustness rules hold in
// one place: paths are repo-relative; a symlink whose target leaves the root is
// not followed; files over the size limit and binary files are skipped; a
// UTF-8 BOM is stripped and UTF-16 is reported instead of guessed. Each skip
// becomes a note (or a warning) with the file name — never a silent gap. The
// walk indexes interesting file names once and never descends into
// dependency or VCS directories. Not thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contract/model/contract.hpp"

namespace strata::contract {

struct RepoLimits {
  std::uint64_t max_manifest_bytes = 8ull << 20;   // package.json, pyproject.toml, …
  std::uint64_t max_lockfile_bytes = 256ull << 20; // lockfiles are streamed or read once
  std::size_t max_walk_entries = 400000;           // directory entries visited
  int max_depth = 12;
  std::size_t max_go_files = 20000;                // files inspected for import "C"
  std::size_t max_source_files = 5000;             // source files read for executed programs
  std::uint64_t max_source_bytes = 1ull << 20;     // larger source files are generated or bundled
};

class RepoFs {
 public:
  RepoFs(std::filesystem::path root, RepoLimits limits);

  // Indexes the tree. `interesting(name)` says which file names to remember.
  void walk(const std::function<bool(std::string_view name)>& interesting);

  // Repo-relative paths (with '/' separators) of indexed files called `name`,
  // sorted; "package.json" is the root one, "a/b/package.json" a nested one.
  std::vector<std::string> files_named(std::string_view name) const;
  // Indexed files whose name ends with `suffix` (e.g. ".go"), sorted.
  std::vector<std::string> files_ending(std::string_view suffix) const;

  // True when `rel` is a regular file inside the repository (after symlinks).
  bool is_file(std::string_view rel) const;
  bool is_dir(std::string_view rel) const;
  std::vector<std::string> list_dir(std::string_view rel) const;

  // The file's text, or nullopt with a note/warning recorded. `limit` 0 means
  // the manifest limit.
  std::optional<std::string> read_text(std::string_view rel, std::uint64_t limit = 0);
  // Resolved absolute path for streaming readers, after the same checks as
  // read_text (size against `limit`); nullopt with a note otherwise.
  std::optional<std::filesystem::path> open_path(std::string_view rel, std::uint64_t limit);

  const RepoLimits& limits() const { return limits_; }
  const std::filesystem::path& root() const { return root_; }

  void warn(std::string file, std::string message);
  void note(std::string file, std::string message);
  std::vector<Diagnostic> take_warnings() { return std::move(warnings_); }
  std::vector<Diagnostic> take_notes() { return std::move(notes_); }

 private:
  std::optional<std::filesystem::path> resolve(std::string_view rel, bool report) ;

  std::filesystem::path root_;  // canonical
  RepoLimits limits_;
  std::map<std::string, std::vector<std::string>, std::less<>> by_name_;
  std::vector<Diagnostic> warnings_;
  std::vector<Diagnostic> notes_;
};

// Directories the walk never enters: dependency trees, VCS data, build output.
bool skipped_directory(std::string_view name);

// The directory part of a repo-relative path ("a/b/package.json" → "a/b", "x" → ".").
std::string dir_of(std::string_view rel);
// Joins a repo-relative directory and a name ("." + "x" → "x").
std::string join_rel(std::string_view dir, std::string_view name);
// A path relative to a repo-relative directory with "." and ".." resolved
// ("a/b" + "../c/./d" → "a/c/d"; "." for the root itself); nullopt when it
// leaves the repository.
std::optional<std::string> resolve_rel(std::string_view dir, std::string_view path);

}  // namespace strata::contract
