/** \file
 * The formatter and the AST dump.
 *
 * Parentheses are inserted from operator precedence, so redundant ones in the
 * source disappear and needed ones are kept; comments are re-emitted before
 * the declaration or statement they precede, or at the end of its line when
 * they followed it on the same line. The layout is that of examples/ and the
 * docs: spaces inside a stage's parentheses, lines within o.lineWidth (lists
 * filled and aligned after their bracket, one access or buffer per line for a
 * long view, `-> (...)` on its own line for a long index function, long
 * expressions broken before an operator or at `?` and `:`). A layout depends only
 * on the tree and the column, so formatting is idempotent.
 */
#include "ast/Printer.h"

#include <cctype>
#include <fmt/format.h>

#include <algorithm>

namespace mdh::ast {

// ---- expressions, types, sizes ---------------------------------------------------------------
std::string printType(const TypeRef &t) {
  switch (t.kind) {
  case TypeRef::Kind::Named: return t.name.name;
  case TypeRef::Kind::Unit: return "()";
  case TypeRef::Kind::Error: return "<error>";
  case TypeRef::Kind::Tuple: {
    std::vector<std::string> e;
    for (const auto &x : t.elems) e.push_back(printType(x));
    return fmt::format("({})", fmt::join(e, ", "));
  }
  }
  return "?";
}

static int sizePrec(const SizeExpr &s) {
  switch (s.kind) {
  case SizeExpr::Kind::Add: case SizeExpr::Kind::Sub: return 1;
  case SizeExpr::Kind::Mul: case SizeExpr::Kind::Div: case SizeExpr::Kind::Mod: return 2;
  default: return 3;
  }
}

std::string printSize(const SizeExpr &s) {
  switch (s.kind) {
  case SizeExpr::Kind::Int: return std::to_string(s.value);
  case SizeExpr::Kind::Name: return s.name.name;
  case SizeExpr::Kind::Error: return "<error>";
  default: break;
  }
  const char *op = s.kind == SizeExpr::Kind::Add ? "+" : s.kind == SizeExpr::Kind::Sub ? "-"
                 : s.kind == SizeExpr::Kind::Mul ? "*" : s.kind == SizeExpr::Kind::Div ? "/" : "%";
  int p = sizePrec(s);
  std::string l = s.lhs ? printSize(*s.lhs) : "?", r = s.rhs ? printSize(*s.rhs) : "?";
  if (s.lhs && sizePrec(*s.lhs) < p) l = "(" + l + ")";
  if (s.rhs && sizePrec(*s.rhs) <= p) r = "(" + r + ")";
  return fmt::format("{} {} {}", l, op, r);
}

static std::string printMetaArgs(bool has, const std::vector<MetaArg> &args) {
  if (!has) return "";
  std::vector<std::string> a;
  for (const auto &m : args) {
    switch (m.kind) {
    case MetaArg::Kind::Dynamic: a.push_back("*"); break;
    case MetaArg::Kind::Type: a.push_back(printType(m.type)); break;
    case MetaArg::Kind::Size: a.push_back(m.size ? printSize(*m.size) : "?"); break;
    }
  }
  return fmt::format("<{}>", fmt::join(a, ", "));
}

/// Precedence levels of the grammar: higher binds tighter.
static int exprPrec(const Expr &e) {
  switch (e.kind) {
  case Expr::Kind::Cond: return 0;
  case Expr::Kind::Binary: return precedence(e.binaryOp);
  case Expr::Kind::Cast: return 11;
  case Expr::Kind::Unary: return 12;
  default: return 13;
  }
}

/// `x`, in parentheses when `paren`.
static std::string wrap(const Expr &x, bool paren) { return paren ? "(" + printExpr(x) + ")" : printExpr(x); }

std::string printExpr(const Expr &e) {
  switch (e.kind) {
  case Expr::Kind::Int:
  case Expr::Kind::Float: return e.text;
  case Expr::Kind::Bool: return e.boolValue ? "true" : "false";
  case Expr::Kind::Name: return e.name.name;
  case Expr::Kind::Error: return "<error>";
  case Expr::Kind::Unary: {
    const Expr &a = *e.operands[0];
    std::string inner = wrap(a, exprPrec(a) < 12);
    // `- -x`, not `--x` (which reads as a decrement) nor `-(-x)`: parentheses
    // would add a level of nesting (E0008) to every operator of a long run.
    const bool sameSign = !inner.empty() && inner[0] == spelling(e.unaryOp)[0];
    return std::string(spelling(e.unaryOp)) + (sameSign ? " " : "") + inner;
  }
  case Expr::Kind::Binary: {
    int p = exprPrec(e);
    const Expr &l = *e.operands[0], &r = *e.operands[1];
    return fmt::format("{} {} {}", wrap(l, exprPrec(l) < p), spelling(e.binaryOp), wrap(r, exprPrec(r) <= p));
  }
  case Expr::Kind::Cond: {
    const Expr &c = *e.operands[0], &t = *e.operands[1], &f = *e.operands[2];
    // The middle operand sits between `?` and `:`, so it never needs parentheses
    // (which would add a level of nesting to each conditional nested there).
    return fmt::format("{} ? {} : {}", wrap(c, exprPrec(c) <= 0), printExpr(t), printExpr(f));
  }
  case Expr::Kind::Cast: return fmt::format("{} as {}", wrap(*e.operands[0], exprPrec(*e.operands[0]) < 11), printType(e.castType));
  case Expr::Kind::Call: {
    std::vector<std::string> a;
    for (const auto &x : e.operands) a.push_back(printExpr(*x));
    return fmt::format("{}({})", e.name.name, fmt::join(a, ", "));
  }
  case Expr::Kind::Field: {
    // `t.1.0` would lex as `t` `.` `1.0` (a float): a tuple index on a tuple index keeps its parentheses.
    const Expr &base = *e.operands[0];
    bool numericBase = base.kind == Expr::Kind::Field && !base.name.name.empty() && std::isdigit(static_cast<unsigned char>(base.name.name[0]));
    return fmt::format("{}.{}", wrap(base, exprPrec(base) < 13 || numericBase), e.name.name);
  }
  case Expr::Kind::Tuple: {
    std::vector<std::string> a;
    for (const auto &x : e.operands) a.push_back(printExpr(*x));
    return fmt::format("({})", fmt::join(a, ", "));
  }
  case Expr::Kind::Record: {
    std::vector<std::string> a;
    for (const auto &f : e.fields) a.push_back(fmt::format("{}: {}", f.name.name, f.value ? printExpr(*f.value) : "?"));
    return fmt::format("{} {{ {} }}", e.name.name, fmt::join(a, ", "));
  }
  }
  return "?";
}

// ---- stages ------------------------------------------------------------------------------------------
static std::string printOpRef(const OpRef &r) {
  switch (r.kind) {
  case OpRef::Kind::Symbol: return r.symbol;
  case OpRef::Kind::Named: return r.name.name + printMetaArgs(r.hasMetaArgs, r.metaArgs);
  case OpRef::Kind::Tuple: {
    std::vector<std::string> e;
    for (const auto &x : r.elems) e.push_back(printOpRef(x));
    return fmt::format("({})", fmt::join(e, ", "));
  }
  case OpRef::Kind::Error: return "<error>";
  }
  return "?";
}

std::string printCombineOp(const CombineOp &c) {
  switch (c.kind) {
  case CombineOp::Kind::Concat: return "++";
  case CombineOp::Kind::PointWise:
    if (c.symbolShorthand) return printOpRef(c.op);
    return fmt::format("pw({})", printOpRef(c.op));
  case CombineOp::Kind::PrefixSum: return fmt::format("ps({})", printOpRef(c.op));
  case CombineOp::Kind::Named: return c.name.name + printMetaArgs(c.hasMetaArgs, c.metaArgs);
  case CombineOp::Kind::Error: return "<error>";
  }
  return "?";
}

static std::string printIndexFn(const IndexFn &f) {
  std::vector<std::string> p, r;
  for (const auto &x : f.params) p.push_back(x.name);
  for (const auto &x : f.results) r.push_back(printExpr(*x));
  return fmt::format("({}) -> ({})", fmt::join(p, ", "), fmt::join(r, ", "));
}

/// `name[shape]: ` of a buffer view.
static std::string printBufferHead(const BufferView &b) {
  std::string s = b.name.name;
  if (b.hasShape) {
    std::vector<std::string> d;
    for (const auto &x : b.shape) d.push_back(x ? printSize(*x) : "?");
    s += fmt::format("[{}]", fmt::join(d, ", "));
  }
  return s + ": ";
}

static std::string printBuffer(const BufferView &b, const std::string &accessSep = ", ") {
  std::vector<std::string> a;
  for (const auto &x : b.accesses) a.push_back(printIndexFn(x));
  return printBufferHead(b) + fmt::format("{}", fmt::join(a, accessSep));
}

static std::string printStageWith(const Stage &s, const std::string &sep, const std::string &open, const std::string &close) {
  switch (s.kind) {
  case Stage::Kind::InpView:
  case Stage::Kind::OutView: {
    std::vector<std::string> b;
    for (const auto &x : s.buffers) b.push_back(printBuffer(x));
    return fmt::format("{}{}({}{}{})", s.kind == Stage::Kind::InpView ? "inp_view" : "out_view",
                       printMetaArgs(s.hasMetaArgs, s.metaArgs), open, fmt::join(b, sep), close);
  }
  case Stage::Kind::MdHom: {
    std::vector<std::string> ops;
    for (const auto &o : s.ops) ops.push_back(printCombineOp(o));
    std::string f = s.fn.isSymbol ? s.fn.symbol : s.fn.name.name + printMetaArgs(s.fn.hasMetaArgs, s.fn.metaArgs);
    // The formatter's spaced form, `md_hom<N>( f, (++) )`, goes with spaced views.
    const std::string pad = open == " " ? " " : "";
    return fmt::format("md_hom{}({}{}, ({}){})", printMetaArgs(s.hasMetaArgs, s.metaArgs), pad, f, fmt::join(ops, ", "), pad);
  }
  case Stage::Kind::Ref: return s.name.name + printMetaArgs(s.hasMetaArgs, s.metaArgs);
  case Stage::Kind::Error: return "<error>";
  }
  return "?";
}

std::string printStage(const Stage &s) { return printStageWith(s, ", ", "", ""); }

// ---- the formatter ----------------------------------------------------------------------------------------
namespace {

class Formatter {
public:
  Formatter(const Module &m, const SourceManager &sm, const FormatOptions &o) : m(m), sm(sm), o(o) {}

