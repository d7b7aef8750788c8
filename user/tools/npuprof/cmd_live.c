/*
 * npuprof live — a streaming view of the driver: one line per submit and
 * completion as it happens (like `perf trace`), with each completion's
 * latency since its submit. Device task times are not the driver's
 * tracepoints': they are the STARS log's, which `npuprof record` drains.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "cmds.h"
#include "tracker.h"
#include "u64map.h"

struct live_ctx {
	FILE *out;
	uint64_t t0;
	int show_recv;
	struct u64map submit_ts; /* task key -> submit ts */
	uint64_t lines;
};

static void stamp(struct live_ctx *c, const struct npuprof_record *r)
{
	if (!c->t0)
		c->t0 = r->hdr.ts;
	fprintf(c->out, "%12.6f %3u %7u/%-7u ",
		r->hdr.ts >= c->t0 ? (r->hdr.ts - c->t0) / 1e9 : 0.0, r->hdr.cpu, r->hdr.pid,
		r->hdr.tid);
}

static int on_record(void *vctx, const struct npuprof_record *r)
{
	struct live_ctx *c = vctx;
	uint64_t ts;

	switch (r->hdr.type) {
	case NPUPROF_REC_SUBMIT:
		u64map_put(&c->submit_ts,
			   npuprof_task_key(r->submit.devid, r->submit.stream_id,
					    r->submit.task_id),
			   r->hdr.ts);
		stamp(c, r);
		fprintf(c->out, "dev%u stream %u submit   task %u %s sq %u tail %u\n",
			r->submit.devid, r->submit.stream_id, r->submit.task_id,
			tracker_type_name(r->submit.sqe_type), r->submit.sq_id, r->submit.sq_tail);
		break;
	case NPUPROF_REC_COMPLETE: {
		int recv = r->hdr.flags & NPUPROF_F_CQE_RECV;
		uint64_t k = npuprof_task_key(r->complete.devid, r->complete.stream_id,
					      r->complete.task_id);

		if (recv && !c->show_recv)
			break;
		stamp(c, r);
		fprintf(c->out, "dev%u stream %u %-8s task %u cq %u head %u", r->complete.devid,
			npuprof_stream_id(r->complete.stream_id), recv ? "recv" : "complete",
			r->complete.task_id, r->complete.cq_id, r->complete.cq_head);
		if (u64map_get(&c->submit_ts, k, &ts) && r->hdr.ts >= ts)
			fprintf(c->out, " (%.1f us after submit)", (r->hdr.ts - ts) / 1e3);
		fputc('\n', c->out);
		break;
	}
	case NPUPROF_REC_RECV:
		if (!c->show_recv)
			break;
		stamp(c, r);
		fprintf(c->out, "dev%u chan %u recv %s cqe_num %u got %u\n", r->recv.devid,
			r->recv.chan_id, r->hdr.flags & NPUPROF_F_RECV_FINISH ? "finish" : "start",
			r->recv.cqe_num, r->recv.recv_cqe_num);
		break;
	case NPUPROF_REC_DROP:
		stamp(c, r);
		fprintf(c->out, "*** %llu records lost (the reader fell behind)\n",
			(unsigned long long)r->drop.lost);
		break;
	default: return 0;
	}
	c->lines++;
	return 0;
}

static void on_tick(void *vctx, struct npuprof_engine *e)
{
	struct live_ctx *c = vctx;

	fflush(c->out);
	/* submit times of tasks never completed must not pile up */
	if (c->submit_ts.len > (1u << 20)) {
		u64map_free(&c->submit_ts);
		u64map_init(&c->submit_ts);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npuprof live [options] [-- CMD ARGS]\n"
		"  Print submits and completions as they happen, one line each:\n"
		"  time (s), CPU, pid/tid, device, stream, what, task, details.\n\n"
		"  --recv                  also CQ receives (trs_chan:recv, Task Recv)\n" CAPTURE_USAGE
			REPLAY_USAGE "\nexamples:\n"
		"  npuprof live --devices 0 --streams 3\n"
		"  npuprof live -- ./npuwork --scenario infer\n"
		"  npuprof live --from PROF_000001_20260609062613089_LCGOJBRHMJCDONRB/kernel/npuprof.kernel.raw\n");
}

int cmd_live(int argc, char **argv)
{
	static const struct option lo[] = { CAPTURE_LONG_OPTIONS,
					    REPLAY_LONG_OPTION,
					    { "recv", no_argument, 0, 'r' },
					    { "help", no_argument, 0, 'h' },
					    { 0, 0, 0, 0 } };
	struct capture_args *a = calloc(1, sizeof(*a));
	struct capture_result res;
	struct live_ctx c;
	int opt, status;

	if (!a)
		return 1;
	memset(&c, 0, sizeof(c));
	c.out = stdout;
	u64map_init(&c.submit_ts);
	capture_args_init(a);
	optind = 1;
	while ((opt = capture_getopt(a, "npuprof live", argc, argv, "+h", lo)) != -1) {
		switch (opt) {
		case CAP_OPT_INVALID: free(a); return 2;
		case 'r': c.show_recv = 1; break;
		case 'h':
			usage(stdout);
			free(a);
			return 0;
		default:
			usage(stderr);
			free(a);
			return 2;
		}
	}
	if (optind < argc)
		a->cmd = argv + optind;
	if (!c.show_recv)
		a->o.flags |= NPUPROF_CFG_NO_RECV;
	status = capture_run(a, "npuprof live", on_record, &c, on_tick, NULL, &res);
	fflush(c.out);
	if (!status)
		fprintf(stderr, "npuprof live: %llu lines, %llu dropped, %.2f s\n",
			(unsigned long long)c.lines, (unsigned long long)res.stats.dropped,
			res.seconds);
	if (!status && res.exit_status > 0)
		status = res.exit_status;
	u64map_free(&c.submit_ts);
	capture_args_free(a);
	free(a);
	return status;
}
