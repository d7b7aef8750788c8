"""torchrun for Debian's torch 1.13 on Python 3.11.

    python3 -m npuprof.torchrun [torchrun options] SCRIPT [ARGS ...]
    npuprof record -o job -- python3 -m npuprof.torchrun --nproc_per_node 2 train.py

is ``python3 -m torch.distributed.run`` (torchrun) with its options,
environment and behaviour: --nproc_per_node, --nnodes, --node_rank,
--master_addr, --master_port, --rdzv_*, --max_restarts ...; each worker
gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR,
MASTER_PORT, GROUP_RANK and TORCHELASTIC_* as torchrun sets them
(``python3 -m npuprof.torchrun --help`` lists torchrun's options).

Why: on Python 3.11 torch 1.13's torchrun stops before any worker starts
(``to_map``: 'NoneType' object has no attribute 'get'). Its
Std.from_str (torch/distributed/elastic/multiprocessing/api.py) looks a
value of --redirects / --tee (default "0") up by iterating over the
IntFlag Std; since Python 3.11 iterating a Flag yields only its canonical
one-bit members (OUT, ERR), not NONE (0) or ALL (3), so "0" and "3" give
None (pytorch/pytorch#92319; fixed in later torch releases). No option or
variable avoids it: both options are always parsed. This module replaces
Std.from_str, only where it is broken, by one that maps 0-3 to their Std
values (and "local_rank:value,..." to a dict of them), then runs torchrun's
own main().

Under ``npuprof record`` every worker is a process of the recorded tree:
each rank gets its own PROF_* directory with its rank.
"""
import re
import sys

from torch.distributed import run as _run
from torch.distributed.elastic.multiprocessing import api as _api


def _from_str(vm):
    """Std.from_str's contract ("0" -> Std.NONE, "3" -> Std.ALL,
    "0:3,1:0" -> {0: Std.ALL, 1: Std.NONE}), through Std's constructor."""
    if re.match(_api._VALUE_REGEX, vm):
        return _api.Std(int(vm))
    if re.match(_api._MAPPING_REGEX, vm):
        return {int(i): _api.Std(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
    raise ValueError("%s does not match: <%s> or <%s>" % (vm, _api._VALUE_REGEX,
                                                          _api._MAPPING_REGEX))


def mend():
    """Replaces Std.from_str if it is broken (Python 3.11 and torch < 2.0);
    True if it did."""
    if _api.Std.from_str("0") is _api.Std.NONE and _api.Std.from_str("3") is _api.Std.ALL:
        return False
    _api.Std.from_str = staticmethod(_from_str)
    return True


def main(argv=None):
    mend()
    _run.main(argv)


if __name__ == "__main__":
    sys.argv[0] = "python3 -m npuprof.torchrun"
    sys.exit(main())
