#include "cellstyle.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

namespace kb::gui {

namespace {

QColor mix(const QColor& base, const QColor& tint, double amount) {
    const double a = std::clamp(amount, 0.0, 1.0);
    return QColor::fromRgbF(static_cast<float>(base.redF() * (1 - a) + tint.redF() * a),
                            static_cast<float>(base.greenF() * (1 - a) + tint.greenF() * a),
                            static_cast<float>(base.blueF() * (1 - a) + tint.blueF() * a));
}

} // namespace

CellKind cellKindOf(const db::AttemptRow& a) {
    if (a.review == "rejected" || a.verdict == "rejected")
        return CellKind::Rejected;
    if (a.verdict == "pending" || (db::isPending(a.attemptStatus()) && a.verdict.empty()))
        return CellKind::Pending;
    if (a.verdict == "correct") {
        if (a.suspicious && a.review != "accepted")
            return CellKind::Suspicious;
        if (!a.speedupEager || !std::isfinite(*a.speedupEager) || *a.speedupEager <= 0)
            return CellKind::CorrectUntimed;
        return *a.speedupEager > 1.0 ? CellKind::Faster : CellKind::Slower;
    }
    if (a.verdict == "incorrect")
        return CellKind::Incorrect;
    return CellKind::Failed;
}

bool scores(const db::AttemptRow& a) {
    const CellKind kind = cellKindOf(a);
    return kind == CellKind::Faster || kind == CellKind::Slower || kind == CellKind::CorrectUntimed;
}

double attemptRank(const db::AttemptRow& a) {
    switch (cellKindOf(a)) {
    case CellKind::Faster:
    case CellKind::Slower:
        return 1000.0 + std::log2(*a.speedupEager);
    case CellKind::CorrectUntimed:
        return 900.0;
    case CellKind::Suspicious:
        return 800.0;
    case CellKind::Incorrect:
        return 500.0;
    case CellKind::Failed:
        return 400.0;
    case CellKind::Rejected:
        return 300.0;
    case CellKind::Pending:
        return 100.0;
    case CellKind::Empty:
        break;
    }
    return 0.0;
}

QString cellKindLabel(CellKind kind) {
    const char* text = "";
    switch (kind) {
    case CellKind::Empty:
        text = "not attempted";
        break;
    case CellKind::Pending:
        text = "pending";
        break;
    case CellKind::Faster:
        text = "faster than eager";
        break;
    case CellKind::Slower:
        text = "slower than eager";
        break;
    case CellKind::CorrectUntimed:
        text = "correct, not timed";
        break;
    case CellKind::Suspicious:
        text = "suspicious, needs review";
        break;
    case CellKind::Incorrect:
        text = "incorrect";
        break;
    case CellKind::Failed:
        text = "failed";
        break;
    case CellKind::Rejected:
        text = "rejected";
        break;
    }
    return QCoreApplication::translate("kb::gui::CellStyle", text);
}

QColor cellHue(CellKind kind) {
    switch (kind) {
    case CellKind::Faster:
        return QColor(0x2e, 0xa0, 0x43);
    case CellKind::Slower:
        return QColor(0xf0, 0x8c, 0x00);
    case CellKind::CorrectUntimed:
        return QColor(0x4c, 0x8b, 0xf5);
    case CellKind::Suspicious:
        return QColor(0xa3, 0x5d, 0xd6);
    case CellKind::Incorrect:
        return QColor(0xd9, 0x3b, 0x3b);
    case CellKind::Failed:
        return QColor(0x9e, 0x3b, 0x3b);
    case CellKind::Rejected:
        return QColor(0x6b, 0x6b, 0x6b);
    case CellKind::Pending:
        return QColor(0x9a, 0xa5, 0xb1);
    case CellKind::Empty:
        break;
    }
    return {};
}

QColor cellBackground(CellKind kind, std::optional<double> speedup, const QPalette& palette) {
    const QColor base = palette.color(QPalette::Base);
    switch (kind) {
    case CellKind::Empty:
        return base;
    case CellKind::Faster:
    case CellKind::Slower: {
        const double distance = speedup && *speedup > 0 ? std::abs(std::log2(*speedup)) : 0.0;
        return mix(base, cellHue(kind), 0.25 + 0.5 * std::min(1.0, distance / 3.0));
    }
    case CellKind::Pending:
        return mix(base, cellHue(kind), 0.3);
    default:
        return mix(base, cellHue(kind), 0.45);
    }
}

} // namespace kb::gui
