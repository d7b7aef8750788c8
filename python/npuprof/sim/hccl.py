"""The "hccl" process-group backend of torch.distributed on npusim.

torch_npu's scripts say ``dist.init_process_group(backend="hccl")``.
Importing npuprof.torch (or npuprof.sim.dist) registers a backend of that
name (torch.distributed.Backend.register_backend) unless one exists (on a
real Ascend host torch_npu's own). Its process group, ProcessGroupHCCL, is
a Python subclass of torch's ProcessGroup: torch 1.13 binds ProcessGroup
through a pybind11 trampoline (c10d::PyProcessGroup), so C++ callers reach
its Python methods too - DDP's Reducer (its bucket all-reduces), DDP's
initial broadcast of the module's state (_broadcast_coalesced), its
parameter check (_verify_params_across_processes: an all-gather).

Each collective moves the data over a ProcessGroupGloo of the same store,
ranks and timeout, then runs its HCCL collective on npusim through the
device mirror (npuprof.sim.dist: libnpuprof_mirror.so), inside a framework
op record named as torch_npu's (HcclAllreduce, HcclBroadcast, HcclAllgather,
HcclReduceScatter, HcclBarrier), whose CANN launch links it to the
COMMUNICATION_OP and its device tasks. The communicator is set up when the
process group is created (the creation is collective already): the mirror
opens the device LOCAL_RANK (else the rank) modulo the simulated devices.

Mirrored: allreduce (one HCCL all-reduce per tensor), broadcast, allgather,
_allgather_base, reduce_scatter, _reduce_scatter_base, barrier. gloo has no
reduce_scatter: it runs as a gloo all-reduce of the inputs followed by a
copy of this rank's part, synchronously. Not mirrored (they run on gloo
only and count in `unmirrored`): reduce, gather, scatter, alltoall,
allreduce_coalesced, send/recv, reductions HCCL lacks (BAND, BOR, BXOR).
One communicator per process (mirror.h): only the first "hccl" process
group of a process mirrors (normally the default group); later ones
(new_group) and a host without npusim, or NPUPROF_TORCH_MIRROR=0, run on
gloo only (`mirrored` False). A mirror that fails does not fail the
collective (its data moved): it counts in `mirror_errors`, the first is
said on stderr. From C++, torch 1.13's trampoline reaches
allreduce, broadcast, allgather, reduce_scatter, barrier, send and recv
only.

    import npuprof.torch                     # registers "hccl"
    dist.init_process_group(backend="hccl")  # env:// or init_method=...
    pg = dist.distributed_c10d._get_default_group()
    pg.counts                                # collectives issued, by name
"""
import datetime
import os
import sys

import torch
import torch.distributed as dist

from . import dist as _sim

__all__ = ["ProcessGroupHCCL", "register", "NAME"]

NAME = "hccl"


def _given(opts):
    # torch 1.13 does not export AllgatherOptions to Python
    return () if opts is None else (opts,)


