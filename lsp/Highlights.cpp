/** \file
 * computeHighlights: every occurrence in the main file of the symbol under
 * the cursor; definitions and assignments are writes, other uses reads.
 */
#include "Features.h"

namespace mdh::lsp {

std::vector<DocumentHighlight> computeHighlights(const Analysis &a, uint32_t offset) {
  std::vector<DocumentHighlight> out;
  const Occurrence *occ = a.index().at(a.mainFile(), offset);
  if (!occ || occ->symbol < 0) return out;
  for (const Occurrence *o : a.index().occurrencesOf(occ->symbol)) {
    if (o->range.file != a.mainFile()) continue;
    bool write = o->role == Occurrence::Role::Definition || o->role == Occurrence::Role::AssignTarget;
    out.push_back({a.range(o->range), write ? DocumentHighlightKind::Write : DocumentHighlightKind::Read});
  }
  return out;
}

} // namespace mdh::lsp
