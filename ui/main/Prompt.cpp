#include "Prompt.h"

#include <QFileDialog>
#include <QMessageBox>
#include <QPushButton>
#include <utility>

namespace sbui::prompt {
namespace {

std::optional<bool> g_nextAnswer;
std::optional<UnsavedChoice> g_nextUnsaved;
std::optional<QString> g_nextFileName;
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

UnsavedChoice askUnsaved(QWidget* parent, const QString& title, const QString& text)
{
    if (g_nextUnsaved) {
        UnsavedChoice choice = *g_nextUnsaved;
        g_nextUnsaved.reset();
        return choice;
    }
    if (g_testing) return UnsavedChoice::Cancel;
    QMessageBox box(QMessageBox::Warning, title, text,
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        return UnsavedChoice::Save;
    case QMessageBox::Discard:
        return UnsavedChoice::Discard;
    default:
        return UnsavedChoice::Cancel;
    }
}

QString openFileName(QWidget* parent, const QString& title, const QString& folder,
                     const QString& filter)
{
    if (g_nextFileName) return std::exchange(g_nextFileName, std::nullopt).value();
    if (g_testing) return {};
    return QFileDialog::getOpenFileName(parent, title, folder, filter);
}

QString saveFileName(QWidget* parent, const QString& title, const QString& suggested,
                     const QString& filter)
{
    if (g_nextFileName) return std::exchange(g_nextFileName, std::nullopt).value();
    if (g_testing) return {};
    return QFileDialog::getSaveFileName(parent, title, suggested, filter);
}

void setNextUnsavedChoice(std::optional<UnsavedChoice> choice)
{
    g_nextUnsaved = choice;
}

void setNextFileName(std::optional<QString> path)
{
    g_nextFileName = std::move(path);
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