  std::string run() {
    bool first = true;
    bool prevImport = false;
    for (auto [isImport, idx] : m.order) {
      SourceRange r = isImport ? m.imports[idx].range : m.decls[idx]->range;
      if (!first && !(isImport && prevImport)) out += "\n";
      emitCommentsBefore(r.begin, 0);
      if (isImport) out += fmt::format("import {};", m.imports[idx].dotted());
      else decl(*m.decls[idx]);
      trailing(r.end);
      out += "\n";
      lastLine = lineOf(r.end > 0 ? r.end - 1 : 0);
      first = false;
      prevImport = isImport;
    }
    if (next < m.comments.size() && !first) out += "\n";
    emitCommentsBefore(UINT32_MAX, 0);
    return out;
  }

private:
  const Module &m;
  const SourceManager &sm;
  const FormatOptions &o;
  std::string out;
  size_t next = 0;       // next comment to emit
  uint32_t lastLine = 0; // source line where the last emitted item ended
  size_t lineCommentAt_ = std::string::npos; // where appendTrailing put a `//` comment in out

  std::string pad(int level) const { return std::string(size_t(level * o.indent), ' '); }
  uint32_t lineOf(uint32_t off) const { return m.file < sm.size() ? sm.file(m.file).lineCol(off).line : 0; }

