#include "db/database.h"
#include "db/schema.h"
#include "db/sqlite.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace kb::db;

class TestSchema : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::string path(const char* name) const {
        return QString(m_dir.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

    static QByteArray fileHash(const std::string& p) {
        QFile f(QString::fromStdString(p));
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
    }

private Q_SLOTS:
    void freshDatabaseIsMigratedToCurrent() {
        Database d(path("fresh.kbdb"));
        QCOMPARE(d.schemaVersion(), currentSchemaVersion());
        QVERIFY(currentSchemaVersion() >= 1);
    }

    void walAndForeignKeysAreOn() {
        Database d(path("pragmas.kbdb"));
        Statement jm(d.connection(), "PRAGMA journal_mode");
        QVERIFY(jm.step());
        QCOMPARE(QString::fromStdString(jm.text(0)), QStringLiteral("wal"));
        Statement fk(d.connection(), "PRAGMA foreign_keys");
        QVERIFY(fk.step());
        QCOMPARE(fk.int64(0), 1);
    }

    void everyEntityHasATable_data() {
        QTest::addColumn<QString>("table");
        for (const char* t : {"providers",
                              "models",
                              "suites",
                              "tasks",
                              "runs",
                              "attempts",
                              "turns",
                              "candidates",
                              "builds",
                              "evaluations",
                              "correctness_trials",
                              "timing_series",
                              "timing_samples",
                              "baselines",
                              "environments",
                              "findings",
                              "task_summaries",
                              "imported_candidates",
                              "turn_details",
                              "schema_version"})
            QTest::newRow(t) << QString::fromLatin1(t);
    }
    void everyEntityHasATable() {
        QFETCH(QString, table);
        Database d(":memory:");
        Statement q(d.connection(),
                    "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name=?");
        q.bind(1, table.toStdString());
        QVERIFY(q.step());
        QCOMPARE(q.int64(0), 1);
    }

    void reopeningDoesNotMigrateTwice() {
        const auto p = path("reopen.kbdb");
        { Database d(p); }
        Database d(p);
        Statement q(d.connection(), "SELECT count(*) FROM schema_version");
        QVERIFY(q.step());
        QCOMPARE(q.int64(0), static_cast<std::int64_t>(currentSchemaVersion()));
    }

    void newerSchemaIsRefusedAndLeftUntouched() {
        const auto p = path("newer.kbdb");
        {
            Database d(p);
            d.connection().exec("INSERT INTO schema_version(version) VALUES (" +
                                std::to_string(currentSchemaVersion() + 5) + ")");
            d.connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        const QByteArray before = fileHash(p);
        try {
            Database d(p);
            QFAIL("opening a newer database must fail");
        } catch (const SchemaTooNewError& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("newer")));
        }
        QCOMPARE(fileHash(p), before);
        QVERIFY_THROWS_EXCEPTION(SchemaTooNewError, Database(p, Database::Access::ReadOnly));
    }

    void unreadablePathGivesAClearError() {
        try {
            Database d(path("no/such/folder/x.kbdb"));
            QFAIL("must throw");
        } catch (const Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("cannot open database")),
                     e.what());
        }
    }

    void garbageFileIsNotADatabase() {
        const auto p = path("garbage.kbdb");
        QFile f(QString::fromStdString(p));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(4096, 'x'));
        f.close();
        const QByteArray before = fileHash(p);
        try {
            Database d(p);
            QFAIL("must throw");
        } catch (const Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("not a database")),
                     e.what());
        }
        QCOMPARE(fileHash(p), before);
    }

    void readOnlyOpenOfMissingFileFails() {
        QVERIFY_THROWS_EXCEPTION(Error, Database(path("missing.kbdb"), Database::Access::ReadOnly));
    }

    void transactionRollsBackOnException() {
        Database d(":memory:");
        auto& c = d.connection();
        try {
            Transaction tx(c);
            c.exec("INSERT INTO providers(name, kind) VALUES ('p', 'demo')");
            c.exec("INSERT INTO providers(name, kind) VALUES ('p', 'demo')"); // UNIQUE violation
            tx.commit();
        } catch (const Error&) {
        }
        Statement q(c, "SELECT count(*) FROM providers");
        QVERIFY(q.step());
        QCOMPARE(q.int64(0), 0);
    }

    void nestedTransactionRollsBackOnlyItsPart() {
        Database d(":memory:");
        auto& c = d.connection();
        Transaction outer(c);
        c.exec("INSERT INTO providers(name, kind) VALUES ('kept', 'demo')");
        {
            Transaction inner(c);
            c.exec("INSERT INTO providers(name, kind) VALUES ('dropped', 'demo')");
        }
        outer.commit();
        Statement q(c, "SELECT group_concat(name) FROM providers");
        QVERIFY(q.step());
        QCOMPARE(QString::fromStdString(q.text(0)), QStringLiteral("kept"));
    }

    void foreignKeysAreEnforced() {
        Database d(":memory:");
        QVERIFY_THROWS_EXCEPTION(
            Error, d.connection().exec("INSERT INTO models(provider_id, name) VALUES (42, 'x')"));
    }
};

QTEST_GUILESS_MAIN(TestSchema)
#include "tst_schema.moc"
