"""The records: what a benchmark record holds, declared once in types (:mod:`.entry`, the
results types in :mod:`.results`, the timing in :mod:`.timing`, their rules in :mod:`.schema`),
checked (:mod:`.validate`), read, merged and written (:mod:`.store`), compared across machines
(:mod:`.compare`) and shown as tables (:mod:`.report`). Nothing here imports torch, triton,
psutil or matplotlib, so pages and ``compare`` read records without them."""
