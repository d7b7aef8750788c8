/*
 * npuprof stat — count what the NPU driver did, like `perf stat`.
 *
 *   npuprof stat [--engine kmod|bpf|auto] [--pid P | -- CMD ARGS]
 *                [--duration S] [--sample N] [--devices LIST]
 *                [--streams LIST] [--ring-kb N] [--raw FILE]
 *
 * Runs CMD (capturing only it) or attaches to P, or captures every process
 * until SIGINT or the duration ends. Prints per-event counts, per device and
 * stream task counts, submit-to-complete latency percentiles and drops.
 * --raw also writes every captured record to a raw kernel stream file.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "npuprof/engine.h"
#include "npuprof/rawkern.h"

#define NBUCKET 65536

struct pending {
	uint64_t key;
	uint64_t ts;
	struct pending *next;
};

struct strow {
	uint32_t dev, stream;
	uint64_t submit, complete, task_time;
};

struct stat_ctx {
	uint64_t type[NPUPROF_REC_TYPE_MAX];
	uint64_t cqe_recv;
	uint64_t lost;
	struct strow *rows;
	size_t nrows, caprows;
	struct pending *bucket[NBUCKET];
	struct pending *freelist;
	uint64_t inflight;
	uint64_t *lat;
	size_t nlat, caplat;
	uint64_t last_ts[1024]; /* per CPU, for the order check */
	uint64_t disorder;
	struct npuprof_rawk_writer *raw;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct strow *row_of(struct stat_ctx *c, uint32_t dev, uint32_t stream)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].dev == dev && c->rows[i].stream == stream)
			return &c->rows[i];
	if (c->nrows == c->caprows) {
		size_t n = c->caprows ? 2 * c->caprows : 16;
		struct strow *r = realloc(c->rows, n * sizeof(*r));

		if (!r)
			return NULL;
		c->rows = r;
		c->caprows = n;
	}
	c->rows[c->nrows] = (struct strow){ .dev = dev, .stream = stream };
	return &c->rows[c->nrows++];
}

static uint64_t task_key(uint32_t dev, uint32_t stream, uint32_t task)
{
	return ((uint64_t)dev << 32) | ((uint64_t)(stream & 0x7fff) << 16) |
	       (task & 0xffff);
}

static void pending_add(struct stat_ctx *c, uint64_t key, uint64_t ts)
{
	struct pending *p = c->freelist;

	if (p)
		c->freelist = p->next;
	else if (!(p = malloc(sizeof(*p))))
		return;
	p->key = key;
	p->ts = ts;
	p->next = c->bucket[key % NBUCKET];
	c->bucket[key % NBUCKET] = p;
	c->inflight++;
}

static void pending_done(struct stat_ctx *c, uint64_t key, uint64_t ts)
{
	struct pending **pp = &c->bucket[key % NBUCKET], *p;

	for (; (p = *pp); pp = &p->next) {
		if (p->key != key)
			continue;
		*pp = p->next;
		p->next = c->freelist;
		c->freelist = p;
		c->inflight--;
		if (c->nlat == c->caplat) {
			size_t n = c->caplat ? 2 * c->caplat : 4096;
			uint64_t *l = realloc(c->lat, n * sizeof(*l));

			if (!l)
				return;
			c->lat = l;
			c->caplat = n;
		}
		c->lat[c->nlat++] = ts > p->ts ? ts - p->ts : 0;
		return;
	}
}

