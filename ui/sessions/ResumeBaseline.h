// What Session → Resume… starts from: the policy an ended session ran under (its recording's:
// the document it started with, or its last live update's, and the file or preset it came
// from), and the choices of the new session that loosen it.
#pragma once

#include "policy/Policy.h"

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>

namespace sbui {

struct SessionHistory;

struct ResumeBaseline {
    QString sessionId;
    QString policyFile;            // the document it came from (it may be gone since)
    QString preset;                // or the preset's name
    std::optional<sb::Policy> ran; // the policy in force at its end, overrides included
    nlohmann::json document;       // the same as recorded, for a copy when the file is gone
};

// Null `ran` when the recording holds no policy (an older Sandbench's).
ResumeBaseline resumeBaseline(const QString& sessionId, const SessionHistory& history);

// One phrase per way `next` is looser than `ran`: a wider network mode, a more permissive
// default for what no rule names, a limit raised or lifted, unanswered requests allowed, or
// other rules. Empty when `next` keeps everything.
QStringList loosenings(const sb::Policy& ran, const sb::Policy& next);

} // namespace sbui
