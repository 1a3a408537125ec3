#include "db/catalogrepository.h"
#include "db/database.h"
#include "db/runrepository.h"
#include "dbfixture.h"

#include <QTest>
#include <algorithm>

using namespace kb::db;

class TestCatalog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void providerUpsertKeepsIdAndUpdates() {
        Database d(":memory:");
        CatalogRepository c(d.connection());
        const Id a = c.upsertProvider({0, "p", "demo", "", "{}"});
        const Id b = c.upsertProvider({0, "p", "openai", "http://127.0.0.1:1", "{}"});
        QCOMPARE(a, b);
        const auto all = c.providers();
        QCOMPARE(all.size(), size_t(1));
        QCOMPARE(QString::fromStdString(all[0].kind), QStringLiteral("openai"));
    }

    void modelsJoinTheirProvider() {
        Database d(":memory:");
        CatalogRepository c(d.connection());
        const Id p = c.upsertProvider({0, "demo", "demo", "", "{}"});
        ModelRow m;
        m.providerId = p;
        m.name = "demo-a";
        m.label = "Demo A";
        m.priceInPerMTok = 1.5;
        const Id id = c.upsertModel(m);
        const auto byName = c.modelByName("demo-a");
        QVERIFY(byName);
        QCOMPARE(byName->id, id);
        QCOMPARE(QString::fromStdString(byName->providerKind), QStringLiteral("demo"));
        QCOMPARE(*byName->priceInPerMTok, 1.5);
        QVERIFY(!byName->priceOutPerMTok);
        QVERIFY(!c.modelByName("nope"));
        QCOMPARE(c.model(id)->name, std::string("demo-a"));
    }

    void tasksUpsertInPlaceAndSortByLevel() {
        Database d(":memory:");
        CatalogRepository c(d.connection());
        const Id s = c.upsertSuite({0, "suite", "", ""});
        std::vector<TaskRow> rows(2);
        rows[0].key = "b";
        rows[0].name = "B";
        rows[0].level = 2;
        rows[0].source = "x";
        rows[0].sourceHash = "h1";
        rows[1] = rows[0];
        rows[1].key = "a";
        rows[1].level = 1;
        const auto ids = c.upsertTasks(s, rows);
        QCOMPARE(ids.size(), size_t(2));
        rows[0].source = "changed";
        const auto again = c.upsertTasks(s, rows);
        QCOMPARE(again, ids);
        const auto tasks = c.tasks(s);
        QCOMPARE(tasks.size(), size_t(2));
        QCOMPARE(tasks[0].key, std::string("a"));
        QCOMPARE(tasks[1].source, std::string("changed"));
    }

    void invalidLevelIsRejectedAndNothingIsWritten() {
        Database d(":memory:");
        CatalogRepository c(d.connection());
        const Id s = c.upsertSuite({0, "suite", "", ""});
        std::vector<TaskRow> rows(2);
        rows[0].key = "ok";
        rows[0].level = 1;
        rows[1].key = "bad";
        rows[1].level = 9;
        QVERIFY_THROWS_EXCEPTION(Error, c.upsertTasks(s, rows));
        QCOMPARE(c.tasks(s).size(), size_t(0));
    }
    // Issue: re-import rewrote tasks under finished runs. The run keeps the version it evaluated.
    void reimportAfterARunKeepsTheEvaluatedVersion() {
        Database d(":memory:");
        CatalogRepository c(d.connection());
        const Id provider = c.upsertProvider({0, "demo", "demo", "", "{}"});
        ModelRow m;
        m.providerId = provider;
        m.name = "model";
        const Id model = c.upsertModel(m);
        const Id s = c.upsertSuite({0, "suite", "", ""});
        std::vector<TaskRow> rows(2);
        rows[0].key = "relu";
        rows[0].name = "ReLU";
        rows[0].source = "v1";
        rows[0].sourceHash = "h1";
        rows[1].key = "gelu";
        rows[1].name = "GELU";
        rows[1].source = "g1";
        rows[1].sourceHash = "g1";
        const auto ids = c.upsertTasks(s, rows);
        RunRepository runs(d.connection());
        RunRow run;
        run.suiteId = s;
        const Id runId = runs.createRun(run, {model}, {ids[0]}, 1);
        for (const Id a : runs.queuedAttemptIds(runId))
            runs.finishAttempt(a, "done", "correct", "");
        runs.setRunStatus(runId, "finished");
        c.storeTaskValidation({ids[0], "cpu", "[]", "{}", ""});

        rows[0].source = "v2";
        rows[0].sourceHash = "h2";
        rows[1].source = "g2";
        rows[1].sourceHash = "g2";
        const TaskImport second = c.importTasks(s, rows);
        QCOMPARE(second.versioned, 1); // used by the run
        QCOMPARE(second.updated, 1);   // never used: changed in place
        QCOMPARE(second.added, 0);
        QVERIFY(second.ids[0] != ids[0]);
        QCOMPARE(second.ids[1], ids[1]);

        // The finished run still points at what it evaluated.
        const auto attempts = runs.attempts(runId);
        QCOMPARE(attempts.size(), size_t(1));
        QCOMPARE(attempts[0].taskId, ids[0]);
        QCOMPARE(c.task(ids[0])->source, std::string("v1"));
        QCOMPARE(c.task(ids[0])->version, 1);
        QVERIFY(!c.task(ids[0])->current);
        QCOMPARE(c.taskValidations(ids[0]).size(), size_t(1));
        // New runs take the new version, which has not been validated.
        const auto current = c.tasks(s);
        QCOMPARE(current.size(), size_t(2));
        const auto relu = std::find_if(current.begin(), current.end(),
                                       [](const TaskRow& t) { return t.key == "relu"; });
        QCOMPARE(relu->source, std::string("v2"));
        QCOMPARE(relu->version, 2);
        QCOMPARE(c.taskValidations(relu->id).size(), size_t(0));
        QCOMPARE(c.taskVersions(s, "relu").size(), size_t(2));

        // The same content again changes nothing.
        const TaskImport third = c.importTasks(s, rows);
        QCOMPARE(third.unchanged, 2);
        QCOMPARE(third.ids, second.ids);
        QCOMPARE(c.taskVersions(s, "relu").size(), size_t(2));
    }

    // Issue: duplicate task ids were counted twice and stored once.
    void duplicateTaskIdsAreRefusedAndNothingIsWritten() {
        Database d(":memory:");
        CatalogRepository c(d.connection());
        const Id s = c.upsertSuite({0, "suite", "", ""});
        std::vector<TaskRow> rows(3);
        for (size_t i = 0; i < rows.size(); ++i) {
            rows[i].key = i == 2 ? "a" : std::string(1, static_cast<char>('a' + i));
            rows[i].source = "x";
        }
        try {
            c.importTasks(s, rows);
            QFAIL("duplicate ids must be refused");
        } catch (const Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("'a' appears twice")),
                     e.what());
        }
        QCOMPARE(c.tasks(s).size(), size_t(0));
    }

    // Issue: `run` on a user suite named `sample` overwrote it with the built-in one.
    void aBuiltinSuiteNeverTakesAUsersSuite() {
        Database d(":memory:");
        CatalogRepository c(d.connection());
        const Id user = c.upsertSuite({0, "sample", "mine", "/home/me/suite"});
        const SuiteRow builtin = c.upsertBuiltinSuite({0, "sample", "shipped", "/usr/share"});
        QVERIFY(builtin.id != user);
        QCOMPARE(builtin.name, std::string("builtin:sample"));
        QVERIFY(c.isBuiltinSuite(builtin.id));
        QVERIFY(!c.isBuiltinSuite(user));
        QCOMPARE(c.suiteByName("sample")->description, std::string("mine"));
        // Stored again, it stays where it is.
        QCOMPARE(c.upsertBuiltinSuite({0, "sample", "shipped 2", ""}).id, builtin.id);
        QCOMPARE(c.suiteByName("sample")->id, user);
    }

    void aUsersSuiteNeverTakesABuiltinSuite() {
        Database d(":memory:");
        CatalogRepository c(d.connection());
        const SuiteRow builtin = c.upsertBuiltinSuite({0, "sample", "shipped", ""});
        QCOMPARE(builtin.name, std::string("sample"));
        try {
            c.upsertSuite({0, "sample", "mine", ""});
            QFAIL("a user's suite must not replace a built-in one");
        } catch (const Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("--name")), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, c.upsertSuite({0, "builtin:other", "", ""}));
        QCOMPARE(c.suiteByName("sample")->description, std::string("shipped"));
        QCOMPARE(c.suites().size(), size_t(1));
    }

    void providerAndModelNamesAreCheckedAgainstOtherRows() {
        Database d(":memory:");
        CatalogRepository c(d.connection());
        const Id p1 = c.upsertProvider({0, "p1", "demo", "", "{}"});
        const Id p2 = c.upsertProvider({0, "p2", "demo", "", "{}"});
        QVERIFY(c.providerNameTaken("p1"));
        QVERIFY(!c.providerNameTaken("p1", p1)); // its own name
        QVERIFY(c.providerNameTaken("p1", p2));
        QVERIFY(!c.providerNameTaken("p3"));
        ModelRow m;
        m.providerId = p1;
        m.name = "m";
        const Id model = c.upsertModel(m);
        QVERIFY(c.modelNameTaken(p1, "m"));
        QVERIFY(!c.modelNameTaken(p1, "m", model));
        QVERIFY(!c.modelNameTaken(p2, "m")); // per provider
    }

    void updateByIdRewritesEveryColumn() {
        Database d(":memory:");
        CatalogRepository c(d.connection());
        const Id p = c.upsertProvider({0, "p", "demo", "", "{}"});
        const Id other = c.upsertProvider({0, "other", "demo", "", "{}"});
        QVERIFY(c.updateProvider({p, "renamed", "openai", "http://127.0.0.1:1", R"({"a":1})"}));
        const auto providers = c.providers();
        QCOMPARE(providers.size(), size_t(2));
        QCOMPARE(providers[1].id, p); // by name: other, renamed
        QCOMPARE(providers[1].name, std::string("renamed"));
        QCOMPARE(providers[1].kind, std::string("openai"));
        QCOMPARE(providers[1].baseUrl, std::string("http://127.0.0.1:1"));
        QCOMPARE(providers[1].settingsJson, std::string(R"({"a":1})"));
        QVERIFY(!c.updateProvider({p + 100, "gone", "demo", "", "{}"}));
        // A name taken by another row is refused by the table, and nothing changes.
        QVERIFY_THROWS_EXCEPTION(Error, c.updateProvider({p, "other", "demo", "", "{}"}));
        QCOMPARE(c.providers()[1].name, std::string("renamed"));

        ModelRow m;
        m.providerId = p;
        m.name = "m";
        m.priceInPerMTok = 1.0;
        m.id = c.upsertModel(m);
        m.providerId = other;
        m.name = "m2";
        m.label = "Model 2";
        m.priceInPerMTok.reset();
        m.priceOutPerMTok = 4.0;
        QVERIFY(c.updateModel(m));
        const auto stored = c.model(m.id);
        QVERIFY(stored);
        QCOMPARE(stored->providerId, other);
        QCOMPARE(stored->name, std::string("m2"));
        QCOMPARE(stored->label, std::string("Model 2"));
        QVERIFY(!stored->priceInPerMTok);
        QCOMPARE(*stored->priceOutPerMTok, 4.0);
        m.id += 100;
        QVERIFY(!c.updateModel(m));
    }

    void removingNeedsNoAttempts() {
        kb::test::DbFixture f;
        CatalogRepository c(f.database.connection());
        const Id provider = c.models()[0].providerId;
        QCOMPARE(c.providerAttemptCount(provider), 0);
        QCOMPARE(c.modelAttemptCount(f.models[0]), 0);
        f.createRun(2);
        QCOMPARE(c.providerAttemptCount(provider), 12);
        QCOMPARE(c.modelAttemptCount(f.models[0]), 6);
        // The attempts keep their models: removing refuses, and removes nothing.
        QVERIFY_THROWS_EXCEPTION(Error, c.removeProvider(provider));
        QVERIFY_THROWS_EXCEPTION(Error, c.removeModel(f.models[0]));
        QCOMPARE(c.models().size(), size_t(2));
        QCOMPARE(c.providers().size(), size_t(1));

        ModelRow unused;
        unused.providerId = provider;
        unused.name = "unused";
        const Id unusedId = c.upsertModel(unused);
        c.removeModel(unusedId);
        QVERIFY(!c.model(unusedId));

        const Id lone = c.upsertProvider({0, "lone", "demo", "", "{}"});
        ModelRow a;
        a.providerId = lone;
        a.name = "a";
        c.upsertModel(a);
        a.name = "b";
        c.upsertModel(a);
        c.removeProvider(lone);
        QCOMPARE(c.providers().size(), size_t(1));
        QCOMPARE(c.models().size(), size_t(2)); // the fixture's
    }

    void validationFlagsWithTheirTaskKeys() {
        kb::test::DbFixture f;
        CatalogRepository c(f.database.connection());
        QVERIFY(c.validationFlags().empty());
        c.storeTaskValidation({f.tasks[1], "cuda", R"(["below_tolerance"])", R"({"big":1})", ""});
        c.storeTaskValidation({f.tasks[1], "cpu", "[]", "{}", ""});
        c.storeTaskValidation({f.tasks[0], "cuda", R"(["constant_output"])", "{}", ""});
        const auto flags = c.validationFlags();
        QCOMPARE(flags.size(), size_t(3));
        QCOMPARE(flags[0].taskKey, std::string("t0"));
        QCOMPARE(flags[0].taskId, f.tasks[0]);
        QCOMPARE(flags[0].flagsJson, std::string(R"(["constant_output"])"));
        QCOMPARE(flags[1].taskKey, std::string("t1"));
        QCOMPARE(flags[1].device, std::string("cpu")); // by key, then device
        QCOMPARE(flags[2].device, std::string("cuda"));
        QCOMPARE(flags[2].detailsJson, std::string("{}")); // the report is not read
        QVERIFY(!flags[2].checkedAt.empty());
    }
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