class ProcessGroupHCCL(dist.ProcessGroup):
    """gloo's data movement, mirrored onto HCCL on npusim."""

    def __init__(self, store, rank, size, timeout):
        super().__init__(rank, size)
        self._gloo = dist.ProcessGroupGloo(store, rank, size, timeout)
        # collectives issued, by method name (the C++ callers' included)
        self.counts = {}
        self.unmirrored = 0
        self.mirror_errors = 0  # mirrors that failed (the first one said on stderr)
        self.mirrored = False
        if os.environ.get("NPUPROF_TORCH_MIRROR") != "0":
            secs = timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else None
            self.mirrored = _sim._backend_join(store, rank, size, secs)
        # npuprof.sim.dist's wrappers of the Python-level collectives
        # leave a group whose collectives mirror themselves alone
        self._npuprof_mirrored = self.mirrored

    def getBackendName(self):
        return NAME

    def _count(self, name):
        self.counts[name] = self.counts.get(name, 0) + 1

    def _mirror(self, coll, tensor, root=0, op=None):
        if not self.mirrored or not _sim.enabled():
            self.unmirrored += 1
            return
        try:
            if _sim._launch(coll, tensor, root, op) != 1:
                self.unmirrored += 1
        except RuntimeError as e:
            # the job goes on (its data moved over gloo); said once
            self.unmirrored += 1
            self.mirror_errors += 1
            if self.mirror_errors == 1:
                sys.stderr.write("npuprof.sim.hccl: rank %d: %s; this and later failed "
                                 "mirrors are counted in mirror_errors\n" % (self.rank(), e))

    def _collective(self, name, coll, mirrored, gloo_name, args, **mirror):
        """Counts `name`, runs gloo's `gloo_name`(*args), mirrors `coll`
        once per tensor of `mirrored`."""
        self._count(name)
        work = getattr(self._gloo, gloo_name)(*args)
        for t in mirrored:
            self._mirror(coll, t, **mirror)
        return work

    def allreduce(self, tensors, opts=None):
        opts = opts if opts is not None else dist.AllreduceOptions()
        return self._collective("allreduce", _sim.ALL_REDUCE, tensors, "allreduce",
                                (tensors, opts), op=opts.reduceOp)

    def broadcast(self, tensors, opts=None):
        opts = opts if opts is not None else dist.BroadcastOptions()
        return self._collective("broadcast", _sim.BROADCAST, tensors, "broadcast",
                                (tensors, opts), root=opts.rootRank)

    def allgather(self, output_tensors, input_tensors, opts=None):
        return self._collective("allgather", _sim.ALL_GATHER, input_tensors, "allgather",
                                (output_tensors, input_tensors) + _given(opts))

    def _allgather_base(self, output, input, opts=None):
        # gloo copies each rank's part into its view of output
        return self._collective("_allgather_base", _sim.ALL_GATHER, [input], "allgather",
                                ([list(output.chunk(self.size()))], [input]) + _given(opts))

    def reduce_scatter(self, output_tensors, input_tensors, opts=None):
        self._count("reduce_scatter")
        opts = opts if opts is not None else dist.ReduceScatterOptions()
        work = None
        for out, inputs in zip(output_tensors, input_tensors):
            work = self._reduce_scatter(out, torch.cat([t.reshape(-1) for t in inputs]),
                                        opts.reduceOp)
        return work

    def _reduce_scatter_base(self, output, input, opts=None):
        self._count("_reduce_scatter_base")
        opts = opts if opts is not None else dist.ReduceScatterOptions()
        return self._reduce_scatter(output, input.reshape(-1), opts.reduceOp)

    def _reduce_scatter(self, out, flat, op):
        # gloo has no reduce_scatter: all-reduce everything, keep our part
        ar = dist.AllreduceOptions()
        ar.reduceOp = op
        work = self._gloo.allreduce([flat], ar)
        work.wait()
        n = out.numel()
        out.copy_(flat[self.rank() * n:(self.rank() + 1) * n].reshape(out.shape))
        self._mirror(_sim.REDUCE_SCATTER, out, op=op)
        return work

    def barrier(self, opts=None):
        self._count("barrier")
        work = self._gloo.barrier(opts if opts is not None else dist.BarrierOptions())
        self._mirror(_sim.BARRIER, None)
        return work

    def monitored_barrier(self, *args, **kw):
        self._count("monitored_barrier")
        return self._gloo.monitored_barrier(*args, **kw)


def _gloo_only(name):
    def collective(self, *args):
        self._count(name)
        self.unmirrored += 1
        return getattr(self._gloo, name)(*args)
    collective.__name__ = collective.__qualname__ = name
    return collective


# on gloo only: the mirror has no such collectives
for _name in ("reduce", "gather", "scatter", "alltoall", "alltoall_base", "allreduce_coalesced",
              "allgather_coalesced", "send", "recv", "recv_anysource"):
    setattr(ProcessGroupHCCL, _name, _gloo_only(_name))


def _create(store, rank, size, timeout):
    return ProcessGroupHCCL(store, rank, size, timeout)


def register():
    """Registers the "hccl" backend unless torch.distributed has one."""
    if hasattr(dist.Backend, NAME.upper()) or NAME.upper() in dist.Backend._plugins:
        return False
    dist.Backend.register_backend(NAME, _create)
    return True
