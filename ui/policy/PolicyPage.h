// What the Network and Commands pages share: a header of section settings (the subclass's), the
// user's ordered rules, and below them three tabs: a tester ("would this be allowed?") that
// names the deciding rule, the learned rules apart (remove, or move into the user's rules), and
// what the shown session did ("make a rule from this").
#pragma once

#include "ObservedModel.h"
#include "PolicyTester.h"
#include "policy/Approval.h"
#include "policy/LearnedRules.h"

#include <QWidget>
#include <vector>

class QHBoxLayout;
class QLabel;
class QLineEdit;
class QMenu;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTableView;
class QVBoxLayout;

namespace sbui {

class ActivityModel;
class MessageBar;
class PolicyDocument;
class RuleListEditor;
class RuleTableModel;

class PolicyPage : public QWidget {
    Q_OBJECT
  public:
    RuleListEditor* rules() const { return m_rules; }
    QTabWidget* bottomTabs() const { return m_tabs; }
    QLineEdit* testInput() const { return m_testInput; }
    QLabel* testHeadline() const { return m_headline; }
    QLabel* testReason() const { return m_reason; }
    QLabel* testNote() const { return m_note; }
    const TestVerdict& lastVerdict() const { return m_verdict; }
    QTableView* learnedView() const { return m_learnedView; }
    QPushButton* promoteButton() const { return m_promote; }
    QPushButton* removeLearnedButton() const { return m_removeLearned; }
    QTableView* observedView() const { return m_observedView; }
    ObservedModel* observed() const { return m_observed; }
    QPushButton* makeRuleButton() const { return m_makeRule; }
    // The choices "make a rule" offers for the selected observation, rebuilt as it opens.
    QMenu* makeRuleMenu() const { return m_ruleMenu; }

    void setActivitySource(ActivityModel* activity);
    // Takes a cell still being edited into the rules.
    void commitEdits();
    // Evaluates `input` as the tester's field does (and shows it there).
    void test(const QString& input);
    // A rule from an observation, as an approval answer would make it (sb::ruleFromAnswer), put
    // first among the user's rules so that it decides; its row, or -1 when the scope does not
    // fit (a domain of an address, a subcommand of a program run without arguments).
    int makeRule(int observedRow, bool allow, sb::ApprovalScope scope);
    // The selected learned rule: out of the learned-rules file at the next save.
    void removeSelectedLearned();
    void promoteSelectedLearned();

  protected:
    PolicyPage(PolicyDocument* document, RuleTableModel* rules, RuleTableModel* learned,
               ObservedModel::Kind kind, int editColumn, QWidget* parent);

    // The subclass's settings row, above the rules.
    QVBoxLayout* headerLayout() const { return m_header; }
    PolicyDocument* document() const { return m_doc; }

    virtual int insertBlankRule(int row) = 0;
    virtual TestVerdict evaluate(const QString& input) const = 0;
    virtual void removeLearned(int row) = 0;
    virtual int promoteLearned(int row) = 0;
    virtual int insertRule(const sb::LearnedRule& rule) = 0;
    // "Allow api.example.com on port 443", for the make-a-rule menu.
    virtual QString ruleChoiceText(const sb::LearnedRule& rule) const = 0;
    virtual std::vector<sb::ApprovalScope> scopes() const = 0;
    // The document was opened or reverted: show its section settings.
    virtual void showSettings() = 0;
    // After a verdict is shown (the network page offers to check a name's addresses).
    virtual void verdictShown(const TestVerdict&) {}
    void setTestPlaceholder(const QString& text);
    void setTestNote(const QString& text);
    void retest();

  private:
    QWidget* buildTester();
    QWidget* buildLearned();
    QWidget* buildObserved();
    void fillRuleMenu();
    void updateCounts();
    int selectedRow(QTableView* view) const;

    PolicyDocument* m_doc;
    RuleTableModel* m_learnedModel;
    ObservedModel* m_observed;
    QVBoxLayout* m_header;
    RuleListEditor* m_rules;
    QTabWidget* m_tabs;
    QLineEdit* m_testInput;
    QLabel *m_verdictIcon, *m_headline, *m_reason, *m_note;
    TestVerdict m_verdict;
    QTableView* m_learnedView;
    QLabel* m_learnedInfo;
    MessageBar* m_learnedProblem;
    QPushButton *m_promote, *m_removeLearned;
    QTableView* m_observedView;
    QPushButton* m_makeRule;
    QMenu* m_ruleMenu;
};

} // namespace sbui
