// Live calculators: the same Python package that printed the static tables, run in the page.
// (live-check.js, a classic script, handles the pages where this module cannot run.)
//
// Nothing loads until the reader asks (the button, or editing an input). Then Pyodide comes
// from this site's _static/pyodide/, the package's wheel and the conf files the build read
// (TOML, checked in Python like anywhere else) from _static/live/, and every change of an
// input calls infrabook.live.run_json with the form's values. Errors are the package's
// own messages, every one of them, each beside the field it names; while any input is invalid
// the last valid tables stay, dimmed and marked stale (data-stale). Timings are kept on the
// element (data-first-ms, data-update-ms) for the site's browser check and its benchmark.

const here = new URL(".", import.meta.url);
const pyodideBase = new URL("../pyodide/", here);
let booting = null;

function boot() {
  if (booting === null) {
    booting = (async () => {
      const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideBase).href);
      const py = await loadPyodide({ indexURL: pyodideBase.href });
      const site = py.runPython("import site; site.getsitepackages()[0]");
      const archives = ["infrabook-py3-none-any.whl", "infrabook-conf.zip"];
      const responses = await Promise.all(archives.map((a) => fetch(new URL(a, here))));
      for (const [i, response] of responses.entries()) {
        if (!response.ok) throw new Error(`${archives[i]}: HTTP ${response.status}`);
        py.unpackArchive(await response.arrayBuffer(), "zip", { extractDir: site });
      }
      // The package answers in the edition's language (infrabook.labels reads this).
      const lang = document.documentElement.lang.startsWith("en") ? "en" : "zh";
      py.runPython(`import os; os.environ["INFRABOOK_LANG"] = "${lang}"`);
      return py.pyimport("infrabook.live");
    })();
  }
  return booting;
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
    section.dataset.firstMs = (performance.now() - start).toFixed(0);
    button.hidden = true;
    // Python is in the page now: the other calculators' buttons no longer offer a download
    for (const other of document.querySelectorAll('.live-calc[data-state="static"]')) {
      other.querySelector(".live-enable").textContent = other.dataset.msgEnableLoaded;
    }
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

for (const section of document.querySelectorAll(".live-calc")) {
  setup(section);
  // widths settle once the fonts are in
  for (const event of ["load", "resize"]) {
    window.addEventListener(event, () => reachable(section));
  }
  document.fonts.ready.then(() => reachable(section));
}
