// Policy → "Suggest from sessions…": a policy learned from recorded work (core/learning,
// `sandbench-cli policy suggest`). Choose a base policy and sessions, review the proposed rules
// as a list with check boxes and their evidence (a double click shows the example in the
// replay), save the base with the checked ones as a new policy file.
#pragma once

#include "learning/PolicySuggest.h"
#include "recording/RecordingStore.h"

#include <QDialog>
#include <vector>

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTreeWidget;

namespace sbui {

class PolicySuggestDialog : public QDialog {
    Q_OBJECT
  public:
    explicit PolicySuggestDialog(QWidget* parent = nullptr);

    // The recorded sessions offered, newest first; `checked` ones are chosen.
    void setSessions(const std::vector<sb::SessionRecord>& sessions, const QStringList& checked);
    // Lists what was proposed: each rule checked unless it is risky.
    void setSuggestion(sb::Suggestion suggestion);
    // The base with the checked rules only (risky ones the user checked included).
    sb::Suggestion chosen() const;
    QTreeWidget* proposals() const { return m_proposals; }
    QListWidget* sessions() const { return m_sessions; }

  Q_SIGNALS:
    // Show where a rule's example happened: `session`'s replay at `tNs`.
    void showEvidence(const QString& session, qint64 tNs);

  private:
    void loadSessions();
    void suggest();
    void save();
    void updateButtons();

    QComboBox* m_base;
    QListWidget* m_sessions;
    QPushButton* m_suggest;
    QTreeWidget* m_proposals;
    QLabel* m_summary;
    QPushButton* m_save;
    sb::Suggestion m_suggestion;
};

} // namespace sbui
