// Unit tests of SizePoly: canonical form, arithmetic and sign reasoning.
#include "sema/SizePoly.h"

#include <doctest/doctest.h>

using mdh::SizePoly;

TEST_CASE("SizePoly keeps a canonical form") {
  SizePoly I = SizePoly::param("I"), K = SizePoly::param("K");
  CHECK((I + K) == (K + I));
  CHECK((I * K) == (K * I));
  CHECK(((I + SizePoly::constant(2)) - I) == SizePoly::constant(2));
  CHECK((I - I) == SizePoly());
  CHECK((SizePoly::constant(2) * (I - SizePoly::constant(1)) + K).str() == "2*I + K - 2");
}

TEST_CASE("SizePoly sign reasoning assumes parameters >= 1") {
  SizePoly I = SizePoly::param("I"), J = SizePoly::param("J");
  CHECK((I - SizePoly::constant(1)).provablyNonNegative());
  CHECK_FALSE((I - SizePoly::constant(2)).provablyNonNegative());
  CHECK_FALSE((I - SizePoly::constant(2)).provablyNegative());
  CHECK((SizePoly::constant(0) - I).provablyNegative());
  CHECK((I * J - I).provablyNonNegative());
  CHECK_FALSE((I - J).provablyNonNegative());
}

TEST_CASE("SizePoly substitution and exact division") {
  SizePoly P = SizePoly::param("P"), R = SizePoly::param("R");
  SizePoly shape = SizePoly::constant(2) * (P - SizePoly::constant(1)) + R;
  auto v = shape.substitute({{"P", SizePoly::constant(112)}, {"R", SizePoly::constant(7)}});
  REQUIRE(v.constantValue());
  CHECK(*v.constantValue() == 229);
  CHECK((SizePoly::constant(4) * P).divExact(2) == SizePoly::constant(2) * P);
  CHECK_FALSE((SizePoly::constant(3) * P).divExact(2).has_value());
}

TEST_CASE("SizePoly flags overflow instead of wrapping") {
  SizePoly big = SizePoly::constant(int64_t(1) << 62);
  CHECK((big * big).overflowed());
  CHECK_FALSE((big * big).constantValue().has_value());
}
