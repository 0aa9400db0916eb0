// Policy → Suggest from sessions…: the dialog, with the session selected in the list chosen (and,
// when it runs, offered as the target), and a rule's example shown in the replay.
#include "MainWindow.h"
#include "learning/PolicySuggestDialog.h"
#include "replay/ReplayView.h"
#include "sessions/SessionConnection.h"

#include <QListWidget>
#include <QTabWidget>

namespace sbui {

void MainWindow::suggestPolicy()
{
    auto* dialog = new PolicySuggestDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (!m_current.isEmpty())
        for (int i = 0; i < dialog->sessions()->count(); ++i) {
            QListWidgetItem* item = dialog->sessions()->item(i);
            if (item->data(Qt::UserRole).toString() == m_current) item->setCheckState(Qt::Checked);
        }
    // The shown session, running: the rules can go into it.
    if (m_view && m_view->sessionId() == m_current && !m_view->hasEnded())
        dialog->setRunningSession(m_view.get());
    connect(dialog, &PolicySuggestDialog::showEvidence, this,
            [this](const QString& session, qint64 tNs) {
                if (!selectSession(session)) return;
                m_tabs->setCurrentWidget(m_replay); // opens the session's replay
                m_replay->seek(tNs);
            });
    dialog->show();
}

} // namespace sbui
