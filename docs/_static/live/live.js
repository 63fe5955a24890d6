// Live calculators: the same Python package that printed the static tables, run in the page.
// (live-check.js, a classic script, handles the pages where this module cannot run.)
//
// Nothing loads with the page. Pyodide comes from this site's _static/pyodide/, then the
// package's wheel and the conf files the build read (TOML, checked in Python like anywhere
// else) from _static/live/, when the reader shows an interest in a calculator: the button, an
// edit, the pointer on it or focus in it, or the calculator held in view for a while (a
// reader who stopped scrolling there to read its form; not when the browser asks to save
// data). The status line says so before it happens. Starting then, not at the click, is
// what brings the first answer close to the click: the runtime takes seconds to compile and
// start, which the reader spends reading the form. While it downloads, every calculator on the
// page shows the bytes received out of the total the build wrote. Every change of an input
// then calls infrabook.live.run_json with the form's values. Errors are the package's own
// messages, each beside the field it names; while any input is invalid the last valid tables
// stay, dimmed and marked stale (data-stale). Timings are kept on the element (data-first-ms,
// data-update-ms) for the site's browser check and its benchmark, and each phase of the start
// is a performance mark ("ib-live:" + phase) that docs/checks/live_timing.py reads beside the
// browser's own timings of each download.

const here = new URL(".", import.meta.url);
const pyodideBase = new URL("../pyodide/", here);
const sections = [...document.querySelectorAll(".live-calc")];
let booting = null;

const mark = (phase) => performance.mark(`ib-live:${phase}`);

// Bytes received of everything the start downloads, shown on every calculator of the page.
// Each fetch under _static/ is read a second time through a clone of its response (the
// original goes on untouched, so the browser still compiles the WebAssembly as it streams
// in and caches it by its address); Pyodide's one module script, which no fetch loads, is
// counted when the browser has it.
function countDownloads() {
  const received = new Map();
  const show = () => {
    let done = 0;
    for (const n of received.values()) done += n;
    for (const section of sections) progress(section, done);
  };
  const ours = (url) => String(url).startsWith(new URL("..", here).href);
  const fetchBefore = window.fetch;
  window.fetch = async (input, init) => {
    const response = await fetchBefore(input, init);
    const url = String(input instanceof Request ? input.url : input);
    if (ours(url) && response.ok && response.body) {
      const reader = response.clone().body.getReader();
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          received.set(url, (received.get(url) || 0) + value.byteLength);
          show();
        }
      })().catch(() => {});
    }
    return response;
  };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (ours(entry.name) && !received.has(entry.name) && entry.initiatorType !== "fetch") {
        received.set(entry.name, entry.decodedBodySize);
        show();
      }
    }
  });
  observer.observe({ type: "resource" });
  return () => {
    window.fetch = fetchBefore;
    observer.disconnect();
  };
}

function progress(section, done) {
  const bar = section.querySelector(".live-progress");
  const total = Number(bar.max);
  const shown = Math.min(done, total);
  const words = section.dataset.msgProgress
    .replace("{done}", (shown / 1e6).toFixed(1))
    .replace("{total}", (total / 1e6).toFixed(1));
  bar.value = shown;
  bar.setAttribute("aria-valuetext", words);
  section.querySelector(".live-progress-text").textContent = words;
}

function boot() {
  if (booting === null) {
    booting = (async () => {
      mark("boot");
      for (const section of sections) {
        section.querySelector(".live-progress-bar").hidden = false;
        if (section.dataset.state === "static") {
          section.querySelector(".live-status").textContent = section.dataset.msgLoading;
        }
      }
      const stopCounting = countDownloads();
      try {
        const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideBase).href);
        mark("loader");
        // the standard library with the modules the package loads already compiled
        // (docs/_ext/precompile_stdlib.mjs): compiling them here was most of the start
        const stdLibURL = new URL("python_stdlib_precompiled.zip", pyodideBase).href;
        const py = await loadPyodide({ indexURL: pyodideBase.href, stdLibURL });
        mark("runtime");
        const site = py.runPython("import site; site.getsitepackages()[0]");
        const archives = ["infrabook-py3-none-any.whl", "infrabook-conf.zip"];
        const responses = await Promise.all(archives.map((a) => fetch(new URL(a, here))));
        for (const [i, response] of responses.entries()) {
          if (!response.ok) throw new Error(`${archives[i]}: HTTP ${response.status}`);
          py.unpackArchive(await response.arrayBuffer(), "zip", { extractDir: site });
        }
        mark("archives");
        // The package answers in the edition's language (infrabook.labels reads this).
        const lang = document.documentElement.lang.startsWith("en") ? "en" : "zh";
        py.runPython(`import os; os.environ["INFRABOOK_LANG"] = "${lang}"`);
        const live = py.pyimport("infrabook.live");
        mark("imports");
        return live;
      } finally {
        stopCounting();
        for (const section of sections) {
          section.querySelector(".live-progress-bar").hidden = true;
        }
      }
    })();
    booting.then(
      () => {
        // Python is in the page now: no calculator still offers a download
        for (const other of sections) {
          if (other.dataset.state !== "static") continue;
          other.querySelector(".live-enable").textContent = other.dataset.msgEnableLoaded;
          other.querySelector(".live-status").textContent = other.dataset.msgStatic;
        }
      },
      () => {},
    );
  }
  return booting;
}

