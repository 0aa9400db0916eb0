#include "sessions/SnapshotsDialog.h"

#include "main/Prompt.h"
#include "sessions/SessionConnection.h"
#include "workspace/SessionSnapshots.h"
#include "workspace/Workspace.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace sbui {
namespace {

enum Column { Name, Taken, Size };

// One operation with a wait cursor: they copy only changed files, but a large layer takes a
// moment.
template <class Work> auto busy(Work work)
{
    QGuiApplication::setOverrideCursor(Qt::WaitCursor);
    auto result = work();
    QGuiApplication::restoreOverrideCursor();
    return result;
}

} // namespace

SnapshotsDialog::SnapshotsDialog(const QString& sessionId, SessionConnection* running,
                                 QWidget* parent)
    : QDialog(parent), m_id(sessionId), m_running(running), m_message(new QLabel),
      m_table(new QTreeWidget), m_name(new QLineEdit), m_take(new QPushButton(tr("&Take"))),
      m_restore(new QPushButton(tr("&Restore"))), m_forkAs(new QLineEdit),
      m_fork(new QPushButton(tr("&Fork")))
{
    setWindowTitle(tr("Snapshots of %1").arg(sessionId));
    setObjectName(QStringLiteral("SnapshotsDialog"));
    m_message->setWordWrap(true);
    auto* hint = new QLabel(
        running ? tr("A snapshot keeps a copy of the session's changes (only the changed files). "
                     "The session runs: its sandbox is frozen while they are copied; stop it to "
                     "restore or fork.")
                : tr("A snapshot keeps a copy of the session's changes (only the changed files), "
                     "to restore them later or fork a new session from them."));
    hint->setWordWrap(true);
    m_table->setRootIsDecorated(false);
    m_table->setUniformRowHeights(true);
    m_table->setHeaderLabels({tr("Snapshot"), tr("Taken"), tr("Changes copied")});
    m_table->header()->setSectionResizeMode(Size, QHeaderView::Stretch);
    m_name->setPlaceholderText(tr("snapshot-N"));
    m_name->setToolTip(tr("Letters, digits, '.', '_' and '-'"));
    m_forkAs->setPlaceholderText(tr("new session id"));
    m_take->setObjectName(QStringLiteral("TakeButton"));
    m_restore->setObjectName(QStringLiteral("RestoreButton"));
    m_fork->setObjectName(QStringLiteral("ForkButton"));
    m_name->setObjectName(QStringLiteral("SnapshotName"));
    m_forkAs->setObjectName(QStringLiteral("ForkAs"));
    m_restore->setToolTip(tr("Make the session's changes those of the snapshot again"));
    m_fork->setToolTip(tr("A new session with a copy of the snapshot's changes, to go on with "
                          "separately (Session → Resume…)"));

    auto* takeRow = new QHBoxLayout;
    takeRow->addWidget(m_name, 1);
    takeRow->addWidget(m_take);
    auto* forkRow = new QHBoxLayout;
    forkRow->addWidget(m_restore);
    forkRow->addStretch(1);
    forkRow->addWidget(m_forkAs, 1);
    forkRow->addWidget(m_fork);
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(hint);
    layout->addLayout(takeRow);
    layout->addWidget(m_table, 1);
    layout->addLayout(forkRow);
    layout->addWidget(m_message);
    layout->addWidget(close);

    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_take, &QPushButton::clicked, this, &SnapshotsDialog::take);
    connect(m_name, &QLineEdit::returnPressed, this, &SnapshotsDialog::take);
    connect(m_restore, &QPushButton::clicked, this, &SnapshotsDialog::restore);
    connect(m_fork, &QPushButton::clicked, this, &SnapshotsDialog::fork);
    connect(m_table, &QTreeWidget::itemSelectionChanged, this, &SnapshotsDialog::updateButtons);
    // Names are checked as they are typed, not only once Take or Fork refuse them.
    connect(m_name, &QLineEdit::textChanged, this, &SnapshotsDialog::checkNames);
    connect(m_forkAs, &QLineEdit::textChanged, this, &SnapshotsDialog::checkNames);
    resize(620, 380);
    reload();
}

void SnapshotsDialog::reload()
{
    const QString selected = selectedName();
    m_table->clear();
    // A lasting workspace's snapshots: those taken before a resume too.
    auto chain = sb::loadSessionChain(m_id.toStdString());
    if (!chain) {
        setMessage(QString::fromStdString(chain.error().describe()), true);
        updateButtons();
        return;
    }
    const QLocale locale;
    for (const sb::ChainSnapshot& taken : sb::listChainSnapshots(*chain)) {
        const sb::SnapshotInfo& s = taken.info;
        auto* item = new QTreeWidgetItem(m_table);
        item->setText(Name, QString::fromStdString(s.name));
        item->setText(Taken, locale.toString(QDateTime::fromMSecsSinceEpoch(s.takenUnixMs),
                                             QLocale::ShortFormat));
        // Counted as the Changes tab counts (not the layer's folders and whiteouts), so that
        // a snapshot of "Changes (1)" says 1 change, and one of no change says so.
        auto changes = sb::listChanges(s.upper, taken.session.project);
        const int count = changes ? static_cast<int>(changes->size()) : -1;
        item->setText(Size, count == 0 ? tr("no changes")
                            : count > 0
                                ? tr("%n change(s)", nullptr, count) + QStringLiteral(" · ") +
                                      locale.formattedDataSize(static_cast<qint64>(s.stats.bytes))
                                : tr("%n entries", nullptr, static_cast<int>(s.stats.entries)) +
                                      QStringLiteral(" · ") +
                                      locale.formattedDataSize(static_cast<qint64>(s.stats.bytes)));
        if (item->text(Name) == selected) item->setSelected(true);
    }
    for (int c : {Name, Taken})
        m_table->resizeColumnToContents(c);
    updateButtons();
}

