// The pieces of one execution in the Results tab: its block (ExecutionBlock) and each result's
// best form. A result's parts are the MIME types of the kernel's bundle as recorded
// (docs/recording.md, code_execution); all of them came from inside the sandbox.
#pragma once

#include <QFrame>
#include <nlohmann/json.hpp>

namespace sbui {

class ExecutionBlock : public QFrame {
    Q_OBJECT

  public:
    explicit ExecutionBlock(const nlohmann::json& execution, QWidget* parent = nullptr);
};

// The widget for one result: a picture (PNG, JPEG, SVG), a table (a DataFrame's data, else an
// HTML table), formatted text (HTML, Markdown), JSON or plain text; the part it shows is named
// by the widget's "mime" property.
QWidget* resultWidget(const nlohmann::json& result);

// The picture of an image/png or image/jpeg part (base64) or an image/svg+xml one (text); a null
// image when it is none (or an SVG that names outside files).
QImage resultImage(const nlohmann::json& part);

} // namespace sbui
