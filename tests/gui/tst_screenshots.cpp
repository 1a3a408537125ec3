// Rendering every page to PNG at 1280x800 from a fixture database (what
// scripts/render-screenshots.sh drives through `kbstudio --screenshots`).

#include "app/mainwindow.h"
#include "app/screenshotrenderer.h"
#include "guifixture.h"
#include "guitesthelpers.h"

#include <QDir>
#include <QImage>
#include <QSignalSpy>
#include <QTest>

using namespace kb;

class TestScreenshots : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settingsDir); }

    void rendersEveryPage() {
        test::GuiFixture fixture;
        QTemporaryDir out;
        gui::MainWindow window;
        gui::ScreenshotRenderer renderer(&window, out.path());
        QSignalSpy finished(&renderer, &gui::ScreenshotRenderer::finished);
        window.openDatabase(fixture.path());
        renderer.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QStringList names;
        for (const QString& path : renderer.writtenFiles()) {
            names << QFileInfo(path).baseName();
            const QImage image(path);
            QCOMPARE(image.size(), QSize(1280, 800));
        }
        QCOMPARE(names,
                 (QStringList{QStringLiteral("runs"), QStringLiteral("results"),
                              QStringLiteral("leaderboard"), QStringLiteral("plots"),
                              QStringLiteral("compare"), QStringLiteral("attempt-transcript"),
                              QStringLiteral("attempt-code"), QStringLiteral("attempt-timing"),
                              QStringLiteral("attempt-findings"), QStringLiteral("monitor"),
                              QStringLiteral("providers"), QStringLiteral("suites")}));
        // Keep a copy for people looking at a failed CI run.
        if (const QByteArray keep = qgetenv("KBSTUDIO_SCREENSHOT_DIR"); !keep.isEmpty()) {
            QDir().mkpath(QString::fromLocal8Bit(keep));
            for (const QString& path : renderer.writtenFiles())
                QFile::copy(
                    path, QDir(QString::fromLocal8Bit(keep)).filePath(QFileInfo(path).fileName()));
        }
    }

    void emptyDatabaseRendersTheEmptyState() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("empty.kbdb"));
        test::GuiFixture::writeEmpty(path);
        gui::MainWindow window;
        gui::ScreenshotRenderer renderer(&window, dir.filePath(QStringLiteral("shots")));
        QSignalSpy finished(&renderer, &gui::ScreenshotRenderer::finished);
        window.openDatabase(path);
        renderer.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QVERIFY(finished.at(0).at(0).toBool());
        QCOMPARE(renderer.writtenFiles().size(), 1);
        QVERIFY(renderer.writtenFiles().constFirst().endsWith(QLatin1String("empty.png")));
    }

private:
    QTemporaryDir m_settingsDir;
};

QTEST_MAIN(TestScreenshots)
#include "tst_screenshots.moc"
