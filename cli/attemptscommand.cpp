// kbstudio-cli attempts: every attempt of a run with its verdict, the reason for it and the
// anti-cheat findings behind it; --attempt N shows one attempt in full.

#include "clioptions.h"
#include "db/database.h"
#include "db/evaluationrepository.h"
#include "db/runrepository.h"
#include "report/textformat.h"

#include <QCommandLineParser>
#include <QStringList>

namespace kb::cli {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString speed(const std::optional<double>& v, std::optional<double> low = {},
              std::optional<double> high = {}) {
    return v ? report::formatSpeedupInterval(*v, low, high) : QStringLiteral("-");
}

QString eagerSpeed(const db::AttemptRow& a) {
    return speed(a.speedupEager, a.uncertainty.eagerLow, a.uncertainty.eagerHigh) +
           (a.uncertainty.noisy() ? QStringLiteral(", noisy") : QString());
}

// One line per finding: severity, rule id, where, and what it means.
QString findingLines(const std::vector<db::FindingRow>& findings, const QString& indent) {
    QString out;
    for (const auto& f : findings) {
        out += QStringLiteral("%1%2 %3%4: %5\n")
                   .arg(indent, q(f.severity).toUpper(), q(f.rule),
                        f.location.empty() ? QString() : QStringLiteral(" at ") + q(f.location),
                        q(f.message));
    }
    return out;
}

QString reviewNote(const db::AttemptRow& a) {
    if (!a.suspicious)
        return {};
    if (a.review == "accepted")
        return QStringLiteral(" [suspicious, accepted on review]");
    if (a.review == "rejected")
        return QStringLiteral(" [suspicious, rejected on review]");
    return QStringLiteral(" [SUSPICIOUS: held for review, not scored]");
}

} // namespace

int attemptsCommand(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "List a run's attempts with their verdicts and why, including every anti-cheat finding;\n"
        "or show one attempt in full (--attempt N)."));
    p.addOption(
        {QStringLiteral("db"), QStringLiteral("The database file."), QStringLiteral("FILE")});
    p.addOption({QStringLiteral("run"), QStringLiteral("Run id (default: the latest)."),
                 QStringLiteral("N")});
    p.addOption(
        {QStringLiteral("attempt"), QStringLiteral("One attempt in full."), QStringLiteral("N")});
    p.addOption({QStringLiteral("verdict"),
                 QStringLiteral("Only attempts with this verdict (e.g. rejected)."),
                 QStringLiteral("V")});
    p.addOption({QStringLiteral("suspicious"), QStringLiteral("Only suspicious attempts.")});
    int code = 0;
    if (!parseCommandLine(p, args, QStringLiteral("attempts"), code))
        return code;
    try {
        db::Database database(databasePath(p).toStdString(), db::Database::Access::ReadOnly);
        db::RunRepository runs(database.connection());
        if (p.isSet(QStringLiteral("attempt"))) {
            bool ok = false;
            const db::Id id = p.value(QStringLiteral("attempt")).toLongLong(&ok);
            if (!ok || !runs.attempt(id))
                return fail(QStringLiteral("no attempt with id '%1'")
                                .arg(p.value(QStringLiteral("attempt"))));
            const auto d = db::EvaluationRepository(database.connection()).detail(id);
            const auto& a = d.attempt;
            QString text = QStringLiteral("attempt %1 (run %2): %3 on %4 (level %5), sample %6\n")
                               .arg(a.id)
                               .arg(a.runId)
                               .arg(q(a.modelName), q(a.taskKey))
                               .arg(a.level)
                               .arg(a.sampleIndex);
            text += QStringLiteral("verdict: %1%2\n").arg(q(a.verdict), reviewNote(a));
            if (!a.message.empty())
                text += QStringLiteral("why: %1\n").arg(q(a.message));
            const auto& u = a.uncertainty;
            text += QStringLiteral("speedup: %1 vs eager, %2 vs torch.compile\n")
                        .arg(speed(a.speedupEager, u.eagerLow, u.eagerHigh),
                             speed(a.speedupCompile, u.compileLow, u.compileHigh));
            if (u.noisy() || !u.regime.empty())
                text +=
                    QStringLiteral("timing: %1%2\n")
                        .arg(u.regime.empty() ? QStringLiteral("regime not reported") : q(u.regime),
                             u.noisy()
                                 ? QStringLiteral(", noisy (did not reach its precision target)")
                                 : QString());
            if (d.build)
                text += QStringLiteral("build: %1 in %2 s\n")
                            .arg(q(d.build->status))
                            .arg(d.build->seconds, 0, 'f', 1);
            if (!d.trials.empty()) {
                int passed = 0;
                for (const auto& t : d.trials)
                    passed += t.passed ? 1 : 0;
                text += QStringLiteral("correctness: %1 of %2 trials passed\n")
                            .arg(passed)
                            .arg(d.trials.size());
                for (const auto& t : d.trials)
                    if (!t.passed && !t.message.empty())
                        text += QStringLiteral("  trial %1: %2\n").arg(t.index).arg(q(t.message));
            }
            for (const auto& s : d.timing)
                text += QStringLiteral("timing %1: median %2 ms over %3 samples\n")
                            .arg(q(s.kind))
                            .arg(s.medianMs, 0, 'g', 4)
                            .arg(s.samplesMs.size());
            text += d.findings.empty() ? QStringLiteral("findings: none\n")
                                       : QStringLiteral("findings:\n") +
                                             findingLines(d.findings, QStringLiteral("  "));
            out(text);
            return 0;
        }
        db::Id runId = 0;
        if (p.isSet(QStringLiteral("run"))) {
            runId = p.value(QStringLiteral("run")).toLongLong();
        } else {
            const auto all = runs.runs();
            if (all.empty())
                return fail(QStringLiteral("the database has no runs"));
            for (const auto& r : all)
                runId = std::max(runId, r.id);
        }
        if (!runs.run(runId))
            return fail(QStringLiteral("no run with id %1").arg(runId));
        const QString onlyVerdict = p.value(QStringLiteral("verdict"));
        db::EvaluationRepository evaluations(database.connection());
        QString text;
        int shown = 0;
        for (const auto& a : runs.attempts(runId)) {
            if (!onlyVerdict.isEmpty() && q(a.verdict) != onlyVerdict)
                continue;
            if (p.isSet(QStringLiteral("suspicious")) && !a.suspicious)
                continue;
            ++shown;
            text +=
                QStringLiteral("#%1 %2 %3: %4%5  (eager %6)\n")
                    .arg(a.id)
                    .arg(q(a.modelName), q(a.taskKey), q(a.verdict), reviewNote(a), eagerSpeed(a));
            if (!a.message.empty() && a.verdict != "correct")
                text += QStringLiteral("    why: %1\n").arg(q(a.message));
            const auto d = evaluations.detail(a.id);
            std::vector<db::FindingRow> notable;
            for (const auto& f : d.findings)
                if (f.severity != "info" || a.verdict != "correct")
                    notable.push_back(f);
            text += findingLines(notable, QStringLiteral("    "));
        }
        text += QStringLiteral("%1 attempt(s)\n").arg(shown);
        out(text);
        return 0;
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()));
    }
}

} // namespace kb::cli
