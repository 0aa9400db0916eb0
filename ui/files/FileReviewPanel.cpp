#include "FileReviewPanel.h"

#include "ChangedOnlyFilter.h"
#include "DiffView.h"
#include "WorkspaceEditor.h"
#include "WorkspaceModel.h"
#include "main/Prompt.h"

#include <QAction>
#include <QBoxLayout>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QSplitter>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace sbui {
namespace {

// How often the panel looks whether the session still runs (a flock probe, cheap).
constexpr int kLivePollMs = 1000;
// Files read for the diff view are cut here; larger ones show their sizes only.
constexpr std::size_t kMaxDiffBytes = 8 * 1024 * 1024;
// Issues listed one by one in the message; past this, a count.
constexpr int kListedIssues = 8;

QString localName(const std::filesystem::path& path)
{
    return QFile::decodeName(path.c_str());
}

QString issueLines(const QList<EditIssue>& issues)
{
    QStringList lines;
    for (int i = 0; i < issues.size() && i < kListedIssues; ++i)
        lines << QStringLiteral("  %1: %2")
                     .arg(issues[i].path.isEmpty() ? QStringLiteral(".") : issues[i].path,
                          issues[i].reason);
    if (issues.size() > kListedIssues)
        lines << FileReviewPanel::tr("  … and %n more", nullptr,
                                     static_cast<int>(issues.size()) - kListedIssues);
    return lines.join(QLatin1Char('\n'));
}

// Whether the diff shows a change: an applied or discarded file reads the same on both sides
// and has no marker left; a file inside an added folder may have no marker of its own.
bool isChange(const sb::ChangeContent& c, ChangeMarker marker)
{
    const bool sameSides = c.before.exists == c.after.exists && c.before.type == c.after.type &&
                           c.before.size == c.after.size && c.before.content == c.after.content;
    return marker != ChangeMarker::None || !sameSides;
}

} // namespace

FileReviewPanel::FileReviewPanel(QWidget* parent) : QWidget(parent)
{
    m_model = new WorkspaceModel(this);
    m_filter = new ChangedOnlyFilter(this);
    m_filter->setSourceModel(m_model);
    m_editor = new WorkspaceEditor(this);
    buildActions();
    buildLayout();

    connect(m_model, &WorkspaceModel::changesUpdated, this, &FileReviewPanel::onChangesUpdated);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &FileReviewPanel::onCurrentChanged);
    connect(m_editor, &WorkspaceEditor::progress, this, [this](int done, int total) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
    });
    connect(m_editor, &WorkspaceEditor::finished, this, &FileReviewPanel::onEditFinished);
    m_liveTimer.setInterval(kLivePollMs);
    connect(&m_liveTimer, &QTimer::timeout, this, &FileReviewPanel::updateLiveState);
    updateActions();
}

FileReviewPanel::~FileReviewPanel() = default;

void FileReviewPanel::buildActions()
{
    m_apply = new QAction(QIcon(QStringLiteral(":/icons/allow.svg")), tr("&Apply"), this);
    m_apply->setToolTip(tr("Write the selected change (or the changes in the selected folder) "
                           "into the real project"));
    connect(m_apply, &QAction::triggered, this, [this] { applyPaths(selectionPaths()); });
    m_discard = new QAction(QIcon(QStringLiteral(":/icons/deny.svg")), tr("&Discard"), this);
    m_discard->setToolTip(tr("Drop the agent's version of the selection; the project keeps "
                             "its own"));
    connect(m_discard, &QAction::triggered, this, [this] { discardPaths(selectionPaths()); });
    m_applyAll = new QAction(tr("Apply all"), this);
    m_applyAll->setToolTip(tr("Write every change of the session into the real project"));
    connect(m_applyAll, &QAction::triggered, this, [this] { applyPaths({}); });
    m_discardAll = new QAction(tr("Discard all"), this);
    m_discardAll->setToolTip(tr("Drop every change of the session"));
    connect(m_discardAll, &QAction::triggered, this, [this] { discardPaths({}); });
    for (QAction* a : {m_apply, m_discard, m_applyAll, m_discardAll})
        a->setData(a->toolTip());

    m_keepReal = new QAction(tr("Keep the project's version"), this);
    m_keepReal->setToolTip(tr("Drop the agent's change; the project's newer version stays"));
    connect(m_keepReal, &QAction::triggered, this,
            [this] { discardPaths(m_model->conflictsUnder(selectedPath()), false); });
    m_takeAgents = new QAction(tr("Take the agent's version"), this);
    m_takeAgents->setToolTip(
        tr("Overwrite the project's newer version with the agent's (apply with force)"));
    connect(m_takeAgents, &QAction::triggered, this,
            [this] { applyPaths(m_model->conflictsUnder(selectedPath()), true); });

    m_changedOnly = new QAction(tr("Changed only"), this);
    m_changedOnly->setCheckable(true);
    m_changedOnly->setToolTip(tr("Show only the changes and the folders holding them"));
    connect(m_changedOnly, &QAction::toggled, this, [this](bool on) {
        m_filter->setChangedOnly(on);
        if (on) m_tree->expandToDepth(0);
    });
    m_refresh = new QAction(tr("Refresh"), this);
    m_refresh->setToolTip(tr("Read the project folder again (it changed by other hands)"));
    connect(m_refresh, &QAction::triggered, m_model, &WorkspaceModel::reload);
}

