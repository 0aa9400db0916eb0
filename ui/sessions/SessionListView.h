// The sessions list: one row a session (its command, folder, start and duration), the command
// taking the width left. Narrower than kFolderMinWidth, the folder column goes (its name stays
// in the row's tooltip): the command is the session, the folder only its context.
#pragma once

#include <QTreeView>

namespace sbui {

class SessionListModel;

class SessionListView : public QTreeView {
    Q_OBJECT
  public:
    static constexpr int kFolderMinWidth = 300; // px below which the folder column is hidden

    explicit SessionListView(SessionListModel* model, QWidget* parent = nullptr);

  protected:
    void resizeEvent(QResizeEvent* event) override;
};

} // namespace sbui