QString SnapshotsDialog::selectedName() const
{
    const auto items = m_table->selectedItems();
    return items.isEmpty() ? QString() : items.first()->text(Name);
}

void SnapshotsDialog::take()
{
    const std::string name = m_name->text().trimmed().toStdString();
    sb::Result<QString> taken = busy([&]() -> sb::Result<QString> {
        if (m_running) {
            SessionConnection* running = m_running.data();
            auto reply = running->takeSnapshot(name);
            if (!reply) return reply.error();
            return tr("Took %1: the sandbox was frozen %2 ms.")
                .arg(QString::fromStdString(reply->value("name", std::string())))
                .arg(QLocale().toString(reply->value("frozen_ms", 0.0), 'f', 1));
        }
        auto snapshot = sb::snapshotStoppedSession(m_id.toStdString(), name);
        if (!snapshot) return snapshot.error();
        return tr("Took %1.").arg(QString::fromStdString(snapshot->name));
    });
    if (!taken) return setMessage(QString::fromStdString(taken.error().describe()), true);
    m_name->clear();
    setMessage(*taken);
    reload();
}

void SnapshotsDialog::restore()
{
    const QString name = selectedName();
    if (name.isEmpty() || m_running) return;
    if (!prompt::confirm(this, tr("Restore %1?").arg(name),
                         tr("The changes of session %1 become those of snapshot %2 again; what it "
                            "changed since is gone (take a snapshot first to keep it).")
                             .arg(m_id, name),
                         tr("Restore")))
        return;
    auto restored =
        busy([&] { return sb::restoreStoppedSession(m_id.toStdString(), name.toStdString()); });
    if (restored) return setMessage(QString::fromStdString(restored->describe()), true);
    setMessage(tr("Restored %1.").arg(name));
    Q_EMIT this->restored();
}

void SnapshotsDialog::fork()
{
    const QString as = m_forkAs->text().trimmed();
    if (as.isEmpty() || m_running) return;
    auto forked = busy([&] {
        return sb::forkStoppedSession(m_id.toStdString(), selectedName().toStdString(),
                                      as.toStdString());
    });
    if (!forked) return setMessage(QString::fromStdString(forked.error().describe()), true);
    m_forkAs->clear();
    setMessage(tr("Forked %1 as %2: resume it to go on.")
                   .arg(QString::fromStdString(forked->session.forkedFrom), as));
    Q_EMIT this->forked(as);
}

void SnapshotsDialog::checkNames()
{
    const QString name = m_name->text().trimmed();
    m_nameProblem.clear();
    if (!name.isEmpty()) {
        if (sb::checkSnapshotName(name.toStdString()))
            m_nameProblem = tr("A snapshot's name is 1 to 64 letters, digits, '.', '_' or '-', "
                               "not starting with '.'.");
        else if (!m_table->findItems(name, Qt::MatchExactly, Name).isEmpty())
            m_nameProblem = tr("There is a snapshot %1 already: choose another name.").arg(name);
    }
    const QString as = m_forkAs->text().trimmed();
    m_forkProblem.clear();
    if (!as.isEmpty())
        if (auto e = sb::checkNewSessionId(as.toStdString()))
            m_forkProblem = QString::fromStdString(e->message);
    const QString problem = !m_nameProblem.isEmpty() ? m_nameProblem : m_forkProblem;
    if (!problem.isEmpty())
        setMessage(problem, true);
    else if (std::exchange(m_showsNameProblem, false))
        setMessage({});
    m_showsNameProblem = !problem.isEmpty();
    updateButtons();
}

void SnapshotsDialog::updateButtons()
{
    const bool stopped = !m_running;
    m_take->setEnabled(m_nameProblem.isEmpty());
    m_restore->setEnabled(stopped && !selectedName().isEmpty());
    // Without a snapshot selected, a fork copies the session's changes as they are now.
    m_fork->setEnabled(stopped && !m_forkAs->text().trimmed().isEmpty() && m_forkProblem.isEmpty());
    m_fork->setText(selectedName().isEmpty() ? tr("&Fork its changes") : tr("&Fork"));
    m_forkAs->setEnabled(stopped);
}

void SnapshotsDialog::setMessage(const QString& text, bool failed)
{
    m_message->setText(text);
    QPalette p = m_message->palette();
    p.setColor(QPalette::WindowText,
               failed ? QColor(0xb0, 0x20, 0x20) : palette().color(QPalette::WindowText));
    m_message->setPalette(p);
}

} // namespace sbui
