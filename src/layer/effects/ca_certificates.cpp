#include "layer/effects/ca_certificates.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>

#include "util/strings.hpp"

namespace strata::layer {

namespace {

constexpr std::string_view kCertsDir = "/usr/share/ca-certificates";
constexpr std::string_view kLocalCertsDir = "/usr/local/share/ca-certificates";
constexpr std::string_view kBundle = "ca-certificates.crt";

// What `basename "$CERT" .crt` prints: the last component, the suffix
// dropped unless it is the whole name.
std::string basename_crt(std::string_view path) {
  std::string name(oci::base_name(path));
  if (name.size() > 4 && name.ends_with(".crt")) name.resize(name.size() - 4);
  return name;
}

// add()'s link name: the basename with ' ' and ',' as '_', '(' and ')' as '='.
std::string pem_name(std::string_view cert) {
  std::string name = basename_crt(cert);
  for (char& c : name) {
    if (c == ' ' || c == ',') c = '_';
    if (c == '(' || c == ')') c = '=';
  }
  return name + ".pem";
}

// `read crt` without -r: blanks around the line dropped, a backslash takes
// the next character literally (a trailing one joins nothing here: the
// config is read line by line and strata does not join them).
std::string read_line(std::string_view line) {
  line = str::trim(line);
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') {
      if (i + 1 < line.size()) out += line[++i];
      continue;
    }
    out += line[i];
  }
  return out;
}

bool under(std::string_view path, std::string_view dir) {
  return path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/';
}

// The rehash suffix check: the text after the last '.' is pem, crt, cer or
// crl, any case.
bool rehash_suffix(std::string_view name) {
  auto dot = name.rfind('.');
  if (dot == std::string_view::npos) return false;
  std::string ext = str::lower(name.substr(dot + 1));
  return ext == "pem" || ext == "crt" || ext == "cer" || ext == "crl";
}

// A name rehash treats as one of its own links: 8 hex digits, '.', an
// optional 'r' (CRLs), decimal digits. Returns the prefix and the number.
std::optional<std::pair<std::string, unsigned long>> hash_link_name(std::string_view name) {
  if (name.size() < 10) return std::nullopt;
  for (std::size_t i = 0; i < 8; ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(name[i]))) return std::nullopt;
  }
  if (name[8] != '.') return std::nullopt;
  std::size_t i = 9;
  if (name[i] == 'r' || name[i] == 'R') ++i;
  std::string_view digits = name.substr(i);
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  unsigned long n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<unsigned long>(c - '0');
  }
  // The prefix as rehash writes it: the hash in lower case.
  std::string prefix = str::lower(name.substr(0, 9)) + (i == 10 ? "r" : "");
  return std::make_pair(prefix, n);
}

// Where a name in /etc/ssl/certs leads: the absolute path of the file a
// chain of symlinks ends at ("/etc/ssl/certs/<name>" for a file of the
// directory itself), or nullopt when it dangles or loops.
std::optional<std::string> resolve(const std::map<std::string, CertsDirEntry>& dir, std::string name,
                                   const std::map<std::string, std::optional<std::string>>& files) {
  for (int hops = 0; hops < 16; ++hops) {
    auto it = dir.find(name);
    if (it == dir.end()) return std::nullopt;
    if (!it->second.symlink) return "/etc/ssl/certs/" + name;
    std::string t = it->second.target;
    if (!t.starts_with('/')) t = "/etc/ssl/certs/" + t;
    if (t.starts_with("/etc/ssl/certs/") && t.find('/', 15) == std::string::npos) {
      name = t.substr(15);
      continue;
    }
    if (files.contains(t)) return t;
    return std::nullopt;
  }
  return std::nullopt;
}

struct Bucket {
  struct Entry {
    std::string filename;
    std::string fingerprint;
    bool needed = false;
    unsigned long old_id = ~0ul;
  };
  std::vector<Entry> entries;  // in the order met
  unsigned long num_needed = 0;
};

constexpr unsigned long kMaxCollisions = 256;

