#include "suitefileimport.h"

#include "core/error.h"
#include "db/database.h"
#include "suites/jsonlsuite.h"
#include "suites/suiteimporter.h"

#include <QCoreApplication>
#include <QStringList>

namespace kb::gui {

namespace {

QString tr(const char* text, const char* disambiguation = nullptr, int n = -1) {
    return QCoreApplication::translate("kb::gui::SuiteFileImport", text, disambiguation, n);
}

} // namespace

QString importSuiteJsonl(const QString& databasePath, const QString& file,
                         const QString& nameOverride, QString* summary, db::Id* suiteId) {
    try {
        const engine::SuiteDefinition suite = engine::loadJsonlSuite(file, nameOverride);
        if (!suite.problems.isEmpty()) {
            // As the CLI without --skip-invalid: a partly broken file is not half imported.
            return tr("%n line(s) of the file cannot be used; nothing was imported:", nullptr,
                      int(suite.problems.size())) +
                   QLatin1Char('\n') + suite.problems.join(QLatin1Char('\n'));
        }
        // Opened only now: a refused file never touches the database.
        db::Database database(databasePath.toStdString());
        const auto imported = engine::importSuite(database.connection(), suite);
        if (suiteId)
            *suiteId = imported.suiteId;
        if (summary) {
            *summary =
                tr("Imported %n task(s) into '%1'.", nullptr, imported.tasks).arg(imported.name);
            if (imported.versioned)
                *summary += QLatin1Char(' ') +
                            tr("%n task(s) changed after a run used them and got a new version; "
                               "the runs keep the version they evaluated.",
                               nullptr, imported.versioned);
        }
    } catch (const engine::Error& e) {
        return e.message();
    } catch (const std::exception& e) {
        return tr("Could not import the suite: %1").arg(QString::fromUtf8(e.what()));
    }
    return {};
}

} // namespace kb::gui
