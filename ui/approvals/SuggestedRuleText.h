// The generalised "always" rule's preview in the window's language (sb::describe() is the CLI's
// English): what it also allows, and why only the exact rule is suggested. Translated in the
// approval card's context, where they are shown.
#pragma once

#include "learning/AnswerGeneralisation.h"

#include <QString>

namespace sbui {

QString allowanceText(const sb::Allowance& allowance);
QString riskText(const sb::GeneralisedAnswer& generalised); // empty for Risk::None

} // namespace sbui
