// Why a change conflicts with the project, in the window's language: the core says what happened
// (sb::ApplyIssue::Why, with the path it is about) beside its English text for the CLI.
#pragma once

#include "workspace/Workspace.h"

#include <QCoreApplication>
#include <QString>

namespace sbui {

class ConflictText {
    Q_DECLARE_TR_FUNCTIONS(sbui::ConflictText)
  public:
    // An issue of another kind, or one the window has no words for, keeps the core's text.
    static QString of(const sb::ApplyIssue& issue);
};

} // namespace sbui
