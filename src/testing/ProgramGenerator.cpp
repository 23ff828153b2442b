/** \file
 * The random program generator (see ProgramGenerator.h).
 */
#include "testing/ProgramGenerator.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace mdh::testing {
namespace {

class Gen {
public:
  explicit Gen(uint64_t seed) : rng(seed) {}

  GeneratedProgram run() {
    GeneratedProgram g;
    const int D = pickWeighted({1, 3, 3, 2, 1}) + 1; // 1..5, mostly 2-3
    static const int64_t kSizes[] = {1, 2, 3, 4, 5, 7, 8, 11, 13, 16, 17};
    int64_t budget = 3000;
    std::vector<int64_t> N(D);
    for (int d = 0; d < D; ++d) {
      int64_t s;
      do s = kSizes[pick(0, 10)]; while (s > std::max<int64_t>(1, budget / 2) && s > 1);
      N[d] = s;
      budget = std::max<int64_t>(1, budget / s);
    }
    // Element type and operator family.
    int kind = pick(0, 9);
    std::string T = kind < 4 ? "i32" : kind < 5 ? "i64" : kind < 6 ? "u8" : kind < 7 ? "f32" : kind < 8 ? "f64" : kind < 9 ? "rec" : "tup";
    bool record = T == "rec", tuple = T == "tup";
    std::string elem = record ? "Item" : tuple ? "i32" : T;
    std::string out;
    if (record) {
      out += "record Item { key: i32, val: i64 }\n";
      // max by key, ties by the larger val: a total order, so assoc and comm.
      out += "@assoc @comm\nfn best(a: Item, b: Item) -> Item {\n"
             "  if (a.key > b.key) { return a; }\n  if (b.key > a.key) { return b; }\n"
             "  return a.val >= b.val ? a : b;\n}\n";
    }
    std::vector<std::string> builtins = {"add", "max", "min"};
    if (T == "i32" || T == "i64" || T == "u8") builtins.push_back(pick(0, 1) ? "xor" : "mul");
    std::string op = record ? "best" : tuple ? "(add, max)" : builtins[size_t(pick(0, int(builtins.size()) - 1))];
    bool lemma = pick(0, 4) != 0;
    std::vector<std::string> ops(D);
    for (int d = 0; d < D; ++d) {
      int k = pick(0, 5);
      if (k <= 2) ops[d] = "++";
      else if (k <= 4) ops[d] = fmt::format("pw({})", op);
      else ops[d] = fmt::format("ps({})", op);
      if (!lemma && !record && !tuple && ops[d] != "++") {
        std::string other = builtins[size_t(pick(0, int(builtins.size()) - 1))];
        ops[d] = fmt::format("{}({})", ops[d].substr(0, 2), other);
      }
    }
    // Input view: 1-3 buffers of rank 0-3, 1-2 accesses each.
    std::vector<std::string> vars;
    for (int d = 0; d < D; ++d) vars.push_back(fmt::format("x{}", d));
    std::string params = fmt::format("({})", fmt::join(vars, ", "));
    int nb = pick(1, 3);
    std::vector<std::string> bufs, types, fparams, fargs;
    std::vector<std::vector<std::vector<Affine>>> inputAccesses; // buffer, access, component
    for (int b = 0; b < nb; ++b) {
      int rank = pickWeighted({1, 3, 3, 1});
      int na = pick(1, 2);
      std::vector<std::string> accs;
      inputAccesses.emplace_back();
      for (int a = 0; a < na; ++a) {
        std::vector<std::string> comps;
        inputAccesses.back().emplace_back();
        for (int k = 0; k < rank; ++k) {
          inputAccesses.back().back().push_back(affine(D, a > 0));
          comps.push_back(str(inputAccesses.back().back().back(), vars));
        }
        accs.push_back(fmt::format("{} -> ({})", params, fmt::join(comps, ", ")));
        std::string pname = fmt::format("a{}_{}", b, a);
        fparams.push_back(fmt::format("{}: {}", pname, record ? "i32" : elem));
        fargs.push_back(pname);
      }
      bufs.push_back(fmt::format("B{}: {}", b, fmt::join(accs, ", ")));
      types.push_back(record ? "i32" : elem);
    }
    // Output view: an injective map of the non-reduced dims (maybe
    // transposed, strided or shifted); reduced dims appear with any
    // coefficient, since they are evaluated at 0.
    std::vector<int> live;
    for (int d = 0; d < D; ++d)
      if (ops[d].rfind("pw", 0) != 0) live.push_back(d);
    std::shuffle(live.begin(), live.end(), rng);
    std::vector<std::string> comps;
    for (int d : live) {
      std::string c = pick(0, 3) == 0 ? fmt::format("2*{}", vars[d]) : vars[d];
      if (pick(0, 3) == 0) c += fmt::format(" + {}", pick(1, 2));
      comps.push_back(c);
    }
    for (int d = 0; d < D; ++d)
      if (ops[d].rfind("pw", 0) == 0 && !comps.empty() && pick(0, 2) == 0) comps.back() += fmt::format(" + {}", vars[d]);
    std::string outElem = record ? "Item" : elem;
    std::string outs = fmt::format("O: {} -> ({})", params, fmt::join(comps, ", "));
    std::string outTypes = outElem;
    if (tuple) {
      std::vector<std::string> comps2 = comps;
      std::reverse(comps2.begin(), comps2.end());
      outs += fmt::format(", O2: {} -> ({})", params, fmt::join(comps2, ", "));
      outTypes = "i32, i32";
    }
    // Scalar function: a small expression over all inputs (and sometimes the indices).
    bool idx = pick(0, 4) == 0;
    std::vector<std::string> allParams;
    if (idx)
      for (int d = 0; d < D; ++d) allParams.push_back(fmt::format("i{}: idx", d));
    allParams.insert(allParams.end(), fparams.begin(), fparams.end());
    std::string body = expression(fargs, record ? "i32" : elem);
    if (idx) body = fmt::format("{} + (i{} as {})", body, pick(0, D - 1), record ? "i32" : elem);
    std::string fresult = record ? "Item" : tuple ? "(i32, i32)" : elem;
    std::string ret = record ? fmt::format("Item {{ key: {}, val: (i0 as i64) }}", body)
                      : tuple ? fmt::format("({}, {})", body, fargs[0]) : body;
    if (record && !idx) ret = fmt::format("Item {{ key: {}, val: ({} as i64) }}", body, fargs.back());
    out += fmt::format("fn f({}) -> {} {{\n  return {};\n}}\n", fmt::join(allParams, ", "), fresult, ret);
    // Drawn last, so that a seed's program is otherwise what it was before
    // run-time sizes were generated.
    std::vector<bool> runTime(size_t(D), false);
    if (pick(0, 2) == 0)
      for (int d = 0; d < D; ++d) runTime[size_t(d)] = pick(0, 1) == 1;
    // Every component of a buffer with two accesses needs one that reaches
    // furthest for all run-time values; otherwise the sizes stay compiled in.
    for (const auto &accesses : inputAccesses)
      if (accesses.size() == 2)
        for (size_t k = 0; k < accesses[0].size(); ++k)
          if (!reachesFurther(accesses[0][k], accesses[1][k], N, runTime) && !reachesFurther(accesses[1][k], accesses[0][k], N, runTime))
            runTime.assign(size_t(D), false);
    std::vector<std::string> sizes, sizeArgs, sizeParams, runTimeValues, runTimeNames;
    for (int d = 0; d < D; ++d) {
      sizes.push_back(std::to_string(N[size_t(d)]));
      if (!runTime[size_t(d)]) {
        sizeArgs.push_back(sizes.back());
        continue;
      }
      sizeArgs.push_back(fmt::format("S{}", d));
      sizeParams.push_back(fmt::format("S{}: size", d));
      runTimeValues.push_back(fmt::format("S{}={}", d, N[size_t(d)]));
      runTimeNames.push_back(fmt::format("S{}", d));
    }
    const std::string definition = fmt::format("    out_view<{}>( {} )\n  o md_hom<{}>( f, ({}) )\n  o inp_view<{}>( {} );\n", outTypes, outs,
                                         fmt::join(sizeArgs, ", "), fmt::join(ops, ", "), fmt::join(types, ", "), fmt::join(bufs, ", "));
    if (sizeParams.empty()) {
      out += "mdh prog =\n" + definition;
    } else {
      out += fmt::format("mdh prog_sized<{}> =\n{}", fmt::join(sizeParams, ", "), definition);
      out += fmt::format("mdh prog = prog_sized<{}>;\n", fmt::join(std::vector<std::string>(sizeParams.size(), "*"), ", "));
    }
    g.source = out;
    g.entry = "prog";
    g.runtimeSizes = fmt::format("{}", fmt::join(runTimeValues, ","));
    g.summary = fmt::format("D={} N=({}) ops=({}) T={}{}", D, fmt::join(sizes, ","), fmt::join(ops, ", "), T,
                            runTimeNames.empty() ? "" : fmt::format(" run-time {}", fmt::join(runTimeNames, ",")));
    return g;
  }

private:
  std::mt19937_64 rng;

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  int pickWeighted(std::vector<int> w) {
    std::discrete_distribution<int> dist(w.begin(), w.end());
    return dist(rng);
  }

