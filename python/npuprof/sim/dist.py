"""torch.distributed collectives mirrored onto HCCL on npusim.

Real torch.distributed on a CPU host (gloo) moves data between processes
and launches nothing on an NPU. With the device mirror on, this module sets
up one HCCL communicator across the job's processes, as torch_npu's
ProcessGroupHCCL does: rank 0 takes the root info (HcclGetRootInfo), the
job's torch.distributed store carries its bytes, every rank joins with it
(HcclCommInitRootInfo) on its mirror device. It then wraps
torch.distributed's collectives so that each, after running for real, also
runs its HCCL collective on npusim inside a framework op record named as
torch_npu names the HCCL op (HcclAllreduce, HcclBroadcast, HcclAllgather,
HcclReduceScatter; barrier: HcclBarrier, a one-element all-reduce like
HCCL's): that record's PYTORCH_API row links to the COMMUNICATION_OP
through the CANN_API launch it contains.

Mirrored: all_reduce, broadcast, all_gather, reduce_scatter, barrier of the
default (world) group; other groups, point-to-point and DDP's internal
bucket all-reduces (the C++ reducer calls the process group directly) are
not: for those, the job's backend is "hccl" (npuprof.sim.hccl, registered
when this module is imported), whose process group mirrors every
collective it gets, from Python or C++, and holds the communicator; then
enable() does nothing and the wrappers leave that group alone.
Every rank of the job must enable the mirror: the set-up is itself a
collective (rank 0 publishes the root info, the others wait for it), and
every rank issues the mirrored collectives in the same order.

    from npuprof.sim import dist as sim_dist
    sim_dist.enable()      # after dist.init_process_group("gloo", ...)
    ...
    sim_dist.disable()

The mirror's C library is libnpuprof_mirror.so in the npuprof package's
folder (python/npuprof/sim/mirror.h).
"""
import atexit
import ctypes
import functools
import os
import threading

__all__ = ["enable", "disable", "enabled", "device_count", "acl_dtype", "RECORD_NAMES"]

# enum npuprof_mirror_coll
ALL_REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER, BARRIER = range(5)

# the framework op record of each collective (torch_npu's names)
RECORD_NAMES = {
    ALL_REDUCE: "HcclAllreduce",
    BROADCAST: "HcclBroadcast",
    ALL_GATHER: "HcclAllgather",
    REDUCE_SCATTER: "HcclReduceScatter",
    BARRIER: "HcclBarrier",
}

ROOT_INFO_BYTES = 4108  # NPUPROF_MIRROR_ROOT_INFO_BYTES
COMM_NAME_BYTES = 128  # NPUPROF_MIRROR_COMM_NAME_BYTES
_STORE_KEY = "npuprof_mirror/hccl_root_info/%d"


class _Tensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64))]


_lock = threading.Lock()
_lib = None
_state = {"opened": False, "comm": False, "owner": None, "originals": {}, "setups": 0}


def _library():
    global _lib
    if _lib is None:
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "libnpuprof_mirror.so")
        lib = ctypes.CDLL(path)
        err = (ctypes.c_char_p, ctypes.c_size_t)
        lib.npuprof_mirror_open.argtypes = (ctypes.c_int32,) + err
        lib.npuprof_mirror_is_open.restype = ctypes.c_int
        lib.npuprof_mirror_strerror.restype = ctypes.c_char_p
        lib.npuprof_mirror_comm_root_info.argtypes = (ctypes.c_char_p, ctypes.c_size_t) + err
        lib.npuprof_mirror_comm_init.argtypes = (ctypes.c_uint32, ctypes.c_uint32,
                                                 ctypes.c_char_p, ctypes.c_size_t) + err
        lib.npuprof_mirror_comm_rank.restype = ctypes.c_int
        lib.npuprof_mirror_comm_name.argtypes = (ctypes.c_char_p, ctypes.c_size_t)
        lib.npuprof_mirror_comm_name.restype = ctypes.c_int
        lib.npuprof_mirror_collective.argtypes = (ctypes.c_int, ctypes.c_char_p,
                                                  ctypes.POINTER(_Tensor), ctypes.c_uint32,
                                                  ctypes.c_int)
        lib.npuprof_mirror_sync.restype = ctypes.c_int
        _lib = lib
    return _lib


def device_count():
    """The simulated devices of this host (/dev/npusim<N>, from 0 up)."""
    n = 0
    while os.path.exists("/dev/npusim%d" % n):
        n += 1
    return n


