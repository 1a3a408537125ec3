#pragma once
// A resources folder for engine tests: the scripted harness stand-in, a three-task suite and a
// demo folder whose candidates script what the harness does (see fakeresources/harness).

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>

namespace kb::test {

class FakeResources {
public:
    // scripts: "model/task" -> script line, e.g. "correct 2.0", "segfault", "hang".
    explicit FakeResources(const QMap<QString, QString>& scripts) {
        copyTree(QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/fakeresources"), m_dir.path());
        QDir().mkpath(m_dir.path() + QStringLiteral("/demo"));
        QJsonArray models;
        QJsonArray candidates;
        QStringList seen;
        for (auto it = scripts.begin(); it != scripts.end(); ++it) {
            const QString model = it.key().section(QLatin1Char('/'), 0, 0);
            const QString task = it.key().section(QLatin1Char('/'), 1, 1);
            if (!seen.contains(model)) {
                seen << model;
                models.append(
                    QJsonObject{{QStringLiteral("id"), model}, {QStringLiteral("label"), model}});
            }
            const QString file = model + QLatin1Char('_') + task + QStringLiteral(".py");
            QFile f(m_dir.path() + QStringLiteral("/demo/") + file);
            f.open(QIODevice::WriteOnly);
            f.write(QStringLiteral("# SCRIPT: %1\nclass ModelNew:\n    pass\n")
                        .arg(it.value())
                        .toUtf8());
            candidates.append(QJsonObject{{QStringLiteral("model"), model},
                                          {QStringLiteral("task"), task},
                                          {QStringLiteral("file"), file},
                                          {QStringLiteral("expect"), it.value()}});
        }
        QFile manifest(m_dir.path() + QStringLiteral("/demo/manifest.json"));
        manifest.open(QIODevice::WriteOnly);
        manifest.write(QJsonDocument(QJsonObject{{QStringLiteral("models"), models},
                                                 {QStringLiteral("candidates"), candidates}})
                           .toJson());
        qputenv("KBSTUDIO_RESOURCES", m_dir.path().toUtf8());
    }
    ~FakeResources() { qunsetenv("KBSTUDIO_RESOURCES"); }

    QString path() const { return m_dir.path(); }
    QString dbPath() const { return m_dir.path() + QStringLiteral("/test.kbdb"); }

private:
    static void copyTree(const QString& from, const QString& to) {
        QDir().mkpath(to);
        const QDir src(from);
        for (const auto& e : src.entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (e.isDir())
                copyTree(e.absoluteFilePath(), to + QLatin1Char('/') + e.fileName());
            else
                QFile::copy(e.absoluteFilePath(), to + QLatin1Char('/') + e.fileName());
        }
    }
    QTemporaryDir m_dir;
};

} // namespace kb::test
