// FloatProduct.h — whether a computation sums products of two floats: f(a, b) = a * b of
// two parameters of f's float type (f32 or f64; the built-in `mul` or a user function with
// that body, either argument order), every reduction a point-wise built-in `add` of that
// type. The x86 register tiles of FMAs (codegen/FmaTileAsm) apply only to these, and the
// default configuration (ll/Config) sizes their register tiles for that code.
// Invariant: structural only (f's body as the HL IR holds it), no evaluation.
#pragma once

namespace mdh::hl {

struct ScalarFunction;
struct Program;

/// Whether f(a, b) returns a * b of its two parameters, both of f's result type, f32 or f64.
bool multipliesTwoFloats(const ScalarFunction &f);

/// Whether p's f multiplies two floats (multipliesTwoFloats) and p reduces at least one
/// dimension, every one with the built-in `add` of f's result type (`pw(add)`).
bool sumsFloatProducts(const Program &p);

} // namespace mdh::hl
