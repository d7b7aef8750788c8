/*
 * test_jobsplit.c - `npuprof record -- LAUNCHER` splits a job by process
 * (user/tools/npuprof/jobsplit.c): a process whose host stream holds only
 * framework records (npuprof.torch on CPU: no API call, no task) still gets
 * its own PROF_* directory, and its records keep their threads: the
 * --pytorch export of each directory has its own process's PYTORCH_API,
 * MEMORY_RECORD and GC_RECORD rows, thread by thread; a process that
 * recorded nothing but the collection's bookkeeping gets none. Each
 * process's directory gets its devices' STARS SoC logs, and its export
 * takes the times of its own streams' tasks from them.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "hostrec.h"
#include "jobsplit.h"
#include "npuprof/export.h"
#include "npuprof/msprof_ids.h"
#include "npuprof/rank.h"
#include "npuprof/rawkern.h"
#include "npuprof/session.h"
#include "testutil.h"
#include "uapi/npusim.h"

#define U 1000ULL

static void fwk_op(uint32_t tid, uint64_t t0, uint64_t t1, const char *name)
{
	struct npuprof_hostfmt_fwk_op *r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_FWK_OP,
								   sizeof(*r));

	ck_assert_ptr_nonnull(r);
	memset((char *)r + sizeof(r->h), 0, sizeof(*r) - sizeof(r->h));
	r->tid = tid;
	r->start_ns = t0 * U;
	r->end_ns = t1 * U;
	r->seq = -1;
	r->name_id = aclprofStr2Id(name);
	r->dtypes_id = r->shapes_id = r->stack_id = NPUPROF_HOSTFMT_NO_STRING;
	r->type = NPUPROF_EXT_FWK_API_OP;
	npuprof_hostrec_commit(r);
}

/* One process's collection into the job's directory. */
static int record(const char *dir, int child)
{
	struct npuprof_hostrec_config cfg;
	char err[512];

	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = dir;
	if (npuprof_hostrec_start(&cfg, err, sizeof(err)) != 0)
		return 1;
	if (child == 2) {
		/* nothing but the collection's bookkeeping (CLOCK records too,
		 * where the stamps take the TSC) */
	} else if (child) {
		/* framework records only, on two threads */
		struct npuprof_hostfmt_fwk_mem *m;
		struct npuprof_hostfmt_fwk_gc *g;

		fwk_op(21, 100, 200, "aten::add");
		fwk_op(22, 150, 300, "aten::mul");
		m = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_FWK_MEM, sizeof(*m));
		if (!m)
			return 1;
		memset((char *)m + sizeof(m->h), 0, sizeof(*m) - sizeof(m->h));
		m->tid = 22;
		m->time_ns = 160 * U;
		m->ptr = 0x100;
		m->size = 64;
		m->total_allocated = m->total_reserved = m->total_active = 64;
		m->component_id = aclprofStr2Id("PTA");
		npuprof_hostrec_commit(m);
		g = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_FWK_GC, sizeof(*g));
		if (!g)
			return 1;
		g->tid = 21;
		g->generation = 0;
		g->start_ns = 250 * U;
		g->end_ns = 260 * U;
		npuprof_hostrec_commit(g);
	} else {
		struct npuprof_hostfmt_api *a = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_API,
									sizeof(*a));

		if (!a)
			return 1;
		memset((char *)a + sizeof(a->h), 0, sizeof(*a) - sizeof(a->h));
		a->level = NPUPROF_API_ACL;
		a->tid = 11;
		a->start_ns = 110 * U;
		a->end_ns = 120 * U;
		a->name_id = aclprofStr2Id("aclrtSynchronizeDevice");
		a->item_id = NPUPROF_HOSTFMT_NO_STRING;
		npuprof_hostrec_commit(a);
		fwk_op(11, 100, 130, "aten::item");
	}
	return npuprof_hostrec_stop() != 0;
}

static void rows(const char *db, const char *sql, char *out, size_t len)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	size_t n = 0;

	out[0] = 0;
	ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK, "%s", sql);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const char *v = (const char *)sqlite3_column_text(st, c);

			n += (size_t)snprintf(out + n, len - n, "%s%s", c ? "|" : (n ? "\n" : ""),
					      v ? v : "NULL");
		}
	sqlite3_finalize(st);
	sqlite3_close(h);
}

