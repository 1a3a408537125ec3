// The PDF report: rendered through report_pdf, rasterised with pdftoppm (poppler-utils) and
// checked to hold ink on its pages.

#include "engine/report/pdfreport.h"
#include "reportfixture.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

namespace {

// Share of pixels that are not (nearly) white.
double inkShare(const QImage& image) {
    qint64 ink = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QRgb p = image.pixel(x, y);
            if (qRed(p) < 240 || qGreen(p) < 240 || qBlue(p) < 240)
                ++ink;
        }
    }
    return static_cast<double>(ink) / (static_cast<double>(image.width()) * image.height());
}

} // namespace

class TestPdfReport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rendersPagesWithContent() {
        const QString pdftoppm = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
        if (pdftoppm.isEmpty())
            QFAIL("pdftoppm not found: install poppler-utils to check the PDF report");
        test::ReportFixture fixture;
        report::ExportFilter filter;
        filter.runId = fixture.run;
        const auto data = report::loadReportData(fixture.database.connection(), filter);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString pdf = dir.filePath(QStringLiteral("report.pdf"));
        report::HtmlOptions options;
        options.title = QStringLiteral("Fixture report");
        const QString error = report::writePdfReport(data, pdf, options);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QFile file(pdf);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.read(5) == "%PDF-");
        file.close();

        QProcess p;
        p.start(pdftoppm, {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("40"), pdf,
                           dir.filePath(QStringLiteral("page"))});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const auto pages =
            QDir(dir.path()).entryList({QStringLiteral("page*.png")}, QDir::Files, QDir::Name);
        QVERIFY2(pages.size() >= 2, qPrintable(pages.join(QLatin1Char(' '))));
        double total = 0;
        for (const auto& page : pages) {
            QImage image(dir.filePath(page));
            QVERIFY(!image.isNull());
            const double share = inkShare(image);
            QVERIFY2(share > 0.0, qPrintable(page + QStringLiteral(" is blank")));
            total += share;
        }
        QVERIFY(total / static_cast<double>(pages.size()) > 0.005);
    }

    // The leaderboard has ~20 columns; on a landscape A4 page they were squeezed until header
    // words broke mid-word ("Sus/pici/ous"). The PDF splits each level's table in two.
    void leaderboardHeadersKeepWholeWords() {
        const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
        if (pdftotext.isEmpty())
            QFAIL("pdftotext not found: install poppler-utils to check the PDF report");
        test::ReportFixture fixture;
        const auto data = report::loadReportData(fixture.database.connection(), {});
        report::HtmlOptions narrow;
        narrow.narrowPage = true;
        const QString wideHtml = report::htmlReport(data);
        const QString narrowHtml = report::htmlReport(data, narrow);
        const int groups = static_cast<int>(data.leaderboard.levels.size()) + 1; // + overall
        QVERIFY(groups >= 2);
        QCOMPARE(narrowHtml.count(QStringLiteral("<table")),
                 wideHtml.count(QStringLiteral("<table")) + groups);

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString pdf = dir.filePath(QStringLiteral("report.pdf"));
        QVERIFY(report::writePdfReport(data, pdf).isEmpty());
        QProcess p;
        p.start(pdftotext, {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QString text = QString::fromUtf8(p.readAllStandardOutput());
        for (const char* word : {"Suspicious", "Rejected", "Correct", "Geomean", "fallback",
                                 "compile", "fast_1.05", "pass@1"})
            QVERIFY2(text.contains(QLatin1String(word)), word);
    }

    void unwritablePathIsExplained() {
        test::ReportFixture fixture;
        const auto data = report::loadReportData(fixture.database.connection(), {});
        const QString error =
            report::writePdfReport(data, QStringLiteral("/nonexistent-folder/x.pdf"));
        QVERIFY2(error.contains(QStringLiteral("does not exist")), qPrintable(error));
    }
};

QTEST_MAIN(TestPdfReport)
#include "tst_pdfreport.moc"
