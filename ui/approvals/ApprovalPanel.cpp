#include "ApprovalPanel.h"

#include <QApplication>
#include <QEvent>
#include <QKeySequence>
#include <QLabel>
#include <QScrollArea>
#include <QShortcut>
#include <QVBoxLayout>
#include <algorithm>

namespace sbui {

ApprovalPanel::ApprovalPanel(sb::Clock& clock, QWidget* parent) : QWidget(parent), m_clock(clock)
{
    setObjectName(QStringLiteral("approvalPanel"));
    m_title = new QLabel(this);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);

    auto* list = new QWidget;
    m_list = new QVBoxLayout(list);
    m_list->setContentsMargins(2, 2, 2, 2);
    m_list->setSpacing(6);
    m_placeholder = new QLabel(tr("No pending approvals"), list);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setForegroundRole(QPalette::PlaceholderText);
    m_placeholder->setContentsMargins(0, 24, 0, 24);
    m_list->addWidget(m_placeholder);
    m_list->addStretch(1);

    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(list);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    // Cards wrap their text to the panel's width; only a panel narrower than a card's buttons
    // and boxes scrolls sideways.
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_scroll->viewport()->installEventFilter(this);

    m_footer = new QLabel(this);
    m_footer->setObjectName(QStringLiteral("lastOutcome"));
    m_footer->setWordWrap(true);
    m_footer->setTextFormat(Qt::PlainText);
    m_footer->setForegroundRole(QPalette::PlaceholderText);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(m_scroll, 1);
    layout->addWidget(m_footer);

    // Window-wide, so they work while the terminal has the focus (it leaves Ctrl+Shift+letter).
    auto* allow = new QShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Y), this);
    allow->setContext(Qt::WindowShortcut);
    connect(allow, &QShortcut::activated, this, [this] { answerCurrent(true); });
    auto* deny = new QShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N), this);
    deny->setContext(Qt::WindowShortcut);
    connect(deny, &QShortcut::activated, this, [this] { answerCurrent(false); });

    m_ticker.setInterval(500);
    connect(&m_ticker, &QTimer::timeout, this, &ApprovalPanel::tick);
    // The focused card is drawn with the highlight border: it is the one the shortcuts answer.
    connect(qApp, &QApplication::focusChanged, this, [this] {
        for (ApprovalCard* c : m_cards)
            c->update();
    });
    updateChrome();
}

ApprovalPanel::~ApprovalPanel()
{
    // QWidget's destructor hides the cards, which can move the focus: m_cards is gone by then.
    disconnect(qApp, nullptr, this, nullptr);
}

void ApprovalPanel::addRequest(const ApprovalSource& source, const sb::ApprovalRequest& request)
{
    if (!m_known.insert({source.sessionId, request.id}).second) return;
    auto* card = new ApprovalCard(request, m_clock, m_scroll->widget());
    card->setOnTimeout(m_onTimeoutAllows);
    card->setCanSaveRules(m_canSaveRules);
    if (!source.sessionId.isEmpty()) card->setSource(source);
    connect(card, &ApprovalCard::answered, this,
            [this, card](std::uint64_t id, const sb::ApprovalAnswer& answer) {
                Q_EMIT answered(id, answer);
                Q_EMIT answeredFor(card->sessionId(), id, answer);
            });
    m_cards.push_back(card);
    // Before the placeholder and the stretch: oldest on top.
    m_list->insertWidget(static_cast<int>(m_cards.size()) - 1, card);
    card->show();
    if (!m_ticker.isActive()) m_ticker.start();
    updateChrome();
    Q_EMIT pendingCountChanged(pendingCount());
}

void ApprovalPanel::resolve(const QString& sessionId, const sb::ApprovalOutcome& outcome)
{
    m_known.insert({sessionId, outcome.id});
    ApprovalCard* c = card(sessionId, outcome.id);
    if (!c) {
        // Answered before this window saw it (or after clear()): still worth a line.
        m_lastOutcome = ApprovalCard::describeOutcome(outcome, {}, false);
        updateChrome();
        return;
    }
    if (c->isResolved()) return;
    c->showOutcome(outcome);
    m_lastOutcome = c->outcomeText();
    updateChrome();
    Q_EMIT pendingCountChanged(pendingCount());
    const Key key{sessionId, outcome.id};
    if (m_lingerMs <= 0) {
        removeCard(key);
        return;
    }
    QTimer::singleShot(m_lingerMs, c, [this, key] { removeWhenNotHovered(key); });
}

void ApprovalPanel::clearSession(const QString& sessionId)
{
    std::vector<Key> gone;
    for (ApprovalCard* c : m_cards)
        if (c->sessionId() == sessionId) gone.push_back({sessionId, c->id()});
    for (const Key& key : gone)
        removeCard(key);
    std::erase_if(m_deferred, [&](const Key& key) { return key.first == sessionId; });
    std::erase_if(m_known, [&](const Key& key) { return key.first == sessionId; });
    if (!gone.empty()) Q_EMIT pendingCountChanged(pendingCount());
}

