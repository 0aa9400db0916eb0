// A one-message strip above or below a view: an icon and wrapped text on a tinted background
// derived from the palette (so it follows a dark theme), hidden while there is nothing to say.
#pragma once

#include <QFrame>

class QLabel;

namespace sbui {

class MessageBar : public QFrame {
    Q_OBJECT
  public:
    enum class Kind { Info, Warning, Error };

    explicit MessageBar(QWidget* parent = nullptr);

    void showMessage(Kind kind, const QString& text);
    void clearMessage();
    QString text() const;
    Kind kind() const { return m_kind; }

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void applyStyle();

    QLabel* m_icon;
    QLabel* m_text;
    Kind m_kind = Kind::Info;
};

} // namespace sbui