  /// `code`: the offset is where code starts (a statement or declaration), so
  /// a blank line before it survives; false for closing braces and `else`.
  void emitCommentsBefore(uint32_t offset, int level, bool code = true) {
    while (next < m.comments.size() && m.comments[next].range.begin < offset) {
      keepBlankLine(m.comments[next].range.begin);
      out += pad(level) + m.comments[next].text + "\n";
      lastLine = lineOf(m.comments[next].range.end > 0 ? m.comments[next].range.end - 1 : 0);
      ++next;
    }
    if (code && offset != UINT32_MAX) keepBlankLine(offset);
  }

  /// One blank line of the source survives between comments and the code
  /// they precede, and between statements.
  void keepBlankLine(uint32_t offset) {
    uint32_t line = lineOf(offset);
    if (lastLine > 0 && line > lastLine + 1 && out.size() >= 1 && out.back() == '\n' &&
        (out.size() < 2 || out[out.size() - 2] != '\n'))
      out += "\n";
  }

  /// Comments inside the node just printed (the printer does not keep
  /// positions within expressions) and comments that start on the line where
  /// it ended stay on that line.
  void trailing(uint32_t endOffset) {
    if (endOffset == 0) return;
    while (next < m.comments.size() && m.comments[next].range.begin < endOffset) {
      appendTrailing(m.comments[next].text);
      ++next;
    }
    uint32_t line = lineOf(endOffset - 1);
    // Only a comment with nothing but spaces (or the comments just taken)
    // before it belongs to this node: in `a: i32 } // c` or
    // `return 1; } else { /* c */ }` it belongs to what follows the brace,
    // and moving it inside would change the program's look.
    uint32_t from = endOffset;
    while (next < m.comments.size() && lineOf(m.comments[next].range.begin) == line &&
           onlySpaceBetween(from, m.comments[next].range.begin)) {
      appendTrailing(m.comments[next].text);
      from = m.comments[next].range.end;
      ++next;
    }
  }

  /// A comment at the end of the output line.  After a `//` comment on that line a
  /// block comment goes before it (appended, the line comment would swallow it, and
  /// the second line of a multi-line one would become code); a `//` comment joins
  /// the one there, which it would also be when read back.
  void appendTrailing(const std::string &text) {
    const size_t lineStart = out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1;
    const bool afterLineComment = lineCommentAt_ != std::string::npos && lineCommentAt_ >= lineStart;
    if (afterLineComment && text.rfind("//", 0) != 0) {
      out.insert(lineCommentAt_, text + " ");
      lineCommentAt_ += text.size() + 1;
      return;
    }
    out += " " + text;
    if (!afterLineComment) lineCommentAt_ = text.rfind("//", 0) == 0 ? out.size() - text.size() : std::string::npos;
  }

  bool onlySpaceBetween(uint32_t from, uint32_t to) const {
    if (m.file >= sm.size()) return true;
    const std::u32string &text = sm.file(m.file).codePoints();
    for (uint32_t i = from; i < to && i < text.size(); ++i)
      if (text[i] != U' ' && text[i] != U'\t') return false;
    return true;
  }

