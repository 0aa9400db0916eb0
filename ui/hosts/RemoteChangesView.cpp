#include "RemoteChangesView.h"

#include "RemoteHostLink.h"
#include "base/Bytes.h"
#include "hosts/HostList.h"
#include "terminal/MonospaceFont.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

namespace sbui {

namespace {

constexpr int kPathRole = Qt::UserRole + 1;
// A burst of file changes (an install) is one question to the host, once it settles.
constexpr int kSettleMs = 1500;

QString kindText(const std::string& kind)
{
    if (kind == "added") return RemoteChangesView::tr("added");
    if (kind == "modified") return RemoteChangesView::tr("modified");
    if (kind == "deleted") return RemoteChangesView::tr("deleted");
    return QString::fromStdString(kind);
}

} // namespace

RemoteChangesView::RemoteChangesView(QWidget* parent)
    : QWidget(parent), m_list(new QTreeWidget), m_diff(new QPlainTextEdit), m_message(new QLabel),
      m_refresh(new QPushButton(tr("&Refresh")))
{
    setObjectName(QStringLiteral("RemoteChangesView"));
    m_list->setColumnCount(2);
    m_list->setHeaderLabels({tr("File"), tr("Change")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_diff->setReadOnly(true);
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diff->setFont(monospaceFont());
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_refresh->setToolTip(tr("Ask the host again for the session's changes"));

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_list);
    split->addWidget(m_diff);
    split->setStretchFactor(1, 2);
    auto* top = new QHBoxLayout;
    top->addWidget(m_message, 1);
    top->addWidget(m_refresh, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    connect(m_refresh, &QPushButton::clicked, this, &RemoteChangesView::refresh);
    m_settle.setSingleShot(true);
    m_settle.setInterval(kSettleMs);
    connect(&m_settle, &QTimer::timeout, this, &RemoteChangesView::refresh);
    connect(m_list, &QTreeWidget::currentItemChanged, this, &RemoteChangesView::loadDiff);
}

void RemoteChangesView::fileChanged()
{
    if (m_link) m_settle.start();
}

void RemoteChangesView::clear()
{
    ++m_generation;
    m_settle.stop();
    m_link = nullptr;
    m_id.clear();
    m_list->clear();
    m_diff->clear();
    showMessage({});
}

void RemoteChangesView::showSession(RemoteHostLink* link, const QString& id)
{
    clear();
    m_link = link;
    m_id = id;
    refresh();
}

void RemoteChangesView::refresh()
{
    if (!m_link) return;
    const quint64 generation = ++m_generation;
    const QString host = HostList::displayName(m_link->url());
    showMessage(tr("Asking %1 for the changes of session %2…").arg(host, m_id));
    m_link->capture(
        {QStringLiteral("changes"), QStringLiteral("--json"), m_id}, this,
        [this, generation, host](const RemoteHostLink::Captured& run) {
            if (generation != m_generation) return;
            const QString selected = m_list->currentItem()
                                         ? m_list->currentItem()->data(0, kPathRole).toString()
                                         : QString();
            m_list->clear();
            m_diff->clear();
            const auto listed = nlohmann::json::parse(run.out.toStdString(), nullptr, false);
            if (!run.error.isEmpty() || run.status != 0 || !listed.is_array()) {
                const QString why = !run.error.isEmpty() ? run.error
                                    : !run.err.isEmpty() ? run.err
                                                         : tr("exit status %1").arg(run.status);
                showMessage(tr("The changes could not be read on %1: %2").arg(host, why));
                Q_EMIT changesLoaded(0);
                return;
            }
            for (const auto& change : listed) {
                const std::string path = sb::getBytes(change, "path").value_or("");
                auto* item = new QTreeWidgetItem(m_list);
                item->setText(0, QString::fromStdString(path));
                item->setData(0, kPathRole, QString::fromStdString(path));
                item->setText(1, kindText(change.value("kind", "")));
                if (item->text(0) == selected) m_list->setCurrentItem(item);
            }
            showMessage(
                listed.empty()
                    ? tr("Session %1 on %2 has changed nothing yet.").arg(m_id, host)
                    : tr("%n change(s) of session %1 on %2, read from there. Apply and discard "
                         "them there once the session ended: sandbench-cli --host %3 apply %1.",
                         nullptr, static_cast<int>(listed.size()))
                          .arg(m_id, host, m_link ? m_link->url() : host));
            if (!m_list->currentItem() && m_list->topLevelItemCount() > 0)
                m_list->setCurrentItem(m_list->topLevelItem(0));
            Q_EMIT changesLoaded(m_list->topLevelItemCount());
        });
}

void RemoteChangesView::loadDiff()
{
    m_diff->clear();
    const QTreeWidgetItem* item = m_list->currentItem();
    if (!item || !m_link) return;
    const quint64 generation = m_generation;
    const QString path = item->data(0, kPathRole).toString();
    m_link->capture({QStringLiteral("diff"), m_id, QStringLiteral("--"), path}, this,
                    [this, generation, path](const RemoteHostLink::Captured& run) {
                        if (generation != m_generation || !m_list->currentItem() ||
                            m_list->currentItem()->data(0, kPathRole).toString() != path)
                            return;
                        m_diff->setPlainText(!run.error.isEmpty() ? run.error
                                             : run.status != 0    ? run.err
                                                                  : QString::fromUtf8(run.out));
                        Q_EMIT diffLoaded();
                    });
}

void RemoteChangesView::showMessage(const QString& text)
{
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

QString RemoteChangesView::diffText() const
{
    return m_diff->toPlainText();
}

QString RemoteChangesView::messageText() const
{
    return m_message->text();
}

int RemoteChangesView::changeCount() const
{
    return m_list->topLevelItemCount();
}

} // namespace sbui