static int on_record(void *ctx, const struct npuprof_record *r)
{
	struct stat_ctx *c = ctx;
	struct strow *row;

	if (c->raw)
		npuprof_rawk_append(c->raw, r);
	if (r->hdr.type < NPUPROF_REC_TYPE_MAX)
		c->type[r->hdr.type]++;
	if (r->hdr.cpu < 1024) {
		if (r->hdr.ts < c->last_ts[r->hdr.cpu])
			c->disorder++;
		c->last_ts[r->hdr.cpu] = r->hdr.ts;
	}
	switch (r->hdr.type) {
	case NPUPROF_REC_SUBMIT:
		if ((row = row_of(c, r->submit.devid, r->submit.stream_id)))
			row->submit++;
		pending_add(c, task_key(r->submit.devid, r->submit.stream_id,
					r->submit.task_id),
			    r->hdr.ts);
		break;
	case NPUPROF_REC_COMPLETE:
		if (r->hdr.flags & NPUPROF_F_CQE_RECV) {
			c->cqe_recv++;
			break;
		}
		if ((row = row_of(c, r->complete.devid,
				  r->complete.stream_id & 0x7fff)))
			row->complete++;
		pending_done(c, task_key(r->complete.devid,
					 r->complete.stream_id,
					 r->complete.task_id),
			     r->hdr.ts);
		break;
	case NPUPROF_REC_TASK_TIME:
		if ((row = row_of(c, r->task_time.devid,
				  r->task_time.stream_id)))
			row->task_time++;
		pending_done(c, task_key(r->task_time.devid,
					 r->task_time.stream_id,
					 r->task_time.task_id),
			     r->hdr.ts);
		break;
	case NPUPROF_REC_DROP:
		c->lost += r->drop.lost;
		break;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_row(const void *a, const void *b)
{
	const struct strow *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/* Parse "0,2,5-7" into ids; returns the count or -1. */
static int parse_list(const char *s, uint32_t *out, int max)
{
	int n = 0;

	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		for (unsigned long v = a; v <= b; v++) {
			if (n == max)
				return -1;
			out[n++] = (uint32_t)v;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: npuprof stat [--engine kmod|bpf|auto] [--pid P | -- CMD ARGS]\n"
		"                    [--duration S] [--sample N] [--devices LIST]\n"
		"                    [--streams LIST] [--ring-kb N] [--raw FILE]\n");
}

static void print_report(struct stat_ctx *c, const struct npuprof_stats *ks,
			 const char *engine, const char *what, double secs,
			 uint32_t sample_n)
{
	static const char *names[NPUPROF_REC_TYPE_MAX] = {
		[NPUPROF_REC_SUBMIT] = "submit",
		[NPUPROF_REC_COMPLETE] = "complete",
		[NPUPROF_REC_RECV] = "recv",
		[NPUPROF_REC_TASK_TIME] = "task_time",
		[NPUPROF_REC_DROP] = "drop-marker",
	};
	static const char *src[NPUPROF_REC_TYPE_MAX] = {
		[NPUPROF_REC_SUBMIT] = "trs_chan:sqe Task Send",
		[NPUPROF_REC_COMPLETE] = "trs_chan:cqe, both call sites",
		[NPUPROF_REC_RECV] = "trs_chan:recv",
		[NPUPROF_REC_TASK_TIME] = "npusim:task_time",
		[NPUPROF_REC_DROP] = "ring overflow markers",
	};

	printf("\n npuprof stat (engine %s) for %s: %.3f s\n\n", engine, what,
	       secs);
	for (int t = 1; t < NPUPROF_REC_TYPE_MAX; t++) {
		if (t == NPUPROF_REC_CLOCK_SYNC)
			continue;
		printf(" %12llu  %-12s (%s)\n", (unsigned long long)c->type[t],
		       names[t], src[t]);
	}
	printf(" %12llu  %-12s (of the completions: Task Recv)\n",
	       (unsigned long long)c->cqe_recv, "cqe-recv");
	printf(" %12llu  %-12s\n", (unsigned long long)(ks->dropped),
	       "dropped");

	qsort(c->rows, c->nrows, sizeof(*c->rows), cmp_row);
	printf("\n %6s %6s %12s %12s %12s\n", "device", "stream", "submitted",
	       "completed", "task_time");
	for (size_t i = 0; i < c->nrows; i++)
		printf(" %6u %6u %12llu %12llu %12llu\n", c->rows[i].dev,
		       c->rows[i].stream,
		       (unsigned long long)c->rows[i].submit,
		       (unsigned long long)c->rows[i].complete,
		       (unsigned long long)c->rows[i].task_time);

	if (c->nlat) {
		qsort(c->lat, c->nlat, sizeof(*c->lat), cmp_u64);
#define PCT(p) (c->lat[(size_t)((c->nlat - 1) * (p) / 100.0)] / 1000.0)
		printf("\n submit -> complete latency (us): n=%zu p50=%.1f p90=%.1f p99=%.1f max=%.1f\n",
		       c->nlat, PCT(50), PCT(90), PCT(99), PCT(100));
#undef PCT
	}
	printf("\n records: written %llu, dropped %llu, filtered %llu, sampled out %llu (1 in %u), overwritten %llu\n",
	       (unsigned long long)ks->written, (unsigned long long)ks->dropped,
	       (unsigned long long)ks->filtered,
	       (unsigned long long)ks->sampled_out, sample_n > 1 ? sample_n : 1,
	       (unsigned long long)ks->overwritten);
	printf(" tasks in flight at stop: %llu; per-CPU order violations: %llu; lost per drop markers: %llu\n",
	       (unsigned long long)c->inflight,
	       (unsigned long long)c->disorder, (unsigned long long)c->lost);
}

int cmd_stat(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "engine", required_argument, 0, 'e' },
		{ "pid", required_argument, 0, 'p' },
		{ "duration", required_argument, 0, 'd' },
		{ "sample", required_argument, 0, 's' },
		{ "devices", required_argument, 0, 'D' },
		{ "streams", required_argument, 0, 'S' },
		{ "ring-kb", required_argument, 0, 'r' },
		{ "raw", required_argument, 0, 'w' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	struct npuprof_capture_opts o;
	struct npuprof_engine *e = NULL;
	struct npuprof_stats ks;
	struct stat_ctx *c;
	const char *engine = "auto", *rawpath = NULL;
	double duration = 0;
	uint32_t streams[NPUPROF_MAX_STREAMS], devs[32];
	char err[NPUPROF_ENGINE_ERRLEN], what[256] = "all processes";
	int opt, status = 0, gate[2] = { -1, -1 };
	pid_t child = 0, pid = 0;
	uint64_t t0;

	memset(&o, 0, sizeof(o));
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:p:d:s:D:S:r:w:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'e': engine = optarg; break;
		case 'p': pid = (pid_t)atoi(optarg); break;
		case 'd': duration = atof(optarg); break;
		case 's': o.sample_n = (uint32_t)atoi(optarg); break;
		case 'D': {
			int n = parse_list(optarg, devs, 32);

			if (n <= 0) {
				fprintf(stderr, "npuprof stat: bad device list '%s'\n", optarg);
				return 2;
			}
			for (int i = 0; i < n; i++)
				o.dev_mask |= devs[i] < 32 ? 1u << devs[i] : 0;
			break;
		}
		case 'S': {
			int n = parse_list(optarg, streams, NPUPROF_MAX_STREAMS);

			if (n <= 0) {
				fprintf(stderr, "npuprof stat: bad stream list '%s'\n", optarg);
				return 2;
			}
			o.streams = streams;
			o.nstreams = (uint32_t)n;
			break;
		}
		case 'r': o.ring_bytes = (uint64_t)atol(optarg) << 10; break;
		case 'w': rawpath = optarg; break;
		case 'h': usage(); return 0;
		default: usage(); return 2;
		}
	}
	if (pid && optind < argc) {
		fprintf(stderr, "npuprof stat: give --pid or a command, not both\n");
		return 2;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return 1;

	if (optind < argc) {
		/* start the command stopped at a gate so its first task is seen */
		if (pipe(gate) < 0) {
			perror("npuprof stat: pipe");
			return 1;
		}
		child = fork();
		if (child < 0) {
			perror("npuprof stat: fork");
			return 1;
		}
		if (child == 0) {
			char b;

			close(gate[1]);
			if (read(gate[0], &b, 1) != 1)
				_exit(127);
			close(gate[0]);
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "npuprof stat: cannot run %s: %s\n",
				argv[optind], strerror(errno));
			_exit(127);
		}
		close(gate[0]);
		pid = child;
		snprintf(what, sizeof(what), "'%s' (pid %d)", argv[optind], child);
	} else if (pid) {
		snprintf(what, sizeof(what), "pid %d", pid);
	}
	o.pid = (uint32_t)pid;

	if (npuprof_engine_open(&e, engine, &o, err, sizeof(err)) < 0) {
		fprintf(stderr, "npuprof stat: %s\n", err);
		status = 1;
		goto out_child;
	}
	if (rawpath && npuprof_rawk_create(&c->raw, rawpath, e->ops->name,
					   o.sample_n, o.flags, err,
					   sizeof(err)) < 0) {
		fprintf(stderr, "npuprof stat: %s\n", err);
		status = 1;
		goto out_child;
	}
	if (e->ops->start(e) < 0) {
		fprintf(stderr, "npuprof stat: %s\n", e->err);
		status = 1;
		goto out_child;
	}
	if (e->switch_failed)
		fprintf(stderr, "npuprof stat: warning: %d device trace switch(es) are off and could not be turned on (writing /proc/trs_chan/*/trace_enable needs root); those devices report nothing\n",
			e->switch_failed);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = now_ns();
	uint64_t last_switch = t0;
	if (child) {
		if (write(gate[1], "g", 1) != 1)
			stop_flag = 1;
		close(gate[1]);
		gate[1] = -1;
	}
	while (!stop_flag) {
		e->ops->wait(e, 100);
		e->ops->read(e, on_record, c);
		if (now_ns() - last_switch > 500000000ULL) {
			/* a reloaded driver starts with its switches off */
			npuprof_trace_switch_on(e);
			last_switch = now_ns();
		}
		if (duration > 0 && (now_ns() - t0) / 1e9 >= duration)
			break;
		if (child) {
			int st;

			if (waitpid(child, &st, WNOHANG) == child) {
				status = WIFEXITED(st) ? WEXITSTATUS(st) :
							 128 + WTERMSIG(st);
				child = 0;
				break;
			}
		} else if (pid && kill(pid, 0) < 0 && errno == ESRCH) {
			break;
		}
	}
	e->ops->stop(e);
	e->ops->read(e, on_record, c);
	memset(&ks, 0, sizeof(ks));
	e->ops->stats(e, &ks);
	print_report(c, &ks, e->ops->name, what, (now_ns() - t0) / 1e9,
		     o.sample_n);
	if (c->raw) {
		if (npuprof_rawk_close(c->raw) < 0) {
			fprintf(stderr, "npuprof stat: writing %s failed\n", rawpath);
			status = status ? status : 1;
		}
		c->raw = NULL;
	}
out_child:
	if (gate[1] >= 0)
		close(gate[1]); /* the gated child exits without running */
	if (child) {
		int st;

		if (stop_flag)
			kill(child, SIGINT);
		if (waitpid(child, &st, 0) == child && !status)
			status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	if (c->raw)
		npuprof_rawk_close(c->raw);
	npuprof_engine_close(e);
	free(c->rows);
	free(c->lat);
	for (int i = 0; i < NBUCKET; i++)
		while (c->bucket[i]) {
			struct pending *p = c->bucket[i];
			c->bucket[i] = p->next;
			free(p);
		}
	while (c->freelist) {
		struct pending *p = c->freelist;
		c->freelist = p->next;
		free(p);
	}
	free(c);
	return status;
}