  /// `open item, item, ... close` starting at `column`: on one line when it fits
  /// (with `reserve` more characters after it), else filled greedily, the
  /// continuation lines aligned after `open`.
  std::string wrapList(size_t column, const std::string &open, const std::vector<std::string> &items,
                       const std::string &close, size_t reserve = 0) const {
    std::string flat = fmt::format("{}{}{}", open, fmt::join(items, ", "), close);
    if (column + flat.size() + reserve <= o.lineWidth || items.size() < 2) return flat;
    const size_t indent = column + open.size();
    std::string text = open;
    size_t at = indent;
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string piece = items[i] + (i + 1 < items.size() ? "," : close);
      const size_t after = i + 1 < items.size() ? 0 : reserve; // what follows the list stays on its line
      if (i > 0 && at + 1 + piece.size() + after > o.lineWidth) {
        text += "\n" + std::string(indent, ' ');
        at = indent;
      } else if (i > 0) {
        text += " ";
        ++at;
      }
      text += piece;
      at += piece.size();
    }
    return text;
  }

  /// `e` starting at `column`, on one line when it fits (with `reserve` more
  /// characters after it), else broken: a run of one binary operator's operands
  /// filled greedily with each continuation line starting with its operator at
  /// `indent`; `c ? t : f` as three lines (`?` and `:` at `indent`); call, tuple
  /// and record arguments filled and aligned after their bracket. The text reads
  /// back as the same tree (only spaces and line breaks differ from printExpr).
  std::string exprAt(const Expr &e, size_t column, size_t indent, size_t reserve = 0) const {
    std::string flat = printExpr(e);
    if (column + flat.size() + reserve <= o.lineWidth) return flat;
    auto operand = [&](const Expr &x, bool paren, size_t col, size_t ind, size_t res) {
      return paren ? "(" + exprAt(x, col + 1, ind, res + 1) + ")" : exprAt(x, col, ind, res);
    };
    switch (e.kind) {
    case Expr::Kind::Binary: {
      // The run a op b op c ... of one precedence level (left-associative: it nests to the left).
      const int p = exprPrec(e);
      std::vector<const Expr *> chain;
      const Expr *first = &e;
      while (first->kind == Expr::Kind::Binary && exprPrec(*first) == p) {
        chain.push_back(first);
        first = first->operands[0].get();
      }
      std::reverse(chain.begin(), chain.end());
      std::string text = operand(*first, exprPrec(*first) < p, column, indent, 0);
      for (size_t i = 0; i < chain.size(); ++i) {
        const Expr &r = *chain[i]->operands[1];
        const std::string op = spelling(chain[i]->binaryOp);
        const size_t res = i + 1 == chain.size() ? reserve : 0;
        const std::string piece = op + " " + wrap(r, exprPrec(r) <= p);
        if (columnAfter(text, column) + 1 + piece.size() + res <= o.lineWidth) {
          text += " " + piece;
          continue;
        }
        text += "\n" + std::string(indent, ' ') + op + " " +
                operand(r, exprPrec(r) <= p, indent + op.size() + 1, indent + op.size() + 1, res);
      }
      return text;
    }
    case Expr::Kind::Cond: {
      const Expr &c = *e.operands[0], &t = *e.operands[1], &f = *e.operands[2];
      const std::string nl = "\n" + std::string(indent, ' ');
      return operand(c, exprPrec(c) <= 0, column, indent, 0) + nl + "? " + exprAt(t, indent + 2, indent + 2) + nl +
             ": " + exprAt(f, indent + 2, indent + 2, reserve);
    }
    case Expr::Kind::Call:
    case Expr::Kind::Tuple:
    case Expr::Kind::Record: {
      std::vector<const Expr *> values;
      std::vector<std::string> labels;
      for (const auto &x : e.operands) {
        values.push_back(x.get());
        labels.push_back("");
      }
      for (const auto &f : e.fields) {
        values.push_back(f.value.get());
        labels.push_back(f.name.name + ": ");
      }
      const std::string open = e.kind == Expr::Kind::Call ? e.name.name + "("
                               : e.kind == Expr::Kind::Tuple ? "("
                                                             : e.name.name + " { ";
      const std::string close = e.kind == Expr::Kind::Record ? " }" : ")";
      const size_t align = column + open.size();
      std::string text = open;
      for (size_t i = 0; i < values.size(); ++i) {
        const bool last = i + 1 == values.size();
        const std::string tail = last ? close : ",";
        const size_t res = last ? reserve + close.size() : 1;
        std::string piece = labels[i] + (values[i] ? printExpr(*values[i]) : "?");
        const size_t at = columnAfter(text, column) + (i > 0 ? 1 : 0);
        if (i > 0 && at + piece.size() + res > o.lineWidth) {
          text += "\n" + std::string(align, ' ');
        } else if (i > 0) {
          text += " ";
        }
        const size_t col = columnAfter(text, column);
        if (col + piece.size() + res > o.lineWidth && values[i])
          piece = labels[i] + exprAt(*values[i], col + labels[i].size(), align + 4, res);
        text += piece + tail;
      }
      if (values.empty()) text += close;
      return text;
    }
    case Expr::Kind::Unary: {
      const Expr &a = *e.operands[0];
      const std::string op = spelling(e.unaryOp);
      const std::string inner = printExpr(a);
      const std::string prefix = op + (!inner.empty() && inner[0] == op[0] ? " " : ""); // as printExpr: `- -x`
      return prefix + operand(a, exprPrec(a) < 12, column + prefix.size(), indent, reserve);
    }
    case Expr::Kind::Cast: {
      const Expr &a = *e.operands[0];
      const std::string suffix = " as " + printType(e.castType);
      return operand(a, exprPrec(a) < 11, column, indent, reserve + suffix.size()) + suffix;
    }
    default: return flat;
    }
  }

