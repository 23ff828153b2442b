/** \file
 * computeInlayHints: facts sema derived that the source does not spell out.
 *
 *  - after a buffer name without a declared shape, its derived shape
 *    (`M[I, K]`, read like the optional declared-shape syntax);
 *  - after `md_hom<...>(...)`, the MDA sizes and the output MDA's sizes
 *    (point-wise dimensions collapse to 1);
 *  - after an instance `mdh a = b<...>;`, the concrete buffer shapes;
 *  - before each meta-argument of a reference, the meta-parameter's name.
 * Invariant: only hints whose position lies in the requested range.
 */
#include "Describe.h"
#include "Features.h"

#include <fmt/format.h>

namespace mdh::lsp {

namespace {

class HintCollector {
public:
  HintCollector(const Analysis &a, Range range) : a_(a), range_(range) {}
  std::vector<InlayHint> hints;

  void add(uint32_t offset, std::string label, InlayHintKind kind, std::string tooltip, bool padLeft,
           bool padRight) {
    Position p = a_.position(a_.mainFile(), offset);
    if (!range_.contains(p)) return;
    hints.push_back({p, std::move(label), kind, padLeft, padRight, std::move(tooltip)});
  }

  void metaArgNames(const std::string &target, const std::vector<ast::MetaArg> &args) {
    if (args.empty()) return;
    const ast::Decl *d = a_.sema().lookup(target);
    if (!d || d->metaParams.size() < args.size()) return;
    for (size_t i = 0; i < args.size(); ++i) {
      const auto &mp = d->metaParams[i];
      if (mp.name.empty() || !args[i].range.valid() || args[i].range.file != a_.mainFile()) continue;
      add(args[i].range.begin, mp.name.name + ":", InlayHintKind::Parameter,
          fmt::format("meta-parameter `{}: {}` of `{}`", mp.name.name, mp.kind.name, target), false, true);
    }
  }

  void opRef(const ast::OpRef &r) {
    if (r.kind == ast::OpRef::Kind::Named) metaArgNames(r.name.name, r.metaArgs);
    for (const auto &e : r.elems) opRef(e);
  }

  void stage(const ast::Stage &st, const ast::Decl &owner, const hl::Program *prog) {
    switch (st.kind) {
    case ast::Stage::Kind::InpView:
    case ast::Stage::Kind::OutView:
      for (const auto &b : st.buffers) {
        if (b.hasShape || b.name.empty()) continue;
        auto facts = a_.facts().buffersOf(b.range, &owner);
        if (facts.empty()) continue;
        const hl::Buffer &hb = *facts[0].buffer;
        add(b.name.range.end, sizeList(hb.shape), InlayHintKind::Type,
            fmt::format("derived shape of {} buffer `{}`: {}", facts[0].isOutput ? "output" : "input", hb.name,
                        bufferShape(hb)),
            false, false);
      }
      break;
    case ast::Stage::Kind::MdHom:
      if (st.fn.hasMetaArgs && !st.fn.isSymbol) metaArgNames(st.fn.name.name, st.fn.metaArgs);
      for (const auto &op : st.ops) {
        if (op.kind == ast::CombineOp::Kind::Named) metaArgNames(op.name.name, op.metaArgs);
        else opRef(op.op);
      }
      if (prog && st.range.valid()) {
        std::vector<std::string> dims;
        for (size_t d = 0; d < prog->sizes.size(); ++d) dims.push_back(dimName(*prog, d));
        add(st.range.end, fmt::format("→ {}", sizeList(prog->outputSizes())), InlayHintKind::Type,
            fmt::format("MDA {} over ({}); output MDA {} (point-wise dimensions collapse to 1)",
                        sizeList(prog->sizes), fmt::join(dims, ", "), sizeList(prog->outputSizes())),
            true, false);
      }
      break;
    case ast::Stage::Kind::Ref:
      metaArgNames(st.name.name, st.metaArgs);
      break;
    case ast::Stage::Kind::Error: break;
    }
  }

  void decl(const ast::Decl &d) {
    if (const auto *vd = d.as<ast::ViewDecl>()) stage(vd->stage, d, nullptr);
    if (const auto *cd = d.as<ast::CombineDecl>()) opRef(cd->op.op);
    const auto *md = d.as<ast::MdhDecl>();
    if (!md) return;
    const hl::Program *prog = a_.facts().programOf(md);
    for (const auto &st : md->stages) stage(st, d, prog);
    // An instance alias: show what it instantiates to.
    if (prog && md->stages.size() == 1 && md->stages[0].kind == ast::Stage::Kind::Ref && md->stages[0].range.valid()) {
      std::vector<std::string> ins, outs;
      for (const auto &b : prog->inputs) ins.push_back(fmt::format("{}: {}", b.name, bufferShape(b)));
      for (const auto &b : prog->outputs) outs.push_back(fmt::format("{}: {}", b.name, bufferShape(b)));
      add(md->stages[0].range.end, fmt::format("({}) → ({})", fmt::join(ins, ", "), fmt::join(outs, ", ")),
          InlayHintKind::Type, fmt::format("MDA {}", sizeList(prog->sizes)), true, false);
    }
  }

private:
  const Analysis &a_;
  Range range_;
};

} // namespace

std::vector<InlayHint> computeInlayHints(const Analysis &a, Range range) {
  HintCollector c(a, range);
  if (const ast::Module *m = a.mainModule())
    for (const auto &d : m->decls) c.decl(*d);
  return std::move(c.hints);
}

} // namespace mdh::lsp
