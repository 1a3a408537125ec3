#include "db/catalogrepository.h"
#include "db/database.h"

#include <QTest>

using namespace kb::db;

class TestCatalog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void providerUpsertKeepsIdAndUpdates()
    {
        Database d(":memory:");
        CatalogRepository c(d.connection());
        const Id a = c.upsertProvider({0, "p", "demo", "", "{}"});
        const Id b = c.upsertProvider({0, "p", "openai", "http://127.0.0.1:1", "{}"});
        QCOMPARE(a, b);
        const auto all = c.providers();
        QCOMPARE(all.size(), size_t(1));
        QCOMPARE(QString::fromStdString(all[0].kind), QStringLiteral("openai"));
    }

    void modelsJoinTheirProvider()
    {
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

    void tasksUpsertInPlaceAndSortByLevel()
    {
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

    void invalidLevelIsRejectedAndNothingIsWritten()
    {
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
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
