#include "PolicyEditor.h"

#include "CommandPolicyPage.h"
#include "MessageBar.h"
#include "NetworkPolicyPage.h"
#include "PolicyDocument.h"
#include "main/Prompt.h"
#include "sessions/SessionConnection.h"

#include <QAction>
#include <QBoxLayout>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QResizeEvent>
#include <QStackedWidget>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace sbui {
namespace {

QString fileFilter()
{
    return PolicyEditor::tr("Policies (*.json *.jsonc);;All files (*)");
}

} // namespace

PolicyEditor::PolicyEditor(QWidget* parent)
    : QWidget(parent), m_doc(new PolicyDocument(this)), m_stack(new QStackedWidget(this)),
      m_empty(new QWidget(this)), m_editor(new QWidget(this)), m_title(new QLabel(this)),
      m_subtitle(new QLabel(this)), m_message(new MessageBar(this)), m_pages(new QTabWidget(this)),
      m_network(new NetworkPolicyPage(m_doc, this)), m_commands(new CommandPolicyPage(m_doc, this)),
      m_presets(new QToolButton(this))
{
    buildActions();

    auto* toolbar = new QToolBar(this);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->setIconSize(QSize(16, 16));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_title->setContentsMargins(4, 0, 8, 0);
    m_title->setTextFormat(Qt::PlainText);
    m_toolbar = toolbar;
    toolbar->addAction(m_save);
    toolbar->addAction(m_saveAs);
    toolbar->addAction(m_revert);
    // Open policy… is in the Policy menu and on the empty page: the toolbar keeps its room.
    toolbar->addSeparator();
    m_presets->setText(tr("Presets"));
    m_presets->setToolTip(tr("Open one of the shipped presets (read-only: save it under a new "
                             "name to change it)"));
    m_presets->setPopupMode(QToolButton::InstantPopup);
    auto* presetMenu = new QMenu(m_presets);
    connect(presetMenu, &QMenu::aboutToShow, this, [this, presetMenu] {
        presetMenu->clear();
        for (const std::string& name : sb::presetNames()) {
            const QString preset = QString::fromStdString(name);
            connect(presetMenu->addAction(preset), &QAction::triggered, this,
                    [this, preset] { openPreset(preset); });
        }
    });
    m_presets->setMenu(presetMenu);
    toolbar->addWidget(m_presets);

    m_subtitle->setWordWrap(true);
    m_subtitle->setTextFormat(Qt::PlainText);
    m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_subtitle->setForegroundRole(QPalette::PlaceholderText);
    m_subtitle->setContentsMargins(6, 0, 6, 0);

    m_pages->setDocumentMode(true);
    m_pages->addTab(m_network, QIcon(QStringLiteral(":/icons/network.svg")), tr("Network"));
    m_pages->addTab(m_commands, QIcon(QStringLiteral(":/icons/command.svg")), tr("Commands"));

    auto* editorLayout = new QVBoxLayout(m_editor);
    editorLayout->setContentsMargins(0, 0, 0, 0);
    editorLayout->setSpacing(2);
    editorLayout->addWidget(m_subtitle);
    editorLayout->addWidget(m_message);
    editorLayout->addWidget(m_pages, 1);

    // Nothing open: say what the tab is for and offer the ways in.
    m_emptyText = new QLabel(m_empty);
    m_emptyText->setWordWrap(true);
    m_emptyText->setAlignment(Qt::AlignCenter);
    auto* openButton = new QPushButton(tr("Open policy…"), m_empty);
    connect(openButton, &QPushButton::clicked, this, &PolicyEditor::openFileDialog);
    auto* emptyLayout = new QVBoxLayout(m_empty);
    emptyLayout->addStretch(1);
    emptyLayout->addWidget(m_emptyText);
    emptyLayout->addWidget(openButton, 0, Qt::AlignHCenter);
    emptyLayout->addStretch(2);

    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_editor);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    // The title beside the toolbar, or above it where both do not fit (resizeEvent): the
    // toolbar's actions never go behind its » menu.
    m_headRow = new QBoxLayout(QBoxLayout::LeftToRight);
    m_headRow->addWidget(m_title);
    m_headRow->addStretch(1);
    m_headRow->addWidget(toolbar);
    layout->addLayout(m_headRow);
    layout->addWidget(m_stack, 1);

    connect(m_doc, &PolicyDocument::opened, this, [this] {
        updateHeader();
        Q_EMIT documentChanged();
    });
    connect(m_doc, &PolicyDocument::modifiedChanged, this, [this](bool modified) {
        updateHeader();
        Q_EMIT modifiedChanged(modified);
    });
    setDefaultEmptyText();
    updateHeader();
}

