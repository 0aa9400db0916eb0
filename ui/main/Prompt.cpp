#include "Prompt.h"

#include <QMessageBox>
#include <QPushButton>

namespace sbui::prompt {
namespace {

std::optional<bool> g_nextAnswer;
QString g_lastError;
bool g_testing = false;

} // namespace

bool confirm(QWidget* parent, const QString& title, const QString& text, const QString& action)
{
    if (g_nextAnswer) {
        bool answer = *g_nextAnswer;
        g_nextAnswer.reset();
        return answer;
    }
    if (g_testing) return false;
    QMessageBox box(QMessageBox::Warning, title, text, QMessageBox::Cancel, parent);
    QPushButton* go = box.addButton(action, QMessageBox::DestructiveRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == go;
}

void error(QWidget* parent, const QString& title, const QString& text)
{
    g_lastError = text;
    if (g_nextAnswer || g_testing) {
        g_nextAnswer.reset();
        return;
    }
    QMessageBox::critical(parent, title, text);
}

void setNextAnswer(std::optional<bool> answer)
{
    g_nextAnswer = answer;
}

QString lastError()
{
    return g_lastError;
}

void setTesting(bool testing)
{
    g_testing = testing;
}

} // namespace sbui::prompt
