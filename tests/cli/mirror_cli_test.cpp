// strata mirror through the binary: the journal of a run SIGKILLed mid-way
// says what finished; --json lists every image, those never started too; an
// archive destination killed mid-run is resumed and its staging cleaned up;
// a registry's timeout from the config applies.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include "oci/layout_store.hpp"
#include "support/cli_test.hpp"
#include "support/fault_proxy.hpp"
#include "support/random_image.hpp"
#include "support/registry_server.hpp"

namespace strata::testing {
namespace {

class MirrorCli : public CliTest {
 protected:
  void SetUp() override {
    auto src = std::move(*oci::LayoutStore::open(dir_ / "src", oci::LayoutMode::kCreate));
    unsigned seed = 60;
    for (std::string tag : {"a", "b", "c", "e", "f"}) digests_[tag] = push_image(*src, tag, {40000, 500}, seed++).str();
  }
  std::string image(const std::string& tag, const std::string& dest) const {
    return "  - source: oci:" + (dir_ / "src").string() + ":" + tag + "\n    destination: " + dest + "\n";
  }
  std::string write_config(const std::string& name, const std::string& yaml) const {
    auto path = dir_ / name;
    std::ofstream(path) << yaml;
    return path.string();
  }
  static std::vector<nlohmann::json> lines(const std::string& text) {
    std::vector<nlohmann::json> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }
  // Starts `strata mirror ARGS…`, waits until `ready()` (bounded, polled),
  // then SIGKILLs it. False when it ended first.
  bool kill_when(const std::vector<std::string>& args, const std::function<bool()>& ready) {
    std::vector<std::string> argv = {strata_binary(), "--home", (dir_ / "home").string(), "mirror"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto pid = spawn_process(argv, dir_ / "killed.log");
    if (!pid) return false;
    bool was_ready = false;
    for (int i = 0; i < 3000 && !was_ready; ++i) {
      int status = 0;
      if (::waitpid(*pid, &status, WNOHANG) == *pid) return false;
      was_ready = ready();
      if (!was_ready) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(*pid, SIGKILL);
    int status = 0;
    ::waitpid(*pid, &status, 0);
    return was_ready && WIFSIGNALED(status);
  }
  std::unique_ptr<FaultProxy> stalled_registry() {
    auto proxy = FaultProxy::start("127.0.0.1:9", dir_.path());  // the stall never forwards
    EXPECT_TRUE(proxy) << proxy.error().message();
    (*proxy)->script(R"([{"action":"stall","seconds":30,"times":1000}])");
    return std::move(*proxy);
  }
  std::map<std::string, std::string> digests_;
};

TEST_F(MirrorCli, AKilledRunsJournalSaysWhatFinished) {
  auto proxy = stalled_registry();
  const std::string host = proxy->host_port(), dst = "oci:" + (dir_ / "dst").string();
  // In order (parallel 1): three images, then one whose registry never answers.
  auto config = write_config("m.yaml", "parallel: 1\nregistries:\n  " + host + ": {tls-verify: false}\nimages:\n" +
                                           image("a", dst + ":a") + image("b", dst + ":b") + image("c", dst + ":c") +
                                           "  - source: docker://" + host + "/stalled/app:1\n    destination: " + dst +
                                           ":d\n" + image("e", dst + ":e"));
  const auto journal = dir_ / "run.ndjson";
  ASSERT_TRUE(kill_when({"--config", config, "--journal", journal.string()},
                        [&] { return lines(slurp(journal)).size() >= 4; }))
      << slurp(dir_ / "killed.log");
  auto records = lines(slurp(journal));
  ASSERT_EQ(records.size(), 4u) << slurp(journal);
  EXPECT_EQ(records[0]["event"], "start");
  EXPECT_EQ(records[0]["images"], 5);
  std::vector<std::string> done;
  for (std::size_t i = 1; i < records.size(); ++i) {
    EXPECT_EQ(records[i]["event"], "image");
    EXPECT_EQ(records[i]["status"], "copied");
    done.push_back(records[i]["destination"].get<std::string>().substr(dst.size() + 1));
    EXPECT_EQ(records[i]["digest"], digests_[done.back()]);
  }
  EXPECT_EQ(done, (std::vector<std::string>{"a", "b", "c"}));
  // What the journal says finished is in the layout.
  auto tags = strata({"tags", dst});
  EXPECT_EQ(tags.out, "a\nb\nc\n");
}

TEST_F(MirrorCli, JsonListsEveryImageIncludingThoseNeverStarted) {
  const std::string dst = "oci:" + (dir_ / "dst").string();
  auto config = write_config("m.yaml", "parallel: 1\nimages:\n" + image("missing", dst + ":m") + image("a", dst + ":a") +
                                           image("b", dst + ":b"));
  const auto journal = dir_ / "run.ndjson";
  auto r = strata({"--json", "mirror", "--config", config, "--journal", journal.string()});
  EXPECT_EQ(r.code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 3u) << r.out;
  EXPECT_EQ(j[0]["status"], "failed");
  EXPECT_NE(j[0]["error"].get<std::string>().find("missing"), std::string::npos) << j[0];
  EXPECT_EQ(j[1]["status"], "not-started");
  EXPECT_EQ(j[2]["status"], "not-started");
  EXPECT_EQ(j[2]["source"], "oci:" + (dir_ / "src").string() + ":b");
  EXPECT_NE(r.err.find("3 images: 1 failed, 2 not started"), std::string::npos) << r.err;
  auto records = lines(slurp(journal));
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records[1]["status"], "failed");
  EXPECT_EQ(records[2]["status"], "not-started");
  EXPECT_EQ(records[4]["event"], "end");
  EXPECT_EQ(records[4]["notStarted"], 2);

  // A dry run after a real one: present, and what would move.
  auto copy = write_config("c.yaml", "images:\n" + image("a", dst + ":a"));
  ASSERT_EQ(strata({"mirror", "--config", copy}).code, 0);
  auto dry_config = write_config("d.yaml", "images:\n" + image("a", dst + ":a") + image("b", dst + ":b"));
  auto dry = strata({"mirror", "--config", dry_config, "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  EXPECT_NE(dry.out.find(":a@" + digests_["a"] + " present\n"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find(":b@" + digests_["b"] + " would-copy "), std::string::npos) << dry.out;
  EXPECT_NE(dry.err.find("2 images: 1 would copy, 1 present"), std::string::npos) << dry.err;
}

// What --dry-run says would move is what the run moves: a blob two images
// need at one destination is counted once, and one a registry mounts from
// another repository (the run's other destination) is free.
TEST_F(MirrorCli, ADryRunCountsEachBlobOnceAndMountsAsFree) {
  auto total = [](const std::string& out, const char* field) {
    std::uint64_t n = 0;
    for (const auto& r : nlohmann::json::parse(out)) n += r.value(field, std::uint64_t{0});
    return n;
  };
  // The same image under two tags of one layout, and another image.
  const std::string dst = "oci:" + (dir_ / "dst").string();
  auto layout = write_config("l.yaml", "images:\n" + image("a", dst + ":a") + image("a", dst + ":a2") +
                                            image("b", dst + ":b"));
  auto dry = strata({"--json", "mirror", "--config", layout, "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  auto run_ = strata({"--json", "mirror", "--config", layout});
  ASSERT_EQ(run_.code, 0) << run_.err;
  EXPECT_GT(total(run_.out, "bytesCopied"), 0u);
  EXPECT_EQ(total(dry.out, "bytesToCopy"), total(run_.out, "bytesCopied")) << dry.out << run_.out;

  // Into two repositories of one registry: the second's blobs are mounted.
  auto reg = RegistryServer::start(RegistryServer::Mode::kPlain);
  ASSERT_TRUE(reg) << reg.error().message();
  const std::string host = (*reg)->host_port();
  auto two = write_config("r.yaml", "parallel: 1\nregistries:\n  " + host + ": {tls-verify: false}\nimages:\n" +
                                         image("c", "docker://" + host + "/one/app:1") +
                                         image("c", "docker://" + host + "/two/app:1"));
  auto dry_reg = strata({"--json", "mirror", "--config", two, "--dry-run"});
  ASSERT_EQ(dry_reg.code, 0) << dry_reg.err;
  auto run_reg = strata({"--json", "mirror", "--config", two});
  ASSERT_EQ(run_reg.code, 0) << run_reg.err;
  EXPECT_GT(total(run_reg.out, "blobsMounted"), 0u) << run_reg.out;
  EXPECT_EQ(total(dry_reg.out, "bytesToCopy"), total(run_reg.out, "bytesCopied")) << dry_reg.out << run_reg.out;
  EXPECT_EQ(total(dry_reg.out, "blobsMounted"), total(run_reg.out, "blobsMounted")) << dry_reg.out << run_reg.out;
}

TEST_F(MirrorCli, AKilledArchiveWriteIsResumedAndItsStagingRemoved) {
  auto proxy = stalled_registry();
  const std::string host = proxy->host_port();
  const auto bundle = dir_ / "bundle.tar";
  const std::string dst = "oci-archive:" + bundle.string();
  auto config = write_config("m.yaml", "parallel: 1\nregistries:\n  " + host + ": {tls-verify: false}\nimages:\n" +
                                           image("a", dst + ":a") + image("b", dst + ":b") + image("c", dst + ":c") +
                                           "  - source: docker://" + host + "/stalled/app:1\n    destination: " + dst +
                                           ":d\n");
  // Killed once the run has reached the stalled image (a, b, c staged).
  ASSERT_TRUE(kill_when({"--config", config}, [&] { return !proxy->log()["applied"].empty(); }))
      << slurp(dir_ / "killed.log");
  const auto staging = dir_ / ".bundle.tar.strata-staging";
  EXPECT_FALSE(std::filesystem::exists(bundle));
  EXPECT_TRUE(std::filesystem::exists(staging));

  // The re-run resumes: what was staged is present, only e moves.
  auto resume = write_config("r.yaml", "parallel: 1\nimages:\n" + image("a", dst + ":a") + image("b", dst + ":b") +
                                           image("c", dst + ":c") + image("e", dst + ":e"));
  auto r = strata({"--json", "mirror", "--config", resume});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(j[i]["status"], "present") << j[i];
  EXPECT_EQ(j[3]["status"], "copied");
  for (const auto& e : std::filesystem::directory_iterator(dir_.path()))
    EXPECT_FALSE(e.path().filename().string().starts_with(".bundle")) << "left behind: " << e.path();

  // Writing into the archive again adds to it: its tags stay.
  auto add = write_config("f.yaml", "images:\n" + image("f", dst + ":f"));
  ASSERT_EQ(strata({"mirror", "--config", add}).code, 0);
  auto tags = strata({"tags", dst});
  EXPECT_EQ(tags.out, "a\nb\nc\ne\nf\n") << tags.err;
  auto missing = strata({"inspect", dst + ":nope"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find(bundle.string()), std::string::npos) << missing.err;
  EXPECT_EQ(missing.err.find("strata-archive"), std::string::npos) << missing.err;
}

TEST_F(MirrorCli, ARegistrysTimeoutAndRetriesComeFromTheConfig) {
  auto proxy = stalled_registry();
  const std::string host = proxy->host_port();
  auto config = write_config("m.yaml", "registries:\n  " + host + ": {tls-verify: false, timeout: 1, retries: 1}\n"
                                       "images:\n  - source: docker://" + host + "/stalled/app:1\n    destination: oci:" +
                                           (dir_ / "dst").string() + ":x\n");
  auto r = strata({"mirror", "--config", config});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("timeout"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stalled/app"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace strata::testing
