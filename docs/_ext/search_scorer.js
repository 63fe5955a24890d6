// The site's search scores (conf.py: html_search_scorer). Sphinx's defaults, with two changes:
// the page whose own title holds the query comes first (Sphinx scores "融合" in chapter 2's
// title no higher than in any section title of five other pages), and an index entry (every
// glossary term is one) is scaled to score below it, not left at Sphinx's 100 for an exact
// entry, so that the glossary's definition follows the chapter instead of hiding it (issue
// #42 item 7).
var Scorer = {
  score: ([docname, title, anchor, descr, score, filename, kind]) => {
    const query = (new URLSearchParams(window.location.search).get("q") || "")
      .trim()
      .toLowerCase();
    const page = (title || "").split(" > ")[0].toLowerCase();
    // an exact entry (100) lands just below the named page, a longer one in proportion
    if (kind === SearchResultKind.index) return (score * (Scorer.namedPage - 1)) / 100;
    if (query && page.includes(query)) return score + Scorer.namedPage;
    return score;
  },
  // added to a result on the page whose title holds the whole query
  namedPage: 40,
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
