/** \file
 * md_hom (Def. 9) evaluated as the paper defines it:
 *
 *   md_hom(f, (⊛1,…,⊛D))(a) := ⊛1_{i1∈I1} … ⊛D_{iD∈ID}  f→( a|{i1}×…×{iD} )
 *
 * ⊛1 is the outermost iteration, every dimension runs through its indices
 * in ascending order, and the part folded so far is always the left operand
 * (the canonical order, docs/language.md §13.1).  `nest(d)` is the paper's
 * H(d, prefix): the MDA over dimensions d..D for the fixed indices i1..i(d-1).
 * The combine operators (Def. 2) act on those partial MDAs:
 *
 *  - concatenation ++ (Ex. 3), ⇒ = id: (a1 ++ a2)[…,i,…] is a1's element when
 *    i ∈ P and a2's when i ∈ Q.  Each part therefore lands at its own global
 *    index, so parts are written in place (a literal `acc = acc ++ part`
 *    would copy O(N²) data and give the same MDA);
 *  - point-wise •→(⊕) (Ex. 4), ⇒ = 0_f: res[…,0,…] = a1[…,0,…] ⊕ a2[…,0,…];
 *  - prefix-sum ++_prefix-sum(⊕) (App. B.9), ⇒ = id, split by index value:
 *      i ∈ P: res[…,i,…] = a1[…,i,…] ⊕ a2[…,max≤i(Q),…]
 *      i ∈ Q: res[…,i,…] = a1[…,max≤i(P),…] ⊕ a2[…,i,…]
 *    where a term whose max≤i(∅) is undefined is left out.
 *
 * f→ lifts f to the singleton MDA at index i (re-indexed to ⇒d({id}): id for
 * ++ and prefix-sum, 0 for point-wise dimensions).  The input MDA a is the
 * input view (InputView.h), read element by element.  Index sets keep their
 * global indices, so evaluating on restricted sets (per-cell evaluation)
 * yields exactly the corresponding part of the full result.
 *
 * Memory: the result MDA over ⇒d(I_d), plus one scratch part per point-wise
 * dimension (the sizes of the dimensions inside it): proportional to the
 * output, never to the input MDA.
 */
#pragma once

#include "interp/EvalLocation.h"
#include "interp/InputView.h"
#include "interp/MDA.h"
#include "interp/PreparedProgram.h"
#include "interp/ScalarEvaluator.h"

#include <fmt/format.h>

#include <vector>

