#include "layer/apt/signature.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "util/fs.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace strata::layer {

namespace {

namespace stdfs = std::filesystem;

// A private temporary directory removed on destruction.
class TempDir {
 public:
  static Result<TempDir> create() {
    STRATA_TRY(auto base, fs::temp_dir());
    std::string tmpl = (base / "strata-gpgv-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) return std::unexpected(fs::io_error("creating temp dir", tmpl, errno));
    return TempDir(tmpl);
  }
  TempDir(TempDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) stdfs::remove_all(path_, ec);
  }
  const stdfs::path& path() const { return path_; }

 private:
  explicit TempDir(stdfs::path p) : path_(std::move(p)) {}
  stdfs::path path_;
};

int b64(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool is_armored(std::string_view data) { return data.find("-----BEGIN PGP") != std::string_view::npos; }

struct GpgvResult {
  int exit_code = -1;
  std::string status;
  std::string output;
};

Result<GpgvResult> run_gpgv(const TempDir& dir, const std::vector<std::string>& args) {
  stdfs::path status_path = dir.path() / "status";
  std::vector<std::string> argv{"gpgv", "--status-fd", "3"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  int status_fd = ::open(status_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (status_fd < 0) return std::unexpected(fs::io_error("creating", status_path, errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, status_fd, 3);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, "gpgv", &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(status_fd);
  if (rc != 0) {
    return fail(ErrorCode::kFailedPrecondition,
                "cannot run gpgv (" + std::string(std::strerror(rc)) + "); install the gpgv package");
  }
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) return std::unexpected(fs::io_error("waiting for gpgv", "gpgv", errno));
  }
  GpgvResult r;
  r.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  STRATA_TRY(r.status, fs::read_file(status_path, 1 << 20));
  return r;
}

// Writes every trusted key as a binary keyring file gpgv can read.
Result<std::vector<std::string>> keyring_args(const TempDir& dir, const TrustedKeys& keys, std::string_view what) {
  std::vector<std::string> args;
  int n = 0;
  auto add_binary = [&](std::string bytes) -> Result<void> {
    stdfs::path p = dir.path() / ("keyring-" + std::to_string(n++) + ".gpg");
    STRATA_TRY_VOID(fs::write_file_atomic(p, bytes, 0600));
    args.push_back("--keyring");
    args.push_back(p.string());
    return {};
  };
  for (const auto& path : keys.keyrings) {
    STRATA_TRY(std::string bytes, fs::read_file(path, 64 << 20));
    if (is_armored(bytes)) {
      STRATA_TRY(std::string bin, dearmor(bytes, path.string()));
      STRATA_TRY_VOID(add_binary(std::move(bin)));
    } else {
      STRATA_TRY_VOID(add_binary(std::move(bytes)));
    }
  }
  for (const auto& armored : keys.armored_keys) {
    STRATA_TRY(std::string bin, dearmor(armored, std::string(what) + " Signed-By key"));
    STRATA_TRY_VOID(add_binary(std::move(bin)));
  }
  if (args.empty()) {
    return fail(ErrorCode::kFailedPrecondition,
                std::string(what) + ": no keyring to verify it with; set Signed-By on the source");
  }
  return args;
}

bool fingerprint_allowed(const TrustedKeys& keys, std::string_view signing, std::string_view primary) {
  if (keys.fingerprints.empty()) return true;
  for (std::string f : keys.fingerprints) {
    bool exact = !f.empty() && f.back() == '!';
    if (exact) f.pop_back();
    f = str::lower(f);
    if (str::lower(signing) == f) return true;
    if (!exact && str::lower(primary) == f) return true;
  }
  return false;
}

Result<VerifiedText> interpret(const GpgvResult& r, const TrustedKeys& keys, std::string_view what, std::string content) {
  std::string accepted;
  std::vector<std::string> problems;
  for (std::string_view line : str::split(r.status, '\n')) {
    auto w = str::split_ws(line);
    if (w.size() < 2 || w[0] != "[GNUPG:]") continue;
    if (w[1] == "BADSIG") {
      return fail(ErrorCode::kFailedPrecondition,
                  std::string(what) + ": BAD signature (the file was modified or corrupted in transit); "
                                      "nothing from this source is trusted");
    }
    if (w[1] == "VALIDSIG" && w.size() >= 3) {
      std::string_view signing = w[2];
      std::string_view primary = w.back();
      if (fingerprint_allowed(keys, signing, primary)) accepted = std::string(primary);
      else problems.push_back("signed by " + std::string(primary) + ", which " + keys.trust + " does not allow");
    }
    if (w[1] == "NO_PUBKEY" && w.size() >= 3) problems.push_back("signed by unknown key " + std::string(w[2]));
    if ((w[1] == "EXPKEYSIG" || w[1] == "REVKEYSIG") && w.size() >= 3)
      problems.push_back("signed by expired or revoked key " + std::string(w[2]));
  }
  if (accepted.empty()) {
    std::string why = problems.empty() ? "no valid signature" : str::join(problems, "; ");
    return fail(ErrorCode::kFailedPrecondition,
                std::string(what) + ": not signed by a trusted key (" + why + "); " + keys.next_step);
  }
  return VerifiedText{std::move(content), accepted};
}

}  // namespace

Result<std::string> dearmor(std::string_view armored, std::string_view what) {
  std::size_t begin = armored.find("-----BEGIN PGP");
  if (begin == std::string_view::npos) return fail(ErrorCode::kInvalidArgument, std::string(what) + ": not an armored OpenPGP block");
  std::size_t body = armored.find("\n\n", begin);
  std::size_t end = armored.find("-----END PGP", begin);
  if (body == std::string_view::npos || end == std::string_view::npos || body > end)
    return fail(ErrorCode::kInvalidArgument, std::string(what) + ": malformed armored OpenPGP block");
  std::string out;
  unsigned acc = 0;
  int bits = 0;
  for (std::string_view line : str::split(armored.substr(body + 2, end - body - 2), '\n')) {
    line = str::trim(line);
    if (line.empty() || line[0] == '=') continue;  // the CRC24 line
    for (char c : line) {
      if (c == '=') break;
      int v = b64(c);
      if (v < 0) return fail(ErrorCode::kInvalidArgument, std::string(what) + ": invalid base64 in armored key");
      acc = (acc << 6) | static_cast<unsigned>(v);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out.push_back(static_cast<char>((acc >> bits) & 0xff));
      }
    }
  }
  if (out.empty()) return fail(ErrorCode::kInvalidArgument, std::string(what) + ": empty armored OpenPGP block");
  return out;
}

Result<VerifiedText> verify_clearsigned(std::string_view inrelease, const TrustedKeys& keys, std::string_view what) {
  if (inrelease.rfind("-----BEGIN PGP SIGNED MESSAGE-----", 0) != 0) {
    return fail(ErrorCode::kFailedPrecondition,
                std::string(what) + ": not a clearsigned file (unsigned or corrupted); nothing from this source is trusted");
  }
  STRATA_TRY(TempDir dir, TempDir::create());
  STRATA_TRY(auto args, keyring_args(dir, keys, what));
  stdfs::path in = dir.path() / "InRelease";
  stdfs::path out = dir.path() / "content";
  STRATA_TRY_VOID(fs::write_file_atomic(in, inrelease, 0600));
  args.push_back("--output");
  args.push_back(out.string());
  args.push_back(in.string());
  STRATA_TRY(GpgvResult r, run_gpgv(dir, args));
  std::string content;
  if (std::error_code ec; stdfs::exists(out, ec)) {
    STRATA_TRY(content, fs::read_file(out, 256 << 20));
  }
  STRATA_TRY(VerifiedText v, interpret(r, keys, what, std::move(content)));
  if (r.exit_code != 0 && v.content.empty())
    return fail(ErrorCode::kFailedPrecondition, std::string(what) + ": gpgv could not extract the signed text");
  return v;
}

Result<VerifiedText> verify_detached(std::string_view release, std::string_view signature, const TrustedKeys& keys,
                                     std::string_view what) {
  STRATA_TRY(TempDir dir, TempDir::create());
  STRATA_TRY(auto args, keyring_args(dir, keys, what));
  stdfs::path data = dir.path() / "Release";
  stdfs::path sig = dir.path() / "Release.gpg";
  STRATA_TRY_VOID(fs::write_file_atomic(data, release, 0600));
  STRATA_TRY_VOID(fs::write_file_atomic(sig, signature, 0600));
  args.push_back(sig.string());
  args.push_back(data.string());
  STRATA_TRY(GpgvResult r, run_gpgv(dir, args));
  return interpret(r, keys, what, std::string(release));
}

Result<VerifiedText> verify_detached_file(const stdfs::path& data, std::string_view signature, const TrustedKeys& keys,
                                          std::string_view what) {
  STRATA_TRY(TempDir dir, TempDir::create());
  STRATA_TRY(auto args, keyring_args(dir, keys, what));
  stdfs::path sig = dir.path() / "signature";
  STRATA_TRY_VOID(fs::write_file_atomic(sig, signature, 0600));
  args.push_back(sig.string());
  args.push_back(data.string());
  STRATA_TRY(GpgvResult r, run_gpgv(dir, args));
  return interpret(r, keys, what, std::string());
}

}  // namespace strata::layer
