// The run launcher's pre-flight against the fake provider server: a refusal is shown in the
// dialog and the run is not started; skipping the check (as the CLI's --no-preflight) starts it
// without a request; a model that answers lets it start.
#include "data/catalogloader.h"
#include "generationfixture.h"
#include "pages/runlauncherdialog.h"

#include <QCheckBox>
#include <QPushButton>
#include <QTest>

using namespace kb;
using test::GenerationFixture;
using test::ScriptedResponse;
using test::Wire;

namespace {

QPushButton* button(QWidget& dialog, const QString& text) {
    for (auto* b : dialog.findChildren<QPushButton*>()) {
        if (b->text() == text)
            return b;
    }
    return nullptr;
}

} // namespace

class TestLauncherPreflight : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void refusalKeepsTheRunFromStarting() {
        GenerationFixture f(Wire::OpenAi);
        const auto loaded = gui::loadCatalogFile(f.dbPath());
        QVERIFY2(loaded.catalog, qPrintable(loaded.error));
        gui::RunLauncherDialog dialog(loaded.catalog);
        dialog.setKeyStore(f.keys.get());
        gui::RunPlan plan;
        for (const auto& s : loaded.catalog->suites) {
            if (s.name == "sample")
                plan.suiteId = s.id;
        }
        plan.models = {QStringLiteral("coder")};
        plan.backend = gui::Backend::Cpu;
        dialog.setPlan(plan);
        QVERIFY2(dialog.validationError().isEmpty(), qPrintable(dialog.validationError()));
        auto* start = button(dialog, QStringLiteral("Run in background"));
        auto* skip = dialog.findChild<QCheckBox*>(QStringLiteral("skipPreflight"));
        QVERIFY(start && skip);

        // The provider refuses: its message is shown, nothing starts.
        f.server.enqueue(ScriptedResponse::json(
            400, R"({"error":{"message":"Unsupported value: temperature does not support 0.2"}})"));
        start->click();
        QCOMPARE(f.server.requests().size(), 1);
        QCOMPARE(dialog.start(), gui::RunLauncherDialog::Start::No);
        QVERIFY(dialog.result() != QDialog::Accepted);
        QVERIFY2(dialog.message().contains(QStringLiteral("pre-flight")) &&
                     dialog.message().contains(QStringLiteral("fake/coder: HTTP 400")) &&
                     dialog.message().contains(QStringLiteral("Unsupported value")),
                 qPrintable(dialog.message()));
        QVERIFY(!dialog.message().contains(test::kFakeKey));
        QVERIFY(dialog.isEnabled());
        // The request is the run's: the model's name and the key of its provider.
        QCOMPARE(f.server.requests().at(0).json().value(QStringLiteral("model")).toString(),
                 QStringLiteral("coder"));
        QCOMPARE(f.server.requests().at(0).header("authorization"),
                 QByteArray("Bearer ") + test::kFakeKey.toUtf8());

        // Skipped: the run starts without asking.
        skip->setChecked(true);
        start->click();
        QCOMPARE(f.server.requests().size(), 1);
        QCOMPARE(dialog.start(), gui::RunLauncherDialog::Start::InBackground);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
    }

    void anAnswerLetsTheRunStart() {
        GenerationFixture f(Wire::OpenAi);
        const auto loaded = gui::loadCatalogFile(f.dbPath());
        QVERIFY2(loaded.catalog, qPrintable(loaded.error));
        gui::RunLauncherDialog dialog(loaded.catalog);
        dialog.setKeyStore(f.keys.get());
        gui::RunPlan plan;
        plan.suiteId = loaded.catalog->suites.front().id;
        plan.models = {QStringLiteral("coder")};
        plan.backend = gui::Backend::Cpu;
        dialog.setPlan(plan);
        f.server.enqueue(test::reply(Wire::OpenAi, QStringLiteral("ok")));
        button(dialog, QStringLiteral("Run in this window"))->click();
        QCOMPARE(f.server.requests().size(), 1);
        QCOMPARE(dialog.start(), gui::RunLauncherDialog::Start::HereInThisWindow);
        QVERIFY2(dialog.message().isEmpty(), qPrintable(dialog.message()));
    }
};

QTEST_MAIN(TestLauncherPreflight)
#include "tst_launcherpreflight.moc"
