#include "RemoteChangesView.h"

#include "RemoteHostLink.h"
#include "base/Bytes.h"
#include "hosts/HostList.h"
#include "terminal/MonospaceFont.h"

#include <QCoreApplication>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
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
      m_refresh(new QPushButton(tr("&Refresh"))), m_apply(new QPushButton(tr("Apply all"))),
      m_discard(new QPushButton(tr("Discard all"))), m_conflictBar(new QFrame),
      m_conflictLabel(new QLabel)
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

    m_apply->setToolTip(tr("Write every change of the session into the project on its host"));
    m_discard->setToolTip(tr("Drop every change of the session on its host"));
    m_conflictBar->setFrameShape(QFrame::StyledPanel);
    m_conflictLabel->setWordWrap(true);
    m_conflictLabel->setTextFormat(Qt::PlainText);
    auto* keepReal = new QPushButton(tr("Keep the project's version"));
    keepReal->setToolTip(tr("Drop the agent's change; the project's newer version stays"));
    auto* takeAgents = new QPushButton(tr("Take the agent's version"));
    takeAgents->setToolTip(
        tr("Overwrite the project's newer version with the agent's (apply with force)"));
    auto* bar = new QHBoxLayout(m_conflictBar);
    bar->setContentsMargins(6, 4, 6, 4);
    bar->addWidget(m_conflictLabel, 1);
    bar->addWidget(keepReal, 0, Qt::AlignTop);
    bar->addWidget(takeAgents, 0, Qt::AlignTop);
    m_conflictBar->hide();
    connect(keepReal, &QPushButton::clicked, this, [this] { discard(m_conflicts); });
    connect(takeAgents, &QPushButton::clicked, this, [this] { apply(m_conflicts, true); });
    connect(m_apply, &QPushButton::clicked, this, [this] { apply(); });
    connect(m_discard, &QPushButton::clicked, this, [this] {
        if (QMessageBox::question(this, tr("Discard all"),
                                  tr("Drop every change of session %1 on its host?").arg(m_id)) ==
            QMessageBox::Yes)
            discard();
    });

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_list);
    split->addWidget(m_diff);
    split->setStretchFactor(1, 2);
    auto* top = new QHBoxLayout;
    top->addWidget(m_message, 1);
    top->addWidget(m_apply, 0, Qt::AlignTop);
    top->addWidget(m_discard, 0, Qt::AlignTop);
    top->addWidget(m_refresh, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_conflictBar);
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
    m_conflicts.clear();
    m_conflictBar->hide();
    m_outcome.clear();
    m_ended = false;
    m_busy = false;
    showMessage({});
    updateButtons();
}

void RemoteChangesView::showSession(RemoteHostLink* link, const QString& id, bool ended)
{
    clear();
    m_link = link;
    m_id = id;
    m_ended = ended;
    refresh();
}

void RemoteChangesView::setEnded(bool ended)
{
    m_ended = ended;
    updateButtons();
}

void RemoteChangesView::updateButtons()
{
    const bool can = m_link && m_ended && !m_busy && changeCount() > 0;
    m_apply->setVisible(m_ended);
    m_discard->setVisible(m_ended);
    m_apply->setEnabled(can);
    m_discard->setEnabled(can);
}

void RemoteChangesView::apply(const QStringList& paths, bool force)
{
    QStringList args{QStringLiteral("apply"), QStringLiteral("--json")};
    if (force) args << QStringLiteral("--force");
    args << m_id;
    if (!paths.isEmpty()) args << QStringLiteral("--") << paths;
    review(args, true);
}

void RemoteChangesView::discard(const QStringList& paths)
{
    QStringList args{QStringLiteral("discard"), m_id};
    if (!paths.isEmpty()) args << QStringLiteral("--") << paths;
    review(args, false);
}

void RemoteChangesView::review(const QStringList& args, bool applying)
{
    if (!m_link || !m_ended || m_busy) return;
    m_busy = true;
    updateButtons();
    const quint64 generation = ++m_generation;
    const QString host = HostList::displayName(m_link->url());
    showMessage(applying ? tr("Applying the changes of session %1 on %2…").arg(m_id, host)
                         : tr("Discarding the changes of session %1 on %2…").arg(m_id, host));
    m_link->capture(
        args, this, [this, generation, host, applying](const RemoteHostLink::Captured& run) {
            if (generation != m_generation) return;
            m_busy = false;
            m_conflicts.clear();
            QStringList lines;
            const auto report = nlohmann::json::parse(run.out.toStdString(), nullptr, false);
            if (applying && report.is_object() && report.contains("conflicts")) {
                for (const auto& c : report["conflicts"]) {
                    const QString path =
                        QString::fromStdString(sb::getBytes(c, "path").value_or(""));
                    m_conflicts << path;
                    // The host's reason in English; a known one in the local review's words.
                    const std::string reason = c.value("reason", std::string());
                    lines << tr("%1: %2").arg(
                        path, QCoreApplication::translate("sbui::ConflictText", reason.c_str()));
                }
            }
            QString outcome;
            if (!run.error.isEmpty())
                outcome = tr("Not done on %1: %2").arg(host, run.error);
            else if (!m_conflicts.isEmpty())
                outcome = tr("%n change(s) conflict with edits made in the project on %1 since the "
                             "session started. Which versions should it keep?",
                             nullptr, static_cast<int>(m_conflicts.size()))
                              .arg(host);
            else if (run.status != 0)
                outcome = tr("Not done on %1: %2")
                              .arg(host, !run.err.isEmpty() ? run.err
                                                            : tr("exit status %1").arg(run.status));
            else if (applying)
                outcome = tr("%n file(s) written into the project on %1.", nullptr,
                             report.is_object() && report.contains("applied")
                                 ? static_cast<int>(report["applied"].size())
                                 : 0)
                              .arg(host);
            else
                outcome = tr("The changes were dropped on %1.").arg(host);
            m_conflictLabel->setText(m_conflicts.isEmpty() ? QString()
                                                           : outcome + u'\n' + lines.join(u'\n'));
            m_conflictBar->setVisible(!m_conflicts.isEmpty());
            m_outcome = m_conflicts.isEmpty() ? outcome : QString();
            refresh();
            Q_EMIT reviewDone();
        });
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
            const int count = static_cast<int>(listed.size());
            QString text =
                m_ended ? (listed.empty()
                               ? tr("Session %1 on %2 has no changes left.").arg(m_id, host)
                               : tr("%n change(s) of session %1 on %2, read from there: apply "
                                    "or discard them there.",
                                    nullptr, count)
                                     .arg(m_id, host))
                : listed.empty()
                    ? tr("Session %1 on %2 has changed nothing yet.").arg(m_id, host)
                    : tr("%n change(s) of session %1 on %2, read from there. Apply and discard "
                         "them once the session ended.",
                         nullptr, count)
                          .arg(m_id, host);
            if (!m_outcome.isEmpty()) text = m_outcome + u' ' + text;
            showMessage(text);
            if (!m_list->currentItem() && m_list->topLevelItemCount() > 0)
                m_list->setCurrentItem(m_list->topLevelItem(0));
            updateButtons();
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
