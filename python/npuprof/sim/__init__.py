"""npuprof.sim: the device mirror, for hosts whose NPU is npusim.

Real PyTorch on a CPU host launches no NPU work. The mirror makes the
simulated NPU do the work a real one would, so that a profile of such a
host has device tasks to link to its framework ops; npuprof.torch uses it
and is not part of it. On a real Ascend host it stays off.

  libnpuprof_mirror.so  (mirror.c, mirror.h; built next to the npuprof
                        package) each top-level aten op's modelled aclnn
                        operators on npusim; the torch extension
                        (npuprof._C) calls it from inside the op's range
  npuprof.sim.dist      torch.distributed's collectives mirrored onto one
                        HCCL communicator on npusim
  npuprof.sim.hccl      the "hccl" process-group backend: data over gloo,
                        every collective (DDP's C++ ones too) mirrored
"""
