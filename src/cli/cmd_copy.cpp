// strata copy SRC DST [--all] [--platform P] [--jobs N] [--referrers]
#include <iostream>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "oci/copy.hpp"

namespace strata::cli {
namespace {

struct CopyCmdOptions {
  std::string src, dst;
  bool all = false;
  bool referrers = false;
  std::string platform;
};

void run_copy(const GlobalOptions& g, const CopyCmdOptions& o) {
  if (o.all && !o.platform.empty()) throw Exit{kExitUsage, "--all and --platform exclude each other"};
  // One client per registry for both ends: a copy within a registry shares
  // connections, the auth challenge and tokens.
  const auto open_options = oci::with_shared_registries(g.open_options());
  auto src = check(oci::open_store(check(oci::parse_image_ref(o.src)), oci::Access::kRead, open_options));
  auto dst_ref = check(oci::parse_image_ref(o.dst));
  auto dst = check(oci::open_store(dst_ref, oci::Access::kWrite, open_options));
  oci::CopyOptions opts;
  opts.all = o.all;
  opts.referrers = o.referrers;
  opts.jobs = g.jobs;
  // A runtime's store sends the tar at close(): blobs of a local layout are
  // read from their files then, not staged as a copy first.
  opts.link_blobs = dst_ref.transport == oci::Transport::kDockerDaemon || dst_ref.transport == oci::Transport::kPodman;
  if (!o.platform.empty()) opts.platform = check(oci::parse_platform(o.platform));
  CopyProgress progress(g);
  opts.observer = &progress;
  opts.pin = oci::destination_pin(dst_ref);  // a destination pinned by digest receives exactly that content
  auto tag = oci::destination_tag(dst_ref);
  auto result = oci::copy_image(*src.store, src.ref, *dst.store, tag, opts);
  progress.finish();
  auto copied = check(std::move(result));
  check(dst.store->close());
  std::string dst_text = o.dst;
  if (auto at = dst_text.find('@'); at != std::string::npos &&
      (dst_ref.transport == oci::Transport::kDocker || dst_ref.transport == oci::Transport::kContainerd)) {
    dst_text.resize(at);
  }
  if (g.json) {
    nlohmann::ordered_json out;
    out["source"] = o.src;
    out["destination"] = o.dst;
    out["digest"] = copied.root.digest.str();
    out["mediaType"] = copied.root.media_type;
    out["size"] = copied.root.size;
    out["alreadyPresent"] = copied.already_present;
    out["blobsCopied"] = copied.blobs_copied;
    out["blobsSkipped"] = copied.blobs_skipped;
    out["blobsMounted"] = copied.blobs_mounted;
    out["bytesCopied"] = copied.bytes_copied;
    std::cout << oci::dump_json(out, 2) << "\n";
  } else {
    std::cout << dst_text << "@" << copied.root.digest.str() << "\n";
  }
  log_debug(g, std::to_string(copied.blobs_copied) + " blobs copied, " + std::to_string(copied.blobs_skipped) +
                   " present, " + std::to_string(copied.blobs_mounted) + " mounted");
}

}  // namespace

void register_copy(CLI::App& app, GlobalOptions& g) {
  auto o = std::make_shared<CopyCmdOptions>();
  auto* cmd = add_command(app, "copy", "Copy an image or index bit-exactly between any two stores",
                          "  strata copy docker://docker.io/library/debian:12 oci:/srv/mirror:debian-12\n"
                          "  strata copy --all oci:/srv/mirror:debian-12 docker://registry.internal/debian:12\n"
                          "  strata copy --platform linux/arm64 debian:12 docker-archive:/tmp/debian.tar:debian:12\n"
                          "  strata copy local:dev:1 containerd:dev:1 --containerd-namespace k8s.io\n"
                          "  strata copy oci:/srv/img:overlay docker-daemon:dev/overlay:1\n");
  cmd->add_option("SRC", o->src, "Source image reference")->required();
  cmd->add_option("DST", o->dst, "Destination image reference")->required();
  cmd->add_flag("--all", o->all, "Copy every platform of an index (default: only --platform, or this machine's)");
  cmd->add_option("--platform", o->platform, "Copy only this platform of an index (os/arch[/variant])");
  cmd->add_flag("--referrers", o->referrers, "Also copy manifests that refer to the image (signatures, SBOMs)");
  cmd->callback([&g, o] { run_copy(g, *o); });
}

}  // namespace strata::cli
