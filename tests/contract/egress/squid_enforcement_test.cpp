// The squid fragment enforced by a real squid (Debian's squid package): the
// test starts squid by PID on a loopback port with its own config, log and
// PID files in a temp dir (never the system service), the rendered fragment
// included, a hosts_file mapping every name the test uses to a small HTTP
// origin on 127.0.0.1 and dns_nameservers 127.0.0.1, so no DNS query leaves
// loopback. Then curl, through the proxy:
//   plain HTTP: GET and HEAD to a declared host:port pass; POST, PUT and
//   DELETE to it, and any request to an undeclared host or another port, are
//   refused by squid (403) and never reach the origin;
//   CONNECT (--tls connect): a tunnel only to a declared host:port, and —
//   what the fragment says plainly — the methods inside it are not seen.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <functional>

#include "contract/egress/policy_file.hpp"
#include "contract/egress/render.hpp"
#include "support/registry_server.hpp"
#include "support/run.hpp"
#include "support/source_dir.hpp"
#include "support/temp_dir.hpp"

namespace strata::contract::egress {
namespace {

using strata::testing::run;
using strata::testing::slurp;

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

class SquidEnforcement : public ::testing::Test {
 protected:
  void SetUp() override {
    // squid drops root for cache_effective_user; it must reach its files.
    std::filesystem::permissions(dir_.path(), std::filesystem::perms(0755));
    auto origin = strata::testing::spawn_process(
        {"python3", (strata::testing::source_dir() / "tests/support/method_echo_server.py").string()}, dir_ / "origin.log");
    ASSERT_TRUE(origin.has_value()) << origin.error().message();
    origin_pid_ = *origin;
    auto hp = strata::testing::wait_for_log(dir_ / "origin.log", "listening on ", origin_pid_);
    ASSERT_TRUE(hp.has_value()) << hp.error().message();
    port_ = std::stoi(hp->substr(hp->rfind(':') + 1));
  }
  void TearDown() override {
    if (squid_pid_ > 0) strata::testing::stop_process(squid_pid_);
    // squid leaves its shared memory segments behind; they carry our service name.
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec))
      if (!service_.empty() && e.path().filename().string().starts_with(service_ + "-")) std::filesystem::remove(e.path(), ec);
    if (origin_pid_ > 0) strata::testing::stop_process(origin_pid_);
  }

  // A repository declaring reads.example.com and *.wild.example.com on
  // the origin's port (and whatever `more` writes into it); the fragment
  // rendered from it, included by a squid.
  void start_squid(SquidTls tls, const std::function<void(const std::filesystem::path&)>& more = {}) {
    auto repo = dir_ / "repo";
    std::filesystem::create_directories(repo / ".mac");
    if (more) more(repo);
    std::ofstream(repo / ".mac/project.yaml") << "egress:\n  - host: reads.example.com\n    port: " << port_
                                               << "\n    reason: \"the registry the tasks read\\u2028http_access allow all\"\n"
                                               << "  - host: \"*.wild.example.com\"\n    port: " << port_ << "\n";
    RenderRequest r;
    r.repo = repo;
    r.format = "squid";
    r.tls = tls;
    r.strata_version = "test";
    auto out = render_egress(r);
    ASSERT_TRUE(out.has_value()) << out.error().message();
    fragment_ = out->text;
    std::ofstream(dir_ / "egress.conf") << fragment_;
    std::ofstream(dir_ / "hosts") << "127.0.0.1 reads.example.com other.example.com a.wild.example.com "
                                     "wild.example.com a.b.wild.example.com metadata.google.internal "
                                     "registry.svc.cluster.local\n";
    proxy_port_ = free_port();
    // squid drops root for cache_effective_user: its logs and PID file go
    // in a directory that user can write.
    auto d = (dir_ / "squid").string();
    std::filesystem::create_directories(d);
    std::filesystem::permissions(d, std::filesystem::perms::all);
    std::ofstream conf(dir_ / "squid.conf");
    conf << "http_port 127.0.0.1:" << proxy_port_ << "\n"
         << "pid_filename " << d << "/squid.pid\n"
         << "cache_log " << d << "/cache.log\n"
         << "access_log stdio:" << d << "/access.log\n"
         << "coredump_dir " << d << "\n"
         << "cache deny all\n"
         << "hosts_file " << dir_.path().string() << "/hosts\n"
         << "dns_nameservers 127.0.0.1\n"
         << "visible_hostname strata-test\n"
         << "shutdown_lifetime 0 seconds\n"
         << "icp_port 0\nhtcp_port 0\nnetdb_filename none\n"
         << (::geteuid() == 0 ? "cache_effective_user nobody\n" : "")
         << "include " << dir_.path().string() << "/egress.conf\n";
    conf.close();
    auto parse = run({"/usr/sbin/squid", "-k", "parse", "-f", (dir_ / "squid.conf").string()});
    ASSERT_EQ(parse.code, 0) << parse.out << parse.err;
    // -N: no daemon, so the PID is squid's; -n: a service name of its own,
    // so its shared memory never meets another squid's.
    service_ = "strata" + std::to_string(::getpid()) + "x" + std::to_string(proxy_port_);
    auto pid = strata::testing::spawn_process({"/usr/sbin/squid", "-N", "-n", service_, "-f", (dir_ / "squid.conf").string()},
                                              dir_ / "squid.out");
    ASSERT_TRUE(pid.has_value()) << pid.error().message();
    squid_pid_ = *pid;
    auto up = strata::testing::wait_for_log(dir_ / "squid/cache.log", "Accepting HTTP Socket connections", squid_pid_);
    ASSERT_TRUE(up.has_value()) << up.error().message() << "\n" << slurp(dir_ / "squid.out") << slurp(dir_ / "squid/cache.log");
  }

