#pragma once
// A small catalog (one provider, two models, one suite of three tasks) for repository tests.

#include "db/catalogrepository.h"
#include "db/database.h"
#include "db/runrepository.h"

#include <vector>

namespace kb::test {

struct DbFixture {
    db::Database database{":memory:"};
    db::Id suite = 0;
    std::vector<db::Id> models;
    std::vector<db::Id> tasks;

    DbFixture() {
        db::CatalogRepository catalog(database.connection());
        const db::Id provider = catalog.upsertProvider({0, "demo", "demo", "", "{}"});
        for (const char* name : {"model-a", "model-b"}) {
            db::ModelRow m;
            m.providerId = provider;
            m.name = name;
            models.push_back(catalog.upsertModel(m));
        }
        suite = catalog.upsertSuite({0, "s", "test suite", ""});
        std::vector<db::TaskRow> rows;
        for (int i = 0; i < 3; ++i) {
            db::TaskRow t;
            t.key = "t" + std::to_string(i);
            t.name = "Task " + std::to_string(i);
            t.level = i + 1;
            t.source = "class Model: pass";
            t.sourceHash = "hash" + std::to_string(i);
            rows.push_back(t);
        }
        tasks = catalog.upsertTasks(suite, rows);
    }

    db::Id createRun(int samples = 1) {
        db::RunRow run;
        run.name = "r";
        run.suiteId = suite;
        return db::RunRepository(database.connection()).createRun(run, models, tasks, samples);
    }
};

} // namespace kb::test
