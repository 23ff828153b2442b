/** \file
 * C++ text of the partial-vector helpers the OpenMP emitter puts into
 * generated code: loads, stores and blends of the lanes [lo, hi) of one
 * register-tile vector, for remainder tiles narrower than a vector.
 *
 * Invariants of every helper: no element outside the named lanes is read or
 * written (masked-off lanes of AVX-512 and AVX2 masked loads and stores do
 * not fault), lanes that are loaded but not named repeat the first named
 * element (so a function applied lane-wise sees values of the buffer only),
 * and the result is bit-identical on every path (each path only moves bits).
 * Each text carries its own include guard, so kernels of several
 * configurations can share one translation unit (the tuner does).
 */
#pragma once

#include <string>

namespace mdh::codegen {

/// mdh_vload_lanes / mdh_vstore_lanes: lanes [lo, hi) of a vector whose cells are a
/// row's edge (padded lanes); the vector's address is MDH_VBYTES-aligned.
std::string edgeLaneHelpers();

/// mdh_vload_first / mdh_vstore_first: lanes [0, n) of a remainder tile along a
/// concatenated vector dimension. After edgeLaneHelpers() (its load is mdh_vload_lanes).
std::string firstLaneHelpers();

/// mdh_vkeep_first: lanes [0, n) of a reduction's partial vector, the identity elsewhere.
std::string keepFirstLaneHelpers();

} // namespace mdh::codegen