// The final step: openssl rehash of the directory.
void rehash(std::map<std::string, CertsDirEntry>& dir, const std::map<std::string, std::optional<std::string>>& files,
            CaUpdateResult& out) {
  std::map<std::string, Bucket> buckets;  // by prefix
  for (const auto& [name, e] : dir) {     // std::map: strcmp order, as rehash sorts
    if (e.symlink) {
      if (auto h = hash_link_name(name)) {
        Bucket& b = buckets[h->first];
        auto it = std::find_if(b.entries.begin(), b.entries.end(),
                               [&](const Bucket::Entry& x) { return x.filename == e.target; });
        if (it == b.entries.end()) {
          b.entries.push_back({e.target, "", false, h->second});
        } else {
          it->old_id = std::min(it->old_id, h->second);
        }
        continue;
      }
    }
    if (!rehash_suffix(name)) continue;
    // The file's content: a link into the certificate directories, resolved.
    std::string path = resolve(dir, name, files).value_or("/etc/ssl/certs/" + name);
    auto f = files.find(path);
    if (f == files.end() || !f->second) {
      if (name != kBundle) out.unreadable.push_back("/etc/ssl/certs/" + name);
      continue;
    }
    std::string why;
    auto key = rehash_key(*f->second, why);
    if (!key) {
      if (name != kBundle) out.notes.push_back("/etc/ssl/certs/" + name + " (" + path + "): " + why + "; no hash link");
      continue;
    }
    Bucket& b = buckets[key->prefix];
    bool duplicate = false;
    Bucket::Entry* found = nullptr;
    for (auto& x : b.entries) {
      if (x.needed && x.fingerprint == key->fingerprint) {
        duplicate = true;
        break;
      }
      if (x.filename == name) found = &x;
    }
    if (duplicate) {
      out.notes.push_back("/etc/ssl/certs/" + name + ": the same certificate as another one; no hash link");
      continue;
    }
    if (!found) {
      if (b.num_needed >= kMaxCollisions) {
        out.notes.push_back("/etc/ssl/certs/" + name + ": more than 256 certificates share its hash; no hash link");
        continue;
      }
      b.entries.push_back({name, "", false, ~0ul});
      found = &b.entries.back();
    }
    if (!found->needed) {
      found->needed = true;
      found->fingerprint = key->fingerprint;
      ++b.num_needed;
    }
  }
  for (auto& [prefix, b] : buckets) {
    std::set<unsigned long> taken;
    for (const auto& x : b.entries) {
      if (x.old_id < b.num_needed) taken.insert(x.old_id);
    }
    unsigned long next = 0;
    for (const auto& x : b.entries) {
      if (x.old_id < b.num_needed) continue;  // its link stays
      if (x.needed) {
        while (taken.contains(next)) ++next;
        dir[prefix + std::to_string(next)] = CertsDirEntry{true, x.filename};
        taken.insert(next);
      } else {
        dir.erase(prefix + std::to_string(x.old_id));
      }
    }
  }
}

}  // namespace

std::string_view ca_conf_header() {
  return "# This file lists certificates that you wish to use or to ignore to be\n"
         "# installed in /etc/ssl/certs.\n"
         "# update-ca-certificates(8) will update /etc/ssl/certs by reading this file.\n"
         "#\n"
         "# This is autogenerated by dpkg-reconfigure ca-certificates.\n"
         "# Certificates should be installed under /usr/share/ca-certificates\n"
         "# and files with extension '.crt' is recognized as available certs.\n"
         "#\n"
         "# line begins with # is comment.\n"
         "# line begins with ! is certificate filename to be deselected.\n"
         "#\n";
}

std::vector<std::string> config_certs_list(std::string_view script) {
  std::vector<std::string> out;
  for (auto line : str::split(script, '\n')) {
    line = str::trim(line);
    if (!line.starts_with("CERTS_LIST=\"")) continue;
    std::string_view value = line.substr(12);
    auto end = value.find('"');
    if (end == std::string_view::npos || end + 1 != value.size()) return {};
    value = value.substr(0, end);
    if (value.find_first_of("$`\\") != std::string_view::npos) return {};
    for (auto item : str::split(value, ',')) {
      item = str::trim(item);
      if (!item.empty()) out.emplace_back(item);
    }
    return out;
  }
  return out;
}

