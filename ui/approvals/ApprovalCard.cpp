#include "ApprovalCard.h"

#include "SuggestedRuleText.h"
#include "control/Protocol.h"
#include "policy/CommandRules.h"
#include "policy/LearnedRules.h"
#include "policy/RuleText.h"
#include "terminal/MonospaceFont.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <variant>

namespace sbui {
namespace {

// Past this the card shows the start of the command line; the tooltip and "Copy" have all of it.
constexpr qsizetype kMaxShownChars = 600;
// A word longer than this gets break opportunities, so a long path wraps instead of widening
// the panel.
constexpr qsizetype kBreakEvery = 24;
// The scope box's item of a generalised network rule: it keeps the request's port.
constexpr int kSamePortRole = Qt::UserRole + 1;

QString withBreakOpportunities(const QString& text)
{
    QString out;
    out.reserve(text.size() + text.size() / kBreakEvery);
    qsizetype run = 0;
    for (QChar c : text) {
        out += c;
        run = c.isSpace() ? 0 : run + 1;
        if (run >= kBreakEvery || (run > 1 && (c == u'/' || c == u'='))) {
            out += QChar(0x200B); // zero-width space
            run = 0;
        }
    }
    return out;
}

QLabel* mutedLabel(const QString& text, QWidget* parent)
{
    // Folders and rules can be long words too.
    auto* label = new QLabel(withBreakOpportunities(text), parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

} // namespace

void ApprovalCard::setSource(const ApprovalSource& source)
{
    m_sessionId = source.sessionId;
    m_source->setText(withBreakOpportunities(source.label));
    m_source->setToolTip(source.details);
    m_source->setVisible(!source.label.isEmpty());
    setOnTimeout(source.onTimeoutAllows);
    setCanSaveRules(source.canSaveRules);
}

QString ApprovalCard::sourceText() const
{
    return m_source->isHidden() ? QString() : QString(m_source->text()).remove(QChar(0x200B));
}

ApprovalCard::ApprovalCard(const sb::ApprovalRequest& request, sb::Clock& clock, QWidget* parent)
    : QFrame(parent), m_request(request), m_clock(clock)
{
    setObjectName(QStringLiteral("approvalCard"));
    setFocusPolicy(Qt::ClickFocus);
    setAttribute(Qt::WA_Hover);
    setContentsMargins(8, 6, 8, 6);
    const bool command = m_request.kind == sb::ApprovalKind::Command;

    auto* icon = new QLabel(this);
    icon->setPixmap(QIcon(command ? QStringLiteral(":/icons/command.svg")
                                  : QStringLiteral(":/icons/network.svg"))
                        .pixmap(20, 20));
    auto* title = new QLabel(command ? tr("Command #%1").arg(m_request.id)
                                     : tr("Connection #%1").arg(m_request.id),
                             this);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    m_countdown = new QLabel(this);
    m_countdown->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    // "1 min 49 s, dann verweigert" beside "Verbindung #1" is wider than a narrow panel: it wraps
    // rather than widen the card past it.
    m_countdown->setWordWrap(true);
    m_countdown->setObjectName(QStringLiteral("countdown"));
    auto* header = new QHBoxLayout;
    header->addWidget(icon);
    header->addWidget(title);
    header->addWidget(m_countdown, 1); // all the room there is, so that it wraps only when needed

    QString subject = subjectText();
    QString shown =
        subject.size() > kMaxShownChars
            ? subject.left(kMaxShownChars) + tr("… (%n more characters)", nullptr,
                                                static_cast<int>(subject.size() - kMaxShownChars))
            : subject;
    auto* subjectLabel = new QLabel(withBreakOpportunities(shown), this);
    subjectLabel->setObjectName(QStringLiteral("subject"));
    subjectLabel->setTextFormat(Qt::PlainText);
    subjectLabel->setWordWrap(true);
    subjectLabel->setToolTip(subject.left(4000));
    QFont mono = monospaceFont();
    mono.setBold(true);
    subjectLabel->setFont(mono);

    auto* copy = new QAction(command ? tr("Copy command line") : tr("Copy host and port"), this);
    connect(copy, &QAction::triggered, this,
            [subject] { QApplication::clipboard()->setText(subject); });
    addAction(copy);
    setContextMenuPolicy(Qt::ActionsContextMenu);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 4, 4);
    layout->setSpacing(4);
    layout->addLayout(header);
    // Which session asks: shown once the panel knows (setSource).
    m_source = new QLabel(this);
    m_source->setObjectName(QStringLiteral("source"));
    m_source->setTextFormat(Qt::PlainText);
    m_source->setWordWrap(true);
    m_source->hide();
    layout->addWidget(m_source);
    layout->addWidget(subjectLabel);
    if (command) {
        if (!m_request.cwd.empty())
            layout->addWidget(
                mutedLabel(tr("in %1").arg(QString::fromStdString(m_request.cwd)), this));
        if (!m_request.program.empty())
            layout->addWidget(
                mutedLabel(tr("program %1").arg(QString::fromStdString(m_request.program)), this));
    } else {
        if (!m_request.protocol.empty())
            layout->addWidget(
                mutedLabel(tr("via %1").arg(QString::fromStdString(m_request.protocol)), this));
        // Which program wants it, and what started that one: a decision a person can make.
        const sb::ProcessChain& chain = m_request.process;
        if (!chain.empty()) {
            layout->addWidget(mutedLabel(
                tr("wanted by %1").arg(QString::fromStdString(sb::describeProcess(chain[0]))),
                this));
            QStringList parents;
            for (std::size_t i = 1; i < chain.size(); ++i)
                parents << QString::fromStdString(sb::describeProcess(chain[i]));
            if (!parents.isEmpty())
                layout->addWidget(
                    mutedLabel(tr("started by %1").arg(parents.join(QStringLiteral(" < "))), this));
        }
    }
    layout->addWidget(mutedLabel(tr("asked by %1").arg(ruleText()), this));

    m_durationBox = new QComboBox(this);
    m_durationBox->addItem(tr("Once"), static_cast<int>(sb::ApprovalDuration::Once));
    m_durationBox->addItem(tr("This session"), static_cast<int>(sb::ApprovalDuration::Session));
    m_durationBox->addItem(tr("Always (saved as a rule)"),
                           static_cast<int>(sb::ApprovalDuration::Always));
    m_durationBox->setToolTip(tr("How long the answer holds"));
    m_scopeBox = new QComboBox(this);
    // One above the other, each the card's width: side by side, the longer choices ("Always
    // (saved as a rule)", German's longer words) were cut. They may still shrink with a narrow
    // panel (the text elides; the list shows it whole).
    for (QComboBox* box : {m_durationBox, m_scopeBox}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(8);
    }
    if (auto generalised = sb::generaliseAnswer(m_request)) m_generalised = *generalised;
    buildScopes();
    connect(m_durationBox, &QComboBox::currentIndexChanged, this, [this] {
        // Turning to Always offers the suggested rule once; the user's choice stands after.
        if (duration() == sb::ApprovalDuration::Always && !m_suggestionOffered) {
            m_suggestionOffered = true;
            useSuggestedScope();
        }
        updateState();
    });
    connect(m_scopeBox, &QComboBox::currentIndexChanged, this, [this] { updatePreview(); });
    // The answer's controls, hidden once the outcome is in.
    m_controls = new QWidget(this);
    auto* controls = new QVBoxLayout(m_controls);
    controls->setContentsMargins(0, 0, 0, 0);
    controls->setSpacing(4);
    controls->addWidget(m_durationBox);
    controls->addWidget(m_scopeBox);
    // Only with the program's exact path: the rule names it (see sb::ruleFromAnswer).
    if (!command && !m_request.process.empty() &&
        m_request.process.front().program.starts_with('/')) {
        const QString program = QString::fromStdString(m_request.process.front().program);
        // The program's name is on the "wanted by" line above: a check box does not wrap, and a
        // long name would widen the panel.
        m_programOnly = new QCheckBox(tr("This program only"), m_controls);
        m_programOnly->setObjectName(QStringLiteral("programOnly"));
        m_programOnly->setToolTip(
            tr("The answer covers connections by %1 only, not by other programs").arg(program));
        controls->addWidget(m_programOnly);
    }
    m_preview = new QLabel(m_controls);
    m_preview->setObjectName(QStringLiteral("preview"));
    m_preview->setTextFormat(Qt::PlainText);
    m_preview->setWordWrap(true);
    m_preview->setForegroundRole(QPalette::PlaceholderText);
    m_preview->hide();
    controls->addWidget(m_preview);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("status"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    QFont italic = m_status->font();
    italic.setItalic(true);
    m_status->setFont(italic);
    layout->addWidget(m_status);

    m_deny = new QPushButton(QIcon(QStringLiteral(":/icons/deny.svg")), tr("Deny"), this);
    m_deny->setToolTip(tr("Deny (Ctrl+Shift+N answers the focused or oldest request)"));
    m_allow = new QPushButton(QIcon(QStringLiteral(":/icons/allow.svg")), tr("Allow"), this);
    m_allow->setToolTip(tr("Allow (Ctrl+Shift+Y answers the focused or oldest request)"));
    connect(m_deny, &QPushButton::clicked, this, [this] { answer(false); });
    connect(m_allow, &QPushButton::clicked, this, [this] { answer(true); });
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_deny);
    buttons->addWidget(m_allow);
    controls->addLayout(buttons);
    layout->addWidget(m_controls);

    updateCountdown();
}

QString ApprovalCard::commandLine(const sb::ApprovalRequest& request)
{
    if (request.argv.empty()) return QString::fromStdString(request.program);
    return QString::fromStdString(sb::quoteCommandLine(request.argv));
}

QString ApprovalCard::subjectText() const
{
    if (m_request.kind == sb::ApprovalKind::Command) return commandLine(m_request);
    QString host = QString::fromStdString(m_request.host);
    // An IPv6 address needs brackets before its port.
    if (host.contains(u':')) host = u'[' + host + u']';
    return host + u':' + QString::number(m_request.port);
}

QString ApprovalCard::ruleText() const
{
    // The network rules name it "default (ask)".
    if (m_request.rule.empty() || m_request.rule == "default" ||
        m_request.rule.starts_with("default ("))
        return tr("the policy's default");
    return RuleText::decidingRule(QString::fromStdString(m_request.rule));
}

void ApprovalCard::buildScopes()
{
    using S = sb::ApprovalScope;
    const S scopes[] = {S::ExactCommand, S::Subcommand, S::AnyArguments,
                        S::HostPort,     S::Host,       S::Domain};
    auto* model = qobject_cast<QStandardItemModel*>(m_scopeBox->model());
    for (S scope : scopes) {
        if (!sb::proto::scopeFitsKind(scope, m_request.kind)) continue;
        sb::ApprovalAnswer probe;
        probe.allow = true;
        probe.scope = scope;
        probe.duration = sb::ApprovalDuration::Session;
        // The core's own translation of an answer into a rule: the label shows exactly what a
        // session or "always" answer will cover, and a scope the core would refuse is disabled.
        auto rule = sb::ruleFromAnswer(m_request, probe);
        QString pattern;
        if (rule) {
            if (const auto* c = std::get_if<sb::CommandRule>(&*rule))
                pattern = QString::fromStdString(c->match);
            else if (const auto* n = std::get_if<sb::NetworkRule>(&*rule))
                pattern = QString::fromStdString(n->host);
        }
        QString label;
        switch (scope) {
        case S::ExactCommand:
            label = tr("This exact command");
            break;
        case S::Subcommand:
            label = rule ? tr("Subcommand: %1").arg(pattern) : tr("Subcommand");
            break;
        case S::AnyArguments:
            label = rule ? tr("Program: %1").arg(pattern) : tr("Program, any arguments");
            break;
        case S::HostPort:
            label = tr("Host and port: %1").arg(subjectText());
            break;
        case S::Host:
            label = tr("Host: %1 (any port)").arg(rule ? pattern : tr("this host"));
            break;
        case S::Domain:
            label = rule ? tr("Domain: %1").arg(pattern) : tr("Domain");
            break;
        }
        m_scopeBox->addItem(label, static_cast<int>(scope));
        if (!rule && model) {
            QStandardItem* item = model->item(m_scopeBox->count() - 1);
            item->setEnabled(false);
            item->setToolTip(QString::fromStdString(rule.error().message));
        }
    }
    if (m_generalised && m_generalised->generalises()) {
        if (m_generalised->samePort) {
            // No scope above keeps the port: an item of its own.
            const auto slash = m_generalised->rule.find(' ');
            m_scopeBox->addItem(
                tr("Domain: %1, port %2")
                    .arg(QString::fromStdString(m_generalised->rule.substr(0, slash)))
                    .arg(m_request.port),
                static_cast<int>(m_generalised->scope));
            m_suggestedIndex = m_scopeBox->count() - 1;
            m_scopeBox->setItemData(m_suggestedIndex, true, kSamePortRole);
        } else {
            m_suggestedIndex = m_scopeBox->findData(static_cast<int>(m_generalised->scope));
        }
        // The labels stay short (a narrow panel, German's longer words): which one is suggested
        // is in its tooltip, and in the preview once the duration is Always.
        if (m_suggestedIndex >= 0)
            m_scopeBox->setItemData(m_suggestedIndex,
                                    tr("Suggested for an “always” answer: %1")
                                        .arg(QString::fromStdString(m_generalised->rule)),
                                    Qt::ToolTipRole);
    }
    m_scopeBox->setCurrentIndex(0);
}

bool ApprovalCard::useSuggestedScope()
{
    if (m_suggestedIndex < 0) return false;
    m_scopeBox->setCurrentIndex(m_suggestedIndex);
    if (m_programOnly && m_generalised->programOnly) m_programOnly->setChecked(true);
    updatePreview();
    return true;
}

QString ApprovalCard::previewText() const
{
    if (duration() != sb::ApprovalDuration::Always || !m_generalised) return {};
    const sb::GeneralisedAnswer& g = *m_generalised;
    if (g.risk != sb::GeneralisedAnswer::Risk::None)
        return tr("Only the exact rule is suggested: %1.").arg(riskText(g));
    if (m_suggestedIndex < 0) return {};
    if (m_scopeBox->currentIndex() != m_suggestedIndex)
        return tr("Suggested: %1").arg(QString::fromStdString(g.rule));
    QStringList lines;
    lines << tr("Saves %1, which also allows:").arg(QString::fromStdString(g.rule));
    for (const sb::Allowance& a : g.alsoAllows)
        lines << QStringLiteral("• ") + allowanceText(a);
    return lines.join(u'\n');
}

void ApprovalCard::updatePreview()
{
    if (!m_preview) return;
    const QString text = previewText();
    m_preview->setText(text);
    m_preview->setVisible(!text.isEmpty() && !m_resolved);
}

bool ApprovalCard::setScope(sb::ApprovalScope scope)
{
    int index = m_scopeBox->findData(static_cast<int>(scope));
    if (index < 0) return false;
    auto* model = qobject_cast<QStandardItemModel*>(m_scopeBox->model());
    if (model && !model->item(index)->isEnabled()) return false;
    m_scopeBox->setCurrentIndex(index);
    return true;
}

sb::ApprovalScope ApprovalCard::scope() const
{
    return static_cast<sb::ApprovalScope>(m_scopeBox->currentData().toInt());
}

void ApprovalCard::setDuration(sb::ApprovalDuration duration)
{
    if (duration == sb::ApprovalDuration::Always && !canSaveRules()) return; // not offered
    m_durationBox->setCurrentIndex(m_durationBox->findData(static_cast<int>(duration)));
}

sb::ApprovalDuration ApprovalCard::duration() const
{
    return static_cast<sb::ApprovalDuration>(m_durationBox->currentData().toInt());
}

void ApprovalCard::setOnTimeout(std::optional<bool> allow)
{
    m_onTimeoutAllows = allow;
    updateCountdown();
}

void ApprovalCard::setCanSaveRules(bool can)
{
    const int always = m_durationBox->findData(static_cast<int>(sb::ApprovalDuration::Always));
    auto* items = qobject_cast<QStandardItemModel*>(m_durationBox->model());
    if (always < 0 || !items) return;
    items->item(always)->setEnabled(can);
    m_durationBox->setItemData(
        always,
        can ? QVariant()
            : QVariant(tr("This session's policy is in no file, so there is nowhere to save a "
                          "rule: an answer can hold for this session. Save the policy to a file "
                          "(Policy tab) to keep answers as rules.")),
        Qt::ToolTipRole);
    if (!can && duration() == sb::ApprovalDuration::Always)
        setDuration(sb::ApprovalDuration::Session);
}

bool ApprovalCard::canSaveRules() const
{
    const int always = m_durationBox->findData(static_cast<int>(sb::ApprovalDuration::Always));
    auto* items = qobject_cast<QStandardItemModel*>(m_durationBox->model());
    return always >= 0 && items && items->item(always)->isEnabled();
}

bool ApprovalCard::isExpired() const
{
    return m_request.deadlineUnixMs > 0 && m_clock.unixMs() >= m_request.deadlineUnixMs;
}

bool ApprovalCard::isAnswerable() const
{
    return !m_waiting && !m_resolved && !m_expired;
}

QString ApprovalCard::countdownText() const
{
    if (m_resolved || m_request.deadlineUnixMs <= 0) return {};
    const std::int64_t left = m_request.deadlineUnixMs - m_clock.unixMs();
    if (left <= 0) return tr("expired, waiting for the supervisor");
    // Rounded up: "0 s" would read as already expired.
    const std::int64_t s = (left + 999) / 1000;
    QString text;
    if (s < 60)
        text = tr("%1 s").arg(s);
    else if (s < 3600)
        text = tr("%1 min %2 s").arg(s / 60).arg(s % 60);
    else
        text = tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
    if (m_onTimeoutAllows)
        text =
            *m_onTimeoutAllows ? tr("%1, then allowed").arg(text) : tr("%1, then denied").arg(text);
    return text;
}

QString ApprovalCard::statusText() const
{
    if (m_resolved) return m_outcomeText;
    if (m_waiting && m_sent)
        return m_sent->allow ? tr("Allow sent, waiting…") : tr("Deny sent, waiting…");
    return {};
}

void ApprovalCard::answer(bool allow)
{
    updateCountdown();
    if (!isAnswerable()) return;
    sb::ApprovalAnswer a;
    a.allow = allow;
    a.scope = scope();
    a.duration = duration();
    a.answeredBy = "gui";
    // A once answer covers this request only, so it names no program either.
    a.programOnly =
        m_programOnly && m_programOnly->isChecked() && a.duration != sb::ApprovalDuration::Once;
    a.samePort =
        m_scopeBox->currentData(kSamePortRole).toBool() && a.duration != sb::ApprovalDuration::Once;
    m_sent = a;
    m_waiting = true;
    updateState();
    Q_EMIT answered(m_request.id, a);
}

void ApprovalCard::updateCountdown()
{
    m_expired = isExpired();
    const std::int64_t left = m_request.deadlineUnixMs - m_clock.unixMs();
    QFont font = m_countdown->font();
    font.setBold(!m_resolved && m_request.deadlineUnixMs > 0 && left > 0 && left <= 10'000);
    m_countdown->setFont(font);
    // The header keeps the short countdown; "expired, waiting for the supervisor" goes on the
    // status line, where it can wrap.
    m_countdown->setText(m_expired ? QString() : countdownText());
    updateState();
}

void ApprovalCard::showOutcome(const sb::ApprovalOutcome& outcome)
{
    const bool here = m_sent && !outcome.timedOut && !outcome.cancelled &&
                      outcome.answer.answeredBy == m_sent->answeredBy &&
                      outcome.allow == m_sent->allow;
    m_outcomeText = outcomeVerdict(outcome, here);
    m_outcomeLine = describeOutcome(outcome, subjectText(), here);
    m_resolved = true;
    m_waiting = false;
    m_countdown->clear();
    updateState();
}

QString ApprovalCard::outcomeVerdict(const sb::ApprovalOutcome& o, bool answeredHere)
{
    const QString verdict = o.allow ? tr("allowed") : tr("denied");
    QString text;
    if (o.timedOut) {
        text = tr("timed out, %1").arg(verdict);
    } else if (o.cancelled) {
        text = tr("cancelled (the supervisor stopped), %1").arg(verdict);
    } else {
        QString how = o.answer.duration == sb::ApprovalDuration::Always    ? tr("always")
                      : o.answer.duration == sb::ApprovalDuration::Session ? tr("this session")
                                                                           : tr("once");
        if (answeredHere)
            text = tr("%1 (%2)").arg(verdict, how);
        else
            text =
                tr("%1 by %2 (%3)")
                    .arg(verdict,
                         o.answer.answeredBy.empty() ? tr("another client")
                                                     : QString::fromStdString(o.answer.answeredBy),
                         how);
    }
    if (!o.persistError.empty())
        text += tr("; the rule was not saved: %1").arg(QString::fromStdString(o.persistError));
    return text;
}

QString ApprovalCard::describeOutcome(const sb::ApprovalOutcome& o, const QString& subject,
                                      bool answeredHere)
{
    const QString what =
        subject.isEmpty() ? tr("#%1").arg(o.id) : tr("#%1 %2").arg(o.id).arg(subject.left(80));
    return tr("%1: %2").arg(what, outcomeVerdict(o, answeredHere));
}

void ApprovalCard::updateState()
{
    const bool answerable = isAnswerable();
    m_allow->setEnabled(answerable);
    m_deny->setEnabled(answerable);
    m_durationBox->setEnabled(answerable);
    // A "once" answer covers this request only, so its scope would mean nothing.
    const bool scoped = duration() != sb::ApprovalDuration::Once;
    m_scopeBox->setEnabled(answerable && scoped);
    if (m_programOnly) m_programOnly->setEnabled(answerable && scoped);
    m_scopeBox->setToolTip(scoped ? tr("What the answer covers")
                                  : tr("A once answer covers this request only"));
    m_controls->setVisible(!m_resolved);
    QStringList lines;
    if (m_expired && !m_resolved) lines << countdownText();
    if (!statusText().isEmpty()) lines << statusText();
    m_status->setText(lines.join(u'\n'));
    m_status->setVisible(!lines.isEmpty());
    updatePreview();
    update();
}

void ApprovalCard::changeEvent(QEvent* event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) update();
}

void ApprovalCard::paintEvent(QPaintEvent*)
{
    // Colours from the palette, so the card follows light and dark themes; the card holding the
    // keyboard focus (the one the shortcuts answer) gets the highlight colour as its border.
    QWidget* focus = QApplication::focusWidget();
    const bool focused = focus && (focus == this || isAncestorOf(focus));
    const bool quiet = m_resolved || m_expired;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QRectF box = QRectF(rect()).adjusted(1.5, 1.5, -1.5, -1.5);
    QColor fill = palette().color(QPalette::Base);
    QColor border = focused ? palette().color(QPalette::Highlight) : palette().color(QPalette::Mid);
    p.setPen(QPen(border, focused ? 2.0 : 1.0, quiet ? Qt::DashLine : Qt::SolidLine));
    p.setBrush(fill);
    p.drawRoundedRect(box, 6, 6);
    QColor accent = palette().color(QPalette::Highlight);
    if (quiet) accent = palette().color(QPalette::Mid);
    p.setPen(Qt::NoPen);
    p.setBrush(accent);
    p.drawRoundedRect(QRectF(box.left(), box.top() + 6, 3, box.height() - 12), 1.5, 1.5);
}

} // namespace sbui
