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
"""

from __future__ import annotations

import numba as nb


def kernel(fn=None, *, inline: str = "never"):
    """Compile ``fn`` for use inside other kernels: no allocation, no reference counting."""
    decorate = nb.njit(_nrt=False, inline=inline, no_cfunc_wrapper=True)
    return decorate if fn is None else decorate(fn)


entry = nb.njit(cache=True, no_cfunc_wrapper=True)
# a helper of the entry points that allocates (compiled into them)
allocating = nb.njit(no_cfunc_wrapper=True)
