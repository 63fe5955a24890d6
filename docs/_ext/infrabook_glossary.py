"""Glossary anchors named after the term, not after its position.

Sphinx names a glossary term's anchor after its text, and falls back to a counter
(``#term-7``) when the text has no Latin letters, as every Chinese term here: a shared link to
屋顶线 then pointed at another term as soon as the glossary was reordered. Each entry of this
book's glossary gives the Chinese term and its English equivalent; the Chinese term's anchor
becomes the English one's with ``-zh`` after it (``#term-roofline-zh``), and cross-references
({term}`屋顶线`) and the index follow it.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

POSITIONAL = re.compile(r"term-\d+")


def name_terms(app: Sphinx, doctree: nodes.document) -> None:
    """Rename each positional term anchor after the named one of its glossary entry."""
    std = app.env.domains.standard_domain
    docname = app.env.current_document.docname
    renamed: dict[str, str] = {}
    for glossary in doctree.findall(addnodes.glossary):
        for item in glossary.findall(nodes.definition_list_item):
            terms = list(item.findall(nodes.term))
            named = next((i for t in terms for i in t["ids"] if not POSITIONAL.fullmatch(i)), None)
            if named is None:
                continue
            count = 0
            for term in terms:
                for old in [i for i in term["ids"] if POSITIONAL.fullmatch(i)]:
                    count += 1
                    new = f"{named}-zh" + (f"-{count}" if count > 1 else "")
                    term["ids"][term["ids"].index(old)] = new
                    renamed[old] = new
                    doctree.ids.pop(old, None)
                    doctree.ids[new] = term
                    for index in term.findall(addnodes.index):
                        index["entries"] = [
                            (*entry[:2], new if entry[2] == old else entry[2], *entry[3:])
                            for entry in index["entries"]
                        ]
    if renamed:
        # Every name registered for the term points at the new anchor: in a translated
        # edition the term is registered twice, under its source text and its translation.
        for key, (doc, labelid) in list(std.objects.items()):
            if doc == docname and labelid in renamed:
                std.objects[key] = (doc, renamed[labelid])
        for name, (doc, labelid) in list(std._terms.items()):
            if doc == docname and labelid in renamed:
                std._terms[name] = (doc, renamed[labelid])
        # the index domain has already read the page's entries (for the general index)
        entries = app.env.domains["index"].entries
        entries[docname] = [
            (*e[:2], renamed.get(e[2], e[2]), *e[3:]) for e in entries.get(docname, [])
        ]


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", name_terms)
    # a new version re-reads every page: the anchors live in the saved environment
    return {"env_version": 2, "parallel_read_safe": True, "parallel_write_safe": True}
