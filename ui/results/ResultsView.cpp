#include "ResultsView.h"

#include "ResultWidgets.h"
#include "base/ActivityKinds.h"

#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

namespace sbui {

ResultsView::ResultsView(QWidget* parent)
    : QWidget(parent), m_summary(new QLabel), m_scroll(new QScrollArea), m_list(new QWidget),
      m_rows(new QVBoxLayout(m_list))
{
    setObjectName(QStringLiteral("ResultsView"));
    m_summary->setObjectName(QStringLiteral("ResultsSummary"));
    m_summary->setWordWrap(true);
    m_rows->addStretch(1);
    m_scroll->setWidget(m_list);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    auto* column = new QVBoxLayout(this);
    column->addWidget(m_summary);
    column->addWidget(m_scroll, 1);
    refresh();
}

void ResultsView::addEvent(const nlohmann::json& event)
{
    if (!event.is_object() || event.value("kind", "") != sb::activity::kExecution) return;
    // At the end, above the stretch; a view scrolled to the end follows what comes.
    QScrollBar* bar = m_scroll->verticalScrollBar();
    const bool atEnd = bar->value() >= bar->maximum() - 4;
    auto* block = new ExecutionBlock(event);
    const int index = m_count;
    connect(block, &ExecutionBlock::clicked, this, [this, index] {
        if (m_reached) Q_EMIT executionActivated(index);
    });
    // Only the new block is marked: marking them all again at each made a long session's
    // history quadratic to load.
    block->setPending(m_reached && index >= *m_reached);
    block->setClickable(m_reached.has_value());
    m_rows->insertWidget(m_rows->count() - 1, block);
    ++m_count;
    refresh();
    if (atEnd && m_count > 1)
        connect(
            bar, &QScrollBar::rangeChanged, this, [bar](int, int max) { bar->setValue(max); },
            Qt::SingleShotConnection);
    Q_EMIT countChanged(m_count);
}

void ResultsView::clear()
{
    while (m_rows->count() > 1) {
        QLayoutItem* item = m_rows->takeAt(0);
        delete item->widget();
        delete item;
    }
    const bool had = m_count > 0;
    m_count = 0;
    if (m_reached) m_reached = 0;
    refresh();
    if (had) Q_EMIT countChanged(0);
}

QList<QWidget*> ResultsView::executions() const
{
    QList<QWidget*> out;
    for (int i = 0; i < m_rows->count(); ++i)
        if (QWidget* w = m_rows->itemAt(i)->widget()) out << w;
    return out;
}

void ResultsView::scrollToExecution(int index)
{
    const auto blocks = executions();
    if (index < 0 || index >= blocks.size()) return;
    m_list->adjustSize();
    m_scroll->verticalScrollBar()->setValue(blocks[index]->y());
}

void ResultsView::setReached(std::optional<int> reached, const QString& at)
{
    if (reached) reached = std::clamp(*reached, 0, m_count);
    m_at = at;
    if (reached != m_reached) {
        m_reached = reached;
        markReached();
        m_scrollPending = m_reached.has_value();
        if (isVisible()) QTimer::singleShot(0, this, &ResultsView::scrollToReached);
    }
    refresh();
}

void ResultsView::markReached()
{
    const auto blocks = executions();
    for (int i = 0; i < blocks.size(); ++i)
        if (auto* block = qobject_cast<ExecutionBlock*>(blocks[i])) {
            block->setPending(m_reached && i >= *m_reached);
            block->setClickable(m_reached.has_value());
        }
}

void ResultsView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    // Once the blocks collapsed or opened while hidden have their places.
    if (m_scrollPending) QTimer::singleShot(0, this, &ResultsView::scrollToReached);
}

void ResultsView::scrollToReached()
{
    if (!m_scrollPending || !m_reached || !isVisible()) return;
    m_scrollPending = false;
    const int index = *m_reached - 1;
    auto scroll = [this, index] {
        if (index < 0)
            m_scroll->verticalScrollBar()->setValue(0);
        else
            scrollToExecution(index);
    };
    scroll();
    // Blocks just opened or collapsed may take their heights a moment later: once more then.
    connect(
        m_scroll->verticalScrollBar(), &QScrollBar::rangeChanged, this,
        [this, scroll, index](int, int) {
            if (m_reached && *m_reached - 1 == index) scroll();
        },
        Qt::SingleShotConnection);
}

void ResultsView::refresh()
{
    if (m_count == 0)
        m_summary->setText(tr("No code ran in this session's code interpreter."));
    else if (m_reached)
        m_summary->setText(
            tr("%1 of %n execution(s) had run at %2 of the replay.", nullptr, m_count)
                .arg(*m_reached)
                .arg(m_at));
    else
        m_summary->setText(tr("%n execution(s) of code, in the order they ran.", nullptr, m_count));
}

} // namespace sbui
