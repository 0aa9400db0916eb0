// A one-message strip above or below a view: an icon and wrapped text on a tinted background
// derived from the palette (so it follows a dark theme), hidden while there is nothing to say.
#pragma once

#include <QFrame>

class QAction;
class QLabel;
class QToolButton;

namespace sbui {

class MessageBar : public QFrame {
    Q_OBJECT
  public:
    enum class Kind { Info, Warning, Error };

    explicit MessageBar(QWidget* parent = nullptr);

    // `action`, when given, is offered as a button beside the text (until the next message).
    void showMessage(Kind kind, const QString& text, QAction* action = nullptr);
    void clearMessage();
    QString text() const;
    Kind kind() const { return m_kind; }
    // The offered action's button (hidden when none is offered).
    QToolButton* button() const { return m_button; }

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void applyStyle();

    QLabel* m_icon;
    QLabel* m_text;
    QToolButton* m_button;
    Kind m_kind = Kind::Info;
};

} // namespace sbui
