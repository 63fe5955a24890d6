"""What measures: the host's facts (:mod:`.host`), the CUDA device and its timers
(:mod:`.cuda`), and the CPU timers and cache flush (:mod:`.timers`). Each produces the
records' types; none knows any experiment."""
