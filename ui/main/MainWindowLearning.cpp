// Policy → Suggest from sessions…: the dialog, with the session selected in the list chosen,
// and a rule's example shown in the replay.
#include "MainWindow.h"
#include "learning/PolicySuggestDialog.h"
#include "replay/ReplayView.h"

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
    connect(dialog, &PolicySuggestDialog::showEvidence, this,
            [this](const QString& session, qint64 tNs) {
                if (!selectSession(session)) return;
                m_tabs->setCurrentWidget(m_replay); // opens the session's replay
                m_replay->seek(tNs);
            });
    dialog->show();
}

} // namespace sbui
