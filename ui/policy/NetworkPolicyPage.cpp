#include "NetworkPolicyPage.h"

#include "MessageBar.h"
#include "NetworkRulesModel.h"
#include "PolicyDocument.h"
#include "RuleListEditor.h"
#include "RuleText.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHostInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace sbui {

NetworkPolicyPage::NetworkPolicyPage(PolicyDocument* doc, QWidget* parent)
    : PolicyPage(doc, doc->networkRules(), doc->learnedNetwork(), ObservedModel::Kind::Network,
                 NetworkRulesModel::HostColumn, parent),
      m_mode(new QComboBox(this)), m_default(new QComboBox(this)),
      m_modeMessage(new MessageBar(this)), m_program(new QLineEdit(this)),
      m_checkAddresses(new QPushButton(tr("Check &addresses"), this))
{
    m_mode->addItem(tr("Filtered through the proxy"), static_cast<int>(sb::NetworkMode::Filtered));
    m_mode->addItem(tr("None: loopback only"), static_cast<int>(sb::NetworkMode::None));
    m_mode->addItem(tr("Host: unfiltered"), static_cast<int>(sb::NetworkMode::Host));
    m_mode->setToolTip(tr("How the sandbox reaches the network"));
    for (auto a : {sb::RuleAction::Allow, sb::RuleAction::Ask, sb::RuleAction::Deny})
        m_default->addItem(RuleText::actionIcon(a), RuleText::actionLabel(a), static_cast<int>(a));
    m_default->setToolTip(tr("What happens to a connection that no rule matches"));
    connect(m_mode, &QComboBox::activated, this, [this] {
        document()->setNetworkMode(static_cast<sb::NetworkMode>(m_mode->currentData().toInt()));
        updateModeMessage();
    });
    connect(m_default, &QComboBox::activated, this, [this] {
        document()->setNetworkDefault(
            static_cast<sb::RuleAction>(m_default->currentData().toInt()));
    });

    // The two settings side by side, or one above the other where they do not fit (resizeEvent).
    auto pair = [this](QLabel* label, QComboBox* box) {
        label->setBuddy(box);
        auto* layout = new QHBoxLayout;
        layout->addWidget(label);
        layout->addWidget(box);
        layout->addStretch(1);
        return layout;
    };
    m_settingsRow = new QBoxLayout(QBoxLayout::LeftToRight);
    m_settingsRow->setSpacing(16);
    m_settingsRow->addLayout(pair(new QLabel(tr("&Network:"), this), m_mode));
    m_settingsRow->addLayout(pair(new QLabel(tr("Any &other host:"), this), m_default), 1);
    headerLayout()->addLayout(m_settingsRow);
    headerLayout()->addWidget(m_modeMessage);

    QHeaderView* header = rules()->view()->horizontalHeader();
    header->setSectionResizeMode(NetworkRulesModel::HostColumn, QHeaderView::Interactive);
    header->resizeSection(NetworkRulesModel::HostColumn, 220);
    header->setSectionResizeMode(NetworkRulesModel::PortsColumn, QHeaderView::Interactive);
    header->resizeSection(NetworkRulesModel::PortsColumn, 90);

    setTestPlaceholder(tr("api.example.com:443"));
    testInput()->setToolTip(tr("A host and a port, such as api.example.com:443 or "
                               "[fd00::1]:22; an IP address or a name"));
    m_checkAddresses->setToolTip(tr("Look the name up (DNS) and decide for each of its addresses, "
                                    "as the proxy does before connecting"));
    m_checkAddresses->hide();
    connect(m_checkAddresses, &QPushButton::clicked, this, &NetworkPolicyPage::checkAddresses);
    m_program->setClearButtonEnabled(true);
    m_program->setPlaceholderText(QStringLiteral("/usr/bin/ssh"));
    m_program->setToolTip(tr("The path of the program that connects, for rules that name a "
                             "program; empty: unknown, and then no such rule matches"));
    connect(m_program, &QLineEdit::textChanged, this, &NetworkPolicyPage::retest);
    if (auto* layout = qobject_cast<QVBoxLayout*>(testNote()->parentWidget()->layout())) {
        // Under the destination.
        auto* programRow = new QHBoxLayout;
        auto* programLabel = new QLabel(tr("Connecting &program (optional):"), this);
        programLabel->setBuddy(m_program);
        programRow->addWidget(programLabel);
        programRow->addWidget(m_program, 1);
        layout->insertLayout(1, programRow);
        // Under the verdict.
        auto* buttonRow = new QHBoxLayout;
        buttonRow->addWidget(m_checkAddresses);
        buttonRow->addStretch(1);
        layout->insertLayout(layout->indexOf(testNote()) + 1, buttonRow);
    }
    showSettings();
}

