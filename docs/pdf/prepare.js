// Turns the singlehtml page of one edition into a book for printing (docs/pdf/build.py runs
// it in headless Chromium before page.pdf). It receives `book`: the words and facts of the
// edition ({lang, words, version, date, site, siteText}). It returns the headings of the
// outline (the contents' entries), each as {level, id, title}.
(book) => {
  const w = book.words;
  const main = document.querySelector("article.bd-article") || document.querySelector("main");
  document.documentElement.lang = book.lang === "zh" ? "zh-CN" : "en";

  // Every page of the site becomes one <section> after a marker span; find each page's root.
  const pages = [...main.querySelectorAll('span[id^="document-"]')].map((span) => {
    let root = span.nextElementSibling;
    while (root && root.tagName !== "SECTION") root = root.nextElementSibling;
    return { name: span.id.slice("document-".length), span, root };
  }).filter((p) => p.root);
  const byName = new Map(pages.map((p) => [p.name, p]));

  // Ids repeat across pages (id1, id2...): give each page's repeats a unique name and point
  // that page's own links at them.
  const seen = new Set([...document.querySelectorAll("[id]")].filter(
    (el) => !pages.some((p) => p.root.contains(el))).map((el) => el.id));
  for (const p of pages) {
    const renamed = new Map();
    for (const el of [p.root, ...p.root.querySelectorAll("[id]")]) {
      if (!el.id) continue;
      if (seen.has(el.id)) {
        const fresh = `${p.name}--${el.id}`;
        renamed.set(el.id, fresh);
        el.id = fresh;
      }
      seen.add(el.id);
    }
    p.renamed = renamed;
    for (const a of p.root.querySelectorAll('a[href^="#"]')) {
      const target = decodeURIComponent(a.getAttribute("href").slice(1));
      if (renamed.has(target) && !a.closest("section.live-calc")) {
        a.setAttribute("href", `#${renamed.get(target)}`);
      }
    }
  }
  // Sphinx's singlehtml writes a link to an anchor of another page as
  // "#document-PAGE#ANCHOR", which no viewer follows: resolve it inside that page.
  for (const a of main.querySelectorAll('a[href^="#document-"]')) {
    const [page, anchor] = a.getAttribute("href").slice("#document-".length).split("#");
    const p = byName.get(decodeURIComponent(page));
    if (!p) continue;
    if (!anchor) {
      a.setAttribute("href", `#${p.root.id}`);
      continue;
    }
    const id = decodeURIComponent(anchor);
    const el = p.root.id === id ? p.root : document.getElementById(p.renamed.get(id) || id);
    if (el && p.root.contains(el)) a.setAttribute("href", `#${el.id}`);
  }

  // Headings: the site nests pages under the front page's toctree (chapters come out as h3
  // or deeper); in the book a chapter is h1, its sections h2 and h3 (the PDF outline).
  const depth = (el) => {
    let n = 0;
    for (let s = el.parentElement; s && s !== main; s = s.parentElement) {
      if (s.tagName === "SECTION") n += 1;
    }
    return n;
  };
  // The front page has no marker of its own: it is the section the chapters sit in.
  const chapters = pages.filter((p) => p.name !== "index");
  const frontRoot = main.querySelector("section");
  const front = frontRoot && !chapters.some((p) => p.root.contains(frontRoot))
    ? { name: "index", root: frontRoot } : null;
  const chapterDepth = Math.min(...chapters.map((p) => depth(p.root.querySelector("h1,h2,h3,h4,h5,h6"))));
  const retag = (h, level) => {
    const n = document.createElement(`h${Math.min(Math.max(level, 1), 6)}`);
    for (const attr of h.attributes) n.setAttribute(attr.name, attr.value);
    n.append(...h.childNodes);
    h.replaceWith(n);
    return n;
  };
  // A page the site nests in a chapter (5.1 in 5) is a section of it: its title is an h2.
  const nested = (p) => chapters.some((q) => q !== p && q.root.contains(p.root));
  for (const h of [...main.querySelectorAll("h1,h2,h3,h4,h5,h6")]) {
    const own = chapters.filter((p) => p.root.contains(h)).pop();
    if (!own) continue;
    const base = nested(own) ? depth(own.root.querySelector("h1,h2,h3,h4,h5,h6")) - 2 : chapterDepth - 1;
    retag(h, depth(h) - base);
  }

  // The front page: its title is the cover's; its prose becomes the book's introduction.
  // The chapter cards repeat the table of contents, and the PDF link points at this file.
  if (front) {
    const title = front.root.querySelector("h1");
    const intro = document.createElement("h1");
    intro.id = "book-introduction";
    intro.textContent = w.introduction;
    title.replaceWith(intro);
    for (const h of front.root.querySelectorAll("h2,h3")) {
      if (!chapters.some((p) => p.root.contains(h))) retag(h, 2);
    }
    front.root.querySelectorAll(".sd-container-fluid").forEach((el) => el.remove());
    front.root.querySelectorAll(".book-pdf").forEach((el) => el.closest("p").remove());
  }

  // Answers and other folded parts are printed open; code the site folds stays folded out.
  main.querySelectorAll("details.sd-dropdown").forEach((d) => { d.open = true; });
  main.querySelectorAll("details.above-input, details.below-input").forEach((d) => {
    d.closest(".cell_input, details").remove();
  });

  // A live calculator prints its inputs, the table computed for them, and where to use it.
  for (const calc of main.querySelectorAll("section.live-calc")) {
    const page = pages.filter((p) => p.root.contains(calc)).pop(); // the innermost page
    const inputs = [...calc.querySelectorAll(".live-field")].map((f) => {
      const label = f.querySelector("label").textContent.trim();
      const control = f.querySelector("input, select");
      const value = control.type === "checkbox" ? (control.checked ? w.yes : w.no) : control.value;
      return `${label} = ${value}`;
    });
    const given = document.createElement("p");
    given.className = "live-print-inputs";
    given.textContent = `${w.live_inputs}${inputs.join("; ")}`;
    const note = document.createElement("p");
    note.className = "live-print-note";
    const address = `${page.name}.html`;
    const link = document.createElement("a");
    link.href = book.site + address;
    link.textContent = book.site + address;
    note.append(w.live_note, link);
    calc.querySelector(".live-form").replaceWith(given);
    calc.querySelector(".live-bar").replaceWith(note);
    calc.querySelectorAll(".live-form-error").forEach((el) => el.remove());
  }

  // Figures and tables are numbered per chapter: "图 2-3", "Table 5-1"; appendices by letter.
  let appendix = 0;
  const top = chapters.filter((p) => !chapters.some((q) => q !== p && q.root.contains(p.root)));
  for (const p of top) {
    const h1 = p.root.querySelector("h1");
    const m = h1.textContent.match(/^\s*(\d+)[.．]/);
    const label = m ? m[1] : String.fromCharCode(65 + appendix++);
    let fig = 0;
    let tab = 0;
    for (const figure of p.root.querySelectorAll("figure")) {
      const caption = figure.querySelector("figcaption p, figcaption");
      const number = document.createElement("span");
      number.className = "book-number";
      number.textContent = `${w.figure} ${label}-${++fig}${w.number_sep}`;
      if (caption) caption.prepend(number);
    }
    for (const table of p.root.querySelectorAll("table")) {
      if (table.closest(".MathJax, mjx-container")) continue;
      let caption = table.querySelector("caption");
      if (!caption) {
        caption = document.createElement("caption");
        table.prepend(caption);
      }
      const number = document.createElement("span");
      number.className = "book-number";
      number.textContent = `${w.table} ${label}-${++tab}${caption.textContent.trim() ? w.number_sep : ""}`;
      caption.prepend(number);
    }
  }

  // Cover and contents, before everything else.
  const cover = document.createElement("section");
  cover.className = "book-cover";
  const coverTitle = document.createElement("p");
  coverTitle.className = "book-title";
  coverTitle.textContent = "infrabook";
  const subtitle = document.createElement("p");
  subtitle.className = "book-subtitle";
  subtitle.textContent = w.subtitle;
  const facts = document.createElement("dl");
  for (const [term, value] of [[w.edition_label, w.edition], [w.version_label, book.version],
    [w.date_label, book.date], [w.site_label, book.siteText]].filter(([, v]) => v)) {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = value;
    facts.append(dt, dd);
  }
  const blurb = document.createElement("p");
  blurb.className = "book-blurb";
  blurb.textContent = w.blurb;
  cover.append(coverTitle, subtitle, facts, blurb);

  const toc = document.createElement("nav");
  toc.className = "book-toc";
  toc.setAttribute("aria-label", w.contents);
  const tocTitle = document.createElement("h1");
  tocTitle.className = "book-toc-title";
  tocTitle.id = "book-contents";
  tocTitle.textContent = w.contents;
  const list = document.createElement("ol");
  for (const h of main.querySelectorAll("h1, h2")) {
    if (!h.id) {
      const section = h.closest("section[id]");
      h.id = section && section.querySelector("h1,h2") === h ? `${section.id}--title` : `h-${list.children.length}`;
    }
    const li = document.createElement("li");
    li.className = `toc-${h.tagName.toLowerCase()}`;
    const a = document.createElement("a");
    a.href = `#${h.id}`;
    a.textContent = h.textContent.replace(/#\s*$/, "").trim();
    li.append(a);
    list.append(li);
  }
  toc.append(tocTitle, list);
  main.prepend(cover, toc);
  main.querySelectorAll("a.headerlink").forEach((a) => a.remove());
  document.title = `infrabook · ${w.subtitle}`;
  // The outline (build.py writes it): the contents, the chapters and their sections. Every
  // entry is a link target of the contents, so Chromium gives each a named destination.
  return [tocTitle, ...main.querySelectorAll(".book-toc a")].map((el) => {
    const h = el.tagName === "A" ? document.getElementById(el.getAttribute("href").slice(1)) : el;
    return { level: Number(h.tagName.slice(1)), id: h.id, title: el.textContent.trim() };
  });
}
