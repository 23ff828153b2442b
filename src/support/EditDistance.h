/** \file
 * Edit distance between words, for "did you mean" suggestions (undeclared
 * names in sema, misspelt keywords in the parser).
 *
 * Invariant: bounded work. A comparison costs O(length * limit), so a
 * 200000-letter name cannot stall `mdhc check` or the language server.
 */
#pragma once

#include <string>
#include <vector>

namespace mdh {

/// Edits (insert, delete, replace, swap of two neighbours) from a to b: the
/// optimal-string-alignment distance, so that `sqtr` is one edit from `sqrt`,
/// or `limit` when it is `limit` or more.
size_t editDistance(const std::string &a, const std::string &b, size_t limit);

/// The candidate closest to `word`, if at most a third of its letters differ
/// (at least one, at most two, so that a one-letter word suggests nothing
/// unrelated); empty when none is that close.  Ties keep the first candidate.
std::string closestWord(const std::string &word, const std::vector<std::string> &candidates);

} // namespace mdh