PolicyEditor::~PolicyEditor() = default;

void PolicyEditor::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int both = m_title->sizeHint().width() + m_toolbar->sizeHint().width();
    const auto direction = width() >= both ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (m_headRow->direction() != direction) m_headRow->setDirection(direction);
}

void PolicyEditor::buildActions()
{
    m_open = new QAction(QIcon(QStringLiteral(":/icons/folder.svg")), tr("&Open policy…"), this);
    m_open->setToolTip(tr("Open a policy file to edit it"));
    connect(m_open, &QAction::triggered, this, &PolicyEditor::openFileDialog);
    m_save = new QAction(tr("&Save"), this);
    m_save->setShortcut(QKeySequence::Save);
    m_save->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_save->setToolTip(tr("Save the policy, keeping its comments (Ctrl+S)"));
    connect(m_save, &QAction::triggered, this, &PolicyEditor::save);
    m_saveAs = new QAction(tr("Save &as…"), this);
    m_saveAs->setToolTip(tr("Save the policy in a new file and go on editing that one"));
    connect(m_saveAs, &QAction::triggered, this, &PolicyEditor::saveAs);
    m_revert = new QAction(tr("&Revert"), this);
    m_revert->setToolTip(tr("Throw away the unsaved changes"));
    connect(m_revert, &QAction::triggered, this, &PolicyEditor::revert);
    m_applyToSession = new QAction(tr("Apply to this session"), this);
    m_applyToSession->setToolTip(
        tr("Give the session the rules its policy file says now; they apply at once"));
    connect(m_applyToSession, &QAction::triggered, this, &PolicyEditor::applyFileToSession);
    addActions({m_save, m_saveAs});
}

bool PolicyEditor::hasDocument() const
{
    return m_doc->isOpen();
}

QString PolicyEditor::messageText() const
{
    return m_message->text();
}

QString PolicyEditor::emptyText() const
{
    return m_emptyText->text();
}

QString PolicyEditor::titleText() const
{
    return m_title->text();
}

QString PolicyEditor::subtitleText() const
{
    return m_subtitle->text();
}

void PolicyEditor::setActivitySource(ActivityModel* activity)
{
    m_network->setActivitySource(activity);
    m_commands->setActivitySource(activity);
}

