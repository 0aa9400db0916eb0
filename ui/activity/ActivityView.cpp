#include "ActivityView.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QShortcut>
#include <QSplitter>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace sbui {
namespace {

// How long the search waits for the next keystroke before it filters (a search over 100,000 rows
// is quick, but not free).
constexpr int kSearchDelayMs = 150;

} // namespace

ActivityView::ActivityView(QWidget* parent) : QWidget(parent)
{
    m_model = new ActivityModel(this);
    m_filter = new ActivityFilterModel(this);
    m_filter->setSourceModel(m_model);

    auto* bar = new QHBoxLayout;
    bar->setSpacing(2);
    using C = ActivityModel::Category;
    const std::pair<C, QString> toggles[] = {
        {C::Command, tr("Commands")}, {C::Network, tr("Network")}, {C::Approval, tr("Approvals")},
        {C::File, tr("Files")},       {C::Limit, tr("Limits")},    {C::Lifecycle, tr("Lifecycle")},
    };
    for (const auto& [category, text] : toggles) {
        auto* button = new QToolButton(this);
        button->setText(text);
        button->setIcon(ActivityModel::categoryIcon(category));
        button->setToolTip(ActivityModel::categoryName(category));
        button->setCheckable(true);
        button->setChecked(true);
        button->setAutoRaise(true);
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        // Off must look off, not merely less raised: struck out, its icon greyed.
        auto look = [button, icon = button->icon(), name = text](bool on) {
            QFont font = button->font();
            font.setStrikeOut(!on);
            button->setFont(font);
            button->setIcon(on ? icon : QIcon(icon.pixmap(16, QIcon::Disabled)));
            button->setToolTip(on ? tr("%1: shown; click to hide").arg(name)
                                  : tr("%1: hidden; click to show").arg(name));
        };
        look(true);
        connect(button, &QToolButton::toggled, this, [this, c = category, look](bool on) {
            look(on);
            m_filter->setCategoryShown(c, on);
            afterFilterChange();
        });
        m_categoryButtons[category] = button;
        bar->addWidget(button);
    }
    bar->addSpacing(8);
    m_deniedOnly = new QToolButton(this);
    m_deniedOnly->setText(tr("Denied only"));
    m_deniedOnly->setIcon(QIcon(QStringLiteral(":/icons/deny.svg")));
    m_deniedOnly->setToolTip(tr("Show only what was denied (also by a timeout)"));
    m_deniedOnly->setCheckable(true);
    m_deniedOnly->setAutoRaise(true);
    m_deniedOnly->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    connect(m_deniedOnly, &QToolButton::toggled, this, [this](bool on) {
        // On, it narrows everything shown: bold and framed, so nobody misses it.
        QFont font = m_deniedOnly->font();
        font.setBold(on);
        m_deniedOnly->setFont(font);
        m_deniedOnly->setAutoRaise(!on);
        m_filter->setDeniedOnly(on);
        afterFilterChange();
    });
    bar->addWidget(m_deniedOnly);
    bar->addStretch(1);
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(160);
    bar->addWidget(m_search, 1);

    m_searchDelay.setSingleShot(true);
    m_searchDelay.setInterval(kSearchDelayMs);
    connect(&m_searchDelay, &QTimer::timeout, this, &ActivityView::applySearch);
    connect(m_search, &QLineEdit::textChanged, this, [this] { m_searchDelay.start(); });
    connect(m_search, &QLineEdit::returnPressed, this, &ActivityView::applySearch);
    auto* find = new QShortcut(QKeySequence::Find, this);
    find->setContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QShortcut::activated, this, [this] {
        m_search->setFocus(Qt::ShortcutFocusReason);
        m_search->selectAll();
    });

    m_table = new QTreeView(this);
    m_table->setModel(m_filter);
    // Uniform rows and no per-row widgets: the view lays out 100,000 rows without asking each one.
    m_table->setUniformRowHeights(true);
    m_table->setRootIsDecorated(false);
    m_table->setItemsExpandable(false);
    m_table->setAllColumnsShowFocus(true);
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->setIconSize(QSize(16, 16));
    QHeaderView* header = m_table->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(ActivityModel::SummaryColumn, QHeaderView::Stretch);
    const QFontMetrics fm = m_table->fontMetrics();
    const int pad = 3 * fm.horizontalAdvance(u' ');
    m_table->setColumnWidth(ActivityModel::TimeColumn,
                            fm.horizontalAdvance(QStringLiteral("+00:00:00")) + 2 * pad);
    m_table->setColumnWidth(
        ActivityModel::KindColumn,
        fm.horizontalAdvance(ActivityModel::kindLabel(QStringLiteral("lifecycle"))) + 16 + 3 * pad);
    m_table->setColumnWidth(
        ActivityModel::DecisionColumn,
        fm.horizontalAdvance(ActivityModel::decisionName(ActivityModel::Decision::TimedOut)) +
            2 * pad);

    // Following the newest row: on until the user scrolls away from the bottom, on again when
    // they scroll back to it.
    QScrollBar* vbar = m_table->verticalScrollBar();
    connect(vbar, &QScrollBar::valueChanged, this,
            [this, vbar](int value) { m_follow = value >= vbar->maximum(); });
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_follow) m_table->scrollToBottom();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showDetails(current); });

    m_emptyNote = new QLabel(m_table->viewport());
    m_emptyNote->setAlignment(Qt::AlignCenter);
    m_emptyNote->setWordWrap(true);
    m_emptyNote->setForegroundRole(QPalette::PlaceholderText);
    m_emptyNote->setAttribute(Qt::WA_TransparentForMouseEvents);
    auto* emptyLayout = new QVBoxLayout(m_table->viewport());
    emptyLayout->addWidget(m_emptyNote);
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_filter, signal, this, &ActivityView::updateEmptyNote);
    connect(m_filter, &QAbstractItemModel::modelReset, this, &ActivityView::updateEmptyNote);
    connect(m_filter, &QAbstractItemModel::layoutChanged, this, &ActivityView::updateEmptyNote);
    updateEmptyNote();

    // Five rows at least, whatever else wants the height.
    m_table->setMinimumHeight(fm.height() * 7 + m_table->header()->sizeHint().height());

    m_details = new QTextBrowser(this);
    m_details->setOpenLinks(false);
    m_details->setPlaceholderText(tr("Select an event to see all its fields."));

    // The details beside the table, not under it: the dock is short, and every line of height
    // is a row of the timeline.
    m_details->setMinimumWidth(fontMetrics().averageCharWidth() * 24);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(split, 1);
}

