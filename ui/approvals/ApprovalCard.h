// One pending approval request as a card in the approval panel: what is asked (the command line,
// its folder and program, or the host, port and protocol), the rule that asked, a countdown to the
// deadline, the answer's duration and scope (for a connection whose program is known, optionally
// that program only), Allow and Deny. The card proposes; the supervisor
// decides, owns the timeout and reports the outcome, which the card shows until the panel
// removes it.
#pragma once

#include "base/Clock.h"
#include "learning/AnswerGeneralisation.h"
#include "policy/Approval.h"

#include <QFrame>
#include <QString>
#include <cstdint>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;

namespace sbui {

// Whose request a card shows, in a queue of every session's: what the card says of it (name,
// folder, command) and what its policy does with an unanswered request and "always" answers.
struct ApprovalSource {
    QString sessionId;
    QString label;   // one line: "force-b · workspace · bash -c …"
    QString details; // the whole id, folder and command, for its tooltip
    std::optional<bool> onTimeoutAllows;
    bool canSaveRules = true;
};

class ApprovalCard : public QFrame {
    Q_OBJECT
  public:
    ApprovalCard(const sb::ApprovalRequest& request, sb::Clock& clock, QWidget* parent = nullptr);

    std::uint64_t id() const { return m_request.id; }
    // The session that asked (empty for a card of the one session shown).
    QString sessionId() const { return m_sessionId; }
    // Names the session on the card, above what it asks.
    void setSource(const ApprovalSource& source);
    // The session line as shown; empty without a source.
    QString sourceText() const;
    const sb::ApprovalRequest& request() const { return m_request; }

    // What is asked, as one line: the command line (shell-quoted where needed) or "host:port".
    QString subjectText() const;
    QString ruleText() const;
    // "47 s", "2 min 5 s", with ", then denied" when the timeout's consequence is known;
    // "expired, waiting for the supervisor" once the deadline has passed; empty without one.
    QString countdownText() const;
    // "Allow sent, waiting…" after an answer, the outcome once it arrived ("timed out, denied",
    // "allowed (this session)", "denied by tty (once)"), else empty.
    QString statusText() const;
    // The outcome as one line that names the request: "#3 git push origin: allowed (once)".
    QString outcomeText() const { return m_outcomeLine; }

    QPushButton* allowButton() const { return m_allow; }
    QPushButton* denyButton() const { return m_deny; }
    QComboBox* scopeBox() const { return m_scopeBox; }
    QComboBox* durationBox() const { return m_durationBox; }
    // "This program only": null unless the request is a connection whose program is known.
    QCheckBox* programOnlyBox() const { return m_programOnly; }

    // False (and nothing changes) for a scope that does not fit this request: a network scope for
    // a command, the subcommand of a program run without arguments, the domain of an address.
    bool setScope(sb::ApprovalScope scope);
    sb::ApprovalScope scope() const;
    // The generalised rule `policy suggest` would write, offered for an "always" answer: its item
    // in the scope box (its tooltip says so; a network one is an item of its own, "Domain:
    // *.example.com, port 443", which keeps the port), chosen when the duration turns to Always.
    // -1: nothing broader is safe.
    int suggestedScopeIndex() const { return m_suggestedIndex; }
    bool useSuggestedScope();
    // Under the scope box while the duration is Always: what the chosen rule also allows, or
    // the suggestion, or why only the exact rule is suggested. Empty otherwise.
    QString previewText() const;
    void setDuration(sb::ApprovalDuration duration);
    sb::ApprovalDuration duration() const;

    // What the policy does when nobody answers (allow or deny), when the window knows it.
    void setOnTimeout(std::optional<bool> allow);
    // Whether an "always" answer can be saved: not when the session's policy is in no file
    // (the built-in demo policy); "Always" is then disabled, and its tooltip says why.
    void setCanSaveRules(bool can);
    bool canSaveRules() const;

    bool isExpired() const;
    bool isWaiting() const { return m_waiting; }
    bool isResolved() const { return m_resolved; }
    // Not yet answered, resolved or expired.
    bool isAnswerable() const;

    // Sends the answer with the chosen scope and duration (answered_by "gui"); ignored unless
    // answerable.
    void answer(bool allow);
    // Re-reads the clock: the countdown, and the expired state.
    void updateCountdown();
    // The supervisor's word: the card turns into a short report and takes no more answers.
    void showOutcome(const sb::ApprovalOutcome& outcome);

    // "allowed (this session)", "timed out, denied", "denied by tty (once)". `answeredHere`: this
    // window sent the answer that won.
    static QString outcomeVerdict(const sb::ApprovalOutcome& outcome, bool answeredHere);
    // The verdict after the request: "#3 git push origin: allowed (this session)".
    static QString describeOutcome(const sb::ApprovalOutcome& outcome, const QString& subject,
                                   bool answeredHere);
    // The command line as a shell would read it: each word quoted only when needed.
    static QString commandLine(const sb::ApprovalRequest& request);

  Q_SIGNALS:
    void answered(std::uint64_t id, const sb::ApprovalAnswer& answer);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void buildScopes();
    void updateState();
    void updatePreview();

    sb::ApprovalRequest m_request;
    sb::Clock& m_clock;
    QString m_sessionId;
    QLabel* m_source = nullptr;
    std::optional<bool> m_onTimeoutAllows;
    bool m_waiting = false;
    bool m_resolved = false;
    bool m_expired = false;
    std::optional<sb::ApprovalAnswer> m_sent;
    QString m_outcomeText;
    QString m_outcomeLine;

    QWidget* m_controls = nullptr;
    QLabel* m_countdown = nullptr;
    QLabel* m_status = nullptr;
    QComboBox* m_scopeBox = nullptr;
    QComboBox* m_durationBox = nullptr;
    QCheckBox* m_programOnly = nullptr;
    QLabel* m_preview = nullptr;
    std::optional<sb::GeneralisedAnswer> m_generalised;
    int m_suggestedIndex = -1;
    bool m_suggestionOffered = false; // chosen once on turning to Always; the user's choice after
    QPushButton* m_allow = nullptr;
    QPushButton* m_deny = nullptr;
};

} // namespace sbui