void ApprovalPanel::clear()
{
    const bool hadPending = pendingCount() > 0;
    std::vector<ApprovalCard*> cards;
    cards.swap(m_cards);
    for (ApprovalCard* c : cards) {
        const std::uint64_t id = c->id();
        c->hide();
        c->deleteLater();
        Q_EMIT cardRemoved(id);
    }
    m_known.clear();
    m_deferred.clear();
    m_lastOutcome.clear();
    m_ticker.stop();
    updateChrome();
    if (hadPending) Q_EMIT pendingCountChanged(0);
}

int ApprovalPanel::pendingCount() const
{
    return static_cast<int>(
        std::count_if(m_cards.begin(), m_cards.end(), [](auto* c) { return !c->isResolved(); }));
}

ApprovalCard* ApprovalPanel::card(std::uint64_t id) const
{
    auto it = std::find_if(m_cards.begin(), m_cards.end(), [id](auto* c) { return c->id() == id; });
    return it == m_cards.end() ? nullptr : *it;
}

ApprovalCard* ApprovalPanel::card(const QString& sessionId, std::uint64_t id) const
{
    auto it = std::find_if(m_cards.begin(), m_cards.end(),
                           [&](auto* c) { return c->id() == id && c->sessionId() == sessionId; });
    return it == m_cards.end() ? nullptr : *it;
}

ApprovalCard* ApprovalPanel::currentCard() const
{
    QWidget* focus = QApplication::focusWidget();
    for (ApprovalCard* c : m_cards)
        if (focus && (c == focus || c->isAncestorOf(focus)) && c->isAnswerable()) return c;
    for (ApprovalCard* c : m_cards)
        if (c->isAnswerable()) return c;
    return nullptr;
}

bool ApprovalPanel::answerCurrent(bool allow)
{
    tick(); // a card whose deadline just passed takes no answer
    ApprovalCard* c = currentCard();
    if (!c) return false;
    c->answer(allow);
    return true;
}

void ApprovalPanel::setOnTimeout(std::optional<bool> allow)
{
    m_onTimeoutAllows = allow;
    for (ApprovalCard* c : m_cards)
        if (c->sessionId().isEmpty()) c->setOnTimeout(allow);
}

void ApprovalPanel::setCanSaveRules(bool can)
{
    m_canSaveRules = can;
    for (ApprovalCard* c : m_cards)
        if (c->sessionId().isEmpty()) c->setCanSaveRules(can);
}

void ApprovalPanel::setCanSaveRules(const QString& sessionId, bool can)
{
    for (ApprovalCard* c : m_cards)
        if (c->sessionId() == sessionId) c->setCanSaveRules(can);
}

void ApprovalPanel::tick()
{
    bool running = false;
    for (ApprovalCard* c : m_cards) {
        if (c->isResolved()) continue;
        c->updateCountdown();
        running = running || !c->isExpired();
    }
    // Expired cards only wait for their outcome: nothing left to count down.
    if (!running) m_ticker.stop();
}

bool ApprovalPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_scroll->viewport()) {
        if (event->type() == QEvent::Enter) {
            m_hovered = true;
        } else if (event->type() == QEvent::Leave) {
            m_hovered = false;
            std::vector<Key> due;
            due.swap(m_deferred);
            for (const Key& key : due)
                removeCard(key);
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ApprovalPanel::removeWhenNotHovered(const Key& key)
{
    if (m_hovered)
        m_deferred.push_back(key);
    else
        removeCard(key);
}

void ApprovalPanel::removeCard(const Key& key)
{
    auto it = std::find_if(m_cards.begin(), m_cards.end(), [&](auto* c) {
        return c->id() == key.second && c->sessionId() == key.first;
    });
    if (it == m_cards.end()) return;
    ApprovalCard* c = *it;
    m_cards.erase(it);
    m_list->removeWidget(c);
    c->hide();
    // Later: this may run inside one of the card's own signals.
    c->deleteLater();
    updateChrome();
    Q_EMIT cardRemoved(key.second);
}

void ApprovalPanel::updateChrome()
{
    const int pending = pendingCount();
    m_title->setText(pending > 0 ? tr("Approvals (%1 pending)").arg(pending) : tr("Approvals"));
    m_placeholder->setVisible(m_cards.empty());
    m_footer->setText(m_lastOutcome);
    m_footer->setVisible(!m_lastOutcome.isEmpty());
}

void ApprovalPanel::setTitleVisible(bool visible)
{
    m_title->setVisible(visible);
}

} // namespace sbui
