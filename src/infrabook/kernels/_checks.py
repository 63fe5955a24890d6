"""Input checks shared by the kernel wrappers, so every op rejects bad input the same way.

The kernels index memory as if each tensor were one dense, row-major block, so the checks
insist on that layout instead of silently copying: a hidden copy would add traffic that
the book's byte counts do not show.
"""

from __future__ import annotations

import torch
import triton

#: True when the kernels were decorated in Triton's interpreter (no CUDA, or
#: ``TRITON_INTERPRET=1``); False when they compile natively for a GPU.
INTERPRETED: bool = bool(triton.knobs.runtime.interpret)

#: Where to put tensors for the kernels: "cpu" in the interpreter, "cuda" when compiled.
DEVICE: str = "cpu" if INTERPRETED else "cuda"

#: The floating-point dtypes the kernels accept.
FLOAT_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def check_inputs(op: str, rank: int, **tensors: torch.Tensor) -> None:
    """Raise unless the named tensors are dense, non-empty, alike and on a usable device.

    ``TypeError`` for a non-tensor or an unsupported or mismatched dtype, ``ValueError``
    for everything else. Every message starts with ``op`` and names the tensor at fault.

    >>> check_inputs("swiglu", 2, g=torch.ones(2, 3), u=torch.ones(2, 4))
    Traceback (most recent call last):
    ...
    ValueError: swiglu: g and u must have the same shape, got g (2, 3) and u (2, 4)
    """
    first_name, first = next(iter(tensors.items()))
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{op}: {name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            expected = ", ".join(str(d) for d in FLOAT_DTYPES)
            raise TypeError(f"{op}: {name} has dtype {t.dtype}, expected one of {expected}")
        if t.dim() != rank:
            raise ValueError(
                f"{op}: {name} must have {rank} dimensions, got {t.dim()} (shape {tuple(t.shape)})"
            )
        if t.numel() == 0:
            raise ValueError(f"{op}: {name} is empty (shape {tuple(t.shape)})")
        if not t.is_contiguous():
            raise ValueError(
                f"{op}: {name} must be contiguous (row-major), got strides {t.stride()} "
                f"for shape {tuple(t.shape)}; call .contiguous() first"
            )
    for name, t in tensors.items():
        if t.shape != first.shape:
            raise ValueError(
                f"{op}: {first_name} and {name} must have the same shape, "
                f"got {first_name} {tuple(first.shape)} and {name} {tuple(t.shape)}"
            )
        if t.dtype != first.dtype:
            raise TypeError(
                f"{op}: {first_name} and {name} must have the same dtype, "
                f"got {first_name} {first.dtype} and {name} {t.dtype}"
            )
        if t.device != first.device:
            raise ValueError(
                f"{op}: {first_name} and {name} must be on the same device, "
                f"got {first_name} on {first.device} and {name} on {t.device}"
            )
    # Last, once all are alike, so that a mismatch is reported the same way on a CPU and
    # on a GPU (a CPU tensor beside a CUDA one is a mismatch first, a wrong device second).
    if not INTERPRETED and first.device.type != DEVICE:
        raise ValueError(
            f"{op}: {first_name} is on {first.device}, but the kernels were compiled for CUDA; "
            "move the tensors to the GPU"
        )


def check_block(name: str, value: object, low: int, high: int) -> int:
    """Return ``value`` if it is a power of two in ``[low, high]`` (``tl.arange`` needs one).

    >>> check_block("block_m", 48, 16, 128)
    Traceback (most recent call last):
    ...
    ValueError: block_m must be a power of two between 16 and 128, got 48
    """
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or not low <= value <= high
        or value & (value - 1)
    ):
        raise ValueError(f"{name} must be a power of two between {low} and {high}, got {value!r}")
    return value
