"""Triton kernels behind the book: fused SwiGLU, fused SwiGLU + quantisation,
FlashAttention's forward pass and its ladder of faster rungs, and a persistent kernel. One
op per module, each with its kernel(s), a wrapper that checks inputs, and the PyTorch
reference it is tested against.

CPU-ONLY MACHINES: importing this package sets ``TRITON_INTERPRET=1`` when that variable
is unset and ``torch.cuda.is_available()`` is False. Triton reads the variable when a
kernel is *decorated*, which happens right below as the kernel modules are imported, so
the same kernel source then runs in Triton's interpreter (numpy on the CPU, one program
after another). That is not a fallback to PyTorch: the loads, stores, masks and
reductions executed are the kernel's own. With CUDA present the kernels compile natively.
To choose yourself, set ``TRITON_INTERPRET`` before the first import; :data:`INTERPRETED`
says which mode is in effect and :data:`DEVICE` where input tensors belong.

COMPILED: importing this package also sets ``TRITON_DEFAULT_FP_FUSION=1`` when unset. Triton
3.9 fuses multiplies and adds into FMAs by default but warns, at the first compile, that
3.10 will stop. Pinning the choice keeps a Triton upgrade from changing the kernels'
numerics, and the warning from failing the GPU tests (the suite turns warnings into errors).

>>> import torch
>>> g, u = torch.randn(2, 8, 8, device=DEVICE)
>>> torch.allclose(swiglu(g, u), swiglu_reference(g, u), rtol=1e-6, atol=1e-6)
True
"""

import os
import sys

import torch

if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    if "triton" in sys.modules:
        # Triton decorated its own library functions (tl.zeros, ...) when it was imported;
        # without the variable set then, the interpreter cannot call them later.
        raise ImportError(
            "infrabook.kernels: no CUDA device, so the kernels need Triton's interpreter, "
            "but triton was imported before TRITON_INTERPRET was set; set "
            "TRITON_INTERPRET=1 before importing triton (or import infrabook.kernels first)"
        )
    os.environ["TRITON_INTERPRET"] = "1"
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

from infrabook.kernels._checks import DEVICE, INTERPRETED
from infrabook.kernels.attention_ladder import RUNGS, ladder_attention
from infrabook.kernels.flash_attention import (
    BLOCK_M,
    BLOCK_N,
    MAX_HEAD_DIM,
    MIN_HEAD_DIM,
    attention_reference,
    flash_attention,
)
from infrabook.kernels.persistent import (
    CPU_PROGRAMS,
    NUM_WARPS,
    Launch,
    resident_on,
    swiglu_per_tile,
    swiglu_persistent,
    swiglu_pipelined,
)
from infrabook.kernels.swiglu import (
    BLOCK,
    swiglu,
    swiglu_reference,
    swiglu_unfused,
)
from infrabook.kernels.swiglu_quant import (
    MAX_BLOCK_COLS,
    swiglu_quant,
    swiglu_quant_reference,
)

__all__ = [
    "BLOCK",
    "BLOCK_M",
    "BLOCK_N",
    "CPU_PROGRAMS",
    "DEVICE",
    "INTERPRETED",
    "MAX_BLOCK_COLS",
    "MAX_HEAD_DIM",
    "MIN_HEAD_DIM",
    "NUM_WARPS",
    "RUNGS",
    "Launch",
    "attention_reference",
    "flash_attention",
    "ladder_attention",
    "resident_on",
    "swiglu",
    "swiglu_per_tile",
    "swiglu_persistent",
    "swiglu_pipelined",
    "swiglu_quant",
    "swiglu_quant_reference",
    "swiglu_reference",
    "swiglu_unfused",
]