  /// One component of an index function: sum of coeffs[d] * x_d, plus offset.
  struct Affine {
    std::vector<int> coeffs;
    int offset = 0;
  };

  Affine affine(int D, bool shifted) {
    Affine a;
    for (int d = 0; d < D; ++d) a.coeffs.push_back(pickWeighted({6, 3, 1})); // mostly 0, sometimes 1 or 2
    a.offset = shifted ? pick(1, 2) : pick(0, 4) == 0 ? 1 : 0;
    return a;
  }

  static std::string str(const Affine &a, const std::vector<std::string> &vars) {
    std::vector<std::string> terms;
    for (size_t d = 0; d < a.coeffs.size(); ++d) {
      if (a.coeffs[d] == 1) terms.push_back(vars[d]);
      if (a.coeffs[d] == 2) terms.push_back(fmt::format("2*{}", vars[d]));
    }
    if (a.offset || terms.empty()) terms.push_back(std::to_string(a.offset));
    return fmt::format("{}", fmt::join(terms, " + "));
  }

  /// Whether a reaches at least as far as b for every value of the run-time
  /// sizes (x_d up to N_d - 1, or up to S_d - 1 >= 0 for a run-time d): sema
  /// derives a buffer's shape only where one access dominates (else E0413).
  static bool reachesFurther(const Affine &a, const Affine &b, const std::vector<int64_t> &N, const std::vector<bool> &runTime) {
    int64_t fixed = a.offset - b.offset;
    for (size_t d = 0; d < N.size(); ++d) {
      const int64_t diff = a.coeffs[d] - b.coeffs[d];
      if (runTime[d] && diff < 0) return false;
      if (!runTime[d]) fixed += diff * (N[d] - 1);
    }
    return fixed >= 0;
  }

  /// A small integer-valued expression (no division: exact in any order).
  std::string expression(const std::vector<std::string> &args, const std::string &t) {
    std::string e = args[size_t(pick(0, int(args.size()) - 1))];
    int terms = pick(0, 2);
    for (int i = 0; i < terms; ++i) {
      std::string a = args[size_t(pick(0, int(args.size()) - 1))];
      switch (pick(0, 3)) {
      case 0: e = fmt::format("{} + {}", e, a); break;
      case 1: e = fmt::format("({}) * {}", e, a); break;
      case 2: e = fmt::format("{} - {}", e, a); break;
      default: e = fmt::format("({} > {} ? {} : {})", e, a, e, a); break;
      }
    }
    if (t == "u8") e = fmt::format("{} + 1", e);
    return e;
  }
};

} // namespace

GeneratedProgram generateProgram(uint64_t seed) { return Gen(seed).run(); }

} // namespace mdh::testing
