"""npuprof.torch.analysis: what turns a finished collection into its
database and views: the on_trace_ready handler (npuprof export
--pytorch), analyse(), and export_stacks' flame-graph lines."""
import os
import subprocess

from .. import npuprof_binary
from ._util import _NpuprofError
from .experimental_config import ExportType, print_warn_msg

# torch_npu's limit (profiler.py, _constant.py)
_MAX_WORKER_NAME_LENGTH = 226


def _export(d, extra=()):
    exe = npuprof_binary()
    if not exe:
        raise _NpuprofError("npuprof.torch: no npuprof command (build/bin or PATH) to export %s" % d)
    p = subprocess.run([exe, "export", "--pytorch", "--quiet"] + list(extra) + [d],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError("npuprof export --pytorch %s failed (exit %d):\n%s"
                           % (d, p.returncode, p.stdout))


class _TensorboardTraceHandler:
    """on_trace_ready handler: exports the finished collection with
    ``npuprof export --pytorch`` (analyse_flag=False: leaves it raw)."""

    def __init__(self, dir_name=None, worker_name=None, analyse_flag=True, async_mode=False):
        if worker_name is not None and not (isinstance(worker_name, str) and worker_name
                                            and len(worker_name) < _MAX_WORKER_NAME_LENGTH
                                            and "/" not in worker_name):
            print_warn_msg("Invalid parameter worker_name, reset it to default.")
            worker_name = None
        if dir_name is not None and not (isinstance(dir_name, str) and dir_name):
            print_warn_msg("Invalid parameter dir_name, reset it to default.")
            dir_name = None
        if not isinstance(analyse_flag, bool):
            print_warn_msg("analyse_flag is not bool, set by default.")
            analyse_flag = True
        if not isinstance(async_mode, bool):
            print_warn_msg("async_mode is not bool, set by default.")
            async_mode = False
        self.dir_name = os.path.realpath(dir_name) if dir_name else None
        self.worker_name = worker_name
        self.analyse_flag = analyse_flag
        self.async_mode = async_mode  # recorded; the export runs in the step that ends the cycle

    def __call__(self, prof):
        d = prof.ascend_pt_dir
        if not self.analyse_flag or d is None:
            return
        _export(d)


def tensorboard_trace_handler(dir_name=None, worker_name=None, analyse_flag=True, async_mode=False):
    return _TensorboardTraceHandler(dir_name, worker_name, analyse_flag, async_mode)


def analyse(profiler_path, max_process_number=max(1, (os.cpu_count() or 2) // 2), export_type=None):
    """torch_npu.profiler.profiler.analyse: export a collection written
    with analyse_flag=False (npuprof export --pytorch; one process)."""
    if isinstance(max_process_number, bool) or not isinstance(max_process_number, int) or \
            max_process_number <= 0:
        print_warn_msg("Invalid max_process_number, reset it to default!")
    if export_type is not None:
        if isinstance(export_type, str):
            export_type = [export_type]
        if not isinstance(export_type, list) or not export_type or \
                not all(t in (ExportType.Text, ExportType.Db) for t in export_type):
            print_warn_msg("Invalid parameter export_type: %s, reset it to None." % (export_type,))
    for d in ([profiler_path] if str(profiler_path).endswith("_ascend_pt") else
              sorted(os.path.join(profiler_path, x) for x in os.listdir(profiler_path)
                     if x.endswith("_ascend_pt"))):
        _export(d)


def _write_stacks(db, out, metric):
    import sqlite3
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        tables = {t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        lines = {}
        if {"PYTORCH_API", "PYTORCH_CALLCHAINS", "STRING_IDS"} <= tables:
            s = dict(con.execute("SELECT id, value FROM STRING_IDS"))
            chains = {}
            for cid, frame, depth in con.execute("SELECT id, stack, stackDepth FROM PYTORCH_CALLCHAINS"):
                chains.setdefault(cid, {})[depth] = s.get(frame, "?")
            ops = con.execute("SELECT startNs, endNs, globalTid, callchainId FROM PYTORCH_API "
                              "ORDER BY globalTid, startNs, endNs DESC").fetchall()
            # self time: an op's span minus its direct children's
            stack = []  # (end, index) per thread
            self_ns = [e - b for b, e, _, _ in ops]
            tid = None
            for i, (b, e, t, _) in enumerate(ops):
                if t != tid:
                    stack, tid = [], t
                while stack and stack[-1][0] <= b:
                    stack.pop()
                if stack:
                    self_ns[stack[-1][1]] -= e - b
                stack.append((e, i))
            for (b, e, t, cid), ns in zip(ops, self_ns):
                if cid is None or cid not in chains:
                    continue
                frames = chains[cid]
                key = ";".join(frames[d] for d in sorted(frames, reverse=True))  # outermost first
                lines[key] = lines.get(key, 0) + max(ns, 0)
        tmp = out + ".tmp"
        with open(tmp, "w") as f:
            for key in sorted(lines):
                f.write("%s %d\n" % (key, lines[key] // 1000))
        os.rename(tmp, out)
    finally:
        con.close()
