#pragma once
// A run engine over the scripted harness (tests/engine/fakeresources) and the fake provider
// server: one provider "fake" of the chosen wire format with the model "coder", its key in a
// memory key store.

#include "core/paths.h"
#include "db/catalogrepository.h"
#include "db/runrepository.h"
#include "providers/keystore.h"
#include "run/runengine.h"
#include "scriptedreplies.h"
#include "suites/suiteimporter.h"
#include "suites/suiteloader.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>

namespace kb::test {

inline const QString kFakeKey = QStringLiteral("sk-fake-Kq7Vb93LmZpS1tUvW2xY4aB6cD8eF0gH");

inline void copyTree(const QString& from, const QString& to) {
    QDir().mkpath(to);
    for (const auto& e :
         QDir(from).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
        if (e.isDir())
            copyTree(e.absoluteFilePath(), to + QLatin1Char('/') + e.fileName());
        else
            QFile::copy(e.absoluteFilePath(), to + QLatin1Char('/') + e.fileName());
    }
}

class GenerationFixture {
public:
    explicit GenerationFixture(Wire wire, const QJsonObject& providerSettings = {})
        : m_wire(wire) {
        copyTree(QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/../engine/fakeresources"), m_dir.path());
        qputenv("KBSTUDIO_RESOURCES", m_dir.path().toUtf8());
        engine = std::make_unique<engine::RunEngine>(m_dir.path() + QStringLiteral("/test.kbdb"));
        auto& conn = engine->database().connection();
        engine::importSuite(conn, engine::SuiteLoader::loadFolder(engine::sampleSuiteDir()));
        db::CatalogRepository catalog(conn);
        QJsonObject settings = providerSettings;
        settings.insert(QStringLiteral("retry_base_delay_ms"), 10);
        db::ProviderRow p;
        p.name = "fake";
        p.kind = wire == Wire::OpenAi ? "openai" : "anthropic";
        p.baseUrl = (wire == Wire::OpenAi ? server.url(QStringLiteral("/v1")) : server.url())
                        .toString()
                        .toStdString();
        p.settingsJson = compactJson(settings).toStdString();
        db::ModelRow m;
        m.providerId = catalog.upsertProvider(p);
        m.name = "coder";
        m.priceInPerMTok = 1.0;
        m.priceOutPerMTok = 2.0;
        catalog.upsertModel(m);
        keys = std::make_shared<engine::MemoryKeyStore>();
        // The key is bound to the provider's host, as `provider add` stores it.
        keys->writeKey(engine::hostBoundKeyName(QStringLiteral("fake"), server.url()), kFakeKey);
        engine->setKeyStore(keys);
        QObject::connect(engine.get(), &engine::RunEngine::logLine, engine.get(),
                         [this](const QString& line) { log << line; });
    }
    ~GenerationFixture() {
        engine.reset();
        qunsetenv("KBSTUDIO_RESOURCES");
    }

    QString path() const { return m_dir.path(); }
    QString dbPath() const { return m_dir.path() + QStringLiteral("/test.kbdb"); }
    db::Connection& conn() { return engine->database().connection(); }

    // Creates a run of one model (default "coder") on task t1 and runs it to the end.
    db::Id run(const QString& mode, engine::GenerationSettings g = {}, int timeoutMs = 60000,
               const QString& model = QStringLiteral("coder")) {
        engine::RunSpec s;
        s.suite = QStringLiteral("sample");
        s.models = {model};
        s.tasks = {QStringLiteral("t1")};
        s.mode = mode;
        s.settings.device = QStringLiteral("cpu");
        s.settings.timeoutSeconds = 20;
        s.settings.buildTimeoutSeconds = 20;
        s.settings.buildJobs = 1;
        s.settings.retryLimit = 0; // a harness failure is final at once
        g.retryBaseDelayMs = 10;
        s.generation = g;
        const db::Id id = engine->createRun(s);
        QSignalSpy done(engine.get(), &engine::RunEngine::runFinished);
        engine->start(id);
        finished = done.wait(timeoutMs);
        return id;
    }

    db::AttemptRow attempt(db::Id run) { return db::RunRepository(conn()).attempts(run).at(0); }
    std::vector<db::TurnRow> turns(db::Id run) {
        return db::RunRepository(conn()).turns(attempt(run).id);
    }

    QByteArray dbBytes() const {
        QByteArray all;
        for (const QString& suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")}) {
            QFile f(dbPath() + suffix);
            if (f.open(QIODevice::ReadOnly))
                all += f.readAll();
        }
        return all;
    }

    FakeProviderServer server;
    std::unique_ptr<engine::RunEngine> engine;
    std::shared_ptr<engine::MemoryKeyStore> keys;
    QStringList log;
    bool finished = false;

private:
    QTemporaryDir m_dir;
    Wire m_wire;
};

} // namespace kb::test
