#include "feedback.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {
namespace {
QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString ms(double v) {
    return QString::number(v, 'g', 4) + QStringLiteral(" ms");
}

const db::TimingSeriesRow* series(const db::EvaluationRecord& r, const char* kind) {
    for (const auto& s : r.timing)
        if (s.kind == kind)
            return &s;
    return nullptr;
}

QString buildErrors(const db::EvaluationRecord& r, int maxChars) {
    if (!r.build)
        return {};
    QStringList lines;
    for (const auto& e :
         QJsonDocument::fromJson(QByteArray::fromStdString(r.build->errorsJson)).array()) {
        const QJsonObject o = e.toObject();
        const QString msg =
            o.isEmpty() ? e.toString() : o.value(QStringLiteral("message")).toString();
        if (!msg.isEmpty())
            lines << msg;
    }
    const QString errors = lines.join(QLatin1Char('\n'));
    return trimmedTail(errors.isEmpty() ? q(r.build->log) : errors, maxChars);
}
} // namespace

QString trimmedTail(const QString& text, int maxChars) {
    if (text.size() <= maxChars)
        return text;
    QString tail = text.right(maxChars);
    const qsizetype nl = tail.indexOf(QLatin1Char('\n'));
    if (nl >= 0 && nl < tail.size() / 2)
        tail = tail.mid(nl + 1);
    return QStringLiteral("[... %1 characters left out ...]\n").arg(text.size() - tail.size()) +
           tail;
}

std::optional<double> targetSpeedupOf(const db::EvaluationRecord& r) {
    if (r.evaluation.verdict != "correct")
        return std::nullopt;
    return r.speedupCompile ? r.speedupCompile : r.speedupEager;
}

bool goodEnough(const db::EvaluationRecord& r, double targetSpeedup) {
    const auto s = targetSpeedupOf(r);
    return s && *s >= targetSpeedup && !r.suspicious;
}

bool betterThan(const db::EvaluationRecord& a, const db::EvaluationRecord& b) {
    const bool ca = a.evaluation.verdict == "correct";
    const bool cb = b.evaluation.verdict == "correct";
    if (ca != cb)
        return ca;
    if (!ca)
        return false; // the first failure stays unless a later one is correct
    const auto sa = a.speedupCompile && b.speedupCompile ? a.speedupCompile : a.speedupEager;
    const auto sb = a.speedupCompile && b.speedupCompile ? b.speedupCompile : b.speedupEager;
    return sa.value_or(0) > sb.value_or(0);
}

QString evaluationSummary(const db::EvaluationRecord& r, int maxChars) {
    const QString verdict = q(r.evaluation.verdict);
    QString out = QStringLiteral("Verdict: %1.\n").arg(verdict);
    if (verdict == QLatin1String("build_error")) {
        out += QStringLiteral("It did not build. Compiler output:\n```\n%1\n```\n")
                   .arg(buildErrors(r, maxChars));
    } else if (verdict == QLatin1String("incorrect")) {
        int failed = 0;
        QString first;
        for (const auto& t : r.trials) {
            if (t.passed)
                continue;
            ++failed;
            if (first.isEmpty())
                first = q(t.message);
        }
        out += QStringLiteral("Its outputs do not match the reference: %1 of %2 trials failed.\n")
                   .arg(failed)
                   .arg(r.trials.size());
        if (r.evaluation.maxAbsError)
            out += QStringLiteral("Largest absolute error: %1")
                       .arg(*r.evaluation.maxAbsError, 0, 'g', 4);
        if (r.evaluation.maxRelError)
            out += QStringLiteral(", largest relative error: %1")
                       .arg(*r.evaluation.maxRelError, 0, 'g', 4);
        out += QLatin1Char('\n');
        if (!first.isEmpty())
            out += QStringLiteral("First failure: %1\n").arg(trimmedTail(first, 1000));
    } else if (verdict == QLatin1String("correct")) {
        const auto* c = series(r, "candidate");
        const auto* e = series(r, "eager");
        const auto* k = series(r, "compile");
        out += QStringLiteral("It is correct.");
        if (c)
            out += QStringLiteral(" Median time %1").arg(ms(c->medianMs));
        if (e && r.speedupEager)
            out += QStringLiteral("; PyTorch eager %1 (speedup %2x)")
                       .arg(ms(e->medianMs))
                       .arg(*r.speedupEager, 0, 'f', 2);
        if (k && r.speedupCompile)
            out += QStringLiteral("; torch.compile %1 (speedup %2x)")
                       .arg(ms(k->medianMs))
                       .arg(*r.speedupCompile, 0, 'f', 2);
        else
            out += QStringLiteral("; torch.compile was not measured");
        out += QStringLiteral(".\nMake it faster while keeping it correct.\n");
    } else {
        out += trimmedTail(q(r.evaluation.message), maxChars) + QLatin1Char('\n');
    }
    for (const auto& f : r.findings) {
        if (f.severity == "reject")
            out += QStringLiteral("Rule broken (%1): %2\n").arg(q(f.rule), q(f.message));
    }
    return out;
}

QString feedbackText(const db::EvaluationRecord& r, int turnsLeft, int maxChars) {
    QString out = QStringLiteral("Your candidate was evaluated. ") + evaluationSummary(r, maxChars);
    out += QStringLiteral(
               "\nYou have %1 more attempt(s). Reply with the complete improved Python file of "
               "`ModelNew` in one ```python code block.")
               .arg(turnsLeft);
    return out;
}

} // namespace kb::engine
