// OpenPGP verification of archive Release files with gpgv, as apt does: the
// signed bytes are accepted when at least one signature is valid and made by
// a key the source trusts (Signed-By keyrings, optionally restricted to
// fingerprints); a bad signature is always an error.
//
// gpgv runs as a subprocess in a private temporary directory; nothing is
// executed from the archive. Thread-safe (no shared state).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace strata::layer {

// What a source's Signed-By says, resolved to keyring files.
struct TrustedKeys {
  std::vector<std::filesystem::path> keyrings;  // binary (.gpg) or armored (.asc) key files
  std::vector<std::string> armored_keys;        // inline key blocks (deb822 Signed-By)
  std::vector<std::string> fingerprints;        // if non-empty, only these keys count
  // Who decides which keys count, and the next step when none does, for
  // messages: apt's Signed-By by default; a toolchain's release keys.
  std::string trust = "Signed-By";
  std::string next_step = "check the source's Signed-By keyring";
};

struct VerifiedText {
  std::string content;      // the signed bytes, as gpgv extracted them
  std::string fingerprint;  // primary key fingerprint of the accepted signature
};

// Verifies a clearsigned InRelease. `what` names the file in errors.
Result<VerifiedText> verify_clearsigned(std::string_view inrelease, const TrustedKeys& keys, std::string_view what);

// Verifies Release against its detached Release.gpg.
Result<VerifiedText> verify_detached(std::string_view release, std::string_view signature, const TrustedKeys& keys,
                                     std::string_view what);

// Verifies a file on disk (a release archive of any size) against its
// detached signature; the file is handed to gpgv by path, never read into
// memory. VerifiedText::content stays empty.
Result<VerifiedText> verify_detached_file(const std::filesystem::path& data, std::string_view signature,
                                          const TrustedKeys& keys, std::string_view what);

// Decodes an ASCII-armored OpenPGP block to binary packets.
Result<std::string> dearmor(std::string_view armored, std::string_view what);

}  // namespace strata::layer
