// Layout and language checks for one page, run by browser.py in the page itself.
// Returns a list of problems, each a sentence naming what is wrong and where.
async ({ english, desktop, dark }) => {
  const out = [];
  const shown = (el) => el.getClientRects().length > 0;
  const short = (el) => (el.textContent || "").replace(/\s+/g, " ").trim().slice(0, 50);

  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) {
    out.push(`the page pans sideways: ${root.scrollWidth} px of content in ${root.clientWidth} px`);
  }

  const article = document.querySelector("article.bd-article");
  if (article) {
    const column = article.getBoundingClientRect();
    // Preformatted blocks (code, printed output) keep their lines: a wider one scrolls in
    // its own box, with the scroll cue, and never wraps.
    article.querySelectorAll("pre").forEach((pre) => {
      if (!shown(pre)) return;
      const style = getComputedStyle(pre);
      if (!["pre", "nowrap"].includes(style.whiteSpace) && style.textWrapMode !== "nowrap") {
        out.push(`preformatted block wraps its lines (white-space: ${style.whiteSpace}): ` +
                 `"${short(pre)}"`);
      }
      if (pre.scrollWidth > pre.clientWidth + 1 &&
          (style.overflowX !== "auto" || !pre.classList.contains("ib-overflows"))) {
        out.push(`preformatted block wider than its box without scrolling and its cue ` +
                 `(${pre.scrollWidth} px in ${pre.clientWidth} px): "${short(pre)}"`);
      }
    });

    // Formulas: nothing of a typeset formula lies outside its own box or the column (a box
    // that only scrolls counts as clipped: MathJax breaks lines instead). Answers folded in
    // <details> are opened first, so their formulas are measured too.
    article.querySelectorAll("details:not([open])").forEach((d) => { d.open = true; });
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    article.querySelectorAll("mjx-container").forEach((math) => {
      if (!shown(math)) return;
      const own = math.getBoundingClientRect();
      let left = own.left;
      let right = own.right;
      math.querySelectorAll("mjx-math *").forEach((el) => {
        for (const r of el.getClientRects()) {
          if (r.width === 0) continue;
          left = Math.min(left, r.left);
          right = Math.max(right, r.right);
        }
      });
      // the column's content box, or a display formula's own box
      const pad = getComputedStyle(article);
      const text = { left: column.left + parseFloat(pad.paddingLeft),
                     right: column.right - parseFloat(pad.paddingRight) };
      const box = math.closest("div.math, td, th");
      const edge = box ? box.getBoundingClientRect() : text;
      const display = math.getAttribute("display") === "true";
      const cut = (display && math.scrollWidth > math.clientWidth + 1) ||
        right > Math.min(edge.right, text.right) + 1 || left < Math.max(edge.left, text.left) - 1;
      if (cut && !math.closest(".ib-scroll")) {
        out.push(`formula clipped (${Math.round(left)}–${Math.round(right)} px in a box ` +
                 `${Math.round(edge.left)}–${Math.round(edge.right)} px): ` +
                 `"${(math.querySelector("mjx-assistive-mml") || math).textContent.slice(0, 50)}"`);
      }
    });
  }

  // No line starts with the punctuation that closes an inline formula's clause ("，" after
  // it, ", then" in English), and none ends with the bracket that opens it.
  if (article) {
    const CLOSING = "。，、；：）！？”’》」』,.;:)!?";
    const OPENING = "（“‘《「『(";
    const charRect = (node, offset) => {
      const range = document.createRange();
      range.setStart(node, offset);
      range.setEnd(node, offset + 1);
      return range.getBoundingClientRect();
    };
    article.querySelectorAll("mjx-container:not([display='true'])").forEach((math) => {
      if (!shown(math)) return;
      const box = math.closest("span.math") || math;
      const own = math.getBoundingClientRect();
      const name = (math.querySelector("mjx-assistive-mml") || math).textContent.slice(0, 30);
      const after = box.nextSibling;
      if (after && after.nodeType === Node.TEXT_NODE) {
        const i = after.nodeValue.search(/[^\u2060]/);
        if (i >= 0 && CLOSING.includes(after.nodeValue[i]) &&
            charRect(after, i).top >= own.bottom - 2) {
          out.push(`line starts with "${after.nodeValue[i]}" after the formula "${name}"`);
        }
      }
      const before = box.previousSibling;
      if (before && before.nodeType === Node.TEXT_NODE) {
        const text = before.nodeValue.replace(/\u2060+$/, "");
        if (text && OPENING.includes(text.at(-1)) &&
            charRect(before, text.length - 1).bottom <= own.top + 2) {
          out.push(`line ends with "${text.at(-1)}" before the formula "${name}"`);
        }
      }
    });
  }

  // Links (in the article, the previous/next area and the footer) lie within the screen,
  // unless they are inside a box that scrolls sideways.
  document.querySelectorAll(
    "article.bd-article a[href], .prev-next-area a[href], footer a[href]").forEach((a) => {
    if (!shown(a)) return;
    for (let el = a; el; el = el.parentElement) {
      if (["auto", "scroll"].includes(getComputedStyle(el).overflowX) &&
          el !== document.documentElement && el !== document.body) return;
    }
    // the link's box and everything drawn inside it (its text may overflow the box)
    const range = document.createRange();
    range.selectNodeContents(a);
    let left = Infinity;
    let right = -Infinity;
    for (const r of [a.getBoundingClientRect(), ...range.getClientRects()]) {
      if (r.width === 0) continue;
      left = Math.min(left, r.left);
      right = Math.max(right, r.right);
    }
    if (right > root.clientWidth + 1 || left < -1) {
      out.push(`link runs off the screen (${Math.round(left)}–${Math.round(right)} px of ` +
               `${root.clientWidth} px): "${short(a)}"`);
    }
  });

  if (article) {
    const column = article.getBoundingClientRect();
    article.querySelectorAll("table").forEach((table) => {
      if (!shown(table) || table.getBoundingClientRect().right <= column.right + 1) return;
      const box = table.closest(".ib-scroll");
      if (!box || box.getBoundingClientRect().right > column.right + 1 ||
          getComputedStyle(box).overflowX !== "auto") {
        out.push(`table wider than its column and not scrollable: "${short(table)}"`);
      } else if (!box.classList.contains("ib-overflows")) {
        out.push(`table scrolls sideways without the scroll cue: "${short(table)}"`);
      }
    });
    // Nothing is cut without a cue: any box of the article that clips or scrolls its
    // content sideways (a calculator's output, a table's container, a block) and is too
    // narrow for it carries the scroll cue, shown; a table's cue is at the table's top,
    // where its reader starts, not a screen or more below.
    article.querySelectorAll("*").forEach((box) => {
      // (formulas have their own check above)
      if (!shown(box) || box.closest("mjx-container, .math")) return;
      const overflow = getComputedStyle(box).overflowX;
      if (overflow === "visible" || box.scrollWidth <= box.clientWidth + 1) return;
      const hint = box.ibHint;
      if (!box.classList.contains("ib-overflows") || !hint || !shown(hint)) {
        out.push(`content cut without a scroll cue (${box.scrollWidth} px in ` +
                 `${box.clientWidth} px, overflow-x: ${overflow}): <${box.tagName.toLowerCase()} ` +
                 `class="${box.className}"> "${short(box)}"`);
      } else if (box.querySelector("table") &&
                 Math.abs(hint.getBoundingClientRect().top - box.getBoundingClientRect().top) >
                 window.innerHeight / 2) {
        out.push(`a wide table's scroll cue is ${Math.round(hint.getBoundingClientRect().top -
                 box.getBoundingClientRect().top)} px from the table's top: "${short(box)}"`);
      }
    });
    article.querySelectorAll("td.ib-num, th.ib-num").forEach((cell) => {
      if (!shown(cell)) return;
      // One line: every piece of its text starts within half a line of the first.
      const tops = [];
      const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      while (texts.nextNode()) {
        if (!texts.currentNode.nodeValue.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(texts.currentNode);
        for (const r of range.getClientRects()) tops.push([r.top, r.height]);
      }
      if (tops.length && Math.max(...tops.map((t) => t[0])) - Math.min(...tops.map((t) => t[0]))
          > 0.5 * Math.max(...tops.map((t) => t[1]))) {
        out.push(`number broken across lines: "${short(cell)}"`);
      }
    });
  }

  for (const img of document.images) {
    const alt = (img.getAttribute("alt") || "").trim();
    const src = img.getAttribute("src") || "";
    const path = alt.includes("/") && !/\s/.test(alt);  // "GFLOP/s" in a sentence is fine
    if (!alt || alt === src || path || /\.(png|svg|jpe?g|gif|webp)$/i.test(alt)) {
      out.push(`image without real alt text: ${src} (alt ${JSON.stringify(alt)})`);
    }
    if (src.includes("_images/") && !/\.svg$/i.test(src)) {
      out.push(`figure is not SVG: ${src}`);
    }
    // Figures are drawn with text of at least 10 pt at their natural size.
    if (desktop && shown(img) && img.naturalWidth && img.clientWidth < 0.97 * img.naturalWidth) {
      out.push(`figure shrunk to ${Math.round(100 * img.clientWidth / img.naturalWidth)} % ` +
               `on desktop, its text below 10 pt: ${src}`);
    }
    // On a phone every label is at least 11 CSS px as shown: its font size in the SVG's
    // own units, times the width shown over the viewBox's width.
    if (!desktop && shown(img) && /\.svg$/i.test(src)) {
      const svg = new DOMParser().parseFromString(
        await (await fetch(img.src)).text(), "image/svg+xml").documentElement;
      const scale = img.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      let smallest = Infinity;
      svg.querySelectorAll("text").forEach((t) => {
        const m = /font(?:-size)?:[^;]*?([\d.]+)px/.exec(t.getAttribute("style") || "");
        if (m) smallest = Math.min(smallest, Number(m[1]) * scale);
      });
      if (smallest < 11 - 0.05) {
        out.push(`figure label ${smallest.toFixed(1)} CSS px (under 11) at ` +
                 `${root.clientWidth} px: ${src}`);
      }
    }
  }

  // English UI: the chrome's text (everything outside the article, plus toggles and
  // buttons inside it) and every tooltip, label and placeholder.
  const words = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    const value = walker.currentNode.nodeValue.replace(/\s+/g, " ").trim();
    if (!el || !value || el.closest("script, style, mjx-container")) continue;
    if (el.closest("article.bd-article") && !el.closest("summary, button, .toggle-details"))
      continue;
    words.add(value);
  }
  document.querySelectorAll("[title], [aria-label], [placeholder], [data-tooltip]").forEach(
    (el) => ["title", "aria-label", "placeholder", "data-tooltip"].forEach((a) => {
      const v = el.getAttribute(a);
      if (v) words.add(v.trim());
    }));
  const found = new Set();
  for (const phrase of english) {
    const single = /^[A-Za-z]+$/.test(phrase);
    for (const w of words) {
      if (single ? w === phrase : w.includes(phrase)) found.add(phrase);
    }
  }
  for (const phrase of found) out.push(`English UI string: "${phrase}"`);

  if (dark && article) {
    const light = (css) => {
      const m = css.match(/rgba?\(([^)]+)\)/);
      if (!m) return false;
      const [r, g, b, a = 1] = m[1].split(",").map(Number);
      return a > 0.5 && (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 > 0.6;
    };
    let plates = 0;
    for (const el of article.querySelectorAll("*")) {
      if (!shown(el) || !light(getComputedStyle(el).backgroundColor)) continue;
      const r = el.getBoundingClientRect();
      if (r.width * r.height < 2000) continue;
      if (plates++ < 3) out.push(`light plate in dark mode: <${el.tagName.toLowerCase()} ` +
                                 `class="${el.className}"> "${short(el)}"`);
    }
  }
  return out;
}