std::string new_ca_certificates_conf(std::vector<std::string> offered) {
  // `for crt in $crts` splits the config script's names at blanks.
  std::vector<std::string> names;
  for (const auto& o : offered) {
    for (auto w : str::split_ws(o)) names.emplace_back(w);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string out(ca_conf_header());
  for (const auto& n : names) out += n + "\n";
  return out;
}

std::optional<std::string> merged_ca_certificates_conf(std::string_view old_conf, std::vector<std::string> offered,
                                                       const std::function<bool(const std::string&)>& exists) {
  std::vector<std::string> lines;
  for (auto l : str::split(old_conf, '\n')) lines.push_back(read_line(l));
  if (!lines.empty() && lines.back().empty() && old_conf.ends_with('\n')) lines.pop_back();
  std::set<std::string> disabled, trusted;
  for (const auto& l : lines) {
    if (l.starts_with('!')) disabled.insert(l.substr(1));
    else if (!l.starts_with('#') && !l.empty()) trusted.insert(l);
  }
  std::vector<std::string> available;
  for (const auto& o : offered) {
    for (auto w : str::split_ws(o)) available.emplace_back(w);
  }
  std::sort(available.begin(), available.end());
  available.erase(std::unique(available.begin(), available.end()), available.end());
  std::set<std::string> enabled_set;
  std::vector<std::string> enabled;
  for (const auto& crt : available) {
    if (disabled.contains(crt)) continue;
    enabled.push_back(crt);  // already trusted, or new and trust_new_crts is "yes"
    enabled_set.insert(crt);
  }
  std::set<std::string> available_set(available.begin(), available.end());
  std::vector<std::string> out;
  for (const auto& l : lines) {
    if (l.starts_with('#')) {
      out.push_back(l);
      continue;
    }
    std::string ca = l.starts_with('!') ? l.substr(1) : l;
    if (enabled_set.contains(ca)) out.push_back(ca);
    else if (available_set.contains(ca) || l.starts_with('!')) out.push_back("!" + ca);
    else if (exists(ca)) out.push_back(ca);
    else out.push_back("!" + ca);
  }
  auto starts_a_line = [&](const std::string& prefix) {
    return std::any_of(out.begin(), out.end(), [&](const std::string& l) { return l.starts_with(prefix); });
  };
  for (const auto& ca : enabled) {
    if (!starts_a_line(ca)) out.push_back(ca);
  }
  for (const auto& ca : available) {
    if (enabled_set.contains(ca) || starts_a_line("!" + ca)) continue;
    out.push_back("!" + ca);
  }
  std::string text;
  for (const auto& l : out) text += l + "\n";
  if (text == old_conf) return std::nullopt;
  return text;
}

std::optional<RehashKey> rehash_key(std::string_view pem, std::string& why) {
  if (pem.size() > kMaxCertificateBytes) {
    why = "larger than " + str::human_bytes(kMaxCertificateBytes);
    return std::nullopt;
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  if (!bio) {
    why = "out of memory";
    return std::nullopt;
  }
  auto free_infos = [](STACK_OF(X509_INFO) * s) { sk_X509_INFO_pop_free(s, X509_INFO_free); };
  std::unique_ptr<STACK_OF(X509_INFO), decltype(free_infos)> infos(
      PEM_X509_INFO_read_bio(bio.get(), nullptr, nullptr, nullptr), free_infos);
  ERR_clear_error();
  if (!infos) {
    why = "not a PEM certificate";
    return std::nullopt;
  }
  if (sk_X509_INFO_num(infos.get()) == 0) {
    why = "holds no certificate or CRL";
    return std::nullopt;
  }
  if (sk_X509_INFO_num(infos.get()) != 1) {
    why = "holds " + std::to_string(sk_X509_INFO_num(infos.get())) + " objects, not exactly one certificate or CRL";
    return std::nullopt;
  }
  X509_INFO* x = sk_X509_INFO_value(infos.get(), 0);
  const X509_NAME* name = nullptr;
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int md_len = 0;
  bool crl = false;
  if (x->x509) {
    name = X509_get_subject_name(x->x509);
    if (!X509_digest(x->x509, EVP_sha1(), md.data(), &md_len)) name = nullptr;
  } else if (x->crl) {
    crl = true;
    name = X509_CRL_get_issuer(x->crl);
    if (!X509_CRL_digest(x->crl, EVP_sha1(), md.data(), &md_len)) name = nullptr;
  }
  if (!name) {
    ERR_clear_error();
    why = "holds no certificate or CRL";
    return std::nullopt;
  }
  int ok = 0;
  unsigned long h = X509_NAME_hash_ex(name, nullptr, nullptr, &ok);
  ERR_clear_error();
  if (!ok) {
    why = "its name cannot be hashed";
    return std::nullopt;
  }
  std::array<char, 16> hex{};
  std::snprintf(hex.data(), hex.size(), "%08lx", h & 0xffffffffUL);
  return RehashKey{std::string(hex.data()) + "." + (crl ? "r" : ""),
                   std::string(reinterpret_cast<const char*>(md.data()), md_len)};
}

CaUpdateResult update_ca_certificates(const CaUpdateInput& in) {
  CaUpdateResult out;
  out.certs_dir = in.certs_dir;
  auto& dir = out.certs_dir;
  auto file_exists = [&](const std::string& path) { return in.files.contains(path); };
  // `test -e`/`-f` of a name in /etc/ssl/certs: it leads to a file.
  auto resolves = [&](const std::string& name) { return resolve(dir, name, in.files).has_value(); };
  // Dangling names found first, then removed: a chain is judged whole.
  auto erase_dangling = [&] {
    std::vector<std::string> dangling;
    for (const auto& [name, e] : dir) {
      if (e.symlink && !resolves(name)) dangling.push_back(name);
    }
    for (const auto& n : dangling) dir.erase(n);
  };
  bool fresh = in.conf.empty();
  if (fresh) {
    std::erase_if(dir, [&](const auto& kv) {
      return kv.second.symlink && (kv.second.target.starts_with(kCertsDir) || kv.second.target.starts_with(kLocalCertsDir));
    });
    erase_dangling();
  }
  std::size_t changed = 0;
  std::string bundle;
  bool bundle_written = false;
  auto add = [&](const std::string& cert) {
    std::string pem = pem_name(cert);
    auto it = dir.find(pem);
    if (it == dir.end() || !it->second.symlink || it->second.target != cert) {
      dir[pem] = CertsDirEntry{true, cert};
      ++changed;
    }
    bundle_written = true;
    const auto& content = in.files.at(cert);
    if (!content) {
      out.unreadable.push_back(cert);
      return;
    }
    bundle += *content;
    if (!content->empty() && !content->ends_with('\n')) bundle += '\n';
  };
  std::vector<std::string> lines;
  for (auto line : str::split(in.conf, '\n')) {
    if (!line.empty()) lines.emplace_back(line);
  }
  for (const auto& line : lines) {  // `!name`: remove its link
    if (!line.starts_with('!')) continue;
    std::string crt = read_line(std::string_view(line).substr(1));
    std::string pem = basename_crt(std::string(kCertsDir) + "/" + crt) + ".pem";
    auto it = dir.find(pem);
    if (it != dir.end() && it->second.symlink) {
      dir.erase(it);
      ++changed;
    }
  }
  for (const auto& line : lines) {
    if (line.starts_with('#') || line.starts_with('!')) continue;
    std::string crt = read_line(line);
    std::string path = std::string(kCertsDir) + "/" + crt;
    if (crt.empty()) continue;
    if (!file_exists(path)) {
      out.notes.push_back(path + " not found, but listed in /etc/ca-certificates.conf");
      continue;
    }
    add(path);
  }
  std::vector<std::string> local;
  for (const auto& [path, content] : in.files) {
    if (under(path, kLocalCertsDir) && path.ends_with(".crt")) local.push_back(path);
  }
  std::sort(local.begin(), local.end());  // `find | sort` of whole paths
  for (const auto& path : local) add(path);

  if (changed > 0) {
    erase_dangling();
    rehash(dir, in.files, out);
  }
  if (bundle_written) {
    out.bundle = std::move(bundle);
    dir[std::string(kBundle)] = CertsDirEntry{false, ""};
  }
  return out;
}

bool ca_certificates_capture(std::string_view path) {
  return path == "etc/ca-certificates.conf" || path == "var/lib/dpkg/info/ca-certificates.list" ||
         is_certificate_path(path);
}

Result<Effects> ca_certificates_effects(const OverlayView& view, std::int64_t epoch,
                                        std::vector<std::string>& handled) {
  Effects fx;
  const FragmentInfo* ca = nullptr;
  std::vector<const FragmentInfo*> callers;
  for (const FragmentInfo* p : view.packages()) {
    if (p->package == "ca-certificates") ca = p;
    bool calls = false;
    if (auto s = p->control_files.find("postinst"); s != p->control_files.end()) {
      calls = s->second.find("update-ca-certificates") != std::string::npos;
    }
    if (auto t = p->control_files.find("triggers"); t != p->control_files.end()) {
      for (auto line : str::split(t->second, '\n')) {
        auto w = str::split_ws(line);
        if (w.size() >= 2 && w[0].starts_with("activate") && w[1].starts_with("update-ca-certificates")) calls = true;
      }
    }
    if (calls) callers.push_back(p);
  }
  const auto& base = view.base();
  bool installed = ca != nullptr || base.exists("usr/sbin/update-ca-certificates");
  if (!installed || (ca == nullptr && callers.empty())) return fx;

  // Every certificate file of the image, with its content where captured.
  CaUpdateInput in;
  std::vector<std::string> offered;
  auto note_file = [&](const std::string& placed, std::optional<std::string> content) {
    std::string path = "/" + placed;
    if (placed.starts_with("usr/share/ca-certificates/") && placed.ends_with(".crt")) {
      offered.push_back(placed.substr(26));
    }
    in.files[path] = std::move(content);
  };
  // The base's first (the layer's replace them).
  std::function<void(const std::string&, int)> walk = [&](const std::string& dir, int depth) {
    if (depth > 8) return;
    auto names = base.list(dir);
    if (!names) return;
    for (const auto& n : *names) {
      std::string p = dir + "/" + n;
      auto node = base.lookup(p);
      if (!node) continue;
      if ((*node)->type == oci::TarEntryType::kDirectory) {
        walk(p, depth + 1);
      } else if ((*node)->type == oci::TarEntryType::kRegular) {
        if ((*node)->size > kMaxCertificateBytes) {  // bounded before it is read
          note_file(p, std::nullopt);
          continue;
        }
        auto text = base.read_small_file(p);
        note_file(p, text && text->size() <= kMaxCertificateBytes ? std::optional<std::string>(*text) : std::nullopt);
      }
    }
  };
  walk("usr/share/ca-certificates", 0);
  walk("usr/local/share/ca-certificates", 0);
  // An upgrade: dpkg removes the old version's files the new one does not
  // ship (the base's info/ca-certificates.list names them) before the
  // postinst runs, so they are neither offered nor in the bundle.
  if (ca && base.exists("var/lib/dpkg/info/ca-certificates.list")) {
    if (auto list = base.read_small_file("var/lib/dpkg/info/ca-certificates.list")) {
      std::set<std::string> shipped;
      for (const auto& e : ca->entries) shipped.insert("/" + e.path);
      for (auto line : str::split(*list, '\n')) {
        std::string path(line);
        std::string placed = "/" + view.rules().place(std::string(str::strip(path, '/')), ca->package);
        if (!in.files.contains(placed) || shipped.contains(placed)) continue;
        in.files.erase(placed);
        std::erase(offered, placed.substr(27));
      }
    }
  }
  for (const FragmentInfo* p : view.packages()) {
    for (const auto& e : p->entries) {
      if (e.type != oci::TarEntryType::kRegular || !is_certificate_path(e.path)) continue;
      auto c = p->captured.find(e.path);
      note_file(e.path, c == p->captured.end() ? std::nullopt : std::optional<std::string>(c->second));
    }
  }
  // /etc/ssl/certs as the base has it.
  if (auto names = base.list("etc/ssl/certs")) {
    for (const auto& n : *names) {
      auto node = base.lookup("etc/ssl/certs/" + n, oci::ImageFilesystem::Follow::kNo);
      if (!node) continue;
      bool link = (*node)->type == oci::TarEntryType::kSymlink;
      in.certs_dir[n] = CertsDirEntry{link, link ? (*node)->link_target : ""};
    }
  }
  for (const FragmentInfo* p : view.packages()) {
    for (const auto& e : p->entries) {
      if (!e.path.starts_with("etc/ssl/certs/") || e.path.find('/', 14) != std::string::npos) continue;
      bool link = e.type == oci::TarEntryType::kSymlink;
      in.certs_dir[e.path.substr(14)] = CertsDirEntry{link, link ? e.link_target : ""};
    }
  }
  auto before = in.certs_dir;

  bool base_conf = base.exists("etc/ca-certificates.conf");
  if (base_conf) {
    auto text = base.read_small_file("etc/ca-certificates.conf");
    if (!text) {
      fx.unreproduced.push_back("update-ca-certificates: the base's /etc/ca-certificates.conf cannot be read (" +
                                text.error().message() + "); not reproduced");
      return fx;
    }
    in.conf = *text;
    if (ca) {  // an upgrade (or a conf left behind): the postinst merges
      if (auto cfg = ca->control_files.find("config"); cfg != ca->control_files.end()) {
        for (auto& n : config_certs_list(cfg->second)) offered.push_back(std::move(n));
      }
      auto merged = merged_ca_certificates_conf(in.conf, offered, [&](const std::string& name) {
        return in.files.contains(std::string(kCertsDir) + "/" + name) ||
               in.files.contains(std::string(kLocalCertsDir) + "/" + name);
      });
      if (merged) {
        fx.files.push_back(effect_file("etc/ca-certificates.conf.dpkg-old", in.conf, 0644, epoch));
        in.conf = std::move(*merged);
        fx.files.push_back(effect_file("etc/ca-certificates.conf", in.conf, 0644, epoch));
      }
    }
  } else if (ca) {
    auto cfg = ca->control_files.find("config");
    if (cfg != ca->control_files.end()) {
      for (auto& n : config_certs_list(cfg->second)) offered.push_back(std::move(n));
    }
    in.conf = new_ca_certificates_conf(offered);
    fx.files.push_back(effect_file("etc/ca-certificates.conf", in.conf, 0644, epoch));
  }
  if (ca) {
    // Every configure: /usr/local/share/ca-certificates made like /usr/local
    // (mode, group), or an existing one given /usr/local's mode and owner
    // unless a statoverride names it.
    auto local = base.lookup("usr/local");
    std::uint32_t mode = local ? (*local)->mode & 07777 : 0755;
    EffectFile d;
    d.entry.path = "usr/local/share/ca-certificates";
    d.entry.type = oci::TarEntryType::kDirectory;
    d.entry.mode = mode;
    d.entry.gid = local ? (*local)->gid : 0;
    d.entry.mtime = epoch;
    auto here = base.lookup(d.entry.path);
    if (!here && !view.layer_entry(d.entry.path) && view.exists("usr/local/share")) {
      fx.files.push_back(std::move(d));
    } else if (here && (*here)->type == oci::TarEntryType::kDirectory) {
      bool overridden = false;
      if (base.exists("var/lib/dpkg/statoverride")) {
        if (auto so = base.read_small_file("var/lib/dpkg/statoverride")) {
          for (auto line : str::split(*so, '\n')) {
            auto w = str::split_ws(line);
            if (w.size() == 4 && w[3] == "/usr/local/share/ca-certificates") overridden = true;
          }
        }
      }
      d.entry.uid = local ? (*local)->uid : 0;
      bool differs = ((*here)->mode & 07777) != mode || (*here)->uid != d.entry.uid || (*here)->gid != d.entry.gid;
      if (!overridden && differs) fx.files.push_back(std::move(d));
    }
  }

  CaUpdateResult r = update_ca_certificates(in);
  for (auto& n : r.notes) fx.notes.push_back("update-ca-certificates: " + n);
  if (!r.unreadable.empty()) {
    fx.unreproduced.push_back("update-ca-certificates: " + std::to_string(r.unreadable.size()) +
                              " files not read (larger than " + str::human_bytes(kMaxCertificateBytes) +
                              " or unknown), first " + r.unreadable.front() + "; the bundle and hash links lack them");
  }
  for (const auto& [name, e] : before) {
    if (!r.certs_dir.contains(name)) {
      fx.unreproduced.push_back("update-ca-certificates: removes /etc/ssl/certs/" + name +
                                " from the base; not reproduced (it stays)");
    }
  }
  for (const auto& [name, e] : r.certs_dir) {
    auto was = before.find(name);
    if (e.symlink && (was == before.end() || !was->second.symlink || was->second.target != e.target)) {
      fx.files.push_back(effect_symlink("etc/ssl/certs/" + name, e.target, epoch));
    }
  }
  if (r.bundle) fx.files.push_back(effect_file("etc/ssl/certs/ca-certificates.crt", std::move(*r.bundle), 0644, epoch));
  if (auto hooks = base.list("etc/ca-certificates/update.d"); hooks && !hooks->empty()) {
    fx.unreproduced.push_back("update-ca-certificates: hooks in /etc/ca-certificates/update.d not run (" +
                              str::join(*hooks, ", ") + ")");
  }
  for (const FragmentInfo* p : view.packages()) {
    for (const auto& e : p->entries) {
      if (e.path.starts_with("etc/ca-certificates/update.d/") && e.type != oci::TarEntryType::kDirectory) {
        fx.unreproduced.push_back(p->package + ": update-ca-certificates hook /" + e.path + " not run");
      }
    }
  }
  if (ca) handled.push_back(ca->package);
  for (const FragmentInfo* p : callers) {
    if (p != ca) handled.push_back(p->package);
  }
  return fx;
}

}  // namespace strata::layer