void FileReviewPanel::buildLayout()
{
    // Two toolbars: what is shown, and what to do with it. Side by side where they fit, one
    // above the other in a narrow centre (1024 px, German), never behind a » menu.
    m_viewBar = new QToolBar(this);
    m_editBar = new QToolBar(this);
    for (QToolBar* bar : {m_viewBar, m_editBar}) {
        bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        bar->setIconSize(QSize(16, 16));
    }
    m_countLabel = new QLabel(this);
    m_countLabel->setContentsMargins(4, 0, 8, 0);
    m_viewBar->addWidget(m_countLabel);
    m_viewBar->addAction(m_changedOnly);
    m_viewBar->addAction(m_refresh);
    m_editBar->addAction(m_apply);
    m_editBar->addAction(m_discard);
    m_editBar->addSeparator();
    m_editBar->addAction(m_applyAll);
    m_editBar->addAction(m_discardAll);
    m_toolRow = new QBoxLayout(QBoxLayout::LeftToRight);
    m_toolRow->setSpacing(0);
    m_toolRow->addWidget(m_viewBar);
    m_toolRow->addWidget(m_editBar);
    m_toolRow->addStretch(1);

    m_liveBanner = new QLabel(this);
    m_liveBanner->setWordWrap(true);
    m_liveBanner->setMargin(6);
    m_liveBanner->setFrameShape(QFrame::StyledPanel);
    m_liveBanner->setText(tr("The session is still running: its changes show as the agent makes "
                             "them, and can be applied or discarded once it ends."));
    m_liveBanner->hide();
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setMargin(6);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    m_progress = new QProgressBar(this);
    m_progress->setMaximumHeight(12);
    m_progress->setTextVisible(false);
    m_progress->hide();

    m_tree = new QTreeView(this);
    m_tree->setModel(m_filter);
    m_tree->setUniformRowHeights(true); // what lets a folder of 100,000 entries scroll
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(WorkspaceModel::NameColumn, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(WorkspaceModel::ChangeColumn,
                                           QHeaderView::ResizeToContents);
    m_tree->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_tree->addActions({m_apply, m_discard});
    // Names and markers stay readable when the centre is narrow (docks on both sides).
    m_tree->setMinimumWidth(m_tree->fontMetrics().averageCharWidth() * 34);

    m_conflictBar = new QFrame(this);
    m_conflictBar->setAutoFillBackground(true);
    static_cast<QFrame*>(m_conflictBar)->setFrameShape(QFrame::StyledPanel);
    m_conflictLabel = new QLabel(m_conflictBar);
    m_conflictLabel->setWordWrap(true);
    m_conflictLabel->setTextFormat(Qt::PlainText);
    auto* barLayout = new QHBoxLayout(m_conflictBar);
    barLayout->setContentsMargins(6, 4, 6, 4);
    barLayout->addWidget(m_conflictLabel, 1);
    for (QAction* action : {m_keepReal, m_takeAgents}) {
        auto* button = new QToolButton(m_conflictBar);
        button->setDefaultAction(action);
        barLayout->addWidget(button);
    }
    m_conflictBar->hide();

    m_diffView = new DiffView(this);
    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->setSpacing(0);
    m_runLaterLabel = new QLabel(right);
    m_runLaterLabel->setWordWrap(true);
    m_runLaterLabel->setTextFormat(Qt::PlainText);
    m_runLaterLabel->setAutoFillBackground(true);
    m_runLaterLabel->setMargin(6);
    m_runLaterLabel->hide();
    rightLayout->addWidget(m_conflictBar);
    rightLayout->addWidget(m_runLaterLabel);
    rightLayout->addWidget(m_diffView, 1);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_tree);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(m_toolRow);
    layout->addWidget(m_liveBanner);
    layout->addWidget(m_message);
    layout->addWidget(m_progress);
    layout->addWidget(splitter, 1);
}

void FileReviewPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int both = m_viewBar->sizeHint().width() + m_editBar->sizeHint().width();
    const auto direction = width() >= both ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (m_toolRow->direction() != direction) m_toolRow->setDirection(direction);
}

void FileReviewPanel::showSession(const QString& sessionId)
{
    clear();
    auto session = sb::loadSession(sessionId.toStdString());
    if (!session) {
        showMessage(QString::fromStdString(session.error().describe()));
        return;
    }
    m_session = *session;
    m_model->setWorkspace(localName(m_session->project), localName(m_session->upperDir()),
                          m_session->changesBaseNs());
    m_model->fetchNow({});
    updateLiveState();
    if (m_live) m_liveTimer.start();
    updateActions();
}

void FileReviewPanel::clear()
{
    ++m_readGeneration;
    m_session.reset();
    m_liveTimer.stop();
    m_live = false;
    m_liveBanner->hide();
    showMessage({});
    m_model->clear();
    m_diffView->clear();
    m_conflictBar->hide();
    updateActions();
}

QString FileReviewPanel::sessionId() const
{
    return m_session ? QString::fromStdString(m_session->id) : QString();
}

int FileReviewPanel::changeCount() const
{
    return m_model->changeCount();
}

bool FileReviewPanel::isBusy() const
{
    return m_editor->isBusy();
}

QString FileReviewPanel::messageText() const
{
    return m_message->text();
}

bool FileReviewPanel::selectPath(const QString& path)
{
    const QStringList parts = path.split(QLatin1Char('/'));
    m_model->fetchNow({});
    QString prefix;
    for (int i = 0; i + 1 < parts.size(); ++i) {
        prefix = prefix.isEmpty() ? parts[i] : prefix + QLatin1Char('/') + parts[i];
        const QModelIndex folder = m_model->indexForPath(prefix);
        if (!folder.isValid()) return false;
        m_model->fetchNow(prefix);
        m_tree->expand(m_filter->mapFromSource(folder));
    }
    const QModelIndex index = m_filter->mapFromSource(m_model->indexForPath(path));
    if (!index.isValid()) return false;
    m_tree->setCurrentIndex(index);
    m_tree->scrollTo(index);
    return true;
}

QString FileReviewPanel::selectedPath() const
{
    const QModelIndex current = m_tree->currentIndex();
    if (!current.isValid()) return {};
    return m_model->pathForIndex(m_filter->mapToSource(current));
}

QStringList FileReviewPanel::selectionPaths() const
{
    const QString path = selectedPath();
    return path.isEmpty() ? QStringList() : QStringList{path};
}

void FileReviewPanel::applyPaths(const QStringList& paths, bool force)
{
    if (!m_session || m_editor->isBusy()) return;
    // A file that runs later is written only when the user picked it and said what it can run
    // is fine; Apply all holds every such file back.
    bool runLater = false;
    if (!paths.isEmpty()) {
        QHash<QString, QString> held;
        for (const QString& path : paths)
            held.insert(m_model->runLaterUnder(path));
        if (!held.isEmpty()) {
            QStringList lines;
            for (auto it = held.cbegin(); it != held.cend(); ++it)
                lines << tr("• %1: %2").arg(it.key(), it.value());
            lines.sort();
            const QString text =
                tr("%n file(s) here run later, on this computer and outside the sandbox, when "
                   "your own tools use them:",
                   nullptr, static_cast<int>(held.size())) +
                QLatin1Char('\n') + lines.join(QLatin1Char('\n')) + QStringLiteral("\n\n") +
                tr("Write them into the project? Read their diff first: what they contain runs "
                   "with your rights.");
            runLater =
                prompt::confirm(this, tr("Apply files that run later"), text, tr("Apply them too"));
        }
    }
    m_editor->apply(*m_session, paths, force, runLater);
    setBusy(true);
}

