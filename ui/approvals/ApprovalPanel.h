// The queue of pending approval requests, meant to sit beside the terminal: never a modal, so the
// agent's output stays in view while the user decides. Oldest card on top. Ctrl+Shift+Y allows
// and Ctrl+Shift+N denies the focused card, or else the oldest one still open, with the scope and
// duration chosen on it. The panel proposes answers; the supervisor owns the deadlines and reports
// every outcome, which resolve() shows before the card goes.
#pragma once

#include "ApprovalCard.h"
#include "base/Clock.h"
#include "policy/Approval.h"

#include <QTimer>
#include <QWidget>
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

class QLabel;
class QScrollArea;
class QVBoxLayout;

namespace sbui {

class ApprovalPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ApprovalPanel(sb::Clock& clock = sb::Clock::system(), QWidget* parent = nullptr);
    ~ApprovalPanel() override;

    // A request already shown, or already resolved, is ignored (the welcome's pending list and
    // the live requests overlap). One queue for every session: a request is known by its
    // session and its id, and its card names the session (`source`).
    void addRequest(const ApprovalSource& source, const sb::ApprovalRequest& request);
    void addRequest(const sb::ApprovalRequest& request) { addRequest(ApprovalSource(), request); }
    // Shows the outcome on the card, then removes it after resultLingerMs() (at once with 0).
    void resolve(const QString& sessionId, const sb::ApprovalOutcome& outcome);
    void resolve(const sb::ApprovalOutcome& outcome) { resolve(QString(), outcome); }
    // Every card goes, without answers.
    void clear();
    // The session ended, or the connection to it did: its cards go. Its requests are then
    // taken again when offered (a remote host's session after a reconnection offers those still
    // pending there).
    void clearSession(const QString& sessionId);
    // Requests still waiting for the supervisor's outcome (answered here or not).
    int pendingCount() const;
    // The card of a request, while it is shown; nullptr once removed. Without a session: the
    // first card with that id.
    ApprovalCard* card(const QString& sessionId, std::uint64_t id) const;
    ApprovalCard* card(std::uint64_t id) const;
    // Shown cards, oldest first.
    std::vector<ApprovalCard*> cards() const { return m_cards; }

    // The card the shortcuts answer: the focused one if it can be answered, else the oldest that
    // can. nullptr when none can.
    ApprovalCard* currentCard() const;
    // What Ctrl+Shift+Y (allow) and Ctrl+Shift+N (deny) do. False when no card could be answered.
    bool answerCurrent(bool allow);

    // The last outcome in one line ("#3 touch asked: timed out, denied"); empty after clear().
    QString lastOutcomeText() const { return m_lastOutcome; }
    // The panel's own heading ("Approvals (2 pending)"); off where a dock title says it.
    void setTitleVisible(bool visible);
    // What the session's policy does with an unanswered request, when the window knows it:
    // the countdown then says "then denied" or "then allowed". For the cards without a source.
    void setOnTimeout(std::optional<bool> allow);
    // Whether the session can save an "always" answer (it has a learned-rules file): for the
    // cards without a source, or for those of `sessionId`.
    void setCanSaveRules(bool can);
    void setCanSaveRules(const QString& sessionId, bool can);
    // How long a resolved card stays to show its outcome; 0 removes it at once.
    void setResultLingerMs(int ms) { m_lingerMs = ms; }
    int resultLingerMs() const { return m_lingerMs; }

    // Re-reads the clock for every countdown. The panel's timer calls it; tests that move a
    // MockClock call it themselves.
    void tick();

  Q_SIGNALS:
    void answered(std::uint64_t id, const sb::ApprovalAnswer& answer);
    // The same, with the session that asked.
    void answeredFor(const QString& sessionId, std::uint64_t id, const sb::ApprovalAnswer& answer);
    void pendingCountChanged(int count);
    // A card left the panel (after its outcome, or on clear()).
    void cardRemoved(std::uint64_t id);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    using Key = std::pair<QString, std::uint64_t>; // session, request id
    void removeCard(const Key& key);
    void removeWhenNotHovered(const Key& key);
    void updateChrome();

    sb::Clock& m_clock;
    std::optional<bool> m_onTimeoutAllows;
    bool m_canSaveRules = true;
    int m_lingerMs = 1500;
    std::vector<ApprovalCard*> m_cards;
    // Every id seen since the last clear(): a late duplicate of a resolved request stays out.
    std::set<Key> m_known;
    // Resolved cards whose time is up while the pointer is over the list: removing them would move
    // the card under the pointer, so they go when it leaves.
    std::vector<Key> m_deferred;
    bool m_hovered = false;
    QString m_lastOutcome;
    QTimer m_ticker;

    QLabel* m_title = nullptr;
    QScrollArea* m_scroll = nullptr;
    QVBoxLayout* m_list = nullptr;
    QLabel* m_placeholder = nullptr;
    QLabel* m_footer = nullptr;
};

} // namespace sbui
