"""The two compile decorators every kernel uses.

``kernel`` is ``numba.njit`` without the reference-counting runtime.  Kernels never allocate:
they work in arrays their caller made once per batch, so counting references to those arrays
on every call is pure cost, and it was most of the cost (about 10 ns an array argument per
call, halving the deals played per second).  ``entry`` is for the few functions that allocate
those arrays and are called from Python; they are cached on disk.

None of them has numba's C-callable wrapper (``no_cfunc_wrapper``): it exists only to take a
function's address (``cfunc``-style callbacks, first-class function values), which simsol never
does, and every compiled function carried its own, with the function's whole body inlined into
it by LLVM and optimized a second time: about a quarter of the compile time.  Python still calls
a kernel or an entry through its ordinary (CPython) wrapper.

Every one of them uses numpy's error model (``error_model="numpy"``): under numba's default,
Python's, each integer division or remainder by a value not known at compile time is preceded
by a test for zero that raises ``ZeroDivisionError``, which the caller must then test for.  No
kernel divides by zero (every divisor is a count of suits, piles, cards a turn or cards in a
deck, at least 1 wherever a division is reached), so the tests were pure cost: without them
Klondike's greedy and the exact solver run 2 to 3% faster in one process, with the same records
(README, *Speed*; the two-worker main job shows no change beyond its noise).

``copy_block`` copies one array into another as one block of bytes (LLVM's ``memcpy``), where a
loop over the elements compiles to a copy a byte at a time.
"""

from __future__ import annotations

import numba as nb
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic, overload


def kernel(fn=None, *, inline: str = "never"):
    """Compile ``fn`` for use inside other kernels: no allocation, no reference counting."""
    decorate = nb.njit(_nrt=False, inline=inline, no_cfunc_wrapper=True, error_model="numpy")
    return decorate if fn is None else decorate(fn)


entry = nb.njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
# a helper of the entry points that allocates (compiled into them)
allocating = nb.njit(no_cfunc_wrapper=True, error_model="numpy")


def copy_block(dst, src):
    """Copy ``src`` into ``dst``, two C-ordered arrays of one shape and type (plain Python: this;
    compiled: one ``memcpy``, ``_memcpy_block``)."""
    if dst.shape != src.shape:
        raise ValueError("copy_block: the two arrays differ in shape")
    dst[...] = src


@intrinsic
def _memcpy_block(typingctx, dst, src):
    if not (isinstance(dst, types.Array) and dst.layout == "C" and dst == src):
        raise TypingError(f"copy_block takes two C-ordered arrays of one type, got {dst}, {src}")

    def codegen(context, builder, signature, args):
        to = context.make_array(signature.args[0])(context, builder, args[0])
        source = context.make_array(signature.args[1])(context, builder, args[1])
        cgutils.raw_memcpy(builder, to.data, source.data, source.nitems, source.itemsize)
        return context.get_dummy_value()
    return types.void(dst, src), codegen


@overload(copy_block, jit_options={"_nrt": False, "no_cfunc_wrapper": True})
def _copy_block_compiled(dst, src):
    def impl(dst, src):
        if dst.shape != src.shape:
            raise ValueError("copy_block: the two arrays differ in shape")
        _memcpy_block(dst, src)
    return impl