void ActivityView::updateEmptyNote()
{
    const bool empty = m_filter->rowCount() == 0;
    if (empty)
        m_emptyNote->setText(
            m_model->rowCount() == 0
                ? tr("No activity yet. Commands, connections, approvals and file changes show "
                     "here as the session runs.")
                : tr("No event matches the search or the filters."));
    m_emptyNote->setVisible(empty);
}

QToolButton* ActivityView::categoryButton(ActivityModel::Category category) const
{
    auto it = m_categoryButtons.find(category);
    return it == m_categoryButtons.end() ? nullptr : it->second;
}

void ActivityView::clear()
{
    m_model->clear();
    m_details->clear();
    m_follow = true;
}

void ActivityView::applySearch()
{
    m_searchDelay.stop();
    m_filter->setSearchText(m_search->text());
    afterFilterChange();
}

void ActivityView::selectEvent(int modelRow)
{
    m_model->flush();
    // The proxy filters without sorting, so its rows map to ascending model rows: the last shown
    // row at or before `modelRow` is found by bisection.
    int lo = 0, hi = m_filter->rowCount();
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (m_filter->mapToSource(m_filter->index(mid, 0)).row() <= modelRow)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (modelRow < 0 || lo == 0) {
        m_table->selectionModel()->clear();
        m_details->clear();
        return;
    }
    const QModelIndex index = m_filter->index(lo - 1, 0);
    if (index == m_table->currentIndex()) return;
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
    m_table->scrollTo(index);
}

void ActivityView::afterFilterChange()
{
    // Keep the selected event in sight; else stay with the newest if that is where the user was.
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid())
        m_table->scrollTo(current);
    else if (m_follow)
        m_table->scrollToBottom();
    showDetails(current);
    updateEmptyNote();
}

void ActivityView::showDetails(const QModelIndex& proxyIndex)
{
    if (!proxyIndex.isValid()) {
        m_details->clear();
        return;
    }
    const int row = m_filter->mapToSource(proxyIndex).row();
    const nlohmann::json event = m_model->event(row);
    const auto time = m_model->index(row, ActivityModel::TimeColumn);
    QString html = QStringLiteral("<p><b>%1</b></p>").arg(m_model->summary(row).toHtmlEscaped());
    QStringList facts;
    facts << m_model->index(row, ActivityModel::KindColumn).data().toString().toHtmlEscaped();
    const QString decision =
        ActivityModel::decisionName(m_model->decision(row), m_model->category(row));
    if (!decision.isEmpty()) facts << decision.toHtmlEscaped();
    const qint64 unixMs = time.data(ActivityModel::TimeRole).toLongLong();
    if (unixMs > 0)
        facts << QDateTime::fromMSecsSinceEpoch(unixMs)
                     .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"))
                     .toHtmlEscaped()
              << time.data().toString().toHtmlEscaped();
    html += QStringLiteral("<p>%1</p>").arg(facts.join(QStringLiteral(" · ")));
    html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
    if (event.is_object())
        for (const auto& [key, value] : event.items())
            html += QStringLiteral("<tr><td valign=\"top\"><i>%1</i>&nbsp;&nbsp;</td>"
                                   "<td><code>%2</code></td></tr>")
                        .arg(QString::fromStdString(key).toHtmlEscaped(),
                             ActivityModel::fieldText(key, value).toHtmlEscaped());
    html += QStringLiteral("</table>");
    m_details->setHtml(html);
}

} // namespace sbui