void PolicyEditor::updateHeader()
{
    const bool open = m_doc->isOpen();
    m_stack->setCurrentIndex(open ? 1 : 0);
    const bool modified = m_doc->isModified();
    m_save->setEnabled(open && (modified || m_doc->isReadOnly()));
    m_saveAs->setEnabled(open);
    m_revert->setEnabled(open && modified);
    // Each case its own sentence, for translators.
    const QString session = m_doc->sessionId();
    const QString path = QDir::toNativeSeparators(m_doc->filePath());
    QString name;
    QString where;
    if (!m_doc->presetName().isEmpty()) {
        name = tr("Preset “%1”").arg(m_doc->presetName());
        where = session.isEmpty()
                    ? tr("A shipped preset is read-only: Save puts your changes in a new file.")
                    : tr("Session %1 runs this shipped preset, which is read-only: Save puts your "
                         "changes in a new file, and the session switches to it.")
                          .arg(session);
    } else if (!path.isEmpty()) {
        name = QFileInfo(path).fileName();
        if (m_doc->isReadOnly())
            where = session.isEmpty()
                        ? tr("%1 is read-only: Save puts your changes in a new file.").arg(path)
                        : tr("%1 is read-only: Save puts your changes in a new file, and session "
                             "%2 switches to it.")
                              .arg(path, session);
        else
            where = session.isEmpty()
                        ? path
                        : tr("%1 — the policy of session %2, which picks up what you save.")
                              .arg(path, session);
    } else if (open && m_doc->isRecorded()) {
        name = tr("Policy of session %1").arg(session);
        where = tr("Session %1 ended; it ran under this policy (from its recording, read-only: "
                   "Save puts it in a new file).")
                    .arg(session);
    } else if (open && !m_doc->fileDiffers().isEmpty()) {
        name = tr("Rules of session %1").arg(session);
        where = tr("What session %1 runs now, read-only: Save puts it in a new file, and the "
                   "session switches to it.")
                    .arg(session);
    } else if (open) {
        name = tr("Built-in policy");
        where = tr("Session %1 runs a policy that is in no file: Save puts it in a new file, and "
                   "the session switches to it.")
                    .arg(session);
    }
    m_title->setText(!open      ? tr("No policy open")
                     : modified ? tr("%1 (modified)").arg(name)
                                : name);
    m_subtitle->setText(where);
    m_subtitle->setVisible(!where.isEmpty());
}

void PolicyEditor::setDefaultEmptyText()
{
    m_emptyText->setText(tr("Select a running session to edit its policy, or open a policy file."));
}

void PolicyEditor::showSession(SessionConnection* connection)
{
    setDefaultEmptyText();
    if (m_session) disconnect(m_session, nullptr, this, nullptr);
    m_session = connection;
    if (!connection) {
        if (!m_doc->sessionId().isEmpty()) {
            m_doc->close();
            m_message->clearMessage();
        }
        return;
    }
    connect(connection, &SessionConnection::policyUpdated, this, &PolicyEditor::onSessionUpdated);
    connect(connection, &SessionConnection::sessionAnswersChanged, this, [this] {
        if (m_session && m_doc->sessionId() == m_session->sessionId())
            m_doc->setSessionAnswers(m_session->sessionAnswers());
    });
    connect(connection, &SessionConnection::policyUpdateFailed, this, [this](const QString& why) {
        m_sending = false;
        m_applying = false;
        showError(tr("Saved, but the session did not take the new policy: %1").arg(why));
    });
    // The session ended while the policy was on its way: it was saved, and that is all.
    connect(connection, &SessionConnection::exited, this, [this] {
        if (m_sending) showSavedForEndedSession();
    });
    connect(connection, &SessionConnection::closed, this, [this] {
        if (m_sending) showSavedForEndedSession();
    });
    // The same session's unsaved edits stay (a reattach must not drop them).
    if (m_doc->sessionId() == connection->sessionId() && m_doc->isModified()) {
        m_doc->setSessionAnswers(connection->sessionAnswers());
        return;
    }
    const sb::proto::SessionSummary& s = connection->summary();
    QString error;
    m_message->clearMessage();
    if (!m_doc->openSession(connection->sessionId(), QString::fromStdString(s.policyFile),
                            QString::fromStdString(s.policyPreset),
                            QString::fromStdString(s.learnedRulesFile), s.effectivePolicy, &error))
        return showError(tr("The session's policy cannot be shown: %1").arg(error));
    m_doc->setSessionAnswers(connection->sessionAnswers());
    const QString file = QDir::toNativeSeparators(m_doc->fileDiffers());
    if (file.isEmpty()) return;
    if (!m_doc->fileProblem().isEmpty())
        m_message->showMessage(MessageBar::Kind::Warning,
                               tr("Shown: the rules this session runs. Its policy %1 cannot be "
                                  "read: %2")
                                   .arg(file, m_doc->fileProblem()));
    else
        m_message->showMessage(MessageBar::Kind::Warning,
                               tr("Shown: the rules this session runs. Its policy %1 says "
                                  "otherwise now (saved from another session, or edited).")
                                   .arg(file),
                               m_applyToSession);
}

