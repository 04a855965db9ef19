#!/usr/bin/env python3
# How plain SQLite's own insert cost grows with a table's size, for context beside StrataScale:
# the same shape of table (a 16-byte random UUID key, ten columns, one secondary index), filled in
# transactions of 10,000 rows up to a million, through Python's sqlite3 module (no Strata, no GRDB).
# Prints microseconds per row for the first, the tenth and the last transaction, once with the
# index on (category) and once on (category, id) as Strata's indexes end in id.
#   python3 Benchmarks/scripts/raw-sqlite-growth.py
import sqlite3, os, uuid, time, sys
def run(index_cols, cache):
    path=os.path.join(os.environ.get('TMPDIR', '/tmp'), 'strata-raw-growth.sqlite')
    for s in ['','-wal','-shm']:
        try: os.remove(path+s)
        except FileNotFoundError: pass
    db=sqlite3.connect(path, isolation_level=None)
    db.execute('PRAGMA journal_mode=WAL'); db.execute('PRAGMA synchronous=NORMAL'); db.execute(f'PRAGMA cache_size={cache}')
    db.execute('CREATE TABLE t (id BLOB PRIMARY KEY NOT NULL, v INTEGER NOT NULL, name TEXT, category INTEGER, score REAL, a TEXT, b TEXT, c REAL, d INTEGER, e INTEGER, f TEXT, g REAL)')
    db.execute(f'CREATE INDEX ti ON t ({index_cols})')
    times=[]
    n=0
    for batch in range(100):
        rows=[(uuid.uuid4().bytes,1,f'item {n+i}',(n+i)%100,1.5,'x','y',2.0,3,4,'z',5.0) for i in range(10000)]
        t=time.perf_counter()
        db.execute('BEGIN')
        db.executemany('INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?,?,?,?)', rows)
        db.execute('COMMIT')
        times.append((time.perf_counter()-t)/10000*1e6)
        n+=10000
    print(index_cols, cache, 'first %.1f  at100k %.1f  last %.1f us/row' % (times[0], times[9], times[-1]), flush=True)
for cols in ['category', 'category, id']:
    run(cols, -2000)