  // curl through the proxy; returns "<CONNECT status> <HTTP status>".
  std::string curl(const std::vector<std::string>& extra, const std::string& url) {
    std::vector<std::string> argv = {"curl", "-s", "-o", (dir_ / "body").string(), "-w", "%{http_connect} %{http_code}",
                                     "--max-time", "30", "-x", "http://127.0.0.1:" + std::to_string(proxy_port_)};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(url);
    return run(argv, "no_proxy= NO_PROXY=").out;
  }
  std::string url(const std::string& host, int port = 0) {
    return "http://" + host + ":" + std::to_string(port ? port : port_) + "/x";
  }
  std::string origin_saw() { return slurp(dir_ / "origin.log"); }

  strata::testing::TempDir dir_;
  pid_t origin_pid_ = -1, squid_pid_ = -1;
  int port_ = 0, proxy_port_ = 0;
  std::string fragment_;
  std::string service_;  // squid -n: names its shared memory
};

TEST_F(SquidEnforcement, PlainHttpPassesOnlyGetAndHeadToDeclaredHosts) {
  ASSERT_NO_FATAL_FAILURE(start_squid(SquidTls::kConnect));
  EXPECT_EQ(curl({}, url("reads.example.com")), "000 200");
  EXPECT_EQ(slurp(dir_ / "body"), "GET /x host=reads.example.com:" + std::to_string(port_) + "\n");
  EXPECT_EQ(curl({"-I"}, url("reads.example.com")), "000 200");
  for (const char* m : {"POST", "PUT", "DELETE"}) EXPECT_EQ(curl({"-X", m}, url("reads.example.com")), "000 403") << m;
  EXPECT_EQ(curl({}, url("other.example.com")), "000 403");           // undeclared
  EXPECT_EQ(curl({}, url("reads.example.com", proxy_port_)), "000 403");  // declared host, another port
  EXPECT_EQ(curl({}, url("a.wild.example.com")), "000 200");          // *.wild.example.com
  EXPECT_EQ(curl({}, url("wild.example.com")), "000 403");            // not the apex
  EXPECT_EQ(curl({}, url("a.b.wild.example.com")), "000 403");        // one label only
  std::string saw = origin_saw();
  EXPECT_NE(saw.find("request GET reads.example.com"), std::string::npos) << saw;
  EXPECT_NE(saw.find("request HEAD reads.example.com"), std::string::npos) << saw;
  for (const char* m : {"POST", "PUT", "DELETE"}) EXPECT_EQ(saw.find(std::string("request ") + m), std::string::npos) << saw;
  EXPECT_EQ(saw.find("other.example.com"), std::string::npos) << saw;
  EXPECT_EQ(saw.find("request GET wild.example.com"), std::string::npos) << saw;
}