START_TEST(test_framework_only_process)
{
	char top[] = "/tmp/npuprof-test-jobsplit-XXXXXX", err[1024], got[1024], want[256];
	char dirs[4][4352];
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	pid_t child;
	int st, n = 0;

	ck_assert_ptr_nonnull(mkdtemp(top));
	memset(&s, 0, sizeof(s));
	snprintf(s.hostname, sizeof(s.hostname), "testhost");
	snprintf(s.host_uid, sizeof(s.host_uid), "12345");
	snprintf(s.engine, sizeof(s.engine), NPUPROF_ENGINE_HOST);
	s.start_realtime_ns = 1700000000000000000ULL;
	s.start_monotonic_ns = 1000;
	s.end_realtime_ns = 1700000000000000000ULL + 1000 * U;
	s.pid = (uint32_t)getpid();
	s.rank = NPUPROF_RANK_NONE;
	ck_assert_int_eq(npuprof_session_create(&s, top, err, sizeof(err)), 0);
	/* the child first: nothing of the parent's recorder in it */
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0)
		_exit(record(s.dir, 1));
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's recording failed");
	{
		/* a process that recorded nothing gets no directory */
		pid_t empty = fork();

		ck_assert_int_ge(empty, 0);
		if (empty == 0)
			_exit(record(s.dir, 2));
		ck_assert_int_eq(waitpid(empty, &st, 0), empty);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the empty recording failed");
	}
	ck_assert_int_eq(record(s.dir, 0), 0);
	ck_assert_int_eq(npuprof_session_finish(&s, err, sizeof(err)), 0);

	ck_assert_msg(job_split(&s, dirs, 4, &n, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(n, 2);
	memset(&o, 0, sizeof(o));
	o.pytorch = 1;
	for (int i = 0; i < 2; i++) {
		struct npuprof_session ps;
		pid_t pid;

		ck_assert_int_eq(npuprof_session_load(&ps, dirs[i], err, sizeof(err)), 0);
		pid = (pid_t)ps.pid;
		ck_assert_msg(npuprof_export(dirs[i], &o, &res, err, sizeof(err)) == 0, "%s", err);
		ck_assert_int_eq(res.damaged, 0);
		rows(res.pytorch_path,
		     "SELECT p.globalTid >> 32, p.globalTid & 4294967295, s.value FROM PYTORCH_API p"
		     " JOIN STRING_IDS s ON s.id = p.name ORDER BY p.rowid",
		     got, sizeof(got));
		if (pid == child) {
			snprintf(want, sizeof(want), "%d|21|aten::add\n%d|22|aten::mul", (int)pid,
				 (int)pid);
			ck_assert_str_eq(got, want);
			rows(res.pytorch_path,
			     "SELECT (SELECT group_concat(globalTid & 4294967295) FROM GC_RECORD),"
			     " (SELECT count(*) FROM MEMORY_RECORD),"
			     " (SELECT s.value FROM OP_MEMORY o JOIN STRING_IDS s ON s.id = o.name)",
			     got, sizeof(got));
			ck_assert_str_eq(got, "21|1|aten::mul");
		} else {
			ck_assert_int_eq(pid, getpid());
			snprintf(want, sizeof(want), "%d|11|aten::item", (int)pid);
			ck_assert_str_eq(got, want);
		}
	}
	tu_rm_rf(top);
}
END_TEST

/* Two processes (pids 1001 and 1002, streams 1 and 2 of device 0), their
 * tasks in one STARS SoC log. */
START_TEST(test_stars_log_carried)
{
	char top[] = "/tmp/npuprof-test-jobsplit-XXXXXX", err[1024], got[256], path[4400];
	char dirs[4][4352];
	struct npuprof_session s;
	struct npuprof_rawk_writer *w;
	struct npuprof_record r;
	FILE *f;
	int n = 0;

	ck_assert_ptr_nonnull(mkdtemp(top));
	memset(&s, 0, sizeof(s));
	snprintf(s.hostname, sizeof(s.hostname), "testhost");
	snprintf(s.host_uid, sizeof(s.host_uid), "12345");
	snprintf(s.engine, sizeof(s.engine), "kmod");
	s.start_realtime_ns = 1700000000000000000ULL;
	s.start_monotonic_ns = 1000;
	s.end_realtime_ns = s.start_realtime_ns + 1000 * U * U;
	s.rank = NPUPROF_RANK_NONE;
	s.ndev = 1;
	snprintf(s.dev[0].chip, sizeof(s.dev[0].chip), "Ascend910B");
	s.dev[0].counter_hz = 1000000000ULL; /* a tick a ns, counter = host time */
	ck_assert_int_eq(npuprof_session_create(&s, top, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/%s", s.dir, NPUPROF_KERNEL_RAW);
	ck_assert_int_eq(npuprof_rawk_create(&w, path, "kmod", 0, 0, err, sizeof(err)), 0);
	memset(&r, 0, sizeof(r));
	r.hdr.size = NPUPROF_RECORD_SIZE;
	r.hdr.type = NPUPROF_REC_CLOCK_SYNC;
	r.hdr.ts = r.clock.host_ns = r.clock.dev_cnt = 10 * U;
	r.clock.counter_hz = 1000000000ULL;
	ck_assert_int_eq(npuprof_rawk_append(w, &r), 0);
	snprintf(path, sizeof(path), "%s/device_0/data", s.dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/device_0/" NPUPROF_STARS_SOC_FILE, s.dir);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	for (uint32_t i = 0; i < 6; i++) {
		uint64_t t = 20 * U + i * 10 * U;
		struct npusim_stars_acsq a;

		memset(&r, 0, sizeof(r));
		r.hdr.size = NPUPROF_RECORD_SIZE;
		r.hdr.type = NPUPROF_REC_SUBMIT;
		r.hdr.ts = t;
		r.hdr.pid = r.hdr.tid = 1001 + i % 2;
		r.submit.stream_id = 1 + i % 2;
		r.submit.task_id = i / 2;
		ck_assert_int_eq(npuprof_rawk_append(w, &r), 0);
		memset(&a, 0, sizeof(a));
		a.stream_id = (uint16_t)(1 + i % 2);
		a.task_id = (uint16_t)(i / 2);
		a.head = NPUSIM_STARS_FUNC_START;
		a.sys_cnt = t + U;
		ck_assert_uint_eq(fwrite(&a, sizeof(a), 1, f), 1);
		a.head = NPUSIM_STARS_FUNC_END;
		a.sys_cnt = t + U + 100 * (1 + i);
		ck_assert_uint_eq(fwrite(&a, sizeof(a), 1, f), 1);
	}
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(npuprof_rawk_close(w), 0);
	ck_assert_int_eq(npuprof_session_finish(&s, err, sizeof(err)), 0);

	ck_assert_msg(job_split(&s, dirs, 4, &n, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(n, 2);
	for (int i = 0; i < 2; i++) {
		struct npuprof_export_result res;
		char want[128];

		snprintf(path, sizeof(path), "%.4352s/device_0/" NPUPROF_STARS_SOC_FILE, dirs[i]);
		ck_assert_int_eq(access(path, R_OK), 0);
		ck_assert_msg(npuprof_export(dirs[i], NULL, &res, err, sizeof(err)) == 0, "%s",
			      err);
		ck_assert_int_eq(res.damaged, 0);
		ck_assert_uint_eq(res.tasks, 3);
		ck_assert_uint_eq(res.derived, 0);
		ck_assert_uint_eq(res.stars_other, 3); /* the other process's */
		/* pid 1001 (the first directory): tasks 0, 2, 4 of the log */
		rows(res.db_path,
		     "SELECT group_concat(streamId || ':' || taskId || ':' || (endNs - startNs))"
		     " FROM (SELECT * FROM TASK ORDER BY taskId)",
		     got, sizeof(got));
		snprintf(want, sizeof(want), "%d:0:%d,%d:1:%d,%d:2:%d", 1 + i, 100 * (1 + i), 1 + i,
			 100 * (3 + i), 1 + i, 100 * (5 + i));
		ck_assert_str_eq(got, want);
	}
	tu_rm_rf(top);
}
END_TEST

/* The process tree of `npuprof record -- CMD` keeps a completion of a stream
 * none of its processes submitted to (send mode UIO_D fires no submit) when
 * the engine attributed it to its SQ's owner, a member; not otherwise. */
static struct npuprof_record task_rec(int type, uint32_t pid, int owner)
{
	struct npuprof_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = (uint16_t)type;
	r.hdr.pid = pid;
	r.hdr.flags = owner ? NPUPROF_F_SQ_OWNER : 0;
	r.complete.devid = 1;
	r.complete.stream_id = 3;
	return r;
}

START_TEST(test_completion_of_sq_owner)
{
	struct job_tree t;
	struct npuprof_record r;

	job_tree_init(&t, getpid(), "/nonexistent");
	r = task_rec(NPUPROF_REC_COMPLETE, (uint32_t)getpid(), 1);
	ck_assert_int_eq(job_tree_keep(&t, &r), 1);
	/* the interrupted task's pid says nothing */
	r = task_rec(NPUPROF_REC_COMPLETE, (uint32_t)getpid(), 0);
	ck_assert_int_eq(job_tree_keep(&t, &r), 0);
	/* another process's SQ (init is no member of ours) */
	r = task_rec(NPUPROF_REC_COMPLETE, 1, 1);
	ck_assert_int_eq(job_tree_keep(&t, &r), 0);
	ck_assert_uint_eq(t.filtered, 2);
	job_tree_free(&t);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("jobsplit");
	TCase *tc = tcase_create("framework");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_framework_only_process);
	tcase_add_test(tc, test_stars_log_carried);
	tcase_add_test(tc, test_completion_of_sq_owner);
	suite_add_tcase(s, tc);
	return s;
}