  /// The column after `text`, which starts at `column`.
  static size_t columnAfter(const std::string &text, size_t column) {
    return text.find('\n') == std::string::npos ? column + text.size() : lastLineLength(text);
  }

  std::string metaParams(const Decl &d, size_t column = 0, size_t reserve = 0) {
    if (!d.hasMetaParams) return "";
    std::vector<std::string> p;
    for (const auto &x : d.metaParams) p.push_back(fmt::format("{}: {}", x.name.name, x.kind.name));
    return wrapList(column, "<", p, ">", reserve);
  }

  /// Characters after the last newline of `text` (or all of it).
  static size_t lastLineLength(const std::string &text) {
    const size_t nl = text.rfind('\n');
    return nl == std::string::npos ? text.size() : text.size() - nl - 1;
  }

  void decl(const Decl &d) {
    lastLine = 0; // no blank line right after an opening line
    switch (d.kind) {
    case Decl::Kind::Fn: fn(*d.as<FnDecl>()); break;
    case Decl::Kind::Record: {
      const auto &r = *d.as<RecordDecl>();
      out += fmt::format("record {} {{\n", r.name.name);
      for (const auto &f : r.fields) {
        emitCommentsBefore(f.range.begin, 1);
        out += fmt::format("{}{}: {},", pad(1), f.name.name, printType(f.type));
        trailing(f.range.end + 1);
        out += "\n";
        // The next field's blank-line check compares with where this one ended.
        lastLine = lineOf(f.range.end > 0 ? f.range.end - 1 : 0);
      }
      emitCommentsBefore(r.range.end, 1, false);
      out += "}";
      break;
    }
    case Decl::Kind::Combine: {
      const auto &c = *d.as<CombineDecl>();
      out += fmt::format("combine {}{} = {};", c.name.name, metaParams(c), printCombineOp(c.op));
      break;
    }
    case Decl::Kind::View: {
      const auto &v = *d.as<ViewDecl>();
      std::string head = fmt::format("view {}{} =", v.name.name, metaParams(v, 5 + v.name.name.size(), 2));
      std::string flat = stage(v.stage, lastLineLength(head) + 1);
      // A view that does not fit after its head starts on the next line.
      if (flat.find('\n') != std::string::npos) flat = "\n" + pad(2) + stage(v.stage, size_t(2 * o.indent));
      else flat = " " + flat;
      out += head + flat + ";";
      break;
    }
    case Decl::Kind::Mdh: {
      const auto &md = *d.as<MdhDecl>();
      std::string head = fmt::format("mdh {}{} =", md.name.name, metaParams(md, 4 + md.name.name.size(), 2));
      if (md.stages.size() == 1) {
        out += head + " " + stage(md.stages[0], head.size() + 1) + ";";
        break;
      }
      out += head;
      // Comments among the meta-parameters, and after the `=` on its line, stay on the
      // head's line.
      if (!md.metaParams.empty()) trailing(md.metaParams.back().range.end);
      const uint32_t headLine = lineOf(md.metaParams.empty() ? md.name.range.end : md.metaParams.back().range.end);
      while (!md.stages.empty() && next < m.comments.size() && m.comments[next].range.begin < md.stages[0].range.begin &&
             lineOf(m.comments[next].range.begin) == headLine) {
        appendTrailing(m.comments[next].text);
        lastLine = lineOf(m.comments[next].range.end > 0 ? m.comments[next].range.end - 1 : 0);
        ++next;
      }
      // Comments on lines of their own before the first stage start a line of their own.
      if (!md.stages.empty() && next < m.comments.size() && m.comments[next].range.begin < md.stages[0].range.begin)
        out += "\n";
      for (size_t i = 0; i < md.stages.size(); ++i) {
        emitCommentsBefore(md.stages[i].range.begin, 1);
        std::string lead = i == 0 ? "    " : "  o ";
        if (i == 0 && out.back() != '\n') out += "\n";
        out += lead + stage(md.stages[i], lead.size());
        // Comments inside the stage and on the line where it ends stay on its line (after
        // the `;` of the last one), not on lines of their own before the next stage.
        if (i + 1 == md.stages.size()) out += ";";
        trailing(md.stages[i].range.end);
        // The next stage's blank-line check compares with where this one ended.
        lastLine = lineOf(md.stages[i].range.end > 0 ? md.stages[i].range.end - 1 : 0);
        if (i + 1 < md.stages.size()) out += "\n";
      }
      break;
    }
    }
  }

