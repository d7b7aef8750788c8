"""npuprof.torch._util: what the profiler's modules share: the error
discipline of torch_npu's entry points, atomic JSON files, and the rank and
device of this process."""
import json
import os
import tempfile

from .experimental_config import print_error_msg


def _no_exception(default=None):
    """torch_npu's profiler entry points do not raise: an exception is an
    [ERROR] line ("Call <name> failed. Exception: ...") and a default
    result. Our own configuration errors (NPUPROF_* variables, a missing
    npuprof build) are _NpuprofError and do raise."""
    def wrap(fn):
        def inner(*a, **kw):
            try:
                return fn(*a, **kw)
            except _NpuprofError:
                raise
            except Exception as e:
                print_error_msg("Call %s failed. Exception: %s" % (fn.__name__, e))
                return default
        inner.__name__ = fn.__name__
        inner.__doc__ = fn.__doc__
        inner.__wrapped__ = fn
        return inner
    return wrap


class _NpuprofError(ValueError, RuntimeError):
    """npuprof's own set-up failed (not a torch_npu argument error)."""


def _atomic_json(path, obj, indent=4):
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".tmp.", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(obj, f, indent=indent)
            f.write("\n")
        os.rename(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _rank():
    """The torch.distributed rank, else $RANK, else -1."""
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank()
    except Exception:
        pass
    r = os.environ.get("RANK")
    if r is not None:
        try:
            return int(r)
        except ValueError:
            raise _NpuprofError("RANK=%r: not an integer" % r)
    return -1


def _device_id():
    for var in ("ASCEND_DEVICE_ID", "LOCAL_RANK"):
        v = os.environ.get(var)
        if v is not None:
            try:
                d = int(v)
            except ValueError:
                raise _NpuprofError("%s=%r: not a device id" % (var, v))
            if d < 0:
                raise _NpuprofError("%s=%r: not a device id" % (var, v))
            return d
    return 0


def _npusim_device(dev):
    """True if the ACL runtime would find npusim device dev (it counts
    /dev/npusim0, 1, ...)."""
    return all(os.path.exists("/dev/npusim%d" % i) for i in range(dev + 1))


def _under_record():
    return bool(os.environ.get("NPUPROF_OUTPUT_DIR"))
