// The catalog snapshot, the Providers & models page and its models: providers and models are
// written to the database, API keys only to the key store; removing a model with attempts is
// refused; the connection test reports into the page.

#include "data/catalogloader.h"
#include "data/catalogwriter.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/catalogmodelsmodel.h"
#include "models/providersmodel.h"
#include "pages/modeldialog.h"
#include "pages/providerdialog.h"
#include "pages/providerspage.h"
#include "providers/keystore.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

using namespace kb;

namespace {

gui::CatalogPtr catalogOf(const QString& path) {
    const auto r = gui::loadCatalogFile(path);
    if (!r.catalog)
        qFatal("cannot load catalog: %s", qPrintable(r.error));
    return r.catalog;
}

} // namespace

class TestProviders : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void catalogHoldsProvidersModelsAndUsage() {
        test::GuiFixture fixture;
        const auto c = catalogOf(fixture.path());
        QCOMPARE(c->providers.size(), size_t(1));
        QCOMPARE(c->models.size(), size_t(2));
        const auto* a = c->findModelByName(QStringLiteral("demo-a"));
        QVERIFY(a);
        const auto u = c->usageOf(a->id);
        QCOMPARE(u.attempts, 6); // 4 in run 1, 2 in run 2
        QCOMPARE(u.turns, 5);    // one per evaluated attempt
        QCOMPARE(u.inputTokens, qint64(5 * 1200));
        QCOMPARE(u.outputTokens, qint64(5 * 800));
    }

    void modelsPassTheTester() {
        test::GuiFixture fixture;
        gui::ProvidersModel providers;
        gui::CatalogModelsModel models;
        QAbstractItemModelTester t1(&providers,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&models,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto c = catalogOf(fixture.path());
        providers.setCatalog(c);
        models.setCatalog(c);
        QCOMPARE(providers.rowCount(), 1);
        QCOMPARE(test::text(&providers, 0, gui::ProvidersModel::NameColumn),
                 QStringLiteral("demo"));
        QCOMPARE(providers.index(0, gui::ProvidersModel::ModelsColumn).data().toInt(), 2);
        QCOMPARE(models.rowCount(), 2);
        QCOMPARE(test::text(&models, 0, gui::CatalogModelsModel::PriceInColumn),
                 QStringLiteral("not set"));
        models.setProviderId(9999);
        QCOMPARE(models.rowCount(), 0);
        models.setProviderId(0);
        QCOMPARE(models.rowCount(), 2);
        providers.setCatalog(nullptr);
        QCOMPARE(providers.rowCount(), 0);
        QCOMPARE(gui::ProvidersModel::limitsText(R"({"max_concurrent":4,"timeout_ms":30000})"),
                 QStringLiteral("4 at once, 30 s timeout"));
    }

    void keyGoesToTheKeyStoreNotTheDatabase() {
        test::GuiFixture fixture;
        engine::MemoryKeyStore keys;
        gui::ProvidersPage page;
        page.setDatabasePath(fixture.path());
        page.setKeyStore(&keys);
        page.setCatalog(catalogOf(fixture.path()));
        QSignalSpy changed(&page, &gui::ProvidersPage::catalogChanged);

        page.providerDialogHook = [](gui::ProviderDialog& d) {
            d.nameEdit()->setText(QStringLiteral("openai-main"));
            d.kindBox()->setCurrentText(QStringLiteral("openai"));
            d.baseUrlEdit()->setText(QStringLiteral("https://api.example.com/v1"));
            d.keyEdit()->setText(QStringLiteral("sk-very-secret"));
            d.concurrencyBox()->setValue(8);
            return d.validationError().isEmpty();
        };
        page.addProvider();
        QVERIFY2(page.statusText().contains(QStringLiteral("Added provider 'openai-main'")),
                 qPrintable(page.statusText()));
        QCOMPARE(changed.count(), 1);
        // Stored bound to the provider's host, and under that name only.
        QCOMPARE(keys.readKey(QStringLiteral("openai-main@https://api.example.com:443"))
                     .value_or(QString()),
                 QStringLiteral("sk-very-secret"));
        QVERIFY(!keys.readKey(QStringLiteral("openai-main")));

        const auto c = catalogOf(fixture.path());
        QCOMPARE(c->providers.size(), size_t(2));
        const auto& p = c->providers.back();
        QCOMPARE(p.kind, std::string("openai"));
        QVERIFY(QString::fromStdString(p.settingsJson)
                    .contains(QStringLiteral("\"max_concurrent\":8")));
        QFile db(fixture.path());
        QVERIFY(db.open(QIODevice::ReadOnly));
        QVERIFY(!db.readAll().contains("sk-very-secret"));
    }

    void invalidProviderFormIsExplained() {
        gui::ProviderForm form;
        form.provider.kind = "anthropic";
        form.provider.name = "x";
        gui::ProviderDialog dialog(form, QStringLiteral("memory"), false);
        dialog.baseUrlEdit()->setText(QStringLiteral("ftp://nowhere"));
        QVERIFY(dialog.validationError().contains(QStringLiteral("http(s)")));
        dialog.baseUrlEdit()->setText(QStringLiteral("https://api.anthropic.com"));
        QVERIFY(dialog.validationError().isEmpty());
        dialog.nameEdit()->clear();
        QVERIFY(dialog.validationError().contains(QStringLiteral("name")));
    }

    void modelsAreAddedAndRemovalOfUsedOnesIsRefused() {
        test::GuiFixture fixture;
        gui::ProvidersPage page;
        page.setDatabasePath(fixture.path());
        page.setCatalog(catalogOf(fixture.path()));
        connect(&page, &gui::ProvidersPage::catalogChanged, &page,
                [&]() { page.setCatalog(catalogOf(fixture.path())); });
        page.modelDialogHook = [](gui::ModelDialog& d) {
            d.nameEdit()->setText(QStringLiteral("demo-c"));
            d.findChild<QCheckBox*>()->setChecked(true);
            d.priceInBox()->setValue(1.5);
            d.priceOutBox()->setValue(6);
            d.maxOutputBox()->setValue(4096);
            return true;
        };
        page.addModel();
        QVERIFY2(page.statusText().contains(QStringLiteral("Added model 'demo-c'")),
                 qPrintable(page.statusText()));
        const auto c = catalogOf(fixture.path());
        const auto* m = c->findModelByName(QStringLiteral("demo-c"));
        QVERIFY(m);
        QCOMPARE(m->priceInPerMTok.value_or(0), 1.5);
        QCOMPARE(m->priceOutPerMTok.value_or(0), 6.0);
        QVERIFY(QString::fromStdString(m->settingsJson).contains(QStringLiteral("4096")));

        const auto* used = c->findModelByName(QStringLiteral("demo-a"));
        const QString refused = gui::removeModel(fixture.path(), used->id);
        QVERIFY2(refused.contains(QStringLiteral("6 stored attempt")), qPrintable(refused));
        QVERIFY(gui::removeModel(fixture.path(), m->id).isEmpty());
        QVERIFY(!catalogOf(fixture.path())->findModelByName(QStringLiteral("demo-c")));
        QVERIFY(gui::removeProvider(fixture.path(), c->providers.front().id)
                    .contains(QStringLiteral("attempt")));
    }

    void duplicateNamesAreRefused() {
        test::GuiFixture fixture;
        db::ProviderRow p;
        p.name = "demo";
        p.kind = "demo";
        QVERIFY(
            gui::saveProvider(fixture.path(), p).contains(QStringLiteral("already a provider")));
    }

    void offlineProviderTestReportsIntoThePage() {
        test::GuiFixture fixture;
        gui::ProvidersPage page;
        page.setDatabasePath(fixture.path());
        page.setCatalog(catalogOf(fixture.path()));
        QSignalSpy tested(&page, &gui::ProvidersPage::connectionTested);
        page.testConnection();
        QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 1, 5000);
        QVERIFY(tested.at(0).at(1).toBool());
        QVERIFY2(page.statusText().contains(QStringLiteral("works offline")),
                 qPrintable(page.statusText()));
    }
};

QTEST_MAIN(TestProviders)
#include "tst_providers.moc"
