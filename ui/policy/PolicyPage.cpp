#include "PolicyPage.h"

#include "MessageBar.h"
#include "PolicyDocument.h"
#include "RuleListEditor.h"
#include "RuleTableModel.h"
#include "RuleText.h"

#include <QFont>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <variant>

namespace sbui {
namespace {

enum Tab { TesterTab, LearnedTab, ObservedTab };

QLabel* caption(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

void setUpTable(QTableView* view)
{
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->horizontalHeader()->setStretchLastSection(true);
    view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

} // namespace

PolicyPage::PolicyPage(PolicyDocument* document, RuleTableModel* rules, RuleTableModel* learned,
                       ObservedModel::Kind kind, int editColumn, QWidget* parent)
    : QWidget(parent), m_doc(document), m_learnedModel(learned),
      m_observed(new ObservedModel(kind, this)), m_header(new QVBoxLayout),
      m_rules(new RuleListEditor(
          rules, [this](int row) { return insertBlankRule(row); }, editColumn, this)),
      m_tabs(new QTabWidget(this))
{
    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(
        caption(tr("Your rules, checked in order: the first that matches decides. Drag a rule or "
                   "use the arrows to change the order; double-click a cell to edit it."),
                top));
    topLayout->addWidget(m_rules, 1);

    m_tabs->setDocumentMode(true);
    // Each page scrolls when the window is short, rather than squeezing its fields together.
    auto scrolled = [this](QWidget* page) {
        auto* area = new QScrollArea(this);
        area->setWidget(page);
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        return area;
    };
    m_tabs->addTab(scrolled(buildTester()), tr("Test"));
    m_tabs->addTab(scrolled(buildLearned()), tr("Learned rules"));
    m_tabs->addTab(scrolled(buildObserved()), tr("Observed"));

    // The rules come first: at least three rows of them, whatever the height; the tester and
    // its neighbours take their share of what is left, not their wish, but never less than
    // their input and a verdict.
    m_rules->setMinimumHeight(fontMetrics().height() * 8);
    m_tabs->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
    m_tabs->setMinimumHeight(fontMetrics().height() * 6);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(top);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    m_header->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(m_header);
    layout->addWidget(splitter, 1);

    connect(m_doc, &PolicyDocument::opened, this, [this] {
        showSettings();
        updateCounts();
        retest();
    });
    connect(m_doc, &PolicyDocument::edited, this, [this] {
        updateCounts();
        retest();
    });
    connect(m_doc, &PolicyDocument::sessionAnswersChanged, this, &PolicyPage::retest);
    for (QAbstractItemModel* model : {static_cast<QAbstractItemModel*>(m_learnedModel),
                                      static_cast<QAbstractItemModel*>(m_observed)}) {
        connect(model, &QAbstractItemModel::rowsInserted, this, &PolicyPage::updateCounts);
        connect(model, &QAbstractItemModel::rowsRemoved, this, &PolicyPage::updateCounts);
        connect(model, &QAbstractItemModel::modelReset, this, &PolicyPage::updateCounts);
    }
    updateCounts();
}

QWidget* PolicyPage::buildTester()
{
    auto* page = new QWidget(this);
    m_testInput = new QLineEdit(page);
    m_testInput->setClearButtonEnabled(true);
    m_verdictIcon = new QLabel(page);
    m_headline = new QLabel(page);
    QFont bold = m_headline->font();
    bold.setBold(true);
    m_headline->setFont(bold);
    m_reason = new QLabel(page);
    m_note = new QLabel(page);
    for (QLabel* l : {m_reason, m_note}) {
        l->setWordWrap(true);
        l->setTextFormat(Qt::PlainText);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_headline->setTextFormat(Qt::PlainText);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    connect(m_testInput, &QLineEdit::textChanged, this, &PolicyPage::test);

    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Would this be allowed?"), page));
    row->addWidget(m_testInput, 1);
    auto* verdict = new QHBoxLayout;
    verdict->addWidget(m_verdictIcon);
    verdict->addWidget(m_headline, 1);
    auto* layout = new QVBoxLayout(page);
    layout->addLayout(row);
    layout->addLayout(verdict);
    layout->addWidget(m_reason);
    layout->addWidget(m_note);
    layout->addStretch(1);
    layout->addWidget(caption(tr("The rules as shown decide, unsaved changes and learned rules "
                                 "included."),
                              page));
    return page;
}

QWidget* PolicyPage::buildLearned()
{
    auto* page = new QWidget(this);
    m_learnedInfo = caption(QString(), page);
    m_learnedProblem = new MessageBar(page);
    m_learnedView = new QTableView(page);
    m_learnedView->setModel(m_learnedModel);
    setUpTable(m_learnedView);
    m_learnedView->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_promote = new QPushButton(tr("&Move to my rules"), page);
    m_promote->setToolTip(tr("Make it one of your rules, where it takes effect now, and drop it "
                             "from the learned rules when you save"));
    m_removeLearned = new QPushButton(tr("&Remove"), page);
    m_removeLearned->setToolTip(tr("Forget this answer when you save"));
    connect(m_promote, &QPushButton::clicked, this, &PolicyPage::promoteSelectedLearned);
    connect(m_removeLearned, &QPushButton::clicked, this, &PolicyPage::removeSelectedLearned);
    auto enable = [this] {
        const bool any = selectedRow(m_learnedView) >= 0;
        m_promote->setEnabled(any);
        m_removeLearned->setEnabled(any);
    };
    connect(m_learnedView->selectionModel(), &QItemSelectionModel::selectionChanged, this, enable);
    connect(m_learnedModel, &QAbstractItemModel::modelReset, this, enable);
    connect(m_learnedModel, &QAbstractItemModel::rowsRemoved, this, enable);
    enable();

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_promote);
    buttons->addWidget(m_removeLearned);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(page);
    layout->addWidget(m_learnedInfo);
    layout->addWidget(m_learnedProblem);
    layout->addWidget(m_learnedView, 1);
    layout->addLayout(buttons);
    return page;
}

QWidget* PolicyPage::buildObserved()
{
    auto* page = new QWidget(this);
    m_observedView = new QTableView(page);
    m_observedView->setModel(m_observed);
    setUpTable(m_observedView);
    m_observedView->horizontalHeader()->setSectionResizeMode(ObservedModel::SubjectColumn,
                                                             QHeaderView::Stretch);
    m_observedView->horizontalHeader()->setStretchLastSection(false);
    for (int c :
         {ObservedModel::DecisionColumn, ObservedModel::CountColumn, ObservedModel::RuleColumn})
        m_observedView->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_makeRule = new QPushButton(tr("Make a &rule from this"), page);
    m_ruleMenu = new QMenu(m_makeRule);
    m_makeRule->setMenu(m_ruleMenu);
    connect(m_ruleMenu, &QMenu::aboutToShow, this, &PolicyPage::fillRuleMenu);
    auto enable = [this] { m_makeRule->setEnabled(selectedRow(m_observedView) >= 0); };
    connect(m_observedView->selectionModel(), &QItemSelectionModel::selectionChanged, this, enable);
    connect(m_observed, &QAbstractItemModel::modelReset, this, enable);
    enable();

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_makeRule);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(page);
    layout->addWidget(caption(tr("What the shown session did, each destination or command once "
                                 "with its latest decision."),
                              page));
    layout->addWidget(m_observedView, 1);
    layout->addLayout(buttons);
    return page;
}

void PolicyPage::setActivitySource(ActivityModel* activity)
{
    m_observed->setSource(activity);
}

void PolicyPage::commitEdits()
{
    m_rules->commitEdits();
}

void PolicyPage::setTestPlaceholder(const QString& text)
{
    m_testInput->setPlaceholderText(text);
}

void PolicyPage::setTestNote(const QString& text)
{
    m_note->setText(text);
    m_note->setVisible(!text.isEmpty());
}

int PolicyPage::selectedRow(QTableView* view) const
{
    const QModelIndexList rows = view->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.front().row();
}

void PolicyPage::retest()
{
    if (!m_testInput->text().trimmed().isEmpty()) test(m_testInput->text());
}

void PolicyPage::test(const QString& input)
{
    if (m_testInput->text() != input) {
        m_testInput->setText(input); // comes back here through textChanged
        return;
    }
    if (input.trimmed().isEmpty() || !m_doc->isOpen()) {
        m_verdict = TestVerdict();
        m_verdictIcon->clear();
        m_headline->clear();
        m_reason->clear();
        setTestNote(QString());
        verdictShown(m_verdict);
        return;
    }
    m_verdict = evaluate(input);
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    if (m_verdict.evaluated) {
        m_verdictIcon->setPixmap(RuleText::actionIcon(m_verdict.action).pixmap(size, size));
        m_headline->setText(m_verdict.headline);
    } else {
        m_verdictIcon->setPixmap(
            style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(size, size));
        m_headline->setText(tr("Cannot tell"));
    }
    m_reason->setText(m_verdict.reason);
    setTestNote(m_verdict.note);
    // The deciding rule, selected where it is listed.
    if (m_verdict.userRule >= 0) m_rules->selectRow(m_verdict.userRule);
    if (m_verdict.learnedRule >= 0) m_learnedView->selectRow(m_verdict.learnedRule);
    verdictShown(m_verdict);
}

int PolicyPage::makeRule(int observedRow, bool allow, sb::ApprovalScope scope)
{
    if (observedRow < 0 || observedRow >= m_observed->rowCount()) return -1;
    sb::ApprovalAnswer answer;
    answer.allow = allow;
    answer.scope = scope;
    auto rule = sb::ruleFromAnswer(m_observed->request(observedRow), answer);
    if (!rule) return -1;
    // The core words the comment for a learned answer; this rule is the user's own.
    std::visit([](auto& r) { r.comment.clear(); }, *rule);
    const int row = insertRule(*rule);
    m_rules->selectRow(row);
    return row;
}

void PolicyPage::fillRuleMenu()
{
    m_ruleMenu->clear();
    const int row = selectedRow(m_observedView);
    if (row < 0) return;
    for (bool allow : {true, false}) {
        for (sb::ApprovalScope scope : scopes()) {
            sb::ApprovalAnswer answer;
            answer.allow = allow;
            answer.scope = scope;
            auto rule = sb::ruleFromAnswer(m_observed->request(row), answer);
            if (!rule) continue;
            QAction* a = m_ruleMenu->addAction(
                RuleText::actionIcon(allow ? sb::RuleAction::Allow : sb::RuleAction::Deny),
                ruleChoiceText(*rule));
            connect(a, &QAction::triggered, this,
                    [this, row, allow, scope] { makeRule(row, allow, scope); });
        }
        if (allow) m_ruleMenu->addSeparator();
    }
}

void PolicyPage::removeSelectedLearned()
{
    const int row = selectedRow(m_learnedView);
    if (row >= 0) removeLearned(row);
}

void PolicyPage::promoteSelectedLearned()
{
    const int row = selectedRow(m_learnedView);
    if (row < 0) return;
    const int at = promoteLearned(row);
    if (at >= 0) m_rules->selectRow(at);
}

void PolicyPage::updateCounts()
{
    const int learned = m_learnedModel->rowCount();
    const int observed = m_observed->rowCount();
    m_tabs->setTabText(LearnedTab,
                       learned > 0 ? tr("Learned rules (%1)").arg(learned) : tr("Learned rules"));
    m_tabs->setTabText(ObservedTab,
                       observed > 0 ? tr("Observed (%1)").arg(observed) : tr("Observed"));
    const QString file = m_doc->learnedPath();
    m_learnedInfo->setText(
        file.isEmpty()
            ? tr("This policy has no learned-rules file.")
            : tr("Answers given with “always”, kept in %1. They are checked before your rules, "
                 "but never override a deny rule of yours that is at least as specific.")
                  .arg(file));
    if (m_doc->learnedProblem().isEmpty())
        m_learnedProblem->clearMessage();
    else
        m_learnedProblem->showMessage(
            MessageBar::Kind::Error,
            tr("The learned rules could not be read, and are left as they are: %1")
                .arg(m_doc->learnedProblem()));
}

} // namespace sbui
