#include "layer/debian/package_encoding.hpp"

namespace strata::layer {

namespace {

// The layout of one package, both directions (util/binary.hpp).
template <class Io, class Relations>
void relation_fields(Io& io, Relations& v) {
  io.list(v, 13, [&](auto& rel) {
    io.str(rel.name, rel.arch);
    io.enum8(rel.op, RelOp::kGreater);
    io.str(rel.version);
  });
}

template <class Io, class Groups>
void or_group_fields(Io& io, Groups& v) {
  io.list(v, 4, [&](auto& g) { relation_fields(io, g); });
}

template <class Io, class P>
void fields(Io& io, P& p) {
  io.str(p.name, p.version, p.architecture, p.source, p.source_version, p.filename, p.sha256);
  io.u64(p.size);
  io.enum8(p.multi_arch, MultiArch::kAllowed);
  io.bits(p.essential, p.important);
  io.u8(p.priority);
  or_group_fields(io, p.pre_depends);
  or_group_fields(io, p.depends);
  relation_fields(io, p.conflicts);
  relation_fields(io, p.breaks);
  relation_fields(io, p.provides);
}

}  // namespace

void package_fields(bin::Writer& w, const Package& p) { fields(w, p); }
void package_fields(bin::Reader& r, Package& p) { fields(r, p); }

}  // namespace strata::layer