void FileReviewPanel::discardPaths(const QStringList& paths, bool ask)
{
    if (!m_session || m_editor->isBusy()) return;
    if (ask) {
        const QString text =
            paths.isEmpty()
                ? tr("Discard all %n change(s) of this session? The agent's versions are lost; "
                     "the project stays as it is.",
                     nullptr, changeCount())
                : tr("Discard the agent's changes to %1? Its versions are lost; the project "
                     "stays as it is.")
                      .arg(paths.join(QStringLiteral(", ")));
        if (!prompt::confirm(this, tr("Discard changes"), text, tr("Discard"))) return;
    }
    m_editor->discard(*m_session, paths);
    setBusy(true);
}

void FileReviewPanel::onChangesUpdated(int count)
{
    if (!m_model->scanError().isEmpty())
        m_countLabel->setText(tr("Cannot read the changes"));
    else
        m_countLabel->setText(tr("%n change(s)", nullptr, count));
    m_countLabel->setToolTip(m_model->scanError());
    if (count != m_lastCount) {
        m_lastCount = count;
        emit changeCountChanged(count);
    }
    if (!m_model->scanError().isEmpty() && m_message->isHidden()) showMessage(m_model->scanError());
    // The agent may have written to the file on screen.
    loadDiff();
    updateActions();
}

void FileReviewPanel::onCurrentChanged()
{
    if (m_messagePassing) showMessage({});
    loadDiff();
    updateActions();
}

void FileReviewPanel::loadDiff()
{
    updateConflictBar();
    const QString path = selectedPath();
    const int generation = ++m_readGeneration;
    if (path.isEmpty() || !m_session) {
        m_diffView->clear();
        return;
    }
    const QModelIndex index = m_model->indexForPath(path);
    if (index.data(WorkspaceModel::IsDirectoryRole).toBool()) {
        const int count = index.data(WorkspaceModel::ChangeCountRole).toInt();
        const auto marker =
            static_cast<ChangeMarker>(index.data(WorkspaceModel::MarkerRole).toInt());
        QString text;
        if (marker == ChangeMarker::Deleted)
            text = tr("The agent deleted this folder and everything in it.");
        else if (marker == ChangeMarker::Added)
            text = tr("A folder the agent created, with %n change(s) inside.", nullptr, count);
        else if (marker == ChangeMarker::Modified)
            text = tr("The agent put a folder where the project has a file.");
        else if (count > 0)
            text = tr("%n change(s) inside. Select a file to see its diff.", nullptr, count);
        else
            text = tr("Nothing changed in this folder.");
        if (marker == ChangeMarker::Conflict) text = m_model->conflictReason(path);
        m_diffView->showMessage(path, text);
        return;
    }
    m_readQueue.clearPending();
    m_readQueue.run(
        this,
        [upper = m_session->upperDir(), project = m_session->project, rel = path.toStdString()] {
            return sb::readChange(upper, project, rel, kMaxDiffBytes);
        },
        [this, generation, path](sb::Result<sb::ChangeContent> content) {
            if (generation != m_readGeneration) return;
            if (!content)
                m_diffView->showMessage(path, QString::fromStdString(content.error().describe()));
            else
                m_diffView->showChange(path, *content, isChange(*content, m_model->marker(path)));
        });
}

