"""The experiments, one module per operation measured (named like :mod:`infrabook.kernels`),
each with its CPU and GPU variants; :mod:`.base` is what they share, and :mod:`.suite`
lists them in the order the pages show them."""
