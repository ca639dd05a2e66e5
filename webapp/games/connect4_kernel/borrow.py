"""Borrowed arrays: views the recursion can pass down without reference counting.

numba counts references to every array it passes to a function: the
recursive solver, which takes four arrays, paid eight atomic operations per
node for them (about a third of its time per node). ``borrowed(a)`` is ``a``
with no owner recorded (a null meminfo), so those counts do nothing. The
caller keeps the real array alive for the whole call; a borrowed view must
never outlive it (never stored, never returned).
"""

from __future__ import annotations

from typing import Any

from numba import types
from numba.core import cgutils as _cgutils
from numba.extending import intrinsic

cgutils: Any = _cgutils  # untyped


def _borrowed(typingctx: Any, array: Any) -> Any:
    """``array`` with a null owner (see the module docstring); only inside compiled code."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        source = context.make_array(array)(context, builder, value=args[0])
        view = context.make_array(array)(context, builder)
        cgutils.copy_struct(view, source)
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        return view._getvalue()

    return array(array), codegen


#: ``borrowed(array)`` inside compiled code.
borrowed: Any = intrinsic(_borrowed)
