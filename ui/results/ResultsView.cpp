#include "ResultsView.h"

#include "ResultWidgets.h"
#include "base/ActivityKinds.h"

#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

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
    m_rows->insertWidget(m_rows->count() - 1, new ExecutionBlock(event));
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

void ResultsView::refresh()
{
    m_summary->setText(
        m_count == 0 ? tr("No code ran in this session's code interpreter.")
                     : tr("%n execution(s) of code, in the order they ran.", nullptr, m_count));
}

} // namespace sbui
