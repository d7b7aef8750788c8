"""npuprof: an open tracer for Huawei Ascend NPUs.

This package is its framework layer: ``npuprof.torch`` profiles a PyTorch
program into the ascend_pytorch_profiler database with the API of
torch_npu.profiler (see ``help(npuprof.torch)``).
"""
import os
import shutil

__all__ = ["npuprof_binary"]


def npuprof_binary():
    """Path of the ``npuprof`` command: $NPUPROF_BIN, the build tree's
    build/bin/npuprof next to this package (build/python/npuprof), or the
    one in PATH. None if there is none."""
    env = os.environ.get("NPUPROF_BIN")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    cand = os.path.normpath(os.path.join(here, "..", "..", "bin", "npuprof"))
    if os.access(cand, os.X_OK):
        return cand
    return shutil.which("npuprof")
