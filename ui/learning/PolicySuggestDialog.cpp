#include "PolicySuggestDialog.h"

#include "policy/LearnedRules.h"
#include "policy/PolicyEdit.h"
#include "recording/RecordingStore.h"
#include "sessions/SessionConnection.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace sbui {
namespace {

constexpr int kIndexRole = Qt::UserRole + 1; // a proposal's index in the suggestion
constexpr int kFileItem = -1;                // the base combo's "policy file…" entry
constexpr int kSessionItem = -2;             // the base combo's running session's policy

QString ruleText(const sb::ProposedRule& p)
{
    if (p.section == sb::ProposedRule::Section::Commands)
        return PolicySuggestDialog::tr("command %1").arg(QString::fromStdString(p.command.match));
    QStringList ports;
    for (auto port : p.network.ports)
        ports << QString::number(port);
    QString text = PolicySuggestDialog::tr("host %1 port %2")
                       .arg(QString::fromStdString(p.network.host), ports.join(u','));
    if (!p.network.program.empty())
        text += PolicySuggestDialog::tr(" by %1").arg(QString::fromStdString(p.network.program));
    return text;
}

QString remarkText(const sb::ProposedRule& p)
{
    using Remark = sb::ProposedRule::Remark;
    switch (p.remark) {
    case Remark::CoversADenial:
        return PolicySuggestDialog::tr("risky: it would also allow what a deny rule of the base "
                                       "policy denies");
    case Remark::Interpreter:
        return PolicySuggestDialog::tr("risky: an interpreter running anything would allow "
                                       "every program");
    case Remark::TransferTool:
        return PolicySuggestDialog::tr("risky: %1 sends and fetches whatever it is told (any "
                                       "file could go to this host, any script come from it)")
            .arg(QString::fromStdString(p.platform));
    case Remark::SharedPlatform:
        return PolicySuggestDialog::tr("one party's names on a shared platform (%1)")
            .arg(QString::fromStdString(p.platform));
    case Remark::None:
        break;
    }
    return {};
}

QString evidenceText(const sb::Evidence& e)
{
    return PolicySuggestDialog::tr("%n time(s) in %1, e.g. %2", nullptr, static_cast<int>(e.count))
        .arg(PolicySuggestDialog::tr("%n session(s)", nullptr, static_cast<int>(e.sessions.size())),
             QString::fromStdString(e.example).simplified());
}

} // namespace

PolicySuggestDialog::PolicySuggestDialog(QWidget* parent)
    : QDialog(parent), m_base(new QComboBox(this)), m_sessions(new QListWidget(this)),
      m_suggest(new QPushButton(tr("&Suggest"), this)), m_proposals(new QTreeWidget(this)),
      m_summary(new QLabel(this)), m_save(new QPushButton(tr("Save &as…"), this)),
      m_apply(new QPushButton(tr("A&pply to session"), this))
{
    m_apply->setToolTip(tr("Give the running session its own policy with the checked rules, at "
                           "once (as the Policy tab's \"Apply to this session\" does)"));
    m_apply->hide();
    setWindowTitle(tr("Suggest a policy from sessions"));
    for (const std::string& name : sb::presetNames())
        m_base->addItem(tr("Preset: %1").arg(QString::fromStdString(name)),
                        QString::fromStdString(name));
    m_base->addItem(tr("Policy file…"), kFileItem);
    m_base->setCurrentIndex(std::max(0, m_base->findData(QStringLiteral("generic"))));
    m_base->setToolTip(tr("The policy the rules are added to: only what it would ask about is "
                          "proposed, and its deny rules still decide first"));
    m_sessions->setToolTip(tr("Recorded sessions to learn from: run them with --observe to be "
                              "asked nothing while they work"));
    m_proposals->setColumnCount(3);
    m_proposals->setHeaderLabels({tr("Rule"), tr("Evidence"), tr("Remark")});
    m_proposals->setRootIsDecorated(false);
    m_proposals->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_proposals->setToolTip(tr("Checked rules are saved; double-click one to see its example "
                               "in the replay"));
    m_summary->setWordWrap(true);

    auto* baseRow = new QHBoxLayout;
    auto* baseLabel = new QLabel(tr("&Base policy:"), this);
    baseLabel->setBuddy(m_base);
    baseRow->addWidget(baseLabel);
    baseRow->addWidget(m_base, 1);
    auto* sessionsLabel = new QLabel(tr("S&essions:"), this);
    sessionsLabel->setBuddy(m_sessions);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_apply, QDialogButtonBox::ActionRole);
    buttons->addButton(m_save, QDialogButtonBox::ActionRole);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(baseRow);
    layout->addWidget(sessionsLabel);
    layout->addWidget(m_sessions, 1);
    layout->addWidget(m_suggest, 0, Qt::AlignLeft);
    layout->addWidget(m_proposals, 2);
    layout->addWidget(m_summary);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_suggest, &QPushButton::clicked, this, &PolicySuggestDialog::suggest);
    connect(m_save, &QPushButton::clicked, this, &PolicySuggestDialog::save);
    connect(m_apply, &QPushButton::clicked, this, &PolicySuggestDialog::applyToSession);
    connect(m_base, &QComboBox::currentIndexChanged, this, &PolicySuggestDialog::updateButtons);
    connect(m_sessions, &QListWidget::itemChanged, this, &PolicySuggestDialog::updateButtons);
    connect(m_proposals, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        const auto index = item->data(0, kIndexRole).toInt();
        if (index < 0 || static_cast<std::size_t>(index) >= m_suggestion.rules.size()) return;
        const sb::Evidence& e = m_suggestion.rules[static_cast<std::size_t>(index)].evidence;
        Q_EMIT showEvidence(QString::fromStdString(e.exampleSession), e.exampleTNs);
    });
    connect(m_base, &QComboBox::activated, this, [this] {
        if (m_base->currentData().toInt() != kFileItem ||
            m_base->currentData().typeId() == QMetaType::QString)
            return;
        const QString file = QFileDialog::getOpenFileName(this, tr("Base policy"), {},
                                                          tr("Policies (*.json);;All files (*)"));
        if (file.isEmpty()) return;
        m_base->insertItem(m_base->count() - 1, file, file);
        m_base->setCurrentIndex(m_base->count() - 2);
    });
    resize(820, 600);
    loadSessions();
    updateButtons();
}