void NetworkPolicyPage::showSettings()
{
    m_mode->setCurrentIndex(m_mode->findData(static_cast<int>(document()->networkMode())));
    m_default->setCurrentIndex(m_default->findData(static_cast<int>(document()->networkDefault())));
    updateModeMessage();
}

QString NetworkPolicyPage::modeMessage() const
{
    return m_modeMessage->text();
}

void NetworkPolicyPage::updateModeMessage()
{
    switch (document()->networkMode()) {
    case sb::NetworkMode::Host:
        m_modeMessage->showMessage(
            MessageBar::Kind::Warning,
            tr("With the host network the agent reaches everything this machine reaches, "
               "unfiltered and unrecorded: the rules below are not applied. Choose it only for an "
               "agent you trust."));
        break;
    case sb::NetworkMode::None:
        m_modeMessage->showMessage(MessageBar::Kind::Info,
                                   tr("The sandbox has no network but loopback. The rules below "
                                      "apply only when the network is filtered."));
        break;
    case sb::NetworkMode::Filtered:
        m_modeMessage->clearMessage();
        break;
    }
}

int NetworkPolicyPage::insertBlankRule(int row)
{
    NetworkRulesModel::Row blank;
    blank.action = sb::RuleAction::Allow;
    return document()->networkRules()->insertRule(row, blank);
}

TestVerdict NetworkPolicyPage::evaluate(const QString& input) const
{
    const sb::Policy policy = document()->policy();
    return PolicyTester::testConnection(policy.network, document()->learned().network, input,
                                        &document()->sessionAnswers(), m_program->text());
}

void NetworkPolicyPage::verdictShown(const TestVerdict& verdict)
{
    if (m_lookup >= 0) QHostInfo::abortHostLookup(std::exchange(m_lookup, -1));
    m_checkAddresses->setVisible(verdict.evaluated && verdict.dependsOnAddresses);
    m_checkAddresses->setEnabled(true);
}

void NetworkPolicyPage::checkAddresses()
{
    const TestVerdict verdict = lastVerdict();
    if (!verdict.evaluated || verdict.host.isEmpty()) return;
    m_checkAddresses->setEnabled(false);
    setTestNote(tr("Looking up %1…").arg(verdict.host));
    // Any change to the test (the program too) aborts the lookup: see verdictShown().
    m_lookup = QHostInfo::lookupHost(verdict.host, this, [this, verdict](const QHostInfo& info) {
        m_lookup = -1;
        m_checkAddresses->setEnabled(true);
        if (info.error() != QHostInfo::NoError || info.addresses().isEmpty()) {
            setTestNote(tr("%1 could not be looked up: %2. The proxy refuses a name it cannot "
                           "resolve.")
                            .arg(verdict.host, info.errorString()));
            return;
        }
        const sb::Policy policy = document()->policy();
        const QStringList lines =
            PolicyTester::testAddresses(policy.network, document()->learned().network, verdict.host,
                                        verdict.port, info.addresses(), m_program->text());
        setTestNote(tr("%1 resolves to:\n%2").arg(verdict.host, lines.join(u'\n')));
    });
}

void NetworkPolicyPage::removeLearned(int row)
{
    document()->removeLearnedNetwork(row);
}

int NetworkPolicyPage::promoteLearned(int row)
{
    return document()->promoteLearnedNetwork(row);
}

int NetworkPolicyPage::insertRule(const sb::LearnedRule& rule)
{
    if (!std::holds_alternative<sb::NetworkRule>(rule)) return -1;
    return document()->networkRules()->insertRule(0, std::get<sb::NetworkRule>(rule));
}

QString NetworkPolicyPage::ruleChoiceText(const sb::LearnedRule& rule) const
{
    const auto& r = std::get<sb::NetworkRule>(rule);
    const QString host = QString::fromStdString(r.host);
    if (r.action == sb::RuleAction::Allow)
        return r.ports.empty() ? tr("Allow %1 on any port").arg(host)
                               : tr("Allow %1 on port %2").arg(host, RuleText::portsText(r.ports));
    return r.ports.empty() ? tr("Deny %1 on any port").arg(host)
                           : tr("Deny %1 on port %2").arg(host, RuleText::portsText(r.ports));
}

std::vector<sb::ApprovalScope> NetworkPolicyPage::scopes() const
{
    return {sb::ApprovalScope::HostPort, sb::ApprovalScope::Host, sb::ApprovalScope::Domain};
}

void NetworkPolicyPage::resizeEvent(QResizeEvent* event)
{
    PolicyPage::resizeEvent(event);
    int oneRow = 16 + 2 * m_settingsRow->contentsMargins().left();
    for (int i = 0; i < m_settingsRow->count(); ++i)
        oneRow += m_settingsRow->itemAt(i)->sizeHint().width();
    const bool row = width() >= oneRow + 24;
    m_settingsRow->setDirection(row ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
    m_settingsRow->setSpacing(row ? 16 : 2);
}

} // namespace sbui
