// What the printed book must not do, checked by build.py in the print-styled page before
// it prints. Returns a list of problems, each naming what is wrong and an example.
// * Code and printed output in a proportional font (printed tables lose their columns): for
//   each kind of code (its font, size and variant), ten narrow and ten wide letters must take
//   the same width.
// * A screen's cue on paper (the scroll hints of infrabook-site.js).
// * Inline code in prose broken anywhere ("--mf / u"): it may break only where it must.
// * An answer box split across pages, a glossary term on the page before its definition.
() => {
  const out = [];
  const short = (el) => (el.textContent || "").replace(/\s+/g, " ").trim().slice(0, 40);
  for (const hint of document.querySelectorAll(".ib-scroll-hint")) {
    if (hint.getClientRects().length) out.push(`a screen's scroll cue printed: "${short(hint)}"`);
  }
  for (const code of document.querySelectorAll("p code, li code, dd code, td code")) {
    if (getComputedStyle(code).wordBreak === "break-all") {
      out.push(`inline code may break inside a word (word-break: break-all): "${short(code)}"`);
      break;
    }
  }
  for (const box of document.querySelectorAll("details.sd-dropdown")) {
    if (getComputedStyle(box).breakInside !== "avoid") {
      out.push(`an answer box may split across pages: "${short(box)}"`);
      break;
    }
  }
  for (const term of document.querySelectorAll("dl.glossary dt")) {
    if (getComputedStyle(term).breakAfter !== "avoid") {
      out.push(`a glossary term may end a page without its definition: "${short(term)}"`);
      break;
    }
  }
  const seen = new Set();
  for (const el of document.querySelectorAll("pre, code")) {
    if (!el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    const key = [style.fontFamily, style.fontSize, style.fontVariantEastAsian,
                 style.fontFeatureSettings, el.closest("[lang]")?.lang].join("|");
    if (seen.has(key)) continue;
    seen.add(key);
    const width = (text) => {
      const probe = document.createElement("span");
      probe.textContent = text;
      el.append(probe);
      const w = probe.getBoundingClientRect().width;
      probe.remove();
      return w;
    };
    const narrow = width("iiiiiiiiii");
    const wide = width("MMMMMMMMMM");
    if (Math.abs(narrow - wide) > 0.5) {
      out.push(`code set in a proportional font (${style.fontFamily}, ` +
               `font-variant-east-asian: ${style.fontVariantEastAsian}): ten i take ` +
               `${narrow.toFixed(1)} px, ten M ${wide.toFixed(1)} px, in ` +
               `"${el.textContent.replace(/\s+/g, " ").trim().slice(0, 40)}"`);
    }
  }
  return out;
}
