// The network section: mode (none, filtered, host — host with a warning), the action for hosts
// no rule names, the ordered host rules, and the shared tester, learned and observed tabs. The
// tester decides on the name as typed, without DNS; when the name's addresses could still change
// the outcome it says so, and "Check addresses" resolves the name (asynchronously, on request
// only, so typing never sends lookups) and decides for each address. An optional program
// (/usr/bin/ssh) is who connects, for the rules that name one.
#pragma once

#include "PolicyPage.h"

class QBoxLayout;
class QComboBox;
class QLineEdit;

namespace sbui {

class MessageBar;

class NetworkPolicyPage : public PolicyPage {
    Q_OBJECT
  public:
    explicit NetworkPolicyPage(PolicyDocument* document, QWidget* parent = nullptr);

    QComboBox* modeBox() const { return m_mode; }
    QComboBox* defaultBox() const { return m_default; }
    // The warning (host) or note (none) about the mode; empty for filtered.
    QString modeMessage() const;
    QPushButton* checkAddressesButton() const { return m_checkAddresses; }
    // The tester's program: the path of the program that connects; empty: unknown.
    QLineEdit* testProgramInput() const { return m_program; }

  protected:
    int insertBlankRule(int row) override;
    TestVerdict evaluate(const QString& input) const override;
    void removeLearned(int row) override;
    int promoteLearned(int row) override;
    int insertRule(const sb::LearnedRule& rule) override;
    QString ruleChoiceText(const sb::LearnedRule& rule) const override;
    std::vector<sb::ApprovalScope> scopes() const override;
    void showSettings() override;
    void verdictShown(const TestVerdict& verdict) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    void updateModeMessage();
    void checkAddresses();

    QComboBox* m_mode;
    QComboBox* m_default;
    QBoxLayout* m_settingsRow = nullptr; // mode and default: a row, or a column when narrow
    MessageBar* m_modeMessage;
    QLineEdit* m_program;
    QPushButton* m_checkAddresses;
    int m_lookup = -1;
};

} // namespace sbui