  /// A stage starting at `column`, broken over lines when longer than the line width.
  std::string stage(const Stage &s, size_t column) {
    // Spaces inside the parentheses, as in the paper and docs/language.md:
    // `out_view<T>( w: (i, k) -> (i) )`, `md_hom<I, K>( mul, (++, pw(add)) )`.
    std::string flat = printStageWith(s, ", ", " ", " ");
    if (column + flat.size() <= o.lineWidth || s.kind == Stage::Kind::Ref) return flat;
    if (s.kind == Stage::Kind::MdHom) {
      const size_t comma = flat.find(", ("); // after f, before the combine operators
      if (comma == std::string::npos) return flat;
      const size_t open = flat.find('(') + 2;
      std::vector<std::string> ops;
      for (const auto &op : s.ops) ops.push_back(printCombineOp(op));
      return flat.substr(0, comma + 1) + "\n" + std::string(column + open, ' ') +
             wrapList(column + open, "(", ops, ")", 2) + " )";
    }
    // Too long: one buffer per line, aligned under the first (the layout of
    // examples/); a buffer still too long for its line (always a single
    // buffer) gets one access per line, aligned after its name.
    const std::string open = flat.substr(0, flat.find('(') + 2);
    const std::string align = "\n" + std::string(column + open.size(), ' ');
    std::vector<std::string> items;
    for (size_t i = 0; i < s.buffers.size(); ++i) {
      const BufferView &b = s.buffers[i];
      std::string item = printBuffer(b);
      const size_t after = i + 1 < s.buffers.size() ? 1 : 2; // "," or " )"
      if (s.buffers.size() == 1 || column + open.size() + item.size() + after > o.lineWidth) {
        // One access per line, aligned after the buffer's name; an access still too
        // long for its line continues with `-> (...)` under its parameters.
        const std::string head = printBufferHead(b);
        const size_t at = column + open.size() + head.size();
        std::vector<std::string> accesses;
        for (size_t k = 0; k < b.accesses.size(); ++k) {
          std::string a = printIndexFn(b.accesses[k]);
          const size_t tail = k + 1 < b.accesses.size() ? 1 : after;
          if (at + a.size() + tail > o.lineWidth) {
            // Each list filled and aligned after its bracket where it is still too long.
            std::vector<std::string> params, results;
            for (const auto &x : b.accesses[k].params) params.push_back(x.name);
            for (const auto &x : b.accesses[k].results) results.push_back(printExpr(*x));
            a = wrapList(at, "(", params, ")") + "\n" + std::string(at, ' ') + "-> " + wrapList(at + 3, "(", results, ")", tail);
          }
          accesses.push_back(a);
        }
        item = head + fmt::format("{}", fmt::join(accesses, "," + align + std::string(head.size(), ' ')));
      }
      items.push_back(item);
    }
    return open + fmt::format("{}", fmt::join(items, "," + align)) + " )";
  }

  void fn(const FnDecl &f) {
    for (const auto &a : f.attributes) out += "@" + a.name + " ";
    if (!f.attributes.empty()) {
      out.back() = '\n';
      // A comment between the attributes and `fn` stays there (it was moved
      // behind the function's last line).
      emitCommentsBefore(f.name.range.begin, 0, false);
    }
    std::vector<std::string> params;
    for (const auto &p : f.params) params.push_back(fmt::format("{}: {}", p.name.name, printType(p.type)));
    const std::string result = f.result ? " -> " + printType(*f.result) : "";
    std::string head = "fn " + f.name.name + metaParams(f, 3 + f.name.name.size());
    std::vector<std::string> lineComments = takeParamComments(f, params);
    const size_t column = lastLineLength(out) + lastLineLength(head);
    head += std::any_of(lineComments.begin(), lineComments.end(), [](const std::string &c) { return !c.empty(); })
                ? oneParamPerLine(column, params, lineComments)
                : wrapList(column, "(", params, ")", result.size() + 2);
    out += head + result;
    if (f.exprBody && f.body.size() == 1 && f.body[0]->value) {
      const Expr &value = *f.body[0]->value;
      const std::string body = printExpr(value) + ";";
      const size_t column = lastLineLength(out);
      if (column + 3 + body.size() <= o.lineWidth) out += " = " + body;
      else out += " =\n" + pad(2) + exprAt(value, size_t(2 * o.indent), size_t(4 * o.indent), 1) + ";";
      return;
    }
    out += " {\n";
    block(f.body, 1);
    emitCommentsBefore(f.range.end, 1, false);
    out += "}";
  }

