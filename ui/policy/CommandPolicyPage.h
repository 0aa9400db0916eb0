// The commands section: the action for commands no rule names, the ordered command patterns,
// and the shared tester (a command line split as a shell would, decided by the core's
// CommandMatcher), learned and observed tabs.
#pragma once

#include "PolicyPage.h"

class QComboBox;

namespace sbui {

class CommandPolicyPage : public PolicyPage {
    Q_OBJECT
  public:
    explicit CommandPolicyPage(PolicyDocument* document, QWidget* parent = nullptr);

    QComboBox* defaultBox() const { return m_default; }

  protected:
    int insertBlankRule(int row) override;
    TestVerdict evaluate(const QString& input) const override;
    void removeLearned(int row) override;
    int promoteLearned(int row) override;
    int insertRule(const sb::LearnedRule& rule) override;
    QString ruleChoiceText(const sb::LearnedRule& rule) const override;
    std::vector<sb::ApprovalScope> scopes() const override;
    void showSettings() override;

  private:
    QComboBox* m_default;
};

} // namespace sbui
