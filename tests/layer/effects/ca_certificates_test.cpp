// update-ca-certificates reproduced (layer/effects/ca_certificates.hpp),
// checked against the real thing: certificates made with openssl at test
// time, the host's own /usr/sbin/update-ca-certificates run on them in a
// temporary tree (its --certsconf/--certsdir/--localcertsdir/--etccertsdir
// options, no hooks), and the two /etc/ssl/certs compared name for name,
// link for link, and the bundles byte for byte. Hostile input: a file that
// is not a certificate, two in one file, an oversize one, one too large to
// have been read.
#include <gtest/gtest.h>

#include <fstream>

#include "layer/deb/rewrite_rules.hpp"
#include "layer/effects/ca_certificates.hpp"
#include "support/run.hpp"
#include "support/temp_dir.hpp"

namespace strata::layer {
namespace {

namespace fs = std::filesystem;
using testing::run;
using testing::slurp;
using testing::TempDir;

std::string make_cert(const TempDir& t, const std::string& cn) {
  static int n = 0;
  fs::path out = t / ("cert-" + std::to_string(++n) + ".pem");
  auto r = run({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                "/dev/null", "-subj", "/CN=" + cn, "-days", "2", "-out", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  return slurp(out);
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// The real tool's /etc/ssl/certs, its links' targets mapped back to the
// standard directories, and its bundle.
struct RealRun {
  std::map<std::string, CertsDirEntry> dir;
  std::optional<std::string> bundle;
};

bool have_real_tool() { return fs::exists("/usr/sbin/update-ca-certificates") && run({"openssl", "version"}).code == 0; }

RealRun run_real(const fs::path& root) {
  auto r = run({"/usr/sbin/update-ca-certificates", "--certsconf", (root / "conf").string(), "--certsdir",
                (root / "share").string(), "--localcertsdir", (root / "local").string(), "--etccertsdir",
                (root / "certs").string(), "--hooksdir", ""});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  RealRun out;
  for (const auto& e : fs::directory_iterator(root / "certs")) {
    std::string name = e.path().filename().string();
    if (e.is_symlink()) {
      std::string t = fs::read_symlink(e.path()).string();
      for (auto [from, to] : {std::pair{(root / "share").string(), std::string("/usr/share/ca-certificates")},
                              std::pair{(root / "local").string(), std::string("/usr/local/share/ca-certificates")}}) {
        if (t.starts_with(from)) t = to + t.substr(from.size());
      }
      out.dir[name] = CertsDirEntry{true, t};
    } else {
      out.dir[name] = CertsDirEntry{false, ""};
    }
  }
  if (fs::exists(root / "certs/ca-certificates.crt")) out.bundle = slurp(root / "certs/ca-certificates.crt");
  return out;
}

std::string describe(const std::map<std::string, CertsDirEntry>& dir) {
  std::string s;
  for (const auto& [n, e] : dir) s += n + (e.symlink ? " -> " + e.target : " (file)") + "\n";
  return s;
}

TEST(CaCertificates, TheSameDirectoryAndBundleAsTheRealUpdateCaCertificates) {
  if (!have_real_tool()) GTEST_SKIP() << "no update-ca-certificates or openssl on this host";
  TempDir t;
  fs::create_directories(t / "certs");
  std::string a = make_cert(t, "Same Subject");
  std::string b = make_cert(t, "Same Subject");  // another key: the same hash, .0 and .1
  std::string nonl = make_cert(t, "No Newline");
  nonl.pop_back();
  std::string odd = make_cert(t, "Odd");
  std::string local = make_cert(t, "Local");
  std::string deeper = make_cert(t, "Deeper");
  std::map<std::string, std::string> share{
      {"mozilla/B_Root.crt", b},
      {"mozilla/A_Root.crt", a},
      {"mozilla/Dup.crt", a},  // a second copy: no link of its own
      {"mozilla/Broken.crt", "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n"},
      {"mozilla/Two.crt", a + b},  // two certificates: in the bundle, no hash link
      {"mozilla/No_Newline.crt", nonl},
      {"mozilla/Odd (Name, x).crt", odd},
      {"mozilla/Not_Listed.crt", local},
  };
  CaUpdateInput in;
  for (const auto& [name, text] : share) {
    write(t / "share" / name, text);
    in.files["/usr/share/ca-certificates/" + name] = text;
  }
  for (const auto& [name, text] : {std::pair{std::string("Local.crt"), local}, std::pair{std::string("sub/Deeper.crt"), deeper},
                                   std::pair{std::string("ignored.pem"), deeper}}) {
    write(t / "local" / name, text);
    in.files["/usr/local/share/ca-certificates/" + name] = text;
  }
  in.conf = std::string(ca_conf_header()) +
            "mozilla/B_Root.crt\nmozilla/A_Root.crt\n  mozilla/Dup.crt  \nmozilla/Broken.crt\nmozilla/Two.crt\n"
            "mozilla/No_Newline.crt\nmozilla/Odd (Name, x).crt\n!mozilla/Gone.crt\nmozilla/Missing.crt\n\n";
  write(t / "conf", in.conf);

  CaUpdateResult ours = update_ca_certificates(in);
  RealRun real = run_real(t.path());
  EXPECT_EQ(describe(ours.certs_dir), describe(real.dir));
  ASSERT_TRUE(ours.bundle && real.bundle);
  EXPECT_EQ(*ours.bundle, *real.bundle);
  EXPECT_TRUE(ours.certs_dir.contains("Odd_=Name__x=.pem")) << describe(ours.certs_dir);
  std::string notes;
  for (const auto& n : ours.notes) notes += n + "\n";
  EXPECT_NE(notes.find("/etc/ssl/certs/Broken.pem (/usr/share/ca-certificates/mozilla/Broken.crt): not a PEM certificate"),
            std::string::npos) << notes;
  EXPECT_NE(notes.find("Missing.crt not found"), std::string::npos) << notes;

  // A second run on that directory: one certificate deselected, the hash
  // links renumbered as rehash does, its link removed.
  in.certs_dir = ours.certs_dir;
  in.conf = std::string(ca_conf_header()) + "!mozilla/A_Root.crt\nmozilla/B_Root.crt\nmozilla/Odd (Name, x).crt\n";
  write(t / "conf", in.conf);
  CaUpdateResult again = update_ca_certificates(in);
  RealRun real_again = run_real(t.path());
  EXPECT_EQ(describe(again.certs_dir), describe(real_again.dir));
  ASSERT_TRUE(again.bundle && real_again.bundle);
  EXPECT_EQ(*again.bundle, *real_again.bundle);
}

TEST(CaCertificates, HashesAsOpensslX509SubjectHash) {
  TempDir t;
  std::string pem = make_cert(t, "Hash Me");
  write(t / "c.pem", pem);
  auto r = run({"openssl", "x509", "-noout", "-subject_hash", "-in", (t / "c.pem").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string why;
  auto key = rehash_key(pem, why);
  ASSERT_TRUE(key) << why;
  EXPECT_EQ(key->prefix, testing::trim_nl(r.out) + ".");
  EXPECT_EQ(key->fingerprint.size(), 20u);
}

TEST(CaCertificates, HostileCertificatesAreSkippedWithAReason) {
  TempDir t;
  std::string pem = make_cert(t, "Fine");
  std::string why;
  EXPECT_FALSE(rehash_key("", why));
  EXPECT_EQ(why, "holds no certificate or CRL");
  EXPECT_FALSE(rehash_key(std::string(4096, '\xff'), why));
  EXPECT_FALSE(rehash_key(pem + pem, why));
  EXPECT_NE(why.find("holds 2 objects"), std::string::npos) << why;
  EXPECT_FALSE(rehash_key("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", why));
  std::string huge = pem + std::string(kMaxCertificateBytes, '\n');
  EXPECT_FALSE(rehash_key(huge, why));
  EXPECT_NE(why.find("larger than"), std::string::npos) << why;

  // A listed file too large to have been read: linked, reported, left out of
  // the bundle; the run goes on.
  CaUpdateInput in;
  in.conf = "big.crt\nfine.crt\n";
  in.files["/usr/share/ca-certificates/big.crt"] = std::nullopt;
  in.files["/usr/share/ca-certificates/fine.crt"] = pem;
  CaUpdateResult r = update_ca_certificates(in);
  ASSERT_EQ(r.unreadable.size(), 2u);  // in the bundle, and for its hash
  EXPECT_EQ(r.unreadable[0], "/usr/share/ca-certificates/big.crt");
  ASSERT_TRUE(r.bundle);
  EXPECT_EQ(*r.bundle, pem);
  EXPECT_TRUE(r.certs_dir.contains("fine.pem"));
  EXPECT_EQ(r.certs_dir.size(), 4u) << describe(r.certs_dir);  // big.pem, fine.pem, its hash link, the bundle
}

TEST(CaCertificates, FirstInstallConfListsEveryOfferedCertificateSorted) {
  auto list = config_certs_list("set -e\nCERTS_LIST=\"mozilla/b.crt, mozilla/a.crt,mozilla/c.crt\"\nfoo\n");
  EXPECT_EQ(list, (std::vector<std::string>{"mozilla/b.crt", "mozilla/a.crt", "mozilla/c.crt"}));
  EXPECT_TRUE(config_certs_list("CERTS_LIST=\"$(ls)\"\n").empty());
  EXPECT_TRUE(config_certs_list("CERTS_LIST=\"unterminated\n").empty());
  std::string conf = new_ca_certificates_conf({"mozilla/b.crt", "mozilla/a.crt", "mozilla/Z.crt", "mozilla/a.crt"});
  EXPECT_EQ(conf, std::string(ca_conf_header()) + "mozilla/Z.crt\nmozilla/a.crt\nmozilla/b.crt\n");
  EXPECT_TRUE(conf.starts_with("# This file lists certificates that you wish to use or to ignore to be\n"));
}

// An upgrade: the postinst's merge of the old conf with what the new
// package offers, debconf trusting new certificates.
TEST(CaCertificates, AnUpgradeMergesTheOldConfAsThePostinstDoes) {
  std::string old_conf = std::string(ca_conf_header()) +
                         "mozilla/Kept.crt\n!mozilla/Deselected.crt\nmozilla/Gone.crt\nlocal-extra.crt\n";
  auto exists = [](const std::string& name) { return name == "local-extra.crt"; };
  auto merged = merged_ca_certificates_conf(
      old_conf, {"mozilla/Kept.crt", "mozilla/Deselected.crt", "mozilla/New.crt", "mozilla/Another_New.crt"}, exists);
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, std::string(ca_conf_header()) +
                         "mozilla/Kept.crt\n"
                         "!mozilla/Deselected.crt\n"  // stays deselected
                         "!mozilla/Gone.crt\n"        // no longer offered, no file: deselected
                         "local-extra.crt\n"          // not offered, but the file is there
                         "mozilla/Another_New.crt\n"  // new ones appended, enabled, in sorted order
                         "mozilla/New.crt\n");
  // Nothing new: the postinst keeps the file (no .dpkg-old).
  EXPECT_FALSE(merged_ca_certificates_conf(*merged, {"mozilla/Kept.crt", "mozilla/Deselected.crt", "mozilla/New.crt",
                                                     "mozilla/Another_New.crt"},
                                           exists));
}

// The effect on an image: an upgrade over a base whose ca-certificates
// shipped Old.crt, dropped by the new version (dpkg removes it before the
// postinst): the conf merged and its .dpkg-old kept, the bundle of what is
// enabled, new links made, the base's links to the dropped one reported
// (a layer does not delete them).
TEST(CaCertificates, AnUpgradeOnAnImage) {
  TempDir t;
  std::string kept = make_cert(t, "Kept Root"), fresh = make_cert(t, "New Root"), old = make_cert(t, "Old Root");
  std::string conf = std::string(ca_conf_header()) + "mozilla/Kept.crt\nmozilla/Old.crt\n";
  auto node = [](oci::TarEntryType type, std::string text_or_target = "") {
    oci::FsNode n;
    n.type = type;
    if (type == oci::TarEntryType::kSymlink) n.link_target = text_or_target;
    if (type == oci::TarEntryType::kRegular) {
      n.mode = 0644;
      n.size = text_or_target.size();
      n.content = text_or_target;
    }
    return n;
  };
  using T = oci::TarEntryType;
  std::map<std::string, oci::FsNode> nodes{
      {"etc", node(T::kDirectory)},
      {"etc/ssl", node(T::kDirectory)},
      {"etc/ssl/certs", node(T::kDirectory)},
      {"etc/ssl/certs/Kept.pem", node(T::kSymlink, "/usr/share/ca-certificates/mozilla/Kept.crt")},
      {"etc/ssl/certs/Old.pem", node(T::kSymlink, "/usr/share/ca-certificates/mozilla/Old.crt")},
      {"etc/ca-certificates.conf", node(T::kRegular, conf)},
      {"usr", node(T::kDirectory)},
      {"usr/sbin", node(T::kDirectory)},
      {"usr/sbin/update-ca-certificates", node(T::kRegular, "#!/bin/sh\n")},
      {"usr/share", node(T::kDirectory)},
      {"usr/share/ca-certificates", node(T::kDirectory)},
      {"usr/share/ca-certificates/mozilla", node(T::kDirectory)},
      {"usr/share/ca-certificates/mozilla/Kept.crt", node(T::kRegular, kept)},
      {"usr/share/ca-certificates/mozilla/Old.crt", node(T::kRegular, old)},
      {"var", node(T::kDirectory)},
      {"var/lib", node(T::kDirectory)},
      {"var/lib/dpkg", node(T::kDirectory)},
      {"var/lib/dpkg/info", node(T::kDirectory)},
      {"var/lib/dpkg/info/ca-certificates.list",
       node(T::kRegular, "/usr/share/ca-certificates/mozilla\n/usr/share/ca-certificates/mozilla/Kept.crt\n"
                         "/usr/share/ca-certificates/mozilla/Old.crt\n")},
  };
  auto base = oci::ImageFilesystem::from_nodes(std::move(nodes), 1);
  auto rules = RewriteRules::from_base(base, 1);
  ASSERT_TRUE(rules) << rules.error().message();
  FragmentInfo p;
  p.package = "ca-certificates";
  for (const auto& [name, text] : {std::pair{std::string("Kept.crt"), kept}, std::pair{std::string("New.crt"), fresh}}) {
    std::string path = "usr/share/ca-certificates/mozilla/" + name;
    p.entries.push_back({path, oci::TarEntryType::kRegular, "", ""});
    p.captured[path] = text;
  }
  OverlayView view(base, *rules, {&p});
  std::vector<std::string> handled;
  auto fx = ca_certificates_effects(view, 1, handled);
  ASSERT_TRUE(fx) << fx.error().message();
  std::map<std::string, const EffectFile*> files;
  for (const auto& f : fx->files) files[f.entry.path] = &f;
  ASSERT_TRUE(files.contains("etc/ca-certificates.conf"));
  EXPECT_EQ(files["etc/ca-certificates.conf"]->content,
            std::string(ca_conf_header()) + "mozilla/Kept.crt\n!mozilla/Old.crt\nmozilla/New.crt\n");
  EXPECT_EQ(files["etc/ca-certificates.conf.dpkg-old"]->content, conf);
  EXPECT_EQ(files["etc/ssl/certs/ca-certificates.crt"]->content, kept + fresh);
  EXPECT_EQ(files["etc/ssl/certs/New.pem"]->entry.link_target, "/usr/share/ca-certificates/mozilla/New.crt");
  EXPECT_FALSE(files.contains("etc/ssl/certs/Kept.pem")) << "the base's link is already right";
  std::string unreproduced;
  for (const auto& u : fx->unreproduced) unreproduced += u + "\n";
  EXPECT_NE(unreproduced.find("removes /etc/ssl/certs/Old.pem from the base"), std::string::npos) << unreproduced;
  EXPECT_EQ(handled, std::vector<std::string>{"ca-certificates"});
}

// The host's own conf, when ca-certificates was installed once and never
// deselected anything: the same bytes from its package's files and config.
TEST(CaCertificates, TheHostsConfFromTheHostsPackage) {
  std::string host_conf = slurp("/etc/ca-certificates.conf");
  std::string config = slurp("/var/lib/dpkg/info/ca-certificates.config");
  if (host_conf.empty() || config.empty() || host_conf.find("\n!") != std::string::npos) {
    GTEST_SKIP() << "no ca-certificates on this host, or a selection made by hand";
  }
  std::vector<std::string> offered = config_certs_list(config);
  for (const auto& e : fs::recursive_directory_iterator("/usr/share/ca-certificates")) {
    std::string p = e.path().string();
    if (e.is_regular_file() && p.ends_with(".crt")) offered.push_back(p.substr(27));
  }
  EXPECT_EQ(new_ca_certificates_conf(offered), host_conf);
}

}  // namespace
}  // namespace strata::layer
