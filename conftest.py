"""Pytest set-up shared by tests/ and the doctests in src/.

Triton decides at decoration time whether a kernel is compiled or interpreted, so the
choice must be made before any kernel module is imported: on a machine without CUDA the
kernels run in Triton's interpreter (the tested CPU path); with CUDA they compile natively.
"""

import os


def _cuda_present() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


if "TRITON_INTERPRET" not in os.environ and not _cuda_present():
    os.environ["TRITON_INTERPRET"] = "1"
