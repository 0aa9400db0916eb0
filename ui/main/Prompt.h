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

// Unsaved edits before something replaces them: save them first, throw them away, or stay.
enum class UnsavedChoice { Save, Discard, Cancel };
UnsavedChoice askUnsaved(QWidget* parent, const QString& title, const QString& text);
// A file to open or to save as; empty when the user cancels. `filter` as QFileDialog's.
QString openFileName(QWidget* parent, const QString& title, const QString& folder,
                     const QString& filter);
QString saveFileName(QWidget* parent, const QString& title, const QString& suggested,
                     const QString& filter);

// The next confirm() returns `answer` without asking; error() is recorded instead of shown
// while an answer is set.
void setNextAnswer(std::optional<bool> answer);
// The next askUnsaved() returns `choice`; the next openFileName()/saveFileName() returns `path`
// (empty: cancelled). Under test, unanswered, they cancel.
void setNextUnsavedChoice(std::optional<UnsavedChoice> choice);
void setNextFileName(std::optional<QString> path);
// The text of the last error() shown or recorded.
QString lastError();
// Under test nothing is ever shown: confirm() without a set answer says no, error() records.
void setTesting(bool testing);

} // namespace sbui::prompt