void PolicyEditor::showRecorded(const QString& sessionId, const nlohmann::json& document)
{
    showSession(nullptr);
    if (m_doc->sessionId() == sessionId && m_doc->isRecorded()) return;
    QString error;
    if (document.is_object() && m_doc->openRecorded(sessionId, document, &error)) {
        m_message->clearMessage();
        return;
    }
    // A file the user opened stays; otherwise the page says why there is nothing to show.
    if (m_doc->isOpen()) return;
    m_emptyText->setText(
        error.isEmpty() ? tr("The recording of session %1 does not hold its policy (an older "
                             "Sandbench recorded it).")
                              .arg(sessionId)
                        : tr("The policy of session %1 cannot be shown: %2").arg(sessionId, error));
}

void PolicyEditor::applyFileToSession()
{
    SessionConnection* session = m_session.data();
    if (!session || m_doc->fileDiffers().isEmpty() || !maybeSave()) return;
    const sb::proto::SessionSummary& s = session->summary();
    QString error;
    if (!m_doc->openSession(session->sessionId(), QString::fromStdString(s.policyFile),
                            QString::fromStdString(s.policyPreset),
                            QString::fromStdString(s.learnedRulesFile), s.effectivePolicy, &error,
                            /*preferFile=*/true))
        return showError(tr("The session's policy cannot be shown: %1").arg(error));
    m_doc->setSessionAnswers(session->sessionAnswers());
    m_applying = true;
    pushToSession();
}