def _torch_dtypes():
    import torch
    return {torch.float32: 0, torch.float16: 1, torch.int8: 2, torch.int32: 3,
            torch.uint8: 4, torch.int16: 6, torch.int64: 9, torch.float64: 11,
            torch.bool: 12, torch.complex64: 16, torch.complex128: 17, torch.bfloat16: 27}


_ACL = {}


def acl_dtype(dtype):
    """The aclDataType of a torch dtype (ACL_DT_UNDEFINED, -1, if none)."""
    if not _ACL:
        _ACL.update(_torch_dtypes())
    return _ACL.get(dtype, -1)


def _tensor(t):
    dims = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
    return _Tensor(acl_dtype(t.dtype), t.dim(), dims), dims


def _check(ret, what):
    if ret < 0:
        raise RuntimeError("npuprof mirror: %s: %s (%d)"
                           % (what, _library().npuprof_mirror_strerror().decode(), ret))
    return ret


def _world(group):
    """True for the default group, unless its process group is the "hccl"
    backend's (which mirrors its collectives itself)."""
    import torch.distributed as dist
    if not (group is None or group is dist.GroupMember.WORLD):
        return False
    return getattr(dist.GroupMember.WORLD, "_npuprof_mirrored", False) is False


_REDUCE = {}


def _reduce_op(op):
    """The npuprof_mirror_reduce of a torch.distributed ReduceOp (None: SUM),
    None for those HCCL lacks (BAND, BOR ...)."""
    import torch.distributed as dist
    if not _REDUCE:
        _REDUCE.update({dist.ReduceOp.SUM: 0, dist.ReduceOp.PRODUCT: 1, dist.ReduceOp.MIN: 2,
                        dist.ReduceOp.MAX: 3})
    return _REDUCE.get(op if op is not None else dist.ReduceOp.SUM)


def _launch(coll, tensor, root=0, op=None):
    """Runs the mirror of one collective on the communicator (which must be
    set up): 1 if it launched, 0 if HCCL has no such reduction."""
    reduce = _reduce_op(op)
    if reduce is None:
        return 0  # BAND, BOR ...: HCCL has no such reduction
    if tensor is None:
        ptr = None
    else:
        t, _dims = _tensor(tensor)
        ptr = ctypes.byref(t)
    return _check(_library().npuprof_mirror_collective(coll, RECORD_NAMES[coll].encode(), ptr,
                                                       root, reduce), RECORD_NAMES[coll])


def _mirror(coll, tensor, root=0, op=None):
    """Runs the mirror of one collective (the real one has returned)."""
    if _state["comm"]:
        _launch(coll, tensor, root, op)


def _wrap(dist, name, make):
    orig = getattr(dist, name)
    _state["originals"][name] = orig
    wrapper = functools.wraps(orig)(make(orig))
    setattr(dist, name, wrapper)
    import torch.distributed.distributed_c10d as c10d
    if getattr(c10d, name, None) is orig:
        setattr(c10d, name, wrapper)


def _install():
    import torch.distributed as dist

    def all_reduce(orig):
        def f(tensor, op=dist.ReduceOp.SUM, group=None, async_op=False):
            work = orig(tensor, op=op, group=group, async_op=async_op)
            if _world(group):
                _mirror(ALL_REDUCE, tensor, op=op)
            return work
        return f

    def broadcast(orig):
        def f(tensor, src, group=None, async_op=False):
            work = orig(tensor, src, group=group, async_op=async_op)
            if _world(group):
                _mirror(BROADCAST, tensor, root=src)
            return work
        return f

    def all_gather(orig):
        def f(tensor_list, tensor, group=None, async_op=False):
            work = orig(tensor_list, tensor, group=group, async_op=async_op)
            if _world(group):
                _mirror(ALL_GATHER, tensor)
            return work
        return f

    def reduce_scatter(orig):
        def f(output, input_list, op=dist.ReduceOp.SUM, group=None, async_op=False):
            work = orig(output, input_list, op=op, group=group, async_op=async_op)
            if _world(group):
                _mirror(REDUCE_SCATTER, output, op=op)
            return work
        return f

    def barrier(orig):
        def f(group=None, async_op=False, device_ids=None):
            work = orig(group=group, async_op=async_op, device_ids=device_ids)
            if _world(group):
                _mirror(BARRIER, None)
            return work
        return f

    for name, make in (("all_reduce", all_reduce), ("broadcast", broadcast),
                       ("all_gather", all_gather), ("reduce_scatter", reduce_scatter),
                       ("barrier", barrier)):
        _wrap(dist, name, make)


def _uninstall():
    import torch.distributed as dist
    import torch.distributed.distributed_c10d as c10d
    for name, orig in _state["originals"].items():
        wrapper = getattr(dist, name)
        setattr(dist, name, orig)
        if getattr(c10d, name, None) is wrapper:
            setattr(c10d, name, orig)
    _state["originals"].clear()


