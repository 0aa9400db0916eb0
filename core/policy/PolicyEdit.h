// Saving rules edited in the GUI (or any editor) back into the user's own policy document. The
// user's comments, formatting and key order are theirs: only the values that changed are
// rewritten, and the result is checked to read back as exactly what was asked before anything
// is written.
#pragma once

#include "base/Error.h"
#include "policy/LearnedRules.h" // writeLearnedRules(), for removing or promoting a learned rule
#include "policy/Policy.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace sb {

// The document `text` with its network and command sections replaced by `policy`'s
// (network.mode, network.default, network.rules, commands.default, commands.rules, and
// approvals.timeout_seconds / approvals.on_timeout), everything else byte for byte as it was
// (comments, formatting, key order, the other sections).
//
// * A value that did not change is not touched; a changed value is replaced where it stands.
// * Rules are matched by content, in order: a rule of `policy` that equals an unused rule of the
//   document keeps that rule's text and the comments around it (the lines above it, the comment
//   after it on its line), wherever it moves to. Other rules are written in the style of the
//   document's rules (one line or pretty-printed, its indentation, its line ending).
// * A missing key or section is inserted beside its siblings, in their order and indentation.
// * A rules array whose rules do not each start a line of their own (a one-line array, two rules
//   on a line) is rewritten as a whole when it changes, losing the comments inside it.
//
// Fails, returning no text, when `text` is not a valid policy (the parser's message, positioned
// with `origin`), when `policy`'s sections are not valid, or (Internal) when the result would not
// read back (parsePolicy) as exactly `policy`'s sections and `text`'s others.
Result<std::string> rewritePolicyRules(std::string_view text, std::string_view origin,
                                       const Policy& policy);

// Writes `text` to `file` atomically (a temporary file in the same folder, fsync, rename, fsync
// of the folder), keeping the file's mode; a symlink is followed, so the link stays a link.
// Refuses, writing nothing, when `text` is not a valid policy (parsePolicy's positioned message,
// named after `file`).
Status savePolicyFile(const std::filesystem::path& file, std::string_view text);

} // namespace sb
