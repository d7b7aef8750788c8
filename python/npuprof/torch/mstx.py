"""npuprof.torch.mstx: mstx markers and ranges from Python, as
torch_npu.npu.mstx offers them, through the mstx API of libmsprofiler.so
(the in-app recorder; MSTX_EVENTS rows). A range that ends while a profile
records is also a PYTORCH_API row of type mstx (50004) on its thread.

    from npuprof.torch import mstx
    mstx.mark("checkpoint")
    with mstx.range("forward"):
        y = model(x)

    @mstx.mstx_range("loss")
    def compute_loss(...): ...
"""
import ctypes
import functools
import os

from .. import _C

__all__ = ["mark", "range_start", "range_end", "range", "mstx_range"]

_API_MSTX = 50004


def _load():
    here = os.path.dirname(os.path.abspath(_C.__file__))
    for cand in (os.path.join(here, "..", "..", "lib", "libmsprofiler.so"), "libmsprofiler.so"):
        if cand != "libmsprofiler.so" and not os.path.exists(cand):
            continue
        try:
            lib = ctypes.CDLL(cand)  # already loaded by _C: the same library
        except OSError:
            continue
        lib.mstxMarkA.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
        lib.mstxMarkA.restype = None
        lib.mstxRangeStartA.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
        lib.mstxRangeStartA.restype = ctypes.c_uint64
        lib.mstxRangeEnd.argtypes = [ctypes.c_uint64]
        lib.mstxRangeEnd.restype = None
        return lib
    raise ImportError("npuprof.torch.mstx: libmsprofiler.so not found")


_lib = _load()
_open = {}  # range id -> (message, start_ns) of ranges started while recording


def _msg(message):
    if not isinstance(message, str):
        raise TypeError("mstx: message must be str, not %s" % type(message).__name__)
    return message.encode()


def _stream(stream):
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    raise TypeError("mstx: stream must be an aclrtStream handle (int) or None")


def _off():
    """A profile records with mstx and msprof_tx off (its
    _ExperimentalConfig's): torch_npu's markers record nothing then."""
    from .profiler import current_profile
    p = current_profile()
    return p is not None and not p.experimental_config.tx_enabled


def mark(message="", stream=None):
    """An instant marker."""
    b, s = _msg(message), _stream(stream)
    if not _off():
        _lib.mstxMarkA(b, s)


def range_start(message="", stream=None):
    """Starts a range; returns its id (0 if no collection runs)."""
    from .profiler import current_profile
    b = _msg(message)
    if _off():
        _stream(stream)
        return 0
    t0 = _C.now()
    rid = _lib.mstxRangeStartA(b, _stream(stream))
    if current_profile() is not None:
        _open[rid if rid else ("local", t0)] = (message, t0)
        if not rid:
            return ("local", t0)
    return rid


def range_end(range_id):
    """Ends the range range_start returned."""
    item = _open.pop(range_id, None)
    if isinstance(range_id, int) and range_id:
        _lib.mstxRangeEnd(range_id)
    from .profiler import current_profile
    if item is not None and current_profile() is not None:
        _C.range(item[0], item[1], _C.now(), _API_MSTX)


class range:
    """Context manager and decorator: an mstx range around a block."""

    def __init__(self, message="", stream=None):
        self.message = message
        self.stream = stream
        self._ids = []

    def __enter__(self):
        self._ids.append(range_start(self.message, self.stream))
        return self

    def __exit__(self, *exc):
        range_end(self._ids.pop())
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*a, **kw):
            with range(self.message, self.stream):
                return fn(*a, **kw)
        return wrapped


def mstx_range(message="", stream=None):
    """torch_npu's decorator name for range(message)."""
    return range(message, stream)
