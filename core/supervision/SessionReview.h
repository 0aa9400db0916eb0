// Applying a session's changes as the user reviews them (`sandbench-cli apply`, the window's
// Apply): the list of files that run later the session started with, and a record in its
// recording of what apply held back, so a reviewer of the recording sees it.
#pragma once

#include "base/Session.h"
#include "workspace/Workspace.h"

#include <filesystem>

namespace sb {

// The project in session.json is where apply writes, and session.json is a file: it must agree
// with the project the session's recording (written by its supervisor) says it started on, or
// for a fork that never ran, its origin's. A Conflict error names both when they differ.
Status checkRecordedProject(const SessionInfo& session,
                            const std::filesystem::path& recordingsDb = {});

// Checks checkRecordedProject(), then applyChanges with the session's list of files that run later
// (ApplyOptions::runLater is replaced by it). Files held back are recorded in `recordingsDb`
// (empty: the default) as workspace events {"kind": "file", "change": "held", "path", "run_later",
// "by": "apply"}; a recording that cannot be written is no error of the apply (`recordError` says
// why).
Result<ApplyReport> applySessionChanges(const SessionInfo& session, ApplyOptions options,
                                        const std::filesystem::path& recordingsDb = {},
                                        std::string* recordError = nullptr);

} // namespace sb
