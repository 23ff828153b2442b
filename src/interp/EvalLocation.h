/** \file
 * Where an evaluation currently is, for error messages: the md_hom
 * evaluator knows the MDA index and whether f or a combine operator is
 * running; the scalar evaluator asks it only when it reports an error, so
 * keeping track costs nothing on the fast path.
 */
#pragma once

#include <string>

namespace mdh::interp {

class EvalLocation {
public:
  virtual ~EvalLocation() = default;
  /// E.g. "in `mul` at MDA index (i=3, k=4)".
  virtual std::string describe() const = 0;
};

} // namespace mdh::interp
