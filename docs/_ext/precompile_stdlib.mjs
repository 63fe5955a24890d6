// Writes docs/_static/pyodide/python_stdlib_precompiled.zip: Pyodide's standard library
// (python_stdlib.zip, vendored unmodified beside it) with the modules the live calculators
// load compiled to bytecode, so that the reader's browser does not compile them at every
// start. Pyodide's stdlib comes as source only, and compiling it was most of the time from
// the click to Python being up (measured under Node 20 on 2 cores: 2.4 s with the source
// zip, 0.65-0.97 s with this one; docs/checks/live_timing.py measures it in Chromium).
//
// Bytecode is CPython 3.14's, which only Pyodide's own interpreter writes here, so this runs
// the vendored Pyodide under Node (the machine's node, no package to install):
//
//     node docs/_ext/precompile_stdlib.mjs
//
// It starts Pyodide on the source zip, imports infrabook.live from src/ and computes every
// calculator once, and compiles each standard-library module that was then loaded, and
// nothing else: a .py becomes a .pyc in its place (an unchecked hash-based pyc, PEP 552,
// so no timestamp is needed; it carries the hash of the source it was compiled from), every
// other entry is copied as it is. Run it again after updating Pyodide or when the package
// starts importing other standard modules; tests/test_live_stdlib.py checks the result
// against the source zip.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pyodideDir = join(root, "docs", "_static", "pyodide");
const { loadPyodide } = await import(join(pyodideDir, "pyodide.mjs"));
const py = await loadPyodide({ indexURL: pyodideDir + "/" });
py.FS.mkdirTree("/project");
py.FS.mount(py.FS.filesystems.NODEFS, { root: join(root, "src") }, "/project");
py.FS.mkdirTree("/conf");
py.FS.mount(py.FS.filesystems.NODEFS, { root: join(root, "conf") }, "/conf");
const source = readFileSync(join(pyodideDir, "python_stdlib.zip"));
py.FS.writeFile("/tmp/source.zip", new Uint8Array(source));
const count = py.runPython(`
import importlib.util, marshal, os, sys, zipfile
sys.dont_write_bytecode = True  # the checkout is mounted: write nothing into it
sys.path.insert(0, "/project")
os.environ["INFRABOOK_CONF"] = "/conf"
from infrabook import live
for name in live.calculators():
    assert live.run(name, {})["ok"], name
stdlib = "/lib/python314.zip/"
loaded = {
    m.__file__[len(stdlib):]
    for m in list(sys.modules.values())
    if (getattr(m, "__file__", None) or "").startswith(stdlib)
}
source = zipfile.ZipFile("/tmp/source.zip")
out = zipfile.ZipFile("/tmp/precompiled.zip", "w", zipfile.ZIP_DEFLATED)
compiled = 0
for info in source.infolist():
    data = source.read(info)
    name = info.filename
    if name in loaded:
        code = compile(data, stdlib + name, "exec", dont_inherit=True)
        flags = (1).to_bytes(4, "little")  # hash-based, source not checked
        data = importlib.util.MAGIC_NUMBER + flags + importlib.util.source_hash(data)
        data += marshal.dumps(code)
        name += "c"
        compiled += 1
    entry = zipfile.ZipInfo(name, date_time=info.date_time)
    entry.compress_type = zipfile.ZIP_DEFLATED
    entry.external_attr = info.external_attr
    out.writestr(entry, data)
out.close()
compiled
`);
const target = join(pyodideDir, "python_stdlib_precompiled.zip");
writeFileSync(target, py.FS.readFile("/tmp/precompiled.zip"));
console.log(`${target}: ${count} modules compiled`);