// The reader's interest in a calculator starts the download before the click: the pointer on
// it, focus in it, or the calculator at least half in view for WARM_AFTER_MS.
const WARM_AFTER_MS = 1500;
function warmOnInterest(section) {
  for (const event of ["pointerenter", "focusin", "touchstart"]) {
    section.addEventListener(event, () => boot().catch(() => {}), { once: true, passive: true });
  }
  if (navigator.connection && navigator.connection.saveData) return;
  let timer = 0;
  const observer = new IntersectionObserver(
    ([entry]) => {
      clearTimeout(timer);
      if (!entry.isIntersecting) return;
      timer = setTimeout(() => {
        observer.disconnect();
        boot().catch(() => {});
      }, WARM_AFTER_MS);
    },
    { threshold: 0.5 },
  );
  observer.observe(section);
}

function values(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    out[el.name] = el.type === "checkbox" ? String(el.checked) : el.value;
  }
  return out;
}

// A valid result replaces the tables; an invalid one leaves the last valid tables in place
// but marks them stale (dimmed, with a note), and shows every message: each beside its field,
// one that concerns the fields together above the tables.
function show(section, result) {
  const form = section.querySelector(".live-form");
  const status = section.querySelector(".live-status");
  const formError = section.querySelector(".live-form-error");
  for (const span of section.querySelectorAll(".live-error")) span.textContent = "";
  for (const el of form.elements) el.removeAttribute("aria-invalid");
  formError.textContent = "";
  if (result.ok) {
    section.querySelector(".live-output").innerHTML = result.html;
    // the site's scroll cues measure the new tables (infrabook-site.js)
    document.dispatchEvent(new Event("ib:tables"));
    section.dataset.error = "";
    section.dataset.stale = "false";
    status.textContent = section.dataset.msgReady;
    return;
  }
  section.dataset.error = result.error;
  section.dataset.stale = "true";
  status.textContent = section.dataset.msgStale;
  const general = [];
  for (const { field, error } of result.errors) {
    const el = field && form.elements.namedItem(field);
    if (el) {
      el.setAttribute("aria-invalid", "true");
      section.querySelector(`.live-error[data-for="${field}"]`).textContent = error;
    } else {
      general.push(error);
    }
  }
  formError.textContent = general.join(" ");
}

// Tables wider than the calculator scroll sideways in .live-output; a keyboard reader must
// be able to reach that scroll box, so it takes focus exactly while it overflows.
function reachable(section) {
  const output = section.querySelector(".live-output");
  if (output.scrollWidth > output.clientWidth + 1) output.setAttribute("tabindex", "0");
  else output.removeAttribute("tabindex");
}

function setup(section) {
  const name = section.dataset.calc;
  const form = section.querySelector(".live-form");
  const button = section.querySelector(".live-enable");
  const status = section.querySelector(".live-status");
  form.addEventListener("submit", (event) => event.preventDefault());
  let module = null;
  let pending = 0;

  const compute = () => {
    const start = performance.now();
    const result = JSON.parse(module.run_json(name, JSON.stringify(values(form))));
    show(section, result);
    reachable(section);
    section.dataset.updateMs = (performance.now() - start).toFixed(2);
    section.dataset.updates = String(Number(section.dataset.updates || 0) + 1);
  };

  const enable = async () => {
    if (section.dataset.state !== "static") return;
    section.dataset.state = "loading";
    button.disabled = true;
    status.textContent = section.dataset.msgLoading;
    const start = performance.now();
    mark("click");
    try {
      module = await boot();
    } catch (err) {
      section.dataset.state = "failed";
      status.textContent = section.dataset.msgFailed.replace("{error}", String(err.message || err));
      button.disabled = false;
      return;
    }
    section.dataset.state = "ready";
    compute();
    mark("first");
    section.dataset.firstMs = (performance.now() - start).toFixed(0);
    button.hidden = true;
  };

  button.addEventListener("click", enable);
  form.addEventListener("input", () => {
    // until Python answers, the tables shown are for other inputs: dimmed, as stale
    if (section.dataset.state !== "ready") section.dataset.stale = "true";
    if (section.dataset.state === "static") {
      enable();
      return;
    }
    if (section.dataset.state !== "ready") return;
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(compute);
  });
}

for (const section of sections) {
  setup(section);
  warmOnInterest(section);
  // widths settle once the fonts are in
  for (const event of ["load", "resize"]) {
    window.addEventListener(event, () => reachable(section));
  }
  document.fonts.ready.then(() => reachable(section));
}
