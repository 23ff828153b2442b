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
    for (int b = 0; b < nb; ++b) {
      int rank = pickWeighted({1, 3, 3, 1});
      int na = pick(1, 2);
      std::vector<std::string> accs;
      for (int a = 0; a < na; ++a) {
        std::vector<std::string> comps;
        for (int k = 0; k < rank; ++k) comps.push_back(affine(vars, D, a > 0));
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
    std::vector<std::string> sizes;
    for (auto n : N) sizes.push_back(std::to_string(n));
    out += fmt::format("mdh prog =\n    out_view<{}>( {} )\n  o md_hom<{}>( f, ({}) )\n  o inp_view<{}>( {} );\n", outTypes, outs,
                       fmt::join(sizes, ", "), fmt::join(ops, ", "), fmt::join(types, ", "), fmt::join(bufs, ", "));
    g.source = out;
    g.entry = "prog";
    g.summary = fmt::format("D={} N=({}) ops=({}) T={}", D, fmt::join(sizes, ","), fmt::join(ops, ", "), T);
    return g;
  }

private:
  std::mt19937_64 rng;

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  int pickWeighted(std::vector<int> w) {
    std::discrete_distribution<int> dist(w.begin(), w.end());
    return dist(rng);
  }

  std::string affine(const std::vector<std::string> &vars, int D, bool shifted) {
    std::vector<std::string> terms;
    for (int d = 0; d < D; ++d) {
      int c = pickWeighted({6, 3, 1}); // mostly 0, sometimes 1 or 2
      if (c == 1) terms.push_back(vars[size_t(d)]);
      if (c == 2) terms.push_back(fmt::format("2*{}", vars[size_t(d)]));
    }
    int off = shifted ? pick(1, 2) : pick(0, 4) == 0 ? 1 : 0;
    if (off || terms.empty()) terms.push_back(std::to_string(off));
    return fmt::format("{}", fmt::join(terms, " + "));
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
