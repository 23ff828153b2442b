/** \file
 * NumPy data types (`dtype`) as they appear in `.npy` headers, and the
 * mapping from MDH scalar types to them.
 *
 * MDH primitives map to `|b1 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 <f4 <f8`.
 * Records and tuples map to structured dtypes with the C layout of
 * Type.h (natural alignment, declaration order), i.e. exactly
 * `np.dtype([...], align=True)`; tuple components are named `f0, f1, ...`
 * as NumPy names unnamed fields.  In a descr, padding is written as unnamed
 * `('', '|Vn')` entries, which is what `np.save` writes for aligned dtypes.
 * Invariants: a parsed dtype records every field with its byte offset and
 * the total item size; padding entries are kept as Kind::Padding.
 */
#pragma once

#include "data/PyLiteral.h"
#include "sema/Type.h"

#include <string>
#include <vector>

namespace mdh::data {

struct NumpyDtype {
  enum class Kind { Scalar, Struct, Padding };
  struct Field;

  Kind kind = Kind::Scalar;
  char code = 0;        ///< Scalar: 'b' bool, 'i' signed, 'u' unsigned, 'f' float; Padding: 'V'
  char byteOrder = '|'; ///< '<' little, '>' big, '|' not applicable, '=' native
  size_t itemsize = 0;
  std::vector<Field> fields; ///< Struct, in offset order (padding included)

  /// The descr as NumPy writes it in a header: `'<f4'` or `[('a', '<i8'), ...]`.
  std::string descr() const;
  /// A readable name: `float32`, `int64`, `{id: int64, w: float64}`.
  std::string str() const;
  /// A Python expression that builds this dtype: `np.dtype('<f4')`, or for a struct in the C
  /// layout `np.dtype([('a', '<i8'), ...], align=True)`. Padding is left to `align=True`:
  /// spelt out, NumPy names unnamed padding `f<index>`, which can clash with a tuple's `f1`.
  std::string python() const;
};

struct NumpyDtype::Field {
  std::string name; ///< empty for padding
  NumpyDtype type;
  size_t offset = 0;
};

/// Interprets the `descr` entry of a header.  Returns false with a message
/// for dtypes mdh cannot hold (objects, strings, sub-arrays, complex...).
bool dtypeFromDescr(const PyValue &descr, NumpyDtype &out, std::string &error);

/// The dtype an MDH buffer of element type `t` has in memory and in files.
NumpyDtype dtypeOfType(const Type &t);

/// Whether data of dtype `got` can be used where `want` is expected: same
/// kinds and widths, same field names and offsets, same item size.
/// Otherwise fills `why` with the first difference.
bool sameLayout(const NumpyDtype &got, const NumpyDtype &want, std::string &why);

} // namespace mdh::data