  /// Comments inside a parameter list stay beside the parameter they follow:
  /// block comments inline (`a: i32 /* rows */`, one before the first parameter
  /// before it), a `//` comment after a parameter's comma, returned per parameter
  /// (that list is then printed one parameter per line). A `//` comment after the
  /// last parameter is left for trailing(): on `)`'s line it would comment out
  /// the rest of the declaration.
  std::vector<std::string> takeParamComments(const FnDecl &f, std::vector<std::string> &params) {
    std::vector<std::string> lineComments(params.size());
    if (params.empty()) return lineComments;
    const uint32_t listEnd = f.result ? f.result->range.begin
                             : !f.body.empty() && f.body[0] ? f.body[0]->range.begin
                                                            : f.range.end;
    auto isLine = [](const Comment &c) { return c.text.rfind("//", 0) == 0; };
    std::string before;
    while (next < m.comments.size() && m.comments[next].range.begin < f.params[0].range.begin &&
           m.comments[next].range.begin > f.name.range.begin && !isLine(m.comments[next]))
      before += m.comments[next++].text + " ";
    params[0] = before + params[0];
    for (size_t i = 0; i < params.size(); ++i) {
      const bool last = i + 1 == params.size();
      const uint32_t end = last ? listEnd : f.params[i + 1].range.begin;
      while (next < m.comments.size() && m.comments[next].range.begin < end) {
        const Comment &c = m.comments[next];
        if (!isLine(c)) params[i] += " " + c.text;
        else if (last) break;
        else lineComments[i] += (lineComments[i].empty() ? "" : " ") + c.text;
        ++next;
      }
    }
    return lineComments;
  }

  /// `(p1, // c1` / `p2)`: the parameters aligned after `(`, each `//` comment
  /// after its parameter's comma.
  static std::string oneParamPerLine(size_t column, const std::vector<std::string> &params,
                                     const std::vector<std::string> &lineComments) {
    std::string text = "(";
    for (size_t i = 0; i < params.size(); ++i) {
      if (i > 0) text += "\n" + std::string(column + 1, ' ');
      text += params[i] + (i + 1 < params.size() ? "," : ")");
      if (!lineComments[i].empty()) text += " " + lineComments[i];
    }
    return text;
  }

  void block(const std::vector<StmtPtr> &body, int level) {
    lastLine = 0;
    for (const auto &s : body) {
      if (!s) continue;
      emitCommentsBefore(s->range.begin, level);
      out += pad(level);
      stmt(*s, level);
      trailing(s->range.end);
      out += "\n";
      lastLine = lineOf(s->range.end > 0 ? s->range.end - 1 : 0);
    }
  }

  void stmt(const Stmt &s, int level) {
    switch (s.kind) {
    case Stmt::Kind::Let:
      out += fmt::format("let {}{}{} = ", s.isMutable ? "mut " : "", s.name.name,
                         s.declaredType ? ": " + printType(*s.declaredType) : "");
      out += (s.value ? exprAt(*s.value, lastLineLength(out), size_t((level + 2) * o.indent), 1) : "?") + ";";
      break;
    case Stmt::Kind::Assign:
      out += fmt::format("{} {} ", s.name.name, s.assignOp);
      out += (s.value ? exprAt(*s.value, lastLineLength(out), size_t((level + 2) * o.indent), 1) : "?") + ";";
      break;
    case Stmt::Kind::Return:
      out += "return ";
      out += (s.value ? exprAt(*s.value, lastLineLength(out), size_t((level + 2) * o.indent), 1) : "?") + ";";
      break;
    case Stmt::Kind::Block:
      out += "{\n";
      block(s.body, level + 1);
      emitCommentsBefore(s.range.end, level + 1, false);
      out += pad(level) + "}";
      break;
    case Stmt::Kind::If: {
      out += "if (";
      out += (s.value ? exprAt(*s.value, lastLineLength(out), size_t((level + 2) * o.indent), 3) : "?") + ") {\n";
      block(s.body, level + 1);
      if (!s.hasElse) {
        emitCommentsBefore(s.range.end, level + 1, false);
        out += pad(level) + "}";
        break;
      }
      // The then-branch keeps the comments up to its `}`; those after `else {` go to the else-branch.
      const uint32_t thenEnd = s.thenEnd > 0 ? s.thenEnd - 1 : s.elseBody.empty() ? 0 : s.elseBody.front()->range.begin;
      if (thenEnd > 0) emitCommentsBefore(thenEnd, level + 1, false);
      out += pad(level) + "} else ";
      if (s.elseBody.size() == 1 && s.elseBody[0]->kind == Stmt::Kind::If &&
          s.elseBody[0]->range.begin > 0 /* `else if` chain */) {
        stmt(*s.elseBody[0], level);
        break;
      }
      out += "{\n";
      block(s.elseBody, level + 1);
      emitCommentsBefore(s.range.end, level + 1, false);
      out += pad(level) + "}";
      break;
    }
    case Stmt::Kind::Error: out += "<error>;"; break;
    }
  }
};

// ---- the dump --------------------------------------------------------------------------------------------------
class Dumper {
public:
  std::string out;
  void line(int level, const std::string &s) { out += std::string(size_t(level * 2), ' ') + s + "\n"; }

  void module(const Module &m) {
    for (auto [isImport, idx] : m.order) {
      if (isImport) line(0, "(import " + m.imports[idx].dotted() + ")");
      else decl(*m.decls[idx]);
    }
  }

