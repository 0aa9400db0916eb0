// The workbench window: sessions list, terminal pane, approval panel, activity timeline.
#pragma once

#include <QMainWindow>

namespace sbui {

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
};

} // namespace sbui
