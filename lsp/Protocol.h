/** \file
 * The subset of the Language Server Protocol 3.17 that mdh-lsp speaks, as
 * plain C++ structs, plus their JSON form (to_json; what clients send is
 * read by RequestParams.h, which names a malformed parameter).
 *
 * MdhServer (the language logic) fills these structs and never sees JSON;
 * LspServer (the transport side) converts them.
 * Invariants: positions are LSP positions, i.e. 0-based lines and UTF-16
 * code units within the line (the protocol's default `positionEncoding`);
 * every enum value is the number the specification assigns.
 */
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mdh::lsp {

using json = nlohmann::json;

struct Position {
  int line = 0;      ///< 0-based
  int character = 0; ///< UTF-16 code units
  bool operator==(const Position &o) const { return line == o.line && character == o.character; }
  bool operator<(const Position &o) const { return line < o.line || (line == o.line && character < o.character); }
  bool operator<=(const Position &o) const { return !(o < *this); }
};

struct Range {
  Position start, end;
  bool operator==(const Range &o) const { return start == o.start && end == o.end; }
  bool contains(Position p) const { return start <= p && p <= end; }
};

struct Location {
  std::string uri;
  Range range;
};

struct TextEdit {
  Range range;
  std::string newText;
};

/// A `textDocument/didChange` content change: with a range it is incremental,
/// without one it replaces the whole text.
struct TextDocumentContentChange {
  std::optional<Range> range;
  std::string text;
};

enum class DiagnosticSeverity { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct DiagnosticRelatedInformation {
  Location location;
  std::string message;
};

struct Diagnostic {
  Range range;
  DiagnosticSeverity severity = DiagnosticSeverity::Error;
  std::string code;
  std::string source = "mdh";
  std::string message;
  std::vector<DiagnosticRelatedInformation> related;
};

struct Hover {
  std::string markdown;
  std::optional<Range> range;
};

enum class SymbolKind {
  File = 1, Module = 2, Namespace = 3, Package = 4, Class = 5, Method = 6, Property = 7, Field = 8,
  Constructor = 9, Enum = 10, Interface = 11, Function = 12, Variable = 13, Constant = 14, String = 15,
  Number = 16, Boolean = 17, Array = 18, Object = 19, Key = 20, Null = 21, EnumMember = 22, Struct = 23,
  Event = 24, Operator = 25, TypeParameter = 26
};

struct DocumentSymbol {
  std::string name;
  std::string detail;
  SymbolKind kind = SymbolKind::Variable;
  Range range;          ///< the whole declaration
  Range selectionRange; ///< its name; contained in `range`
  std::vector<DocumentSymbol> children;
};

enum class CompletionItemKind {
  Text = 1, Method = 2, Function = 3, Constructor = 4, Field = 5, Variable = 6, Class = 7, Interface = 8,
  Module = 9, Property = 10, Unit = 11, Value = 12, Enum = 13, Keyword = 14, Snippet = 15, Color = 16,
  File = 17, Reference = 18, Folder = 19, EnumMember = 20, Constant = 21, Struct = 22, Event = 23,
  Operator = 24, TypeParameter = 25
};

struct CompletionItem {
  std::string label;
  CompletionItemKind kind = CompletionItemKind::Text;
  std::string detail;
  std::string documentation; ///< markdown
  std::string insertText;    ///< empty: the label
  bool snippet = false;      ///< insertText uses snippet syntax ($1, ${1:x})
  std::string sortText;
};

struct CompletionList {
  bool isIncomplete = false;
  std::vector<CompletionItem> items;
};

struct ParameterInformation {
  std::string label; ///< a substring of the signature's label
  std::string documentation;
};

struct SignatureInformation {
  std::string label;
  std::string documentation; ///< markdown
  std::vector<ParameterInformation> parameters;
};

struct SignatureHelp {
  std::vector<SignatureInformation> signatures;
  int activeSignature = 0;
  int activeParameter = 0;
};

/// Semantic tokens in the protocol's relative 5-integer encoding.
struct SemanticTokens {
  std::vector<uint32_t> data;
};

struct FoldingRange {
  int startLine = 0;
  int endLine = 0;
  std::string kind; ///< "comment", "imports", "region" or empty
};

enum class InlayHintKind { Type = 1, Parameter = 2 };

struct InlayHint {
  Position position;
  std::string label;
  InlayHintKind kind = InlayHintKind::Type;
  bool paddingLeft = false;
  bool paddingRight = false;
  std::string tooltip;
};

enum class DocumentHighlightKind { Text = 1, Read = 2, Write = 3 };

struct DocumentHighlight {
  Range range;
  DocumentHighlightKind kind = DocumentHighlightKind::Text;
};

struct WorkspaceEdit {
  std::map<std::string, std::vector<TextEdit>> changes; ///< uri -> edits
};

/// JSON-RPC and LSP error codes.
enum class ErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
};

/// The semantic token legend.  The enumerators are the indices the server
/// encodes; semanticTokenTypes()/Modifiers() list the names in the same order.
enum class TokenType {
  Keyword, Type, Struct, TypeParameter, Parameter, Variable, Property, Function, Operator, Comment,
  Number, Decorator, Interface, Class, Namespace
};
enum TokenModifier : uint32_t {
  ModDeclaration = 1u << 0,
  ModDefinition = 1u << 1,
  ModReadonly = 1u << 2,
  ModDefaultLibrary = 1u << 3,
  ModDocumentation = 1u << 4,
};
const std::vector<std::string> &semanticTokenTypes();
const std::vector<std::string> &semanticTokenModifiers();

// ---- JSON conversions (nlohmann ADL hooks) ----------------------------------------------------
void to_json(json &j, const Position &p);
void to_json(json &j, const Range &r);
void to_json(json &j, const Location &l);
void to_json(json &j, const TextEdit &e);
void to_json(json &j, const Diagnostic &d);
void to_json(json &j, const Hover &h);
void to_json(json &j, const DocumentSymbol &s);
void to_json(json &j, const CompletionItem &c);
void to_json(json &j, const CompletionList &c);
void to_json(json &j, const SignatureHelp &s);
void to_json(json &j, const SemanticTokens &t);
void to_json(json &j, const FoldingRange &f);
void to_json(json &j, const InlayHint &h);
void to_json(json &j, const DocumentHighlight &h);
void to_json(json &j, const WorkspaceEdit &e);

} // namespace mdh::lsp
