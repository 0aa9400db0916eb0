// The pieces of one execution in the Results tab: its block (ExecutionBlock) and each result's
// best form. A result's parts are the MIME types of the kernel's bundle as recorded
// (docs/recording.md, code_execution); all of them came from inside the sandbox.
#pragma once

#include <QFrame>
#include <nlohmann/json.hpp>

class QLabel;

namespace sbui {

class ExecutionBlock : public QFrame {
    Q_OBJECT

  public:
    explicit ExecutionBlock(const nlohmann::json& execution, QWidget* parent = nullptr);

    // Not run yet at the point of a replay: only its title, dimmed, and a line saying so.
    void setPending(bool pending);
    bool isPending() const { return m_pending; }
    // A click on it, or Enter or Space while it has the focus (Tab reaches it then), is reported
    // (clicked()), and its cursor and tooltip say so.
    void setClickable(bool clickable);

  Q_SIGNALS:
    void clicked();

  protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

  private:
    QLabel* m_title;
    QWidget* m_body;  // all but the title
    QLabel* m_notYet; // shown while pending
    bool m_pending = false;
    bool m_clickable = false;
};

// The widget for one result: a picture (PNG, JPEG, SVG), a table (a DataFrame's data, else an
// HTML table), formatted text (HTML, Markdown), JSON or plain text; the part it shows is named
// by the widget's "mime" property.
QWidget* resultWidget(const nlohmann::json& result);

// The picture of an image/png or image/jpeg part (base64) or an image/svg+xml one (text); a null
// image when it is none (or an SVG that names outside files).
QImage resultImage(const nlohmann::json& part);

} // namespace sbui
