// The key file: created 0600 in a 0700 folder from the start, even under a permissive umask,
// tightened if someone loosened it, and its contents never quoted in errors.
#include "providers/keystore.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace kb;

namespace {
mode_t modeOf(const QString& path) {
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return 0;
    return st.st_mode & 07777;
}
} // namespace

class TestKeyStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void writeReadRemove() {
        QTemporaryDir tmp;
        engine::FileKeyStore store(tmp.path() + QStringLiteral("/cfg/kbstudio/keys.json"));
        QString err;
        QVERIFY(!store.readKey(QStringLiteral("openrouter"), &err));
        QVERIFY(err.isEmpty());
        QVERIFY2(store.writeKey(QStringLiteral("openrouter"), QStringLiteral("sk-or-1"), &err),
                 qPrintable(err));
        QVERIFY(store.writeKey(QStringLiteral("anthropic"), QStringLiteral("sk-ant-2"), &err));
        QCOMPARE(store.readKey(QStringLiteral("openrouter")).value_or(QString()),
                 QStringLiteral("sk-or-1"));
        QCOMPARE(engine::FileKeyStore(store.path())
                     .readKey(QStringLiteral("anthropic"))
                     .value_or(QString()),
                 QStringLiteral("sk-ant-2"));
        QVERIFY(store.removeKey(QStringLiteral("openrouter"), &err));
        QVERIFY(!store.readKey(QStringLiteral("openrouter")));
        QVERIFY(store.readKey(QStringLiteral("anthropic")));
        QVERIFY(!QFile::exists(store.path() + QStringLiteral(".new")));
        QVERIFY(!store.describe().contains(QStringLiteral("sk-ant-2")));
    }

    void fileIsOwnerOnlyEvenUnderAPermissiveUmask() {
        QTemporaryDir tmp;
        const mode_t old = ::umask(0);
        engine::FileKeyStore store(tmp.path() + QStringLiteral("/new/keys.json"));
        const bool ok = store.writeKey(QStringLiteral("k"), QStringLiteral("v-secret"));
        const bool ok2 =
            store.writeKey(QStringLiteral("k2"), QStringLiteral("v-secret2")); // replaces
        ::umask(old);
        QVERIFY(ok && ok2);
        QCOMPARE(modeOf(store.path()), mode_t(0600));
        QCOMPARE(modeOf(tmp.path() + QStringLiteral("/new")), mode_t(0700));
    }

    void loosenedFileIsTightenedOnRead() {
        QTemporaryDir tmp;
        engine::FileKeyStore store(tmp.path() + QStringLiteral("/keys.json"));
        QVERIFY(store.writeKey(QStringLiteral("k"), QStringLiteral("v")));
        QVERIFY(::chmod(QFile::encodeName(store.path()).constData(), 0644) == 0);
        QCOMPARE(store.readKey(QStringLiteral("k")).value_or(QString()), QStringLiteral("v"));
        QCOMPARE(modeOf(store.path()), mode_t(0600));
    }

    void corruptFileIsAnErrorThatDoesNotQuoteIt() {
        QTemporaryDir tmp;
        const QString path = tmp.path() + QStringLiteral("/keys.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"keys\": {\"k\": \"sk-half-written");
        f.close();
        engine::FileKeyStore store(path);
        QString err;
        QVERIFY(!store.readKey(QStringLiteral("k"), &err));
        QVERIFY(err.contains(QStringLiteral("not valid JSON")));
        QVERIFY(!err.contains(QStringLiteral("sk-half")));
        QVERIFY(
            !store.writeKey(QStringLiteral("k"), QStringLiteral("x"), &err)); // never clobbers it
    }

    void defaultPathFollowsTheEnvironment() {
        qputenv("KBSTUDIO_CONFIG_DIR", "/some/where");
        QCOMPARE(engine::FileKeyStore::defaultPath(), QStringLiteral("/some/where/keys.json"));
        qunsetenv("KBSTUDIO_CONFIG_DIR");
        QVERIFY(
            engine::FileKeyStore::defaultPath().endsWith(QStringLiteral("/kbstudio/keys.json")));
    }

    void memoryStore() {
        engine::MemoryKeyStore m;
        QVERIFY(m.writeKey(QStringLiteral("a"), QStringLiteral("b")));
        QCOMPARE(*m.readKey(QStringLiteral("a")), QStringLiteral("b"));
        QVERIFY(m.removeKey(QStringLiteral("a")));
        QVERIFY(!m.readKey(QStringLiteral("a")));
    }
};

QTEST_GUILESS_MAIN(TestKeyStore)
#include "tst_keystore.moc"
