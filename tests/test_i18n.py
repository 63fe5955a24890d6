"""The package's one way to translate: gettext, its catalogue kept with Babel."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from infrabook import catalogue, config, labels
from infrabook.i18n import translate

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u3400-\u9fff]")


def test_the_catalogue_is_complete_and_compiled():
    assert catalogue.problems() == []


def test_every_label_has_its_own_english():
    """Each label comes back from the .mo as the .po's translation of its Chinese (read here
    with Babel, independently of gettext), in its context where it has one."""
    po = catalogue.read()
    for key, zh in labels.LABELS.items():
        context = key if key in labels.IN_CONTEXT else None
        entry = po.get(zh, context)
        assert entry is not None and entry.string, key
        assert labels.text(key, lang="en") == entry.string, key
        assert labels.text(key, lang="zh") == zh


def test_one_chinese_wording_two_englishes():
    assert labels.LABELS["fig.fusion.read"] == labels.LABELS["cli.col.reads"] == "读"
    assert labels.text("fig.fusion.read", lang="en") == "read"
    assert labels.text("cli.col.reads", lang="en") == "Reads"


def test_in_context_names_labels_only():
    assert labels.LABELS.keys() >= labels.IN_CONTEXT


# Table headers are labels keyed ``*.col.*``. Their English is in sentence case: it starts
# with a capital, a digit or a symbol, except where its first word is a code identifier or
# a unit, which keeps its own case. These are those first words, each with what it is.
HEADER_FIRST_WORDS = {
    "allclose": "torch.allclose",
    "bf16": "a dtype",
    "dtype": "PyTorch's attribute",
    "fp32": "a dtype",
    "p20–p80": "percentiles, as the records write them",
}


def header_case_problems(english: dict[str, str]) -> list[str]:
    """The headers (key: English) that are not in sentence case, each with why."""
    return [
        f"{key}: {en!r} starts with a lowercase letter and {en.split()[0]!r} is not one of "
        "HEADER_FIRST_WORDS"
        for key, en in english.items()
        if en[:1].islower() and en.split()[0] not in HEADER_FIRST_WORDS
    ]


def test_table_headers_are_in_sentence_case():
    headers = {k: labels.text(k, "en") for k in labels.LABELS if ".col." in k}
    assert len(headers) > 200  # every table's, not a few
    assert header_case_problems(headers) == []


def test_the_header_case_rule_refuses_a_lowercase_header():
    assert header_case_problems({"x.col.a": "median ms", "x.col.b": "max |Δ|"}) == [
        "x.col.a: 'median ms' starts with a lowercase letter and 'median' is not one of "
        "HEADER_FIRST_WORDS",
        "x.col.b: 'max |Δ|' starts with a lowercase letter and 'max' is not one of "
        "HEADER_FIRST_WORDS",
    ]
    fine = {"x.col.c": "Median ms", "x.col.d": "dtype (inputs)", "x.col.e": "% of best"}
    assert header_case_problems(fine) == []


def test_conf_text_is_translated():
    for claim in config.claims():
        assert not CJK.search(translate(claim.text, lang="en")), claim.id
        assert not CJK.search(translate(claim.unit, lang="en")), claim.id


def _copy_catalogue(tmp_path: Path) -> Path:
    po = tmp_path / "infrabook.po"
    shutil.copyfile(catalogue.PO, po)
    shutil.copyfile(catalogue.PO.with_suffix(".mo"), po.with_suffix(".mo"))
    return po


def test_problems_names_untranslated_fuzzy_lost_fields_and_a_stale_mo(tmp_path):
    po = _copy_catalogue(tmp_path)
    catalog = catalogue.read(po)
    catalog.get("一致").string = ""
    catalog.get("不符").flags.add("fuzzy")
    catalog.get("精确值 {value}").string = "exactly"
    del catalog["未知"]
    catalogue.write(catalog, po)
    with po.open("a", encoding="utf-8") as f:  # what update never writes, a hand might
        f.write('\n#~ msgid "旧的"\n#~ msgstr "old"\n')
    po.with_suffix(".mo").write_bytes(b"stale")
    found = "\n".join(catalogue.problems(po))
    assert "untranslated '一致'" in found
    assert "fuzzy '不符'" in found
    assert "audit.note.exactly: the translation's {fields} differ" in found
    assert "word.unknown: '未知' missing" in found
    assert "obsolete entry '旧的'" in found
    assert "infrabook.mo: not the .po compiled" in found
    assert len(catalogue.problems(po)) == 6


OLD_WAY = """IN_CONTEXT = frozenset({"new.reads"})
LABELS: dict[str, str] = {
    "verdict.matches": "一致",
    "new.short": ("新的短标签", "a new short label"),
    "new.long": (
        "一个很长的新标签，"
        "写成两行",
        "a long new label, "
        "on two lines",
    ),
    "new.reads": ("读", "reads again"),
}
"""


def test_old_way_labels_are_converted_and_converting_again_changes_nothing(tmp_path):
    po = _copy_catalogue(tmp_path)
    source = tmp_path / "labels.py"
    source.write_text(OLD_WAY, encoding="utf-8")
    assert catalogue.convert_labels(source, po) == ["new.short", "new.long", "new.reads"]
    converted = source.read_text(encoding="utf-8")
    namespace: dict[str, object] = {}
    exec(converted, namespace)
    assert namespace["LABELS"] == {
        "verdict.matches": "一致",
        "new.short": "新的短标签",
        "new.long": "一个很长的新标签，写成两行",
        "new.reads": "读",
    }
    long = '    "new.long": (\n        "一个很长的新标签，"\n        "写成两行"\n    ),'
    assert long in converted
    catalog = catalogue.read(po)
    assert catalog.get("新的短标签").string == "a new short label"
    assert catalog.get("一个很长的新标签，写成两行").string == "a long new label, on two lines"
    assert catalog.get("读", "new.reads").string == "reads again"
    assert catalogue.compiled(po) == po.with_suffix(".mo").read_bytes()
    assert catalogue.convert_labels(source, po) == []
    assert source.read_text(encoding="utf-8") == converted


def test_a_clashing_english_without_context_is_refused(tmp_path):
    po = _copy_catalogue(tmp_path)
    source = tmp_path / "labels.py"
    source.write_text('LABELS: dict[str, str] = {"new.yes": ("是", "sure")}\n', encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        catalogue.convert_labels(source, po)
    assert str(refused.value) == (
        "new.yes: '是' is already translated as 'yes' (for guide.yes, word.yes), not 'sure': "
        "add 'new.yes' to IN_CONTEXT in infrabook/labels/__init__.py and run again"
    )
    assert "(" in source.read_text(encoding="utf-8")  # left as it was


def test_a_label_changing_its_own_english_takes_the_new_one(tmp_path):
    """What a merge brings: a label written the old way whose English changed."""
    po = _copy_catalogue(tmp_path)
    source = tmp_path / "labels.py"
    source.write_text(
        'LABELS: dict[str, str] = {"verdict.matches": ("一致", "agrees")}\n', encoding="utf-8"
    )
    assert catalogue.convert_labels(source, po) == ["verdict.matches"]
    assert catalogue.read(po).get("一致").string == "agrees"


def test_update_adds_new_messages_empty_and_marks_changed_ones_fuzzy(tmp_path, monkeypatch):
    po = _copy_catalogue(tmp_path)
    changed = {**labels.LABELS, "verdict.matches": "一致的", "new.label": "全新的标签"}
    del changed["word.unknown"]
    monkeypatch.setattr(labels, "LABELS", changed)
    catalog: Catalog = catalogue.update(po)
    assert not catalog.get("全新的标签").string
    fuzzy = catalog.get("一致的")
    assert fuzzy.fuzzy and fuzzy.string == "matches"
    found = catalogue.problems(po)
    assert any("untranslated '全新的标签'" in line for line in found)
    assert any("fuzzy '一致的'" in line for line in found)
    written = catalogue.read(po)  # a label gone: dropped, not kept as obsolete
    assert written.get("未知") is None and not written.obsolete


def test_the_package_translates_without_babel():
    """What the CLI and the live calculators (Pyodide) load translates with gettext alone."""
    code = (
        "import sys\n"
        "sys.modules['babel'] = None\n"
        "from infrabook import labels, live\n"
        "assert labels.text('verdict.matches') == 'matches'\n"
        "assert all(live.run(n, {})['ok'] for n in live.calculators())\n"
        "assert 'babel' not in sys.modules or sys.modules['babel'] is None\n"
    )
    env = os.environ | {"INFRABOOK_LANG": "en"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_the_wheel_carries_the_compiled_catalogue(tmp_path):
    """The wheel the live calculators unpack holds the .mo, and translates from there."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "--disable-pip-version-check", "-w", str(tmp_path), str(ROOT)],
        check=True,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("infrabook-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(site)
    assert "infrabook/locale/en/LC_MESSAGES/infrabook.mo" in names
    assert not [n for n in names if n.endswith(".po") or n.endswith("catalogue.py")]
    # -S: no site-packages, so not the editable install of this tree either
    code = (
        f"import sys; sys.path.insert(0, {str(site)!r})\n"
        "import infrabook.labels as labels\n"
        f"assert labels.__file__.startswith({str(site)!r}), labels.__file__\n"
        "print(labels.text('cli.col.reads'))\n"
    )
    env = os.environ | {"INFRABOOK_LANG": "en"}
    out = subprocess.run(
        [sys.executable, "-S", "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == "Reads\n"


def test_argparse_catalogue_fails_on_a_reworded_message_and_a_stale_mo(tmp_path):
    assert catalogue.argparse_problems() == []
    po = tmp_path / "zh" / "LC_MESSAGES" / "argparse.po"
    po.parent.mkdir(parents=True)
    text = catalogue.ARGPARSE_PO.read_text(encoding="utf-8")
    po.write_text(text.replace('msgid "options"', 'msgid "optional arguments"'), encoding="utf-8")
    po.with_suffix(".mo").write_bytes(catalogue.compiled(po))
    assert catalogue.argparse_problems(po) == [
        "argparse.po: argparse writes 'options', which the catalogue lacks",
        "argparse.po: argparse no longer writes 'optional arguments'",
    ]
    po.write_text(text.replace('msgstr "用法："', 'msgstr ""'), encoding="utf-8")
    found = catalogue.argparse_problems(po)
    assert "argparse.po: untranslated or fuzzy 'usage: '" in found
    assert "argparse.mo: not the .po compiled (run nox -s catalogues)" in found


def test_a_label_outside_its_namespaces_module_is_refused(monkeypatch):
    """Each namespace has one module (labels/<module>.py), so two parts of the book that add
    words never edit the same file; a label put in the wrong module is refused at import."""
    monkeypatch.setitem(labels.cli.LABELS, "bench.misplaced", "放错了")
    with pytest.raises(ValueError) as refused:
        labels._merged()
    assert str(refused.value) == (
        "label 'bench.misplaced' is in infrabook.labels.cli, but its namespace is "
        "infrabook.labels.bench's"
    )
    monkeypatch.delitem(labels.cli.LABELS, "bench.misplaced")
    monkeypatch.setattr(labels.cli, "NAMESPACES", (*labels.cli.NAMESPACES, "bench"))
    with pytest.raises(ValueError, match="namespace 'bench' is claimed by"):
        labels._merged()
