// The small find bar over the terminal (Ctrl+Shift+F): a field, older/newer buttons, and a note
// when nothing matches. It only asks; TerminalWidget searches and highlights.
#pragma once

#include <QFrame>

class QLabel;
class QLineEdit;
class QToolButton;

namespace sbui {

class TerminalSearchBar : public QFrame {
    Q_OBJECT
  public:
    explicit TerminalSearchBar(QWidget* parent = nullptr);

    QString text() const;
    void setText(const QString& text);
    // Focuses the field with its text selected, ready to type over.
    void activate();
    void setNotFound(bool notFound);

  Q_SIGNALS:
    // `older`: search towards the scrollback (up); otherwise towards the newest output.
    void findRequested(const QString& text, bool older);
    // The text changed: search again from the newest output.
    void textEdited(const QString& text);
    void closed();

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    QLineEdit* m_field;
    QToolButton* m_older;
    QToolButton* m_newer;
    QLabel* m_status;
};

} // namespace sbui
