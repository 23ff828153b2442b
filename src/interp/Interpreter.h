/** \file
 * The reference interpreter's library interface: evaluates an instantiated
 * program `out_view ∘ md_hom ∘ inp_view` (hl::Program) on input buffers.
 *
 *  - evaluate(): every output cell (docs/interpreter.md "Semantics");
 *  - evaluateCells(): chosen output cells only — each is computed from the
 *    part of the MDA it depends on (concatenation dimensions restricted to
 *    the cell's index, prefix-sum dimensions to the indices up to it,
 *    point-wise dimensions complete), so single cells of real-size programs
 *    are cheap;
 *  - PreciseEvaluation.h adds the high-precision mode.
 *
 * Inputs must have exactly their derived shapes; run-time (`*`) sizes are
 * solved from them, or taken from `runtimeSizes`.  Errors are thrown as
 * RuntimeError (source-related, with codes) or data::DataError.
 * Nothing here keeps global state: calls are independent and thread-safe
 * on distinct programs.
 */
#pragma once

#include "data/BufferData.h"
#include "hl/HLIR.h"
#include "interp/ProgramShapes.h"
#include "interp/RuntimeError.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mdh::interp {

struct EvalOptions {
  bool trapOverflow = false;   ///< integer overflow is an error (E0902) instead of wrapping
  bool allowUndefined = false; ///< ⊥ output cells are not an error (E0903); see RunResult::defined
  std::map<std::string, int64_t> runtimeSizes; ///< explicit values of `*` sizes
  InterruptCheck interrupted = nullptr; ///< polled now and then; true stops with EvaluationInterrupted
};

struct RunResult {
  data::BufferSet outputs;                            ///< ⊥ cells hold zero bytes
  std::map<std::string, std::vector<uint8_t>> defined; ///< per output: 1 = written, 0 = ⊥
  size_t undefinedCells = 0;
  uint64_t applications = 0; ///< scalar-function applications
  ProgramShapes shapes;
};

/// Evaluates the whole program.
RunResult evaluate(const hl::Program &prog, const data::BufferSet &inputs, const EvalOptions &opts = {});

/// Throws E0903 (a RuntimeError) when an output buffer of the given shapes
/// has cells that no output index function writes (⊥): the check `evaluate`
/// makes, for runs whose values come from generated code.
void requireDefinedOutputs(const hl::Program &prog, const ProgramShapes &shapes);

/// An output cell: buffer name and index (empty for a 0-D buffer).
struct CellRef {
  std::string buffer;
  std::vector<int64_t> index;
};

struct CellValue {
  CellRef cell;
  bool defined = false;       ///< false: no index function writes the cell (⊥)
  Type elem;
  std::vector<uint8_t> bytes; ///< the value in the buffer's C layout
  std::string text;           ///< readable value, `⊥` when undefined
  uint64_t applications = 0;  ///< scalar-function applications spent on it
};

/// Evaluates chosen output cells only (per-cell evaluation).
std::vector<CellValue> evaluateCells(const hl::Program &prog, const data::BufferSet &inputs,
                                     const std::vector<CellRef> &cells, const EvalOptions &opts = {});

/// Parses `w[3]`, `C[1,2]`, `O` (0-D) or several separated by `;` or spaces.
/// Returns false and a message on malformed text.
bool parseCellList(const std::string &text, std::vector<CellRef> &out, std::string &error);

} // namespace mdh::interp
