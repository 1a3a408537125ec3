"""The rule table (kbharness/rules.py): every rule is documented in the harness's README and
names a test that exists."""

import importlib
import os
import re
import sys
import unittest

import harness_testlib  # noqa: F401  (puts kbharness on sys.path)
from kbharness import rules

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(os.path.dirname(TESTS_DIR), "resources", "harness", "README.md")
# the README sections that list the rules
RULE_SECTIONS = ("Static check rules", "Threat model and defenses")


def readme_sections(path, titles):
    """The text of the named level-2 sections of a Markdown file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts = re.split(r"^## +(.+?)\s*$", text, flags=re.M)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2]) if title.strip() in titles}


class RuleTableTests(unittest.TestCase):
    def test_rules_are_unique_and_well_formed(self):
        names = [r.name for r in rules.RULES]
        self.assertEqual(len(names), len(set(names)))
        severities = {rules.REJECT, rules.SUSPICIOUS, rules.INFO}
        for r in rules.RULES:
            with self.subTest(rule=r.name):
                self.assertRegex(r.name, r"^[a-z0-9]+(-[a-z0-9]+)*$")
                self.assertIn(r.severity, severities)
                self.assertIn(r.lesser, severities | {None})
                self.assertTrue(r.rationale.strip())
                self.assertEqual(rules.severity(r.name), r.severity)
                self.assertEqual(rules.severity(r.name, lesser=True), r.lesser or r.severity)

    def test_every_rule_is_in_the_readme(self):
        sections = readme_sections(README, RULE_SECTIONS)
        self.assertEqual(set(sections), set(RULE_SECTIONS), "README.md lost a rules section")
        text = "\n".join(sections.values())
        missing = [r.name for r in rules.RULES if "`%s`" % r.name not in text]
        self.assertEqual(missing, [], "rules not described in README.md (%s)" % ", ".join(RULE_SECTIONS))

    def test_every_rule_names_a_test_that_exists(self):
        for r in rules.RULES:
            with self.subTest(rule=r.name, test=r.test):
                folder, module, cls, name = r.test.split(".")
                directory = os.path.join(TESTS_DIR, folder)
                self.assertTrue(os.path.isfile(os.path.join(directory, module + ".py")), r.test)
                if directory not in sys.path:
                    sys.path.insert(0, directory)
                mod = importlib.import_module(module)
                self.assertTrue(callable(getattr(getattr(mod, cls, None), name, None)),
                                "%s names a test that does not exist" % r.test)


if __name__ == "__main__":
    unittest.main()
