// sandbench: the workbench window.
#include "main/MainWindow.h"

#include <QApplication>
#include <QIcon>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("sandbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("Sandbench"));
    QApplication::setOrganizationName(QStringLiteral("sandbench"));
    QApplication::setDesktopFileName(QStringLiteral("sandbench"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/sandbench.svg")));

    QTranslator qtTranslator, translator;
    if (qtTranslator.load(QLocale(), QStringLiteral("qtbase"), QStringLiteral("_"),
                          QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QApplication::installTranslator(&qtTranslator);
    if (translator.load(QLocale(), QStringLiteral("sandbench"), QStringLiteral("_"),
                        QStringLiteral(":/i18n")))
        QApplication::installTranslator(&translator);

    sbui::MainWindow window;
    window.show();
    return QApplication::exec();
}
