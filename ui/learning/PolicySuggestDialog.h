// Policy → "Suggest from sessions…": a policy learned from recorded work (core/learning,
// `sandbench-cli policy suggest`). Choose a base policy and sessions, review the proposed rules
// as a list with check boxes and their evidence (a double click shows the example in the
// replay), save the base with the checked ones as a new policy file, or, with the shown
// session running, into that session (its own policy as the base, sent through the control
// protocol as the Policy tab's "Apply to this session" does).
#pragma once

#include "learning/PolicySuggest.h"
#include "recording/RecordingStore.h"

#include <QDialog>
#include <QPointer>
#include <vector>

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTreeWidget;

namespace sbui {

class SessionConnection;

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
    // A running session the rules can go into: its policy in force becomes a base choice (and
    // the chosen one), and "Apply to session" sends the base with the checked rules to it.
    void setRunningSession(SessionConnection* session);
    QPushButton* applyButton() const { return m_apply; }
    QString summaryText() const;
    QTreeWidget* proposals() const { return m_proposals; }
    QListWidget* sessions() const { return m_sessions; }

  Q_SIGNALS:
    // Show where a rule's example happened: `session`'s replay at `tNs`.
    void showEvidence(const QString& session, qint64 tNs);

  private:
    void loadSessions();
    void suggest();
    void save();
    void applyToSession();
    void updateButtons();

    QComboBox* m_base;
    QListWidget* m_sessions;
    QPushButton* m_suggest;
    QTreeWidget* m_proposals;
    QLabel* m_summary;
    QPushButton* m_save;
    QPushButton* m_apply;
    QPointer<SessionConnection> m_session;
    sb::Policy m_sessionPolicy; // the running session's policy in force
    sb::Suggestion m_suggestion;
    bool m_suggestionFromSession = false; // its base is the running session's policy
};

} // namespace sbui
