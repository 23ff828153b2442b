/** \file
 * JSON conversions of the LSP structs and the semantic token legend.
 * Optional protocol fields are written only when they carry information, so
 * replayed sessions compare stably.
 */
#include "Protocol.h"

namespace mdh::lsp {

const std::vector<std::string> &semanticTokenTypes() {
  static const std::vector<std::string> types = {
      "keyword", "type",     "struct",   "typeParameter", "parameter", "variable",  "property", "function",
      "operator", "comment", "number",   "decorator",     "interface", "class",     "namespace"};
  return types;
}

const std::vector<std::string> &semanticTokenModifiers() {
  static const std::vector<std::string> mods = {"declaration", "definition", "readonly", "defaultLibrary",
                                                "documentation"};
  return mods;
}

void to_json(json &j, const Position &p) { j = json{{"line", p.line}, {"character", p.character}}; }
void to_json(json &j, const Range &r) { j = json{{"start", r.start}, {"end", r.end}}; }
void to_json(json &j, const Location &l) { j = json{{"uri", l.uri}, {"range", l.range}}; }
void to_json(json &j, const TextEdit &e) { j = json{{"range", e.range}, {"newText", e.newText}}; }

void to_json(json &j, const Diagnostic &d) {
  j = json{{"range", d.range}, {"severity", int(d.severity)}, {"source", d.source}, {"message", d.message}};
  if (!d.code.empty()) j["code"] = d.code;
  if (!d.related.empty()) {
    json rel = json::array();
    for (const auto &r : d.related) rel.push_back({{"location", r.location}, {"message", r.message}});
    j["relatedInformation"] = rel;
  }
}

void to_json(json &j, const Hover &h) {
  j = json{{"contents", {{"kind", "markdown"}, {"value", h.markdown}}}};
  if (h.range) j["range"] = *h.range;
}

void to_json(json &j, const DocumentSymbol &s) {
  j = json{{"name", s.name.empty() ? std::string("<anonymous>") : s.name},
           {"kind", int(s.kind)},
           {"range", s.range},
           {"selectionRange", s.selectionRange}};
  if (!s.detail.empty()) j["detail"] = s.detail;
  if (!s.children.empty()) j["children"] = s.children;
}

void to_json(json &j, const CompletionItem &c) {
  j = json{{"label", c.label}, {"kind", int(c.kind)}};
  if (!c.detail.empty()) j["detail"] = c.detail;
  if (!c.documentation.empty()) j["documentation"] = {{"kind", "markdown"}, {"value", c.documentation}};
  if (!c.insertText.empty()) j["insertText"] = c.insertText;
  j["insertTextFormat"] = c.snippet ? 2 : 1;
  if (!c.sortText.empty()) j["sortText"] = c.sortText;
}

void to_json(json &j, const CompletionList &c) { j = json{{"isIncomplete", c.isIncomplete}, {"items", c.items}}; }

void to_json(json &j, const SignatureHelp &s) {
  json sigs = json::array();
  for (const auto &sig : s.signatures) {
    json params = json::array();
    for (const auto &p : sig.parameters) {
      json pj = {{"label", p.label}};
      if (!p.documentation.empty()) pj["documentation"] = p.documentation;
      params.push_back(pj);
    }
    json sj = {{"label", sig.label}, {"parameters", params}};
    if (!sig.documentation.empty()) sj["documentation"] = {{"kind", "markdown"}, {"value", sig.documentation}};
    sigs.push_back(sj);
  }
  j = json{{"signatures", sigs}, {"activeSignature", s.activeSignature}, {"activeParameter", s.activeParameter}};
}

void to_json(json &j, const SemanticTokens &t) { j = json{{"data", t.data}}; }

void to_json(json &j, const FoldingRange &f) {
  j = json{{"startLine", f.startLine}, {"endLine", f.endLine}};
  if (!f.kind.empty()) j["kind"] = f.kind;
}

void to_json(json &j, const InlayHint &h) {
  j = json{{"position", h.position}, {"label", h.label}, {"kind", int(h.kind)}};
  if (h.paddingLeft) j["paddingLeft"] = true;
  if (h.paddingRight) j["paddingRight"] = true;
  if (!h.tooltip.empty()) j["tooltip"] = h.tooltip;
}

void to_json(json &j, const DocumentHighlight &h) { j = json{{"range", h.range}, {"kind", int(h.kind)}}; }

void to_json(json &j, const WorkspaceEdit &e) {
  json changes = json::object();
  for (const auto &[uri, edits] : e.changes) changes[uri] = edits;
  j = json{{"changes", changes}};
}

} // namespace mdh::lsp