void FileReviewPanel::updateActions()
{
    // A running session's changes wait for its end (the banner says so): the agent may still
    // be writing them.
    const bool ready = m_session.has_value() && !m_editor->isBusy() && !m_live;
    const QModelIndex index = m_model->indexForPath(selectedPath());
    const bool selectionHasChanges =
        index.isValid() && (index.data(WorkspaceModel::IsChangeRole).toBool() ||
                            index.data(WorkspaceModel::ChangeCountRole).toInt() > 0);
    m_apply->setEnabled(ready && selectionHasChanges);
    m_discard->setEnabled(ready && selectionHasChanges);
    m_applyAll->setEnabled(ready && changeCount() > 0);
    m_discardAll->setEnabled(ready && changeCount() > 0);
    m_keepReal->setEnabled(ready);
    m_takeAgents->setEnabled(ready);
    m_refresh->setEnabled(m_session.has_value());
    const QString waiting = tr("Not while the session runs: its changes can be applied or "
                               "discarded once it ends.");
    for (QAction* a : {m_apply, m_discard, m_applyAll, m_discardAll})
        a->setToolTip(m_live ? waiting : a->data().toString()); // data: the usual tooltip
}

void FileReviewPanel::updateConflictBar()
{
    const QString path = selectedPath();
    const QString runLater = path.isEmpty() ? QString() : m_model->runLaterReason(path);
    m_runLaterLabel->setVisible(!runLater.isEmpty());
    if (!runLater.isEmpty()) {
        m_runLaterLabel->setText(
            tr("This file runs later, on this computer and outside the sandbox (%1). Apply all "
               "holds it back; Apply asks you first.")
                .arg(runLater));
        QPalette tinted = palette();
        tinted.setColor(QPalette::Window, ReviewStyle::attentionBackground(palette()));
        m_runLaterLabel->setPalette(tinted);
    }
    const QStringList conflicts = path.isEmpty() ? QStringList() : m_model->conflictsUnder(path);
    if (conflicts.isEmpty()) {
        m_conflictBar->hide();
        return;
    }
    if (conflicts.size() == 1 && conflicts.front() == path)
        m_conflictLabel->setText(tr("Conflict: %1. Which version should the project keep?")
                                     .arg(m_model->conflictReason(path)));
    else
        m_conflictLabel->setText(tr("%n change(s) here conflict with edits made in the project "
                                    "since the session started. Which versions should it keep?",
                                    nullptr, static_cast<int>(conflicts.size())));
    QPalette tinted = palette();
    tinted.setColor(QPalette::Window, ReviewStyle::attentionBackground(palette()));
    m_conflictBar->setPalette(tinted);
    m_conflictBar->show();
}

void FileReviewPanel::updateLiveState()
{
    const bool was = m_live;
    m_live = m_session && sb::sessionIsLive(*m_session);
    m_liveBanner->setVisible(m_live);
    if (!m_live) m_liveTimer.stop();
    if (was != m_live) updateActions();
}

void FileReviewPanel::onEditFinished(const EditOutcome& outcome)
{
    setBusy(false);
    if (!outcome.error.isEmpty()) {
        showMessage(outcome.error);
        return;
    }
    const bool apply = outcome.operation == EditOutcome::Operation::Apply;
    if (apply) m_model->noteApplied(outcome.done);
    QStringList text;
    const int done = static_cast<int>(outcome.done.size());
    if (apply)
        text << tr("Applied %n change(s) to the project.", nullptr, done);
    else
        text << tr("Discarded %n change(s).", nullptr, done);
    if (!outcome.conflicts.isEmpty())
        text << tr("%n change(s) not applied: the project changed there since the session "
                   "started. Select one to choose which version to keep.",
                   nullptr, static_cast<int>(outcome.conflicts.size()))
             << issueLines(outcome.conflicts);
    if (!outcome.skipped.isEmpty())
        text << tr("%n change(s) skipped:", nullptr, static_cast<int>(outcome.skipped.size()))
             << issueLines(outcome.skipped);
    if (!outcome.held.isEmpty())
        text << tr("%n file(s) that run later held back: review each, then apply it on its "
                   "own.",
                   nullptr, static_cast<int>(outcome.held.size()))
             << issueLines(outcome.held);
    showMessage(text.join(QLatin1Char('\n')),
                outcome.conflicts.isEmpty() && outcome.skipped.isEmpty() && outcome.held.isEmpty());
    m_model->refresh();
    if (apply && !outcome.done.isEmpty()) emit applied(outcome.done);
}

void FileReviewPanel::setBusy(bool busy)
{
    m_progress->setRange(0, 0); // busy until the first progress report
    m_progress->setVisible(busy);
    updateActions();
}

void FileReviewPanel::showMessage(const QString& text, bool passing)
{
    m_messagePassing = passing;
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

} // namespace sbui
