// Code and printed output must be set in a fixed-width font, or printed tables lose their
// columns. Run by build.py in the print-styled page before it prints: for each kind of
// code (its font, size and variant), ten narrow and ten wide letters must take the same
// width. Returns a list of problems, each naming the font and an example.
() => {
  const out = [];
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
