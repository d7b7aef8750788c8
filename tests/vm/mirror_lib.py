"""Shared by mirror_check.py and dist_check.py: the records tests/vm/mirror_dump
prints (FWK_OP and CANN API lines of a host stream) and the database they
are checked against."""
import sqlite3


def read_dump(path):
    """(fwk, api): fwk rows (tid, start, end, type, name), api rows
    (tid, start, end, level, connectionId, name)."""
    fwk, api = [], []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "fwk":
            fwk.append((int(f[1]), int(f[2]), int(f[3]), int(f[4]), f[5]))
        elif f[0] == "api":
            api.append((int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]), f[6]))
    return fwk, api


def open_db(path):
    """(db read-only, STRING_IDS as a dict, the set of table names)."""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    s = dict(db.execute("SELECT id, value FROM STRING_IDS"))
    tables = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return db, s, tables
