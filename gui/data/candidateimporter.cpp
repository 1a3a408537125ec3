#include "candidateimporter.h"

#include "core/deviceprobe.h"
#include "core/error.h"
#include "db/catalogrepository.h"
#include "db/database.h"
#include "imports/candidateimport.h"

#include <QCoreApplication>
#include <QThread>
#include <algorithm>

namespace kb::gui {

namespace {

QString tr(const char* text, const char* disambiguation = nullptr, int n = -1) {
    return QCoreApplication::translate("kb::gui::CandidateImporter", text, disambiguation, n);
}

} // namespace

engine::EvalSettings importedRunSettings(const QString& device) {
    engine::EvalSettings settings;
    settings.device = device == QLatin1String("auto") ? engine::detectDevice() : device;
    const bool cuda = settings.device == QLatin1String("cuda");
    settings.timingTrials = cuda ? 100 : 30;
    settings.maxTimingSeconds = cuda ? 10.0 : 3.0;
    settings.buildJobs = std::max(1, QThread::idealThreadCount());
    return settings;
}

CandidateImportResult importCandidateRun(const QString& databasePath,
                                         const CandidateImportRequest& request) {
    CandidateImportResult result;
    if (request.path.trimmed().isEmpty()) {
        result.error = tr("Choose a KernelBench run folder or a JSON-lines file of candidates.");
        return result;
    }
    if (request.suiteName.isEmpty()) {
        result.error = tr("Choose the suite whose tasks the candidates solve.");
        return result;
    }
    if (!QStringList{QStringLiteral("cpu"), QStringLiteral("cuda"), QStringLiteral("auto")}
             .contains(request.device)) {
        result.error = tr("The device must be cpu, cuda or auto.");
        return result;
    }
    try {
        db::Database database(databasePath.toStdString());
        auto& conn = database.connection();
        db::CatalogRepository catalog(conn);
        const auto suite = catalog.suiteByName(request.suiteName.toStdString());
        if (!suite) {
            result.error = tr("There is no suite named '%1'; import it first (Suites page).")
                               .arg(request.suiteName);
            return result;
        }
        const auto import =
            engine::readCandidates(request.path, request.model.trimmed(), catalog.tasks(suite->id));
        if (!import.problems.isEmpty()) {
            result.problems = import.problems;
            result.error = tr("%n problem(s) with the candidates in %1 (suite '%2'); nothing was "
                              "imported:",
                              nullptr, int(import.problems.size()))
                               .arg(request.path, request.suiteName) +
                           QLatin1Char('\n') + import.problems.join(QLatin1Char('\n'));
            return result;
        }
        result.models = import.models();
        result.runName = request.runName.trimmed().isEmpty()
                             ? QStringLiteral("%1 / imported %2")
                                   .arg(request.suiteName, result.models.join(QStringLiteral(", ")))
                             : request.runName.trimmed();
        const auto stored = engine::storeImportedRun(conn, suite->id, result.runName,
                                                     importedRunSettings(request.device), import);
        result.runId = stored.runId;
        result.attempts = stored.attempts;
    } catch (const engine::Error& e) {
        result.error = e.message();
    } catch (const std::exception& e) {
        result.error = tr("Could not import the candidates: %1").arg(QString::fromUtf8(e.what()));
    }
    return result;
}

} // namespace kb::gui