bool PolicyEditor::openFile(const QString& path)
{
    if (!maybeSave()) return false;
    QString error;
    // A shipped preset opened as a file is still a preset: never written in place.
    const QFileInfo info(path);
    const QString presets = QString::fromStdString(sb::presetDirectory().string());
    const bool preset = !presets.isEmpty() && info.absoluteDir() == QDir(presets);
    const bool ok =
        preset ? m_doc->openPreset(info.completeBaseName(), &error) : m_doc->openFile(path, &error);
    if (!ok) {
        showError(tr("%1 was not opened: %2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    m_message->clearMessage();
    return true;
}

bool PolicyEditor::openPreset(const QString& name)
{
    if (!maybeSave()) return false;
    QString error;
    if (!m_doc->openPreset(name, &error)) {
        showError(error);
        return false;
    }
    m_message->clearMessage();
    return true;
}

bool PolicyEditor::openFileDialog()
{
    const QString folder = m_doc->filePath().isEmpty()
                               ? QFileInfo(m_doc->suggestedSavePath()).absolutePath()
                               : QFileInfo(m_doc->filePath()).absolutePath();
    const QString path = prompt::openFileName(this, tr("Open policy"), folder, fileFilter());
    return !path.isEmpty() && openFile(path);
}

void PolicyEditor::commitEdits()
{
    m_network->commitEdits();
    m_commands->commitEdits();
}

bool PolicyEditor::save()
{
    if (!m_doc->isOpen()) return false;
    commitEdits();
    if (m_doc->isReadOnly()) return saveAs();
    QString error;
    if (!m_doc->save(&error)) {
        showError(tr("Not saved:\n%1").arg(error));
        return false;
    }
    m_message->showMessage(MessageBar::Kind::Info, tr("Saved."));
    pushToSession();
    return true;
}

bool PolicyEditor::saveAs()
{
    if (!m_doc->isOpen()) return false;
    commitEdits();
    const QString path =
        prompt::saveFileName(this, tr("Save policy as"), m_doc->suggestedSavePath(), fileFilter());
    if (path.isEmpty()) return false;
    QString error;
    if (!m_doc->saveAs(path, &error)) {
        showError(tr("Not saved:\n%1").arg(error));
        return false;
    }
    m_message->showMessage(MessageBar::Kind::Info,
                           tr("Saved as %1.").arg(QDir::toNativeSeparators(m_doc->filePath())));
    pushToSession();
    return true;
}

void PolicyEditor::revert()
{
    m_doc->revert();
    m_message->clearMessage();
}

bool PolicyEditor::maybeSave()
{
    commitEdits();
    if (!m_doc->isModified()) return true;
    switch (prompt::askUnsaved(this, tr("Unsaved policy changes"),
                               tr("The policy has changes that are not saved. Save them first?"))) {
    case prompt::UnsavedChoice::Save:
        return save();
    case prompt::UnsavedChoice::Discard:
        m_doc->revert();
        return true;
    case prompt::UnsavedChoice::Cancel:
        return false;
    }
    return false;
}

void PolicyEditor::pushToSession()
{
    // Only the shown session's own policy goes to it; a file opened beside it does not.
    SessionConnection* session = m_session.data();
    if (session == nullptr || m_doc->sessionId().isEmpty() ||
        m_doc->sessionId() != session->sessionId())
        return;
    if (session->hasEnded()) return showSavedForEndedSession();
    m_sending = true;
    m_message->showMessage(
        MessageBar::Kind::Info,
        m_applying ? tr("Sending its policy file to session %1…").arg(m_doc->sessionId())
                   : tr("Saved. Sending the policy to session %1…").arg(m_doc->sessionId()));
    session->updatePolicy(m_doc->documentJson(), m_doc->filePath());
}

void PolicyEditor::showSavedForEndedSession()
{
    m_sending = false;
    m_applying = false;
    m_message->showMessage(MessageBar::Kind::Info,
                           tr("Saved. Session %1 has ended, so nothing was sent: a new session "
                              "with this policy gets it.")
                               .arg(m_doc->sessionId()));
}

QString PolicyEditor::describeParts(const QStringList& parts)
{
    QStringList words;
    for (const QString& p : parts) {
        // The supervisor's section names (sb::RunningPolicy).
        if (p == QLatin1String("network.mode"))
            words << tr("the network mode");
        else if (p == QLatin1String("network"))
            words << tr("the network rules");
        else if (p == QLatin1String("commands"))
            words << tr("the command rules");
        else if (p == QLatin1String("approvals"))
            words << tr("the approval settings");
        else if (p == QLatin1String("filesystem"))
            words << tr("the exposed folders");
        else if (p == QLatin1String("limits"))
            words << tr("the resource limits");
        else if (p == QLatin1String("env"))
            words << tr("the environment");
        else
            words << p;
    }
    return QLocale().createSeparatedList(words);
}

void PolicyEditor::onSessionUpdated(const QStringList& applied, const QStringList& deferred)
{
    m_sending = false;
    QStringList lines;
    lines << (std::exchange(m_applying, false)
                  ? tr("Session %1 now runs the rules of its policy file.").arg(m_doc->sessionId())
                  : tr("Saved. Session %1 picked up the new policy.").arg(m_doc->sessionId()));
    if (!applied.isEmpty()) lines << tr("Applied now: %1.").arg(describeParts(applied));
    if (!deferred.isEmpty())
        lines << tr("Takes effect for new sessions: %1.").arg(describeParts(deferred));
    m_message->showMessage(deferred.isEmpty() ? MessageBar::Kind::Info : MessageBar::Kind::Warning,
                           lines.join(u'\n'));
    Q_EMIT sessionUpdated(applied, deferred);
}

void PolicyEditor::showError(const QString& text)
{
    m_message->showMessage(MessageBar::Kind::Error, text);
}

} // namespace sbui