def _join(store, rank, world, device=None, timeout_s=None):
    """Opens the mirror on `device` if it is not open (default: LOCAL_RANK,
    else the rank, modulo the simulated devices) and sets up the
    communicator of `world` ranks through `store` (a torch.distributed
    Store: rank 0 publishes the root info, the others wait for it). False,
    doing nothing, if this host has no simulated device. Takes _lock."""
    lib = _library()
    err = ctypes.create_string_buffer(512)
    if not lib.npuprof_mirror_is_open():
        n = device_count()
        if n == 0:
            return False
        if device is None:
            device = int(os.environ.get("LOCAL_RANK", rank)) % n
        ret = lib.npuprof_mirror_open(device, err, len(err))
        if ret < 0:
            raise RuntimeError("npuprof mirror: open device %d: %s"
                               % (device, err.value.decode()))
        _state["opened"] = True
    key = _STORE_KEY % _state["setups"]
    _state["setups"] += 1
    if rank == 0:
        info = ctypes.create_string_buffer(ROOT_INFO_BYTES)
        ret = lib.npuprof_mirror_comm_root_info(info, len(info), err, len(err))
        if ret < 0:
            raise RuntimeError("npuprof mirror: %s" % err.value.decode())
        store.set(key, info.raw)
        root = info.raw
    else:
        root = store.get(key)
    if timeout_s is not None:
        os.environ["HCCL_CONNECT_TIMEOUT"] = str(int(timeout_s))
    ret = lib.npuprof_mirror_comm_init(world, rank, root, len(root), err, len(err))
    if ret < 0:
        raise RuntimeError("npuprof mirror: rank %d of %d: %s"
                           % (rank, world, err.value.decode()))
    _state["comm"] = True
    return True


def comm_name():
    """The job's HCCL communicator's name (its COMMUNICATION_OP groupName),
    None without one."""
    if not _state["comm"]:
        return None
    buf = ctypes.create_string_buffer(COMM_NAME_BYTES)
    if _library().npuprof_mirror_comm_name(buf, len(buf)) < 0:
        return None
    return buf.value.decode()


def _leave():
    """Destroys the communicator, and closes the mirror if _join opened it."""
    lib = _library()
    lib.npuprof_mirror_comm_destroy()
    _state["comm"] = False
    _state["owner"] = None
    if _state["opened"]:
        lib.npuprof_mirror_close()
        _state["opened"] = False


def enabled():
    """True while the collectives are mirrored (by enable() or by the
    "hccl" backend's process group)."""
    return _state["comm"]


def enable(device=None, timeout_s=None):
    """Sets up the communicator and wraps the collectives; all ranks call it.

    Needs torch.distributed initialised. Opens the mirror on `device`
    (default: LOCAL_RANK, else the rank, modulo the simulated devices) if
    it is not open yet; closes it again at disable() then. timeout_s bounds
    the wait for the other ranks (HCCL_CONNECT_TIMEOUT, default 120 s).
    Returns False, doing nothing, if torch.distributed is not initialised
    or this host has no simulated device; True, doing nothing, if the
    collectives are mirrored already (the "hccl" backend)."""
    import torch.distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        return False
    with _lock:
        if _state["comm"]:
            return True
        store = dist.distributed_c10d._get_default_store()
        if not _join(store, dist.get_rank(), dist.get_world_size(), device, timeout_s):
            return False
        _state["owner"] = "enable"
        _install()
        return True


def disable():
    """Restores torch.distributed, waits for the mirrored collectives and
    destroys the communicator (and closes the mirror if enable() opened it).
    Leaves the "hccl" backend's communicator alone."""
    with _lock:
        if not _state["comm"] or _state["owner"] != "enable":
            return
        _uninstall()
        _leave()


def _backend_join(store, rank, world, timeout_s):
    """The "hccl" backend's set-up (npuprof.sim.hccl): True if this process
    group mirrors its collectives, False if another one (or enable()) holds
    the process's communicator or the host has no simulated device."""
    with _lock:
        if _state["comm"]:
            return False
        if not _join(store, rank, world, None, timeout_s):
            return False
        _state["owner"] = "backend"
        return True


def _backend_leave():
    with _lock:
        if _state["comm"] and _state["owner"] == "backend":
            _leave()


atexit.register(disable)
atexit.register(_backend_leave)


def _register_backend():
    try:
        import torch.distributed as dist
    except ImportError:
        return
    if dist.is_available():
        from . import hccl
        hccl.register()


_register_backend()