  std::string metaParams(const Decl &d) {
    std::string s;
    for (const auto &p : d.metaParams) s += fmt::format(" ({} {})", p.name.name, p.kind.name);
    return d.hasMetaParams ? " (meta" + s + ")" : "";
  }

  void decl(const Decl &d) {
    std::string doc = d.doc.empty() ? "" : fmt::format(" (doc {:?})", d.doc);
    switch (d.kind) {
    case Decl::Kind::Fn: {
      const auto &f = *d.as<FnDecl>();
      std::string attrs;
      for (const auto &a : f.attributes) attrs += " @" + a.name;
      std::string params;
      for (const auto &p : f.params) params += fmt::format(" ({} {})", p.name.name, printType(p.type));
      line(0, fmt::format("(fn {}{}{}{} (params{}) (result {}){}", f.name.name, attrs, metaParams(f), doc, params,
                          f.result ? printType(*f.result) : "_", f.exprBody ? " expr-body" : ""));
      for (const auto &s : f.body) stmt(*s, 1);
      line(0, ")");
      break;
    }
    case Decl::Kind::Record: {
      const auto &r = *d.as<RecordDecl>();
      std::string fields;
      for (const auto &f : r.fields) fields += fmt::format(" ({} {})", f.name.name, printType(f.type));
      line(0, fmt::format("(record {}{}{})", r.name.name, doc, fields));
      break;
    }
    case Decl::Kind::Combine:
      line(0, fmt::format("(combine {}{}{} {})", d.name.name, metaParams(d), doc, printCombineOp(d.as<CombineDecl>()->op)));
      break;
    case Decl::Kind::View:
      line(0, fmt::format("(view {}{}{} {})", d.name.name, metaParams(d), doc, printStage(d.as<ViewDecl>()->stage)));
      break;
    case Decl::Kind::Mdh: {
      const auto &md = *d.as<MdhDecl>();
      line(0, fmt::format("(mdh {}{}{}", md.name.name, metaParams(md), doc));
      for (const auto &s : md.stages) line(1, "(stage " + printStage(s) + ")");
      line(0, ")");
      break;
    }
    }
  }

  void stmt(const Stmt &s, int level) {
    switch (s.kind) {
    case Stmt::Kind::Let:
      line(level, fmt::format("(let{} {}{} {})", s.isMutable ? " mut" : "", s.name.name,
                              s.declaredType ? " : " + printType(*s.declaredType) : "", s.value ? sexpr(*s.value) : "?"));
      break;
    case Stmt::Kind::Assign: line(level, fmt::format("(assign {} {} {})", s.name.name, s.assignOp, s.value ? sexpr(*s.value) : "?")); break;
    case Stmt::Kind::Return: line(level, fmt::format("(return {})", s.value ? sexpr(*s.value) : "?")); break;
    case Stmt::Kind::Block:
      line(level, "(block");
      for (const auto &x : s.body) stmt(*x, level + 1);
      line(level, ")");
      break;
    case Stmt::Kind::If:
      line(level, fmt::format("(if {}", s.value ? sexpr(*s.value) : "?"));
      for (const auto &x : s.body) stmt(*x, level + 1);
      if (s.hasElse) {
        line(level, " else");
        for (const auto &x : s.elseBody) stmt(*x, level + 1);
      }
      line(level, ")");
      break;
    case Stmt::Kind::Error: line(level, "(error)"); break;
    }
  }

  std::string sexpr(const Expr &e) {
    auto ops = [&] {
      std::string s;
      for (const auto &x : e.operands) s += " " + sexpr(*x);
      return s;
    };
    switch (e.kind) {
    case Expr::Kind::Int: return "(int " + e.text + ")";
    case Expr::Kind::Float: return "(float " + e.text + ")";
    case Expr::Kind::Bool: return e.boolValue ? "true" : "false";
    case Expr::Kind::Name: return e.name.name;
    case Expr::Kind::Unary: return fmt::format("({}{})", spelling(e.unaryOp), ops());
    case Expr::Kind::Binary: return fmt::format("({}{})", spelling(e.binaryOp), ops());
    case Expr::Kind::Cond: return fmt::format("(?{})", ops());
    case Expr::Kind::Cast: return fmt::format("(as{} {})", ops(), printType(e.castType));
    case Expr::Kind::Call: return fmt::format("(call {}{})", e.name.name, ops());
    case Expr::Kind::Field: return fmt::format("(. {} {})", ops().substr(1), e.name.name);
    case Expr::Kind::Tuple: return fmt::format("(tuple{})", ops());
    case Expr::Kind::Record: {
      std::string s;
      for (const auto &f : e.fields) s += fmt::format(" ({} {})", f.name.name, f.value ? sexpr(*f.value) : "?");
      return fmt::format("(record {}{})", e.name.name, s);
    }
    case Expr::Kind::Error: return "(error)";
    }
    return "?";
  }
};

} // namespace

std::string formatModule(const Module &m, const SourceManager &sm, const FormatOptions &opts) {
  return Formatter(m, sm, opts).run();
}

std::string dumpModule(const Module &m) {
  Dumper d;
  d.module(m);
  return d.out;
}

} // namespace mdh::ast
