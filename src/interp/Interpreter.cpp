/** \file
 * The native evaluation entry points: data checks, md_hom, output view.
 */
#include "interp/Interpreter.h"

#include "interp/CellEvaluation.h"
#include "interp/MdHom.h"
#include "interp/NativeArith.h"
#include "interp/OutputView.h"
#include "interp/ValueFormat.h"

#include <fmt/format.h>

namespace mdh::interp {

namespace {

using Native = NativeArith;

/// The index sets [0, N_d) of the whole MDA.
std::vector<IndexRange> fullIndexSets(const ProgramShapes &shapes) {
  std::vector<IndexRange> sets;
  for (int64_t n : shapes.sizes) sets.push_back({0, n});
  return sets;
}

void storeCell(const Type &elem, const Scalar *leaves, uint8_t *bytes) {
  LeafLayout layout = leafLayout(elem);
  for (size_t l = 0; l < layout.count(); ++l) Native::store(layout.kinds[l], leaves[l], bytes + layout.byteOffsets[l]);
}

/// E0903 for output buffer b: how many ⊥ cells, and the first few.
RuntimeError undefinedOutputError(const hl::Program &prog, size_t b, size_t undefined,
                                  const std::vector<std::vector<int64_t>> &examples) {
  std::vector<std::string> names;
  for (const auto &e : examples) names.push_back("`" + cellName(prog.outputs[b].name, e) + "`");
  return RuntimeError(codes::kUndefinedOutput,
                      fmt::format("output buffer `{}` has {} undefined (⊥) cell{} that no output index function writes, "
                                  "e.g. {}",
                                  prog.outputs[b].name, undefined, undefined == 1 ? "" : "s", fmt::join(names, ", ")),
                      prog.outputs[b].range,
                      "pass --allow-undefined to write the other cells anyway (they hold zeros; `mdhi run --out` also "
                      "writes the mask `<buffer>.defined.npy` of the defined ones)");
}

} // namespace

void requireDefinedOutputs(const hl::Program &prog, const ProgramShapes &shapes) {
  PreparedProgram prepared(prog);
  OutputView<Native> out(prepared, shapes, /*allocateCells=*/false);
  out.markWritten();
  for (size_t b = 0; b < prog.outputs.size(); ++b) {
    std::vector<std::vector<int64_t>> examples;
    if (size_t undefined = out.undefinedCells(b, &examples)) throw undefinedOutputError(prog, b, undefined, examples);
  }
}

RunResult evaluate(const hl::Program &prog, const data::BufferSet &inputs, const EvalOptions &opts) {
  RunResult r;
  r.shapes = resolveShapes(prog, shapesOf(inputs), opts.runtimeSizes);
  std::vector<const data::BufferData *> buffers = checkInputs(prog, r.shapes, inputs);
  PreparedProgram prepared(prog);
  InputView<Native> input(prog, buffers, r.shapes);
  MdHomEvaluator<Native> hom(prepared, input, opts.trapOverflow, opts.interrupted);
  MDA<Scalar> result = hom.evaluate(fullIndexSets(r.shapes));
  r.applications = hom.applications();

  OutputView<Native> out(prepared, r.shapes);
  out.write(result);
  result = MDA<Scalar>(); // release the output MDA before the buffers are encoded
  for (size_t b = 0; b < prog.outputs.size(); ++b) {
    std::vector<std::vector<int64_t>> examples;
    size_t undefined = out.undefinedCells(b, &examples);
    r.undefinedCells += undefined;
    const auto &cells = out.buffers()[b];
    if (undefined && !opts.allowUndefined) throw undefinedOutputError(prog, b, undefined, examples);
    data::BufferData data;
    data.elem = cells.elem;
    data.shape = cells.shape;
    data.bytes.assign(cells.defined.size() * cells.elem.size(), 0);
    for (size_t c = 0; c < cells.defined.size(); ++c)
      if (cells.defined[c]) storeCell(cells.elem, cells.values.data() + c * cells.leaves, data.element(c));
    r.outputs[cells.name] = std::move(data);
    r.defined[cells.name] = cells.defined;
  }
  return r;
}

std::vector<CellValue> evaluateCells(const hl::Program &prog, const data::BufferSet &inputs,
                                     const std::vector<CellRef> &cells, const EvalOptions &opts) {
  ProgramShapes shapes = resolveShapes(prog, shapesOf(inputs), opts.runtimeSizes);
  std::vector<const data::BufferData *> buffers = checkInputs(prog, shapes, inputs);
  PreparedProgram prepared(prog);
  InputView<Native> input(prog, buffers, shapes);
  CellEvaluator<Native> evaluator(prepared, input, shapes, opts.trapOverflow, opts.interrupted);
  std::vector<CellValue> out;
  for (const auto &c : cells) {
    auto v = evaluator.evaluate(c);
    CellValue cv;
    cv.cell = c;
    cv.defined = v.defined;
    cv.elem = v.elem;
    cv.applications = v.applications;
    if (v.defined) {
      cv.bytes.assign(v.elem.size(), 0);
      storeCell(v.elem, v.leaves.data(), cv.bytes.data());
      cv.text = formatValue<Native>(v.elem, v.leaves.data());
    } else {
      cv.text = "⊥";
    }
    out.push_back(std::move(cv));
  }
  return out;
}

bool parseCellList(const std::string &text, std::vector<CellRef> &out, std::string &error) {
  size_t p = 0;
  auto skip = [&] {
    while (p < text.size() && (text[p] == ' ' || text[p] == ';' || text[p] == '\t' || text[p] == '\n')) ++p;
  };
  skip();
  while (p < text.size()) {
    CellRef c;
    while (p < text.size() && (std::isalnum(static_cast<unsigned char>(text[p])) || text[p] == '_')) c.buffer += text[p++];
    if (c.buffer.empty()) {
      error = fmt::format("expected a buffer name at `{}` (cells are written like `w[3]`, `C[1,2]` or `S`)", text.substr(p));
      return false;
    }
    if (p < text.size() && text[p] == '[') {
      ++p;
      while (true) {
        while (p < text.size() && text[p] == ' ') ++p;
        if (p < text.size() && text[p] == ']') { ++p; break; }
        size_t start = p;
        while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p]))) ++p;
        if (start == p) {
          error = fmt::format("expected a non-negative index in `{}`", text);
          return false;
        }
        if (p - start > 15) {
          error = fmt::format("index {} in `{}` is out of range (no buffer has that many cells)", text.substr(start, p - start), text);
          return false;
        }
        c.index.push_back(std::stoll(text.substr(start, p - start)));
        while (p < text.size() && text[p] == ' ') ++p;
        if (p < text.size() && text[p] == ',') { ++p; continue; }
        if (p < text.size() && text[p] == ']') { ++p; break; }
        error = fmt::format("expected `,` or `]` in `{}`", text);
        return false;
      }
    }
    out.push_back(std::move(c));
    skip();
    if (p < text.size() && text[p] == ',') { ++p; skip(); }
  }
  if (out.empty()) {
    error = fmt::format("no cells in `{}` (cells are written like `w[3]`, `C[1,2]` or `S`, separated by `;`)", text);
    return false;
  }
  return true;
}

} // namespace mdh::interp
