#include "markdownxhtml.h"

#include "textformat.h"

#include <QRegularExpression>
#include <QStringList>

namespace kb::report {

namespace {

QString inlineMarkup(const QString& text) {
    static const QRegularExpression code(QStringLiteral("`([^`]+)`"));
    static const QRegularExpression bold(QStringLiteral(R"(\*\*(\S(?:[^*]*\S)?)\*\*)"));
    static const QRegularExpression italic(QStringLiteral(R"(\*(\S(?:[^*]*\S)?)\*)"));
    QString s = xmlEscape(text);
    s.replace(code, QStringLiteral("<code>\\1</code>"));
    s.replace(bold, QStringLiteral("<strong>\\1</strong>"));
    s.replace(italic, QStringLiteral("<em>\\1</em>"));
    return s;
}

} // namespace

QString markdownToXhtml(const QString& markdown) {
    QString out;
    QStringList paragraph;
    QStringList items;
    QString item;
    bool inList = false;

    auto flushParagraph = [&] {
        if (!paragraph.isEmpty())
            out += QStringLiteral("<p>") + inlineMarkup(paragraph.join(QLatin1Char(' '))) +
                   QStringLiteral("</p>\n");
        paragraph.clear();
    };
    auto flushItem = [&] {
        if (!item.isEmpty())
            items << item;
        item.clear();
    };
    auto flushList = [&] {
        flushItem();
        if (inList) {
            out += QStringLiteral("<ul>\n");
            for (const auto& i : items)
                out += QStringLiteral("<li>") + inlineMarkup(i) + QStringLiteral("</li>\n");
            out += QStringLiteral("</ul>\n");
        }
        items.clear();
        inList = false;
    };

    for (const QString& raw : markdown.split(QLatin1Char('\n'))) {
        const QString line = raw.trimmed();
        if (line.isEmpty()) {
            flushParagraph();
            flushList();
        } else if (raw.startsWith(QLatin1String("## "))) {
            flushParagraph();
            flushList();
            out += QStringLiteral("<h4>") + inlineMarkup(raw.mid(3)) + QStringLiteral("</h4>\n");
        } else if (raw.startsWith(QLatin1String("# "))) {
            flushParagraph();
            flushList();
            out += QStringLiteral("<h3>") + inlineMarkup(raw.mid(2)) + QStringLiteral("</h3>\n");
        } else if (raw.startsWith(QLatin1String("- "))) {
            flushParagraph();
            flushItem();
            inList = true;
            item = raw.mid(2).trimmed();
        } else if (inList && raw.startsWith(QLatin1Char(' '))) {
            item += QLatin1Char(' ') + line;
        } else {
            flushList();
            paragraph << line;
        }
    }
    flushParagraph();
    flushList();
    return out;
}

} // namespace kb::report
