#include "ModelUsageView.h"

#include "LeakBanner.h"
#include "TokenChart.h"
#include "network/ModelPrices.h"

#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace sbui {
namespace {

QString number(std::uint64_t n)
{
    return QLocale().toString(static_cast<qulonglong>(n));
}

} // namespace

QString dollars(double usd)
{
    return QStringLiteral("$") + QLocale().toString(usd, 'f', usd > 0 && usd < 0.01 ? 4 : 2);
}

ModelUsageView::ModelUsageView(QWidget* parent)
    : QWidget(parent), m_leaks(new QLabel), m_summary(new QLabel), m_chart(new TokenChart),
      m_table(new QTreeWidget), m_note(new QLabel)
{
    setObjectName(QStringLiteral("ModelUsageView"));
    m_leaks->setObjectName(QStringLiteral("ModelLeaks"));
    m_leaks->setStyleSheet(QStringLiteral("#ModelLeaks { background: #b3261e; color: white; "
                                          "border-radius: 3px; padding: 6px; }"));
    m_leaks->setWordWrap(true);
    m_leaks->setTextFormat(Qt::RichText);
    m_leaks->hide();
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setRootIsDecorated(false);
    m_table->setUniformRowHeights(true);
    m_table->setColumnCount(ColumnCount);
    m_table->setHeaderLabels({tr("Model"), tr("Requests"), tr("Input"), tr("Read from cache"),
                              tr("Written to cache"), tr("Output"), tr("Estimated cost")});
    m_table->header()->setSectionResizeMode(ModelColumn, QHeaderView::Stretch);
    for (int c = RequestsColumn; c < ColumnCount; ++c)
        m_table->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->header()->setStretchLastSection(false);
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);

    auto* column = new QVBoxLayout(this);
    column->addWidget(m_leaks);
    column->addWidget(m_summary);
    column->addWidget(m_chart, 1);
    column->addWidget(m_table);
    column->addWidget(m_note);
    refresh();
}

void ModelUsageView::setSessionStart(qint64 unixMs)
{
    m_startMs = unixMs;
    refresh();
}

void ModelUsageView::addEvent(const nlohmann::json& event)
{
    if (m_totals.add(event)) refresh();
}

void ModelUsageView::clear()
{
    m_totals.clear();
    m_startMs = 0;
    refresh();
}

void ModelUsageView::refresh()
{
    const auto& leaks = m_totals.leaks();
    m_leaks->setVisible(!leaks.empty());
    if (!leaks.empty()) {
        QString html = QStringLiteral("<b>") +
                       tr("%n attempted secret leak(s), refused by the proxy:", nullptr,
                          static_cast<int>(leaks.size())) +
                       QStringLiteral("</b>");
        for (const auto& leak : leaks)
            html += QStringLiteral("<br>") +
                    QLocale().toString(QDateTime::fromMSecsSinceEpoch(leak.timeUnixMs).time(),
                                       QLocale::ShortFormat) +
                    QStringLiteral("  ") + leakText(leak).toHtmlEscaped();
        m_leaks->setText(html);
    }

    const auto& total = m_totals.total();
    bool partial = false;
    const auto cost = m_totals.estimateTotalUsd(&partial);
    if (total.requests == 0) {
        m_summary->setText(tr("No model requests in this session. Requests through the proxy to "
                              "a model API it reads (Anthropic Messages, OpenAI Chat Completions "
                              "and Responses) show here with their tokens."));
    } else {
        QString text = tr("%n model request(s): %1 tokens in, %2 out; %3 read from the prompt "
                          "cache, %4 written to it.",
                          nullptr, static_cast<int>(total.requests))
                           .arg(number(total.input), number(total.output), number(total.cacheRead),
                                number(total.cacheWrite));
        if (cost)
            text += u' ' + (partial ? tr("Estimated cost: %1 (models without a price left out).")
                                    : tr("Estimated cost: %1."))
                               .arg(dollars(*cost));
        else
            text += u' ' + tr("No cost estimate: the price table names none of these models.");
        m_summary->setText(text);
    }
    m_chart->setPoints(m_totals.points(), m_startMs);

    m_table->clear();
    for (const auto& t : m_totals.models()) {
        auto* item = new QTreeWidgetItem(m_table);
        item->setText(ModelColumn, t.model.isEmpty() ? tr("(not named)") : t.model);
        const std::uint64_t values[] = {t.requests, t.input, t.cacheRead, t.cacheWrite, t.output};
        for (int c = RequestsColumn; c <= OutputColumn; ++c) {
            item->setText(c, number(values[c - RequestsColumn]));
            item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        }
        const auto usd = m_totals.estimateUsd(t);
        item->setText(CostColumn, usd ? dollars(*usd) : tr("no price"));
        item->setTextAlignment(CostColumn, Qt::AlignRight | Qt::AlignVCenter);
    }
    m_table->setVisible(!m_totals.models().empty());
    // As tall as its rows (a few models at most), so that the chart keeps the room.
    const int rows = std::min(m_table->topLevelItemCount(), 6);
    if (rows > 0)
        m_table->setFixedHeight(m_table->header()->sizeHint().height() +
                                rows * m_table->sizeHintForRow(0) + 2 * m_table->frameWidth() + 2);

    if (const sb::ModelPrices* prices = ModelUsageTotals::prices())
        m_note->setText(
            tr("Costs are estimates from the list prices of %1 in %2; a model the "
               "table does not name has none. Edit a copy in "
               "~/.config/sandbench/model-prices.json to use your own.")
                .arg(QString::fromStdString(prices->date()), ModelUsageTotals::pricesFile()));
    else
        m_note->setText(tr("No cost estimates: %1").arg(ModelUsageTotals::pricesProblem()));
    Q_EMIT countsChanged(static_cast<int>(total.requests), static_cast<int>(leaks.size()));
}

} // namespace sbui
