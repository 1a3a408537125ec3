// What a damaged or concurrently opened database file can and cannot do: a file cut short or
// overwritten is refused for writing and left as it was; two processes upgrading a fresh file
// at once both succeed (each thread here has its own connection, as a process would).

#include "db/catalogrepository.h"
#include "db/database.h"
#include "db/schema.h"
#include "db/sqlite.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <latch>
#include <thread>
#include <vector>

using namespace kb::db;

class TestDbSafety : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::string path(const QString& name) const {
        return QString(m_dir.path() + QLatin1Char('/') + name).toStdString();
    }

    static QByteArray fileHash(const std::string& p) {
        QFile f(QString::fromStdString(p));
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
    }

    // A database of a few hundred pages, written back into the main file (no -wal left).
    static void fill(const std::string& p) {
        Database d(p);
        CatalogRepository catalog(d.connection());
        const Id suite = catalog.upsertSuite({0, "big", "", ""});
        std::vector<TaskRow> rows;
        for (int i = 0; i < 300; ++i) {
            TaskRow t;
            t.key = "t" + std::to_string(i);
            t.name = t.key;
            t.source = std::string(3000, static_cast<char>('a' + i % 26));
            t.sourceHash = "h" + std::to_string(i);
            rows.push_back(t);
        }
        catalog.upsertTasks(suite, rows);
        d.connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }

    static void expectDamaged(const std::string& p, const QString& finding) {
        const QByteArray before = fileHash(p);
        try {
            Database d(p);
            QFAIL("a damaged database must not be opened for writing");
        } catch (const DamagedDatabaseError& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.contains(QStringLiteral("is damaged")), e.what());
            QVERIFY2(message.contains(finding), e.what());
            QVERIFY2(message.contains(QStringLiteral(".recover")), e.what());
            QVERIFY2(message.contains(QStringLiteral("not opened for writing")), e.what());
        }
        QCOMPARE(fileHash(p), before);
    }

private Q_SLOTS:
    // Issue: "a database with its tail cut off is opened for writing".
    void aDatabaseCutShortIsRefusedForWriting() {
        const auto p = path(QStringLiteral("cut.kbdb"));
        fill(p);
        QFile f(QString::fromStdString(p));
        QVERIFY(f.size() > 500 * 1024);
        QVERIFY(f.resize(f.size() * 6 / 10));
        expectDamaged(p, QStringLiteral("malformed"));
    }

    void aDatabaseWithAnOverwrittenPageIsRefusedForWriting() {
        const auto p = path(QStringLiteral("overwritten.kbdb"));
        fill(p);
        QFile f(QString::fromStdString(p));
        QVERIFY(f.open(QIODevice::ReadWrite));
        // Page 2 onwards (the schema is page 1): b-tree pages turned into noise.
        QVERIFY(f.seek(4096));
        f.write(QByteArray(3 * 4096, '\x5a'));
        f.close();
        expectDamaged(p, QStringLiteral("damaged"));
    }

    // Above the size where every page is checked on open, a file cut short is still refused.
    void aLargeDatabaseCutShortIsRefusedForWriting() {
        const auto p = path(QStringLiteral("large-cut.kbdb"));
        {
            Database d(p);
            d.connection().exec("CREATE TABLE padding(x BLOB)");
            d.connection().exec(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 80) "
                "INSERT INTO padding SELECT zeroblob(1024 * 1024) FROM n");
            d.connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        QFile f(QString::fromStdString(p));
        QVERIFY(f.size() > 80ll * 1024 * 1024);
        QVERIFY(f.resize(f.size() - 5 * 1024 * 1024));
        expectDamaged(p, QStringLiteral("damaged"));
    }

    void aDatabaseMissingATableOfItsSchemaIsRefused() {
        const auto p = path(QStringLiteral("notable.kbdb"));
        {
            Database d(p);
            d.connection().exec("DROP TABLE findings");
            d.connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        expectDamaged(p, QStringLiteral("no table 'findings'"));
    }

    void aDatabaseCutShortIsRefusedForReadingToo() {
        const auto p = path(QStringLiteral("cut-read.kbdb"));
        fill(p);
        QFile f(QString::fromStdString(p));
        QVERIFY(f.resize(f.size() * 9 / 10));
        try {
            Database d(p, Database::Access::ReadOnly);
            QFAIL("a database cut short must be refused");
        } catch (const DamagedDatabaseError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral(".recover")), e.what());
        }
    }

    // Issue: two `run`s on a fresh database raced the schema upgrade ("duplicate column name").
    void concurrentOpensOfAFreshDatabaseUpgradeItOnce() {
        constexpr int kOpeners = 6;
        for (int round = 0; round < 5; ++round) {
            const auto p = path(QStringLiteral("fresh-%1.kbdb").arg(round));
            std::latch start(kOpeners);
            std::vector<std::string> errors(kOpeners);
            std::vector<std::thread> threads;
            for (int i = 0; i < kOpeners; ++i) {
                threads.emplace_back([&, i] {
                    start.arrive_and_wait();
                    try {
                        Database d(p);
                        CatalogRepository(d.connection())
                            .upsertProvider({0, "p" + std::to_string(i), "demo", "", "{}"});
                    } catch (const std::exception& e) {
                        errors[static_cast<size_t>(i)] = e.what();
                    }
                });
            }
            for (auto& t : threads)
                t.join();
            for (const auto& e : errors)
                QVERIFY2(e.empty(), e.c_str());
            Database d(p);
            Statement q(d.connection(),
                        "SELECT count(*), count(DISTINCT version) FROM schema_version");
            QVERIFY(q.step());
            QCOMPARE(q.int64(0), static_cast<std::int64_t>(currentSchemaVersion()));
            QCOMPARE(q.int64(1), static_cast<std::int64_t>(currentSchemaVersion()));
            QCOMPARE(CatalogRepository(d.connection()).providers().size(), size_t(kOpeners));
        }
    }

    void theUpgradeLeavesForeignKeysOn() {
        Database d(path(QStringLiteral("fk.kbdb")));
        Statement fk(d.connection(), "PRAGMA foreign_keys");
        QVERIFY(fk.step());
        QCOMPARE(fk.int64(0), 1);
    }
};

QTEST_GUILESS_MAIN(TestDbSafety)
#include "tst_dbsafety.moc"
