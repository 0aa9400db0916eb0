#include "SuggestedRuleText.h"

#include "ApprovalCard.h"

namespace sbui {

QString allowanceText(const sb::Allowance& a)
{
    const QString what = QString::fromStdString(a.what);
    const QString exact = QString::fromStdString(a.exact);
    switch (a.kind) {
    case sb::Allowance::Kind::OtherArguments:
        return ApprovalCard::tr("%1 with any other arguments").arg(what);
    case sb::Allowance::Kind::DestructiveForm:
        return ApprovalCard::tr("its destructive forms too, such as %1").arg(what);
    case sb::Allowance::Kind::SameNameElsewhere:
        return ApprovalCard::tr("a program named %1 anywhere, not only %2").arg(what, exact);
    case sb::Allowance::Kind::NamesUnderDomain:
        return ApprovalCard::tr("every name under %1 on port %2, not only %3")
            .arg(what)
            .arg(a.port)
            .arg(exact);
    case sb::Allowance::Kind::AnyProgram:
        return ApprovalCard::tr("any program (the one that connected is unknown)");
    }
    return {};
}

QString riskText(const sb::GeneralisedAnswer& g)
{
    using Risk = sb::GeneralisedAnswer::Risk;
    const QString s = QString::fromStdString(g.riskSubject);
    switch (g.risk) {
    case Risk::None:
        break;
    case Risk::Interpreter:
        return ApprovalCard::tr("%1 is an interpreter: “%1 *” would run any program").arg(s);
    case Risk::Destructive:
        return ApprovalCard::tr("%1 destroys or overwrites what it is pointed at").arg(s);
    case Risk::TransferTool:
        return ApprovalCard::tr("%1 sends and fetches whatever it is told").arg(s);
    case Risk::Address:
        return ApprovalCard::tr("an address has no domain");
    case Risk::NotPlaced:
        return ApprovalCard::tr("the public suffix list cannot place %1").arg(s);
    case Risk::PastOwner:
        return ApprovalCard::tr("a domain rule would reach past %1, its owner's domain").arg(s);
    }
    return {};
}

} // namespace sbui
