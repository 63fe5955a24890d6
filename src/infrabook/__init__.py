"""infrabook: the calculators and kernels behind the executable book.

The calculators (``dataflow``, ``fusion_search``, ``attention_sizes``, ``online_softmax``,
``launches``, ``bucketing``, ``crossover``, ``roofline``, ``audit``) are pure Python with
numpy at most. The Triton kernels live in :mod:`infrabook.kernels` and need torch and triton.
"""

__version__ = "0.1.0"
