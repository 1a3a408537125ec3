#pragma once
// Small helpers shared by the engine benchmarks: medians and a plain-text table.

#include <QString>
#include <QStringList>
#include <QTextStream>
#include <algorithm>
#include <vector>

namespace kb::bench {

inline double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline QString fmt(double v, int decimals = 1) {
    return QString::number(v, 'f', decimals);
}

class Table {
public:
    explicit Table(QStringList header)
        : m_rows{std::move(header)} {}
    void add(QStringList row) { m_rows.append(std::move(row)); }
    void print(QTextStream& out) const {
        QList<qsizetype> width;
        for (const auto& r : m_rows)
            for (qsizetype i = 0; i < r.size(); ++i) {
                if (width.size() <= i)
                    width.append(0);
                width[i] = std::max(width[i], r[i].size());
            }
        for (qsizetype k = 0; k < m_rows.size(); ++k) {
            out << "| ";
            for (qsizetype i = 0; i < m_rows[k].size(); ++i)
                out << m_rows[k][i].leftJustified(width[i]) << " | ";
            out << '\n';
            if (k == 0) {
                out << "|";
                for (qsizetype i = 0; i < width.size(); ++i)
                    out << QString(width[i] + 2, QLatin1Char('-')) << "|";
                out << '\n';
            }
        }
        out.flush();
    }

private:
    QList<QStringList> m_rows;
};

int dbScale(const QStringList& args);
int engineOverhead(const QStringList& args);
int poolUtilisation(const QStringList& args);
int jsonExport(const QStringList& args);
int jsonExportChild(const QStringList& args);

} // namespace kb::bench
