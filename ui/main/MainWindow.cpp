#include "MainWindow.h"

namespace sbui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Sandbench"));
    resize(1280, 800);
}

} // namespace sbui
