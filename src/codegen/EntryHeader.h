/** \file
 * What the generated headers of all backends share: the types of the entry
 * declarations under the user's own names, as C11 and as C++, and the
 * comment that gives the buffers' shapes.
 *
 * The implementation names records and tuples in the `mdh_` namespace
 * (CNames.h); a header shows the user's record and field names instead,
 * renamed only where CNames says they clash.  Both sides have the same
 * layout (C layout, natural alignment), and the entries have C linkage, so
 * the differing struct names never meet.
 */
#pragma once

#include "hl/HLIR.h"

#include <string>
#include <vector>

namespace mdh::codegen {

/// The types a header declares for the buffers of one program.
class HeaderTypes {
public:
  /// `symbols`: every symbol the header declares (records must not take them).
  HeaderTypes(const hl::Program &p, std::vector<std::string> symbols);

  /// The C type of a buffer element in the header's declarations.
  std::string type(const Type &t) const;
  /// `#include <stdint.h>` (and <stdbool.h> in C), then every record and tuple
  /// the buffers use, callees first: typedef'd structs with a layout check,
  /// guarded so that several headers can be included together; a comment
  /// says which names were renamed.
  std::string declarations() const;

private:
  const hl::Program &P;
  std::vector<std::string> symbols;
  std::vector<Type> types; ///< records and tuples of the buffers, element types first
};

/// `// Shapes:` and one comment line per buffer (`//  input  M: f32[I, K]`),
/// then the run-time sizes in argument order, if any.
std::string shapesComment(const hl::Program &p);

} // namespace mdh::codegen
