// Reviewed expectations for the programs an application executes
// (src/contract/scan/program_scanner.cpp): each fixture's calls were read by hand;
// the Debian package of each program is the one that ships it in Debian 12.
// What must not count — tests, vendored code, build scripts, tooling,
// comments, a program held in a variable, RegExp.exec, a *_PATH default that
// is a file — is in the same fixtures.
#include "contract/scan/shell_words.hpp"
#include "fixture_support.hpp"

namespace strata::contract::testing {
namespace {

// The evidence of run package `pkg` names `file` at `line`.
bool run_evidence(const Contract& c, const std::string& pkg, const std::string& file, int line) {
  const SystemLib* l = lib(c.run_libs, pkg);
  if (!l) return false;
  return std::any_of(l->evidence.begin(), l->evidence.end(), [&](const Evidence& e) {
    return e.file == file && e.field == "line " + std::to_string(line);
  });
}

TEST(ExecutedPrograms, GoLiteralsAndSameFileConstants) {
  Contract c = scan_fixture("go-exec-programs");
  EXPECT_TRUE(required_by(c.run_libs, "ffmpeg", "exec:ffmpeg"));
  EXPECT_TRUE(run_evidence(c, "ffmpeg", "internal/media/transcode.go", 13));
  // exec.CommandContext(ctx,\n "mpv", …): the program is the second argument, on the next line.
  EXPECT_TRUE(run_evidence(c, "mpv", "internal/media/transcode.go", 18));
  // exec.LookPath(GitExecutable) with GitExecutable = "git" in the same file.
  EXPECT_TRUE(run_evidence(c, "git", "internal/vcs/git.go", 14));
  EXPECT_EQ(lib(c.run_libs, "sox"), nullptr);             // a commented-out call
  EXPECT_EQ(lib(c.run_libs, "gnupg"), nullptr);           // only a _test.go runs gpg
  EXPECT_EQ(lib(c.run_libs, "rsync"), nullptr);           // vendored code
  EXPECT_EQ(lib(c.run_libs, "curl"), nullptr);            // developer tooling under tools/
  EXPECT_TRUE(noted(c, ".", "frobnicate-thumbs (internal/media/transcode.go:31)"));
  // Running programs needs no compiler.
  EXPECT_FALSE(c.native_build_required);
  EXPECT_TRUE(c.build_libs.empty());
}

TEST(ExecutedPrograms, PythonSubprocessWhichAndBinaryDefaults) {
  Contract c = scan_fixture("python-exec-programs");
  EXPECT_TRUE(run_evidence(c, "imagemagick", "archive/settings.py", 4));  // os.getenv("…_CONVERT_BINARY", "convert")
  EXPECT_TRUE(run_evidence(c, "ghostscript", "archive/settings.py", 5));
  EXPECT_TRUE(run_evidence(c, "tesseract-ocr", "archive/ocr.py", 6));     // subprocess.run(\n ["tesseract", …
  EXPECT_TRUE(required_by(c.run_libs, "unpaper", "exec:unpaper"));        // shutil.which
  EXPECT_TRUE(required_by(c.run_libs, "poppler-utils", "exec:pdfinfo"));   // an absolute path
  EXPECT_TRUE(required_by(c.run_libs, "pngquant", "exec:pngquant"));       // a shell command in an f-string
  EXPECT_EQ(lib(c.run_libs, "qpdf"), nullptr);  // commented out
  EXPECT_EQ(lib(c.run_libs, "git"), nullptr);   // setup.py runs at build time
  // ARCHIVE_TIMEZONE's default is not a program variable; the test's jbig2 is not the app's.
  const SystemLib* im = lib(c.run_libs, "imagemagick");
  ASSERT_NE(im, nullptr);
  EXPECT_EQ(im->evidence.size(), 1u);
  EXPECT_FALSE(noted(c, ".", "jbig2"));
  EXPECT_FALSE(noted(c, ".", "media"));
}

TEST(ExecutedPrograms, NodeChildProcessOnly) {
  Contract c = scan_fixture("node-exec-programs");
  EXPECT_TRUE(run_evidence(c, "apprise", "server/notify/apprise.js", 4));  // promisify-child-process spawn
  EXPECT_TRUE(run_evidence(c, "iputils-ping", "server/util/ping.ts", 5));
  EXPECT_TRUE(run_evidence(c, "sqlite3", "server/util/ping.ts", 10));      // exec(`sqlite3 ${db} …`)
  // src/parse.js has no child_process: version.exec("ping") is a RegExp; vite.config.js is build tooling.
  const SystemLib* ping = lib(c.run_libs, "iputils-ping");
  ASSERT_NE(ping, nullptr);
  EXPECT_EQ(ping->evidence.size(), 1u);
  EXPECT_EQ(lib(c.run_libs, "git"), nullptr);
  EXPECT_EQ(egress(c, "nodejs.org"), nullptr);
}

TEST(ExecutedPrograms, RustCommandNewAndWhich) {
  Contract c = scan_fixture("rust-exec-programs");
  EXPECT_TRUE(run_evidence(c, "postgresql-client", "src/main.rs", 6));  // Command::new(DUMP), const DUMP = "pg_dump"
  EXPECT_TRUE(run_evidence(c, "rsync", "src/main.rs", 10));             // which::which("rsync")
  EXPECT_EQ(lib(c.run_libs, "git"), nullptr);                           // build.rs runs at build time
}

// The program of a command past shell keywords and the prefixes that run the
// next word, with their options' values: how CI waits for its services.
TEST(ShellWords, TheProgramPastKeywordsAndPrefixes) {
  auto programs = [](std::string_view line) {
    std::vector<std::string> out;
    for (const auto& c : shell_commands_of(line))
      if (c.program()) out.push_back(*c.program());
    return out;
  };
  EXPECT_EQ(programs("until pg_isready -h localhost; do sleep 1; done"),
            (std::vector<std::string>{"pg_isready", "sleep", "done"}));
  EXPECT_EQ(programs("if ! mysqladmin ping; then exit 1; fi"), (std::vector<std::string>{"mysqladmin", "exit", "fi"}));
  EXPECT_EQ(programs("sudo -u postgres psql -c 1"), (std::vector<std::string>{"psql"}));
  EXPECT_EQ(programs("timeout -s KILL 30 sqlite3 db"), (std::vector<std::string>{"sqlite3"}));
  EXPECT_EQ(programs("nice -n 10 make -j2"), (std::vector<std::string>{"make"}));
  EXPECT_EQ(programs("while ! redis-cli ping; do sleep 1; done"),
            (std::vector<std::string>{"redis-cli", "sleep", "done"}));
  // A command substitution in double quotes runs; the quoted text around it does not.
  EXPECT_EQ(programs("echo \"$(/sbin/ip route | awk '/default/ { print $3 }') psql\" >> /etc/hosts"),
            (std::vector<std::string>{"/sbin/ip", "awk", "echo"}));
  EXPECT_EQ(programs("echo \"psql is not run\""), (std::vector<std::string>{"echo"}));
}

}  // namespace
}  // namespace strata::contract::testing