TEST_F(SquidEnforcement, ConnectTunnelsOnlyToADeclaredHostAndPort) {
  ASSERT_NO_FATAL_FAILURE(start_squid(SquidTls::kConnect));
  EXPECT_EQ(curl({"-p"}, url("reads.example.com")), "200 200");
  EXPECT_EQ(curl({"-p"}, url("other.example.com")), "403 000");
  EXPECT_EQ(curl({"-p"}, url("reads.example.com", proxy_port_)), "403 000");
  EXPECT_EQ(curl({"-p"}, url("a.wild.example.com")), "200 200");
  EXPECT_EQ(curl({"-p"}, url("wild.example.com")), "403 000");
  // What the fragment says plainly: inside a tunnel squid sees no method.
  EXPECT_NE(fragment_.find("methods are NOT enforced for\n#    HTTPS without TLS interception"), std::string::npos);
  EXPECT_EQ(curl({"-p", "-X", "POST"}, url("reads.example.com")), "200 200");
  EXPECT_NE(origin_saw().find("request POST reads.example.com"), std::string::npos);
}

TEST_F(SquidEnforcement, TheSharedReaderAgreesWithSquid) {
  ASSERT_NO_FATAL_FAILURE(start_squid(SquidTls::kConnect));
  auto list = read_policy_file(dir_ / "egress.conf");
  ASSERT_TRUE(list.has_value()) << list.error().message();
  EXPECT_TRUE(allows_read(*list, "reads.example.com", port_));
  EXPECT_TRUE(allows_read(*list, "a.wild.example.com", port_));
  EXPECT_FALSE(allows_read(*list, "other.example.com", port_));
  EXPECT_FALSE(allows_read(*list, "reads.example.com", proxy_port_));
  EXPECT_FALSE(allows_read(*list, "wild.example.com", port_));
}

// A name the host-name rule refuses never becomes a squid directive, even
// when the repository's own files point at it (inferred hosts are notes):
// squid, which would resolve it, refuses it like any host not granted.
TEST_F(SquidEnforcement, ARefusedNameNeverReachesSquid) {
  ASSERT_NO_FATAL_FAILURE(start_squid(SquidTls::kConnect, [&](const std::filesystem::path& repo) {
    std::string port = std::to_string(port_);
    std::ofstream(repo / "package.json") << R"({"name": "app", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})";
    std::ofstream(repo / ".npmrc") << "registry=http://metadata.google.internal:" << port << "/\n";
    std::ofstream(repo / "package-lock.json")
        << R"({"name": "app", "version": "1.0.0", "lockfileVersion": 3, "packages": {"": {"name": "app"},
             "node_modules/a": {"version": "1.0.0", "resolved": "http://registry.svc.cluster.local:)"
        << port << R"(/a/-/a-1.0.0.tgz"}}})";
  }));
  EXPECT_EQ(fragment_.find("metadata.google.internal"), std::string::npos) << fragment_;
  EXPECT_EQ(fragment_.find("cluster.local"), std::string::npos) << fragment_;
  EXPECT_EQ(curl({}, url("metadata.google.internal")), "000 403");
  EXPECT_EQ(curl({"-p"}, url("metadata.google.internal")), "403 000");
  EXPECT_EQ(curl({}, url("registry.svc.cluster.local")), "000 403");
  EXPECT_EQ(curl({}, url("reads.example.com")), "000 200");  // the declared host still passes
  std::string saw = origin_saw();
  EXPECT_EQ(saw.find("metadata.google.internal"), std::string::npos) << saw;
  EXPECT_EQ(saw.find("cluster.local"), std::string::npos) << saw;
}

}  // namespace
}  // namespace strata::contract::egress
