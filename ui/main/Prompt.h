// The window's questions and error messages, answerable from tests (after KeePassXC's
// MessageBox::setNextAnswer): a test sets the next answer, and the prompt returns it without
// showing anything.
#pragma once

#include <QString>
#include <optional>

class QWidget;

namespace sbui::prompt {

bool confirm(QWidget* parent, const QString& title, const QString& text, const QString& action);
void error(QWidget* parent, const QString& title, const QString& text);

// The next confirm() returns `answer` without asking; error() is recorded instead of shown
// while an answer is set.
void setNextAnswer(std::optional<bool> answer);
// The text of the last error() shown or recorded.
QString lastError();
// Under test nothing is ever shown: confirm() without a set answer says no, error() records.
void setTesting(bool testing);

} // namespace sbui::prompt