void PolicySuggestDialog::loadSessions()
{
    auto store = sb::RecordingStore::open();
    if (!store) return;
    sb::SessionFilter filter;
    auto list = store->sessions(filter);
    if (list) setSessions(*list, {});
}

void PolicySuggestDialog::setSessions(const std::vector<sb::SessionRecord>& sessions,
                                      const QStringList& checked)
{
    const QSignalBlocker quiet(m_sessions);
    m_sessions->clear();
    for (const sb::SessionRecord& s : sessions) {
        QString command;
        for (const std::string& word : s.command)
            command += (command.isEmpty() ? "" : " ") + QString::fromStdString(word);
        const QString id = QString::fromStdString(s.id);
        auto* item = new QListWidgetItem(
            tr("%1 · %2 · %3")
                .arg(QLocale().toString(QDateTime::fromMSecsSinceEpoch(s.startedNs / 1'000'000),
                                        QLocale::ShortFormat),
                     command.left(80), id),
            m_sessions);
        item->setData(Qt::UserRole, id);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(checked.contains(id) ? Qt::Checked : Qt::Unchecked);
    }
    updateButtons();
}

void PolicySuggestDialog::suggest()
{
    std::vector<std::string> ids;
    for (int i = 0; i < m_sessions->count(); ++i)
        if (m_sessions->item(i)->checkState() == Qt::Checked)
            ids.push_back(m_sessions->item(i)->data(Qt::UserRole).toString().toStdString());
    const QVariant base = m_base->currentData();
    const std::string name = base.toString().toStdString();
    const bool fromSession = base.typeId() == QMetaType::Int && base.toInt() == kSessionItem;
    auto policy = fromSession ? sb::Result<sb::Policy>(m_sessionPolicy)
                  : base.typeId() == QMetaType::QString && name.find('/') != std::string::npos
                      ? sb::loadPolicyWithLearned(name)
                      : sb::loadPresetWithLearned(name);
    auto fail = [this](const sb::Error& e) {
        m_summary->setText(tr("Cannot suggest: %1").arg(QString::fromStdString(e.describe())));
    };
    if (!policy) return fail(policy.error());
    m_suggestionFromSession = fromSession;
    auto store = sb::RecordingStore::open();
    if (!store) return fail(store.error());
    auto seen = sb::readObservations(*store, ids);
    if (!seen) return fail(seen.error());
    auto suggestion = sb::suggestPolicy(*policy, *seen);
    if (!suggestion) return fail(suggestion.error());
    setSuggestion(std::move(*suggestion));
}

