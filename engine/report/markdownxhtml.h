#pragma once
// The small Markdown subset of the metric definitions (headings, paragraphs, "- " lists with
// indented continuation lines, **bold**, *italic*, `code`) as well-formed XHTML.

#include <QString>

namespace kb::report {

// Headings "#" and "##" become <h3> and <h4> (the report owns <h1>/<h2>).
QString markdownToXhtml(const QString& markdown);

} // namespace kb::report
