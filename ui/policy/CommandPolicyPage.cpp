#include "CommandPolicyPage.h"

#include "CommandRulesModel.h"
#include "PolicyDocument.h"
#include "RuleListEditor.h"
#include "RuleText.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

namespace sbui {

CommandPolicyPage::CommandPolicyPage(PolicyDocument* doc, QWidget* parent)
    : PolicyPage(doc, doc->commandRules(), doc->learnedCommands(), ObservedModel::Kind::Command,
                 CommandRulesModel::MatchColumn, parent),
      m_default(new QComboBox(this))
{
    for (auto a : {sb::RuleAction::Allow, sb::RuleAction::Ask, sb::RuleAction::Deny})
        m_default->addItem(RuleText::actionIcon(a), RuleText::actionLabel(a), static_cast<int>(a));
    m_default->setToolTip(tr("What happens to a program that no rule matches"));
    connect(m_default, &QComboBox::activated, this, [this] {
        document()->setCommandDefault(
            static_cast<sb::RuleAction>(m_default->currentData().toInt()));
    });
    auto* row = new QHBoxLayout;
    auto* label = new QLabel(tr("Any &other command:"), this);
    label->setBuddy(m_default);
    row->addWidget(label);
    row->addWidget(m_default);
    row->addStretch(1);
    headerLayout()->addLayout(row);

    QHeaderView* header = rules()->view()->horizontalHeader();
    header->setSectionResizeMode(CommandRulesModel::MatchColumn, QHeaderView::Interactive);
    header->resizeSection(CommandRulesModel::MatchColumn, 280);

    setTestPlaceholder(tr("git push origin main"));
    testInput()->setToolTip(tr("A command line, quoted as in a shell; one program, no pipes"));
    showSettings();
}

void CommandPolicyPage::showSettings()
{
    m_default->setCurrentIndex(m_default->findData(static_cast<int>(document()->commandDefault())));
}

int CommandPolicyPage::insertBlankRule(int row)
{
    CommandRulesModel::Row blank;
    blank.action = sb::RuleAction::Ask;
    return document()->commandRules()->insertRule(row, blank);
}

TestVerdict CommandPolicyPage::evaluate(const QString& input) const
{
    const sb::Policy policy = document()->policy();
    return PolicyTester::testCommand(policy.commands, document()->learned().commands, input,
                                     &document()->sessionAnswers());
}

void CommandPolicyPage::removeLearned(int row)
{
    document()->removeLearnedCommand(row);
}

int CommandPolicyPage::promoteLearned(int row)
{
    return document()->promoteLearnedCommand(row);
}

int CommandPolicyPage::insertRule(const sb::LearnedRule& rule)
{
    if (!std::holds_alternative<sb::CommandRule>(rule)) return -1;
    return document()->commandRules()->insertRule(0, std::get<sb::CommandRule>(rule));
}

QString CommandPolicyPage::ruleChoiceText(const sb::LearnedRule& rule) const
{
    const auto& r = std::get<sb::CommandRule>(rule);
    const QString match = QString::fromStdString(r.match);
    return r.action == sb::RuleAction::Allow ? tr("Allow %1").arg(match) : tr("Deny %1").arg(match);
}

std::vector<sb::ApprovalScope> CommandPolicyPage::scopes() const
{
    return {sb::ApprovalScope::ExactCommand, sb::ApprovalScope::Subcommand,
            sb::ApprovalScope::AnyArguments};
}

} // namespace sbui