namespace mdh::interp {

template <class D> class MdHomEvaluator final : public EvalLocation {
public:
  using Value = typename D::Value;
  using Block = MdaBlock<Value>;
  using CO = hl::CombineOperator::Kind;

  MdHomEvaluator(const PreparedProgram &prog, const InputView<D> &input, bool trapOverflow,
                 InterruptCheck interrupted = nullptr)
      : prog_(prog), input_(input), scalar_(trapOverflow, *this), D_(prog.dims()), interrupted_(interrupted) {
    for (const PreparedFunction *fn : prog.topLevelFunctions()) scalar_.reserve(*fn);
    const hl::Program &p = prog.program();
    indexParams_ = p.usesIndices ? uint32_t(D_) : 0;
    elementLeaves_ = prog.elementLeaves() + (D::kCountsTerms ? 1 : 0);
  }

  /// Leaf of an element that counts the scalar-function results folded into it (precise mode).
  uint32_t termsLeaf() const { return prog_.elementLeaves(); }

  /// md_hom(f, (⊛1..⊛D)) of the input view restricted to `indexSets` (global indices):
  /// an MDA over (⇒1(I1), …, ⇒D(ID)).
  MDA<Value> evaluate(const std::vector<IndexRange> &indexSets) {
    sets_ = indexSets;
    outSets_.clear();
    for (size_t d = 0; d < D_; ++d) outSets_.push_back(isPointWise(d) ? IndexRange{0, 1} : sets_[d]);
    MDA<Value> result(outSets_, elementLeaves_);
    // One scratch part per point-wise dimension d: the MDA over dimensions d+1..D.
    scratch_.assign(D_, MDA<Value>());
    for (size_t d = 0; d < D_; ++d)
      if (isPointWise(d)) {
        std::vector<IndexRange> inner(outSets_);
        for (size_t e = 0; e <= d; ++e) inner[e] = {0, 1};
        scratch_[d] = MDA<Value>(inner, elementLeaves_);
      }
    index_.assign(D_, 0);
    nest(0, Block{result.origin(), &result});
    phase_ = Phase::Idle;
    return result;
  }

  /// Scalar-function applications so far.
  uint64_t applications() const { return applications_; }

  std::string describe() const override {
    std::vector<std::string> at;
    switch (phase_) {
    case Phase::ScalarFunction:
      for (size_t d = 0; d < D_; ++d) at.push_back(fmt::format("{}={}", prog_.dimName(d), index_[d]));
      return fmt::format("in `{}` at MDA index ({})", prog_.scalarFunction().name, fmt::join(at, ", "));
    case Phase::Combining:
      for (size_t d = 0; d < combineDim_; ++d) at.push_back(fmt::format("{}={}", prog_.dimName(d), index_[d]));
      return fmt::format("in combine operator `{}` of dimension {} (`{}`), combining {}={} into the part before it{}{}",
                         prog_.combineOperator(combineDim_).str(), combineDim_ + 1, prog_.dimName(combineDim_),
                         prog_.dimName(combineDim_), index_[combineDim_], at.empty() ? "" : " at ",
                         at.empty() ? "" : fmt::format("({})", fmt::join(at, ", ")));
    case Phase::Idle: break;
    }
    return "";
  }

private:
  enum class Phase { Idle, ScalarFunction, Combining };

  const PreparedProgram &prog_;
  const InputView<D> &input_;
  ScalarEvaluator<D> scalar_;
  const size_t D_;
  uint32_t indexParams_ = 0, elementLeaves_ = 0;
  std::vector<IndexRange> sets_, outSets_;
  std::vector<MDA<Value>> scratch_;
  std::vector<int64_t> index_; ///< i1..iD of the current prefix
  uint64_t applications_ = 0;
  InterruptCheck interrupted_;
  Phase phase_ = Phase::Idle;
  size_t combineDim_ = 0;

  bool isPointWise(size_t d) const { return prog_.combineOperator(d).kind == CO::PointWise; }

  /// H(d, (i1..i(d-1))): writes ⊛d_{id∈Id} … ⊛D_{iD∈ID} f→(a|{i1}×…×{iD}) into `part`.
  void nest(size_t d, Block part) {
    if (d == D_) {
      applyScalarFunction(part.origin);
      return;
    }
    const IndexRange &I = sets_[d];
    switch (prog_.combineOperator(d).kind) {
    case CO::Concat:
      // P ++ Q keeps every part at its own index: fold by writing each part in place.
      for (int64_t i = I.begin; i < I.end; ++i) {
        index_[d] = i;
        nest(d + 1, part.at(d, i));
      }
      return;
    case CO::PointWise: {
      // acc := f→ part of the first index; then acc := acc ⊕ part_i for the following ones.
      Block acc = part.at(d, 0);
      index_[d] = I.begin;
      nest(d + 1, acc);
      Block next{scratch_[d].origin(), &scratch_[d]};
      for (int64_t i = I.begin + 1; i < I.end; ++i) {
        index_[d] = i;
        nest(d + 1, next.at(d, 0));
        combinePointWise(d, acc, next.at(d, 0));
      }
      return;
    }
    case CO::PrefixSum:
      // The part at index i is computed in place, then combined with everything before it:
      // P = [I.begin, i), Q = {i}.
      for (int64_t i = I.begin; i < I.end; ++i) {
        index_[d] = i;
        nest(d + 1, part.at(d, i));
        if (i > I.begin) combinePrefixSum(d, part, IndexRange{I.begin, i}, IndexRange{i, i + 1});
      }
      return;
    }
  }

  /// f→ at the current index: f applied to the input-view element, one output element.
  void applyScalarFunction(Value *element) {
    Value *args = scalar_.arguments();
    for (uint32_t d = 0; d < indexParams_; ++d) args[d] = D::fromBits(uint64_t(index_[d])); // USE_MDA_INDICES
    input_.element(index_.data(), args + indexParams_);
    phase_ = Phase::ScalarFunction;
    scalar_.run(prog_.scalarFunction(), element);
    if constexpr (D::kCountsTerms) D::setTerms(element[termsLeaf()], 1);
    // Every combine step follows an application, so polling here bounds the wait for a stop.
    if ((++applications_ & 0x3fff) == 0 && interrupted_ && interrupted_()) throw EvaluationInterrupted();
  }

  /// Point-wise: acc[…,0,…] := acc[…,0,…] ⊕ next[…,0,…] over every element of dimensions d+1..D.
  void combinePointWise(size_t d, Block acc, Block next) {
    phase_ = Phase::Combining;
    combineDim_ = d;
    const PreparedOperator &op = prog_.binaryOperator(d);
    forEachElement(d + 1, acc, next, [&](Value *a1, Value *a2) {
      applyOperator(op, a1, a2, a1);
      if constexpr (D::kCountsTerms) D::addTerms(a1[termsLeaf()], a2[termsLeaf()]);
    });
  }

  /// Prefix-sum (B.9) of the part a1 over P with the part a2 over Q, both stored in `part`,
  /// for P entirely below Q (the canonical fold adds one index at a time):
  ///   i ∈ Q: res[i] = a1[max≤i(P)] ⊕ a2[i], and max≤i(P) = P.end - 1;
  ///   i ∈ P: max≤i(Q) is undefined (every index of Q is larger), so res[i] = a1[i] unchanged.
  void combinePrefixSum(size_t d, Block part, IndexRange P, IndexRange Q) {
    phase_ = Phase::Combining;
    combineDim_ = d;
    const PreparedOperator &op = prog_.binaryOperator(d);
    Block lastOfP = part.at(d, P.end - 1);
    for (int64_t i = Q.begin; i < Q.end; ++i)
      forEachElement(d + 1, lastOfP, part.at(d, i), [&](Value *a1, Value *a2) {
        applyOperator(op, a1, a2, a2);
        if constexpr (D::kCountsTerms) D::addTerms(a2[termsLeaf()], a1[termsLeaf()]);
      });
  }

  /// Calls fn(elementOfA, elementOfB) for every index of dimensions from..D of two parts
  /// with the same index sets there (they may live in different MDAs).
  template <class Fn> void forEachElement(size_t from, Block a, Block b, const Fn &fn) {
    if (from == D_) {
      fn(a.origin, b.origin);
      return;
    }
    const IndexRange &S = outSets_[from];
    for (int64_t i = S.begin; i < S.end; ++i) {
      if (!isPointWise(from)) index_[from] = i;
      forEachElement(from + 1, a.at(from, i), b.at(from, i), fn);
    }
  }

  /// r := a ⊕ b on the leaves `op` covers (r may be a or b).
  void applyOperator(const PreparedOperator &op, const Value *a, const Value *b, Value *r) {
    switch (op.kind) {
    case hl::BinaryOperator::Kind::Builtin:
      for (uint32_t l = 0; l < op.leaves; ++l) {
        uint32_t at = op.firstLeaf + l;
        r[at] = scalar_.builtinOperator(op.builtin, op.leafKinds[l], a[at], b[at], prog_.program().range);
      }
      return;
    case hl::BinaryOperator::Kind::Tuple:
      for (const auto &part : op.parts) applyOperator(part, a, b, r);
      return;
    case hl::BinaryOperator::Kind::User: {
      Value *args = scalar_.arguments(); // copies first: r may alias a or b
      std::copy(a + op.firstLeaf, a + op.firstLeaf + op.leaves, args);
      std::copy(b + op.firstLeaf, b + op.firstLeaf + op.leaves, args + op.leaves);
      scalar_.run(*op.user, r + op.firstLeaf);
      return;
    }
    }
  }
};

} // namespace mdh::interp