void PolicySuggestDialog::setSuggestion(sb::Suggestion suggestion)
{
    m_suggestion = std::move(suggestion);
    m_proposals->clear();
    int risky = 0;
    for (std::size_t i = 0; i < m_suggestion.rules.size(); ++i) {
        const sb::ProposedRule& p = m_suggestion.rules[i];
        auto* item = new QTreeWidgetItem(m_proposals);
        item->setText(0, ruleText(p));
        item->setText(1, evidenceText(p.evidence));
        item->setText(2, remarkText(p));
        item->setToolTip(2, remarkText(p));
        item->setToolTip(1, QString::fromStdString(p.evidence.example));
        item->setData(0, kIndexRole, static_cast<int>(i));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(0, p.risk.empty() ? Qt::Checked : Qt::Unchecked);
        risky += p.risk.empty() ? 0 : 1;
    }
    for (int c = 0; c < 3; ++c)
        m_proposals->resizeColumnToContents(c);
    const int count = static_cast<int>(m_suggestion.rules.size());
    m_summary->setText(
        count == 0 ? tr("Nothing to propose: the base policy asks about nothing "
                        "these sessions did.")
                   : tr("%n rule(s) proposed", nullptr, count - risky) +
                         (risky == 0 ? QString() : tr("; %n risky, not checked", nullptr, risky)));
    updateButtons();
}

sb::Suggestion PolicySuggestDialog::chosen() const
{
    sb::Suggestion out{m_suggestion.base, {}};
    for (int i = 0; i < m_proposals->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = m_proposals->topLevelItem(i);
        if (item->checkState(0) != Qt::Checked) continue;
        out.rules.push_back(
            m_suggestion.rules[static_cast<std::size_t>(item->data(0, kIndexRole).toInt())]);
    }
    return out;
}

void PolicySuggestDialog::save()
{
    const QString file = QFileDialog::getSaveFileName(this, tr("Save the suggested policy"),
                                                      QStringLiteral("suggested-policy.json"),
                                                      tr("Policies (*.json)"));
    if (file.isEmpty()) return;
    // Risky rules left in are the user's choice: written as rules, their remark kept.
    const std::string text = sb::renderSuggestion(chosen(), true);
    if (auto e = sb::savePolicyFile(file.toStdString(), text))
        QMessageBox::warning(this, windowTitle(), QString::fromStdString(e->describe()));
    else
        m_summary->setText(tr("Saved %1.").arg(file));
}

void PolicySuggestDialog::setRunningSession(SessionConnection* session)
{
    if (!session || session->hasEnded()) return;
    const sb::proto::SessionSummary& summary = session->summary();
    auto policy =
        sb::parsePolicy(summary.effectivePolicy.dump(), "session " + session->sessionId().toStdString());
    if (!policy) return; // an older supervisor's summary: saving as a file is still there
    m_session = session;
    m_sessionPolicy = std::move(*policy);
    m_base->insertItem(0, tr("This session's policy (%1)").arg(session->sessionId()),
                       kSessionItem);
    m_base->setCurrentIndex(0);
    m_apply->setText(tr("A&pply to session %1").arg(session->sessionId()));
    m_apply->show();
    connect(session, &SessionConnection::policyUpdated, this,
            [this](const QStringList& applied, const QStringList&) {
                const SessionConnection* s = m_session.data();
                m_summary->setText(tr("Session %1 took the rules (%2).")
                                       .arg(s != nullptr ? s->sessionId() : QString(),
                                            applied.join(QStringLiteral(", "))));
            });
    connect(session, &SessionConnection::policyUpdateFailed, this, [this](const QString& why) {
        m_summary->setText(tr("The session did not take the rules: %1").arg(why));
    });
    updateButtons();
}

QString PolicySuggestDialog::summaryText() const
{
    return m_summary->text();
}

void PolicySuggestDialog::applyToSession()
{
    SessionConnection* session = m_session.data();
    if (session == nullptr || session->hasEnded() || !m_suggestionFromSession) return;
    // The document as a file would hold it (its comments dropped), so the session's policy
    // editor shows the same rules.
    const auto document = nlohmann::json::parse(sb::renderSuggestion(chosen(), true), nullptr,
                                                false, /*ignore_comments=*/true);
    if (!document.is_object()) return;
    m_summary->setText(tr("Sending the rules to session %1…").arg(session->sessionId()));
    session->updatePolicy(document, QString());
}

void PolicySuggestDialog::updateButtons()
{
    bool any = false;
    for (int i = 0; i < m_sessions->count() && !any; ++i)
        any = m_sessions->item(i)->checkState() == Qt::Checked;
    m_suggest->setEnabled(any);
    m_save->setEnabled(m_proposals->topLevelItemCount() > 0);
    // Only a suggestion made on the session's own policy goes into it: another base would
    // replace the session's rules with a preset's.
    const SessionConnection* session = m_session.data();
    m_apply->setEnabled(session != nullptr && !session->hasEnded() && m_suggestionFromSession &&
                        m_proposals->topLevelItemCount() > 0 &&
                        m_base->currentData().typeId() == QMetaType::Int &&
                        m_base->currentData().toInt() == kSessionItem);
}

} // namespace sbui
