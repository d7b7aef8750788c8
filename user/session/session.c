/*
 * session.c — creating, finishing and reading a collection directory
 * (session.h). The info files mirror what msprof writes so that readers
 * that look for them (msprof-analyze's info.json.<N>, the real exporter)
 * find what they expect; npuprof.session holds what export needs.
 */
#include "errmsg.h"
#include "fsutil.h"
#include "npuprof/hostfmt.h" /* npuprof_crc32 */
#include "npuprof/rank.h"
#include "npuprof/session.h"
#include "device.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* FNV-1a over the machine id (or the host name): a stable host uid. */
static void host_uid(char *out, size_t len, const char *hostname)
{
	char buf[256] = "";
	uint64_t h = 1469598103934665603ULL;
	FILE *f = fopen("/etc/machine-id", "r");

	if (!f || !fgets(buf, sizeof(buf), f))
		snprintf(buf, sizeof(buf), "%s", hostname);
	if (f)
		fclose(f);
	for (const char *p = buf; *p && *p != '\n'; p++) {
		h ^= (unsigned char)*p;
		h *= 1099511628211ULL;
	}
	snprintf(out, len, "%llu", (unsigned long long)(h >> 1));
}

void npuprof_session_init(struct npuprof_session *s)
{
	memset(s, 0, sizeof(*s));
	gethostname(s->hostname, sizeof(s->hostname) - 1);
	host_uid(s->host_uid, sizeof(s->host_uid), s->hostname);
	snprintf(s->engine, sizeof(s->engine), "none");
	s->exit_status = -1;
	s->rank = NPUPROF_RANK_NONE;
	s->start_realtime_ns = clock_ns(CLOCK_REALTIME);
	s->start_monotonic_ns = clock_ns(CLOCK_MONOTONIC);

	const struct npuprof_device_backend *b = npuprof_device_probe();
	struct npuprof_device_info dev[NPUPROF_MAX_SESSION_DEVICES];
	int n = b->enumerate(dev, NPUPROF_MAX_SESSION_DEVICES);

	snprintf(s->device_backend, sizeof(s->device_backend), "%s", b->name);
	for (int d = 0; d < n; d++) {
		struct npuprof_session_device *sd = &s->dev[s->ndev++];

		sd->id = dev[d].id;
		snprintf(sd->chip, sizeof(sd->chip), "%s", dev[d].chip);
		sd->counter_hz = dev[d].counter_hz;
		sd->aicore_num = dev[d].aicore_num;
		sd->aicore_mhz = dev[d].aicore_mhz;
		sd->rank = NPUPROF_RANK_NONE;
	}
}

static int write_file(const char *dir, const char *name, const char *text, char *err, size_t errlen)
{
	char path[4352], tmp[4400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		int r = -errno;

		npuprof_seterr(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
		return r;
	}
	fputs(text, f);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		int r = -errno;

		npuprof_seterr(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		return r;
	}
	return 0;
}

static void local_stamp(uint64_t unix_ns, const char *fmt, char *out, size_t len, int with_ms)
{
	time_t t = (time_t)(unix_ns / 1000000000ULL);
	struct tm tm;
	char base[64];

	localtime_r(&t, &tm);
	strftime(base, sizeof(base), fmt, &tm);
	if (with_ms)
		snprintf(out, len, "%s%03u", base, (unsigned)(unix_ns / 1000000ULL % 1000));
	else
		snprintf(out, len, "%s", base);
}

/* A text field as one line of the file: a control character (a newline in
 * `python3 -c` code, say) would end the line or be refused when read
 * (session_text), so each is written as a space. */
static const char *one_line(const char *v, char *out, size_t len)
{
	size_t i = 0;

	for (; v[i] && i + 1 < len; i++)
		out[i] = (unsigned char)v[i] < 0x20 && v[i] != '\t' ? ' ' : v[i];
	out[i] = 0;
	return out;
}

static int write_session_file(const struct npuprof_session *s, char *err, size_t errlen)
{
	char buf[16384], cmd[sizeof(s->cmd)], host[sizeof(s->hostname)];
	size_t n = 0;

#define P(...) n += (size_t)snprintf(buf + n, sizeof(buf) - n, __VA_ARGS__)
	P("version=%d\nhostname=%s\nhost_uid=%s\npid=%u\ncmd=%s\nengine=%s\n",
	  NPUPROF_SESSION_VERSION, one_line(s->hostname, host, sizeof(host)), s->host_uid, s->pid,
	  one_line(s->cmd, cmd, sizeof(cmd)), s->engine);
	P("device_backend=%s\n", s->device_backend);
	P("rank=%d\n", (int)s->rank);
	P("sample_n=%u\ncapture_flags=%u\n", s->sample_n, s->capture_flags);
	P("start_realtime_ns=%llu\nstart_monotonic_ns=%llu\n",
	  (unsigned long long)s->start_realtime_ns, (unsigned long long)s->start_monotonic_ns);
	P("end_realtime_ns=%llu\nend_monotonic_ns=%llu\n", (unsigned long long)s->end_realtime_ns,
	  (unsigned long long)s->end_monotonic_ns);
	P("written=%llu\ndropped=%llu\nfiltered=%llu\nsampled_out=%llu\noverwritten=%llu\nexit_status=%d\n",
	  (unsigned long long)s->written, (unsigned long long)s->dropped,
	  (unsigned long long)s->filtered, (unsigned long long)s->sampled_out,
	  (unsigned long long)s->overwritten, s->exit_status);
	P("window_on_ms=%u\nwindow_period_ms=%u\nrate_limit=%u\n", s->window_on_ms,
	  s->window_period_ms, s->rate_limit);
	P("window_skipped=%llu\nrate_skipped=%llu\n", (unsigned long long)s->window_skipped,
	  (unsigned long long)s->rate_skipped);
	if (s->switches)
		P("switches=0x%llx\n", (unsigned long long)s->switches);
	if (s->stars_records || s->stars_dropped)
		P("stars_records=%llu\nstars_dropped=%llu\n", (unsigned long long)s->stars_records,
		  (unsigned long long)s->stars_dropped);
	P("devices=%d\n", s->ndev);
	for (int i = 0; i < s->ndev && n < sizeof(buf) - 256; i++)
		P("device.%d=%u,%s,%llu,%u,%d,%u\n", i, s->dev[i].id, s->dev[i].chip,
		  (unsigned long long)s->dev[i].counter_hz, s->dev[i].aicore_num,
		  (int)s->dev[i].rank, s->dev[i].aicore_mhz);
	/* the last line: the CRC-32 of everything above it (version 2) */
	if (n < sizeof(buf) - 32)
		P("crc=%08x\n", (unsigned)npuprof_crc32(0, buf, n));
#undef P
	return write_file(s->dir, NPUPROF_SESSION_FILE, buf, err, errlen);
}

/* host/info.json and device_<N>/info.json.<N>: who, where, which rank. */
static int write_info_files(const struct npuprof_session *s, char *err, size_t errlen)
{
	char dir[4352], text[4096], name[64];
	int r;

	snprintf(dir, sizeof(dir), "%s/host", s->dir);
	snprintf(
		text, sizeof(text),
		"{\"pid\": \"%u\", \"hostUid\": \"%s\", \"hostname\": \"%s\", \"platform_version\": \"5\", \"CPU\": [{\"Frequency\": \"\"}], \"rank_id\": %d}\n",
		s->pid, s->host_uid, s->hostname, (int)s->rank);
	if ((r = write_file(dir, "info.json", text, err, errlen)) < 0)
		return r;
	for (int i = 0; i < s->ndev; i++) {
		const struct npuprof_session_device *d = &s->dev[i];

		snprintf(dir, sizeof(dir), "%s/device_%u", s->dir, d->id);
		if ((r = npuprof_mkdirs(dir, 0755)) < 0) {
			npuprof_seterr(err, errlen, "%s: %s", dir, strerror(-r));
			return r;
		}
		snprintf(
			text, sizeof(text),
			"{\"pid\": \"%u\", \"hostUid\": \"%s\", \"hostname\": \"%s\", \"platform_version\": \"5\", \"rank_id\": %d, \"DeviceInfo\": [{\"id\": %u, \"hwts_frequency\": \"%llu\", \"aic_frequency\": \"%u\", \"ai_core_num\": %u}]}\n",
			s->pid, s->host_uid, s->hostname, (int)d->rank, d->id,
			(unsigned long long)(d->counter_hz / 1000000), d->aicore_mhz,
			d->aicore_num);
		snprintf(name, sizeof(name), "info.json.%u", d->id);
		if ((r = write_file(dir, name, text, err, errlen)) < 0)
			return r;
	}
	return 0;
}

int npuprof_session_write_info(const struct npuprof_session *s, char *err, size_t errlen)
{
	int r = write_info_files(s, err, errlen);

	return r < 0 ? r : write_session_file(s, err, errlen);
}

static int write_start_files(const struct npuprof_session *s, char *err, size_t errlen)
{
	char dir[4352], text[4096], date[64];
	int r;

	if ((r = write_info_files(s, err, errlen)) < 0)
		return r;
	snprintf(dir, sizeof(dir), "%s/host", s->dir);
	local_stamp(s->start_realtime_ns, "%Y-%m-%d %H:%M:%S", date, sizeof(date), 0);
	snprintf(
		text, sizeof(text),
		"{\"collectionDateBegin\": \"%s\", \"collectionTimeBegin\": \"%llu\", \"clockMonotonicRaw\": \"%llu\"}\n",
		date, (unsigned long long)(s->start_realtime_ns / 1000),
		(unsigned long long)s->start_monotonic_ns);
	if ((r = write_file(dir, "start_info", text, err, errlen)) < 0)
		return r;
	snprintf(text, sizeof(text),
		 "[Host]\nclock_monotonic_raw: %llu\ncntvct: %llu\ncntvct_diff: 0\n",
		 (unsigned long long)s->start_monotonic_ns,
		 (unsigned long long)s->start_monotonic_ns);
	if ((r = write_file(dir, "host_start.log", text, err, errlen)) < 0)
		return r;
	for (int i = 0; i < s->ndev; i++) {
		const struct npuprof_session_device *d = &s->dev[i];
		char name[64];

		snprintf(dir, sizeof(dir), "%s/device_%u", s->dir, d->id);
		snprintf(
			text, sizeof(text),
			"{\"collectionDateBegin\": \"%s\", \"collectionTimeBegin\": \"%llu\", \"clockMonotonicRaw\": \"%llu\"}\n",
			date, (unsigned long long)(s->start_realtime_ns / 1000),
			(unsigned long long)s->start_monotonic_ns);
		snprintf(name, sizeof(name), "start_info.%u", d->id);
		if ((r = write_file(dir, name, text, err, errlen)) < 0)
			return r;
	}
	return 0;
}

int npuprof_session_create(struct npuprof_session *s, const char *parent, char *err, size_t errlen)
{
	char stamp[80], rnd[17], sub[4400];
	unsigned seed = (unsigned)(s->start_monotonic_ns ^ (uint64_t)getpid() << 16);
	int r;

	if ((r = npuprof_mkdirs(parent, 0755)) < 0) {
		npuprof_seterr(err, errlen, "%s: cannot create: %s", parent, strerror(-r));
		return r;
	}
	local_stamp(s->start_realtime_ns, "%Y%m%d%H%M%S", stamp, sizeof(stamp), 1);
	for (int attempt = 0; attempt < 100; attempt++) {
		for (int i = 0; i < 16; i++)
			rnd[i] = (char)('A' + rand_r(&seed) % 26);
		rnd[16] = 0;
		snprintf(s->dir, sizeof(s->dir), "%s/PROF_%06d_%s_%s", parent, attempt + 1, stamp,
			 rnd);
		if (mkdir(s->dir, 0755) == 0)
			break;
		if (errno != EEXIST) {
			r = -errno;
			npuprof_seterr(err, errlen, "%s: cannot create: %s", s->dir,
				       strerror(errno));
			return r;
		}
	}
	snprintf(sub, sizeof(sub), "%s/host/data", s->dir);
	if ((r = npuprof_mkdirs(sub, 0755)) < 0) {
		npuprof_seterr(err, errlen, "%s: %s", sub, strerror(-r));
		return r;
	}
	snprintf(sub, sizeof(sub), "%s/kernel", s->dir);
	if ((r = npuprof_mkdirs(sub, 0755)) < 0) {
		npuprof_seterr(err, errlen, "%s: %s", sub, strerror(-r));
		return r;
	}
	if ((r = write_start_files(s, err, errlen)) < 0)
		return r;
	return write_session_file(s, err, errlen);
}

int npuprof_session_finish(struct npuprof_session *s, char *err, size_t errlen)
{
	char text[1024], date[64], dir[4352], name[64];
	int r;

	s->end_realtime_ns = clock_ns(CLOCK_REALTIME);
	s->end_monotonic_ns = clock_ns(CLOCK_MONOTONIC);
	local_stamp(s->end_realtime_ns, "%Y-%m-%d %H:%M:%S", date, sizeof(date), 0);
	snprintf(
		text, sizeof(text),
		"{\"collectionDateEnd\": \"%s\", \"collectionTimeEnd\": \"%llu\", \"clockMonotonicRaw\": \"%llu\"}\n",
		date, (unsigned long long)(s->end_realtime_ns / 1000),
		(unsigned long long)s->end_monotonic_ns);
	snprintf(dir, sizeof(dir), "%s/host", s->dir);
	if ((r = write_file(dir, "end_info", text, err, errlen)) < 0)
		return r;
	for (int i = 0; i < s->ndev; i++) {
		snprintf(dir, sizeof(dir), "%s/device_%u", s->dir, s->dev[i].id);
		snprintf(name, sizeof(name), "end_info.%u", s->dev[i].id);
		if ((r = write_file(dir, name, text, err, errlen)) < 0)
			return r;
	}
	return write_session_file(s, err, errlen);
}

/* A decimal number that fills v and fits max; else 0. */
static int session_number(const char *v, unsigned long long max, unsigned long long *out)
{
	unsigned long long x = 0;

	if (!*v)
		return 0;
	for (; *v; v++) {
		if (*v < '0' || *v > '9' || x > (max - (unsigned)(*v - '0')) / 10)
			return 0;
		x = x * 10 + (unsigned)(*v - '0');
	}
	*out = x;
	return 1;
}

/* The same, signed (exit_status, rank). */
static int session_int(const char *v, int32_t *out)
{
	unsigned long long x;
	int neg = *v == '-';

	if (!session_number(v + neg, neg ? 2147483648ULL : 2147483647ULL, &x))
		return 0;
	*out = neg ? (int32_t)(-(long long)x) : (int32_t)x;
	return 1;
}

/* Text a writer could have written: printable, tabs allowed. */
static int session_text(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 && *v != '\t')
			return 0;
	return 1;
}

/* One key=value line into s; 0 if the value is not one the writer writes
 * (unknown keys are taken: the file may grow). */
static int session_field(struct npuprof_session *s, const char *k, const char *v, int *ndev_said,
			 int *version, int *have_start)
{
	unsigned long long x;
	int ok = 1;

#define S(f)                                                                    \
	else if (!strcmp(k, #f))                                                \
	{                                                                       \
		ok = session_text(v) && strlen(v) < sizeof(s->f);               \
		snprintf(s->f, sizeof(s->f), "%.*s", (int)sizeof(s->f) - 1, v); \
	}
#define U(f, max)                                \
	else if (!strcmp(k, #f))                 \
	{                                        \
		ok = session_number(v, max, &x); \
		s->f = ok ? x : 0;               \
	}
	if (!strcmp(k, "version")) {
		ok = session_number(v, 1000, &x) && x >= 1;
		*version = ok ? (int)x : 0;
	}
	S(hostname)
	S(host_uid)
	S(cmd)
	S(engine)
	S(device_backend)
	U(pid, UINT32_MAX)
	U(sample_n, UINT32_MAX)
	U(capture_flags, UINT32_MAX)
	U(end_realtime_ns, UINT64_MAX)
	U(end_monotonic_ns, UINT64_MAX)
	U(written, UINT64_MAX)
	U(dropped, UINT64_MAX)
	U(filtered, UINT64_MAX)
	U(sampled_out, UINT64_MAX)
	U(overwritten, UINT64_MAX)
	U(window_on_ms, UINT32_MAX)
	U(window_period_ms, UINT32_MAX)
	U(rate_limit, UINT32_MAX)
	U(window_skipped, UINT64_MAX)
	U(rate_skipped, UINT64_MAX)
	U(stars_records, UINT64_MAX)
	U(stars_dropped, UINT64_MAX)
	else if (!strcmp(k, "start_realtime_ns") || !strcmp(k, "start_monotonic_ns"))
	{
		ok = session_number(v, UINT64_MAX, &x);
		*(k[6] == 'r' ? &s->start_realtime_ns : &s->start_monotonic_ns) = ok ? x : 0;
		*have_start |= ok ? (k[6] == 'r' ? 1 : 2) : 0;
	}
	else if (!strcmp(k, "exit_status")) ok = session_int(v, &s->exit_status);
	else if (!strcmp(k, "rank")) ok = session_int(v, &s->rank);
	else if (!strcmp(k, "switches"))
	{
		char *end;

		errno = 0;
		s->switches = strtoull(v, &end, 0);
		ok = *v && *v != '-' && !*end && !errno;
	}
	else if (!strcmp(k, "devices"))
	{
		ok = session_number(v, NPUPROF_MAX_SESSION_DEVICES, &x);
		*ndev_said = ok ? (int)x : -1;
	}
	else if (!strncmp(k, "device.", 7))
	{
		struct npuprof_session_device *d = &s->dev[s->ndev];
		unsigned long long hz = 0;
		int used = -1;

		if (s->ndev >= NPUPROF_MAX_SESSION_DEVICES || !session_number(k + 7, 1000, &x) ||
		    x != (unsigned long long)s->ndev)
			return 0;
		d->rank = NPUPROF_RANK_NONE; /* sessions before ranks: 4 fields */
		d->aicore_mhz = 0; /* sessions before the AI Core frequency: 5 */
		if (sscanf(v, "%u,%31[^,],%llu,%u,%d,%u%n", &d->id, d->chip, &hz, &d->aicore_num,
			   &d->rank, &d->aicore_mhz, &used) != 6 ||
		    used < 0 || v[used]) {
			used = -1;
			d->aicore_mhz = 0;
			d->rank = NPUPROF_RANK_NONE;
		}
		if (used < 0 && (sscanf(v, "%u,%31[^,],%llu,%u,%d%n", &d->id, d->chip, &hz,
					&d->aicore_num, &d->rank, &used) != 5 ||
				 used < 0 || v[used])) {
			used = -1;
			d->rank = NPUPROF_RANK_NONE;
			if (sscanf(v, "%u,%31[^,],%llu,%u%n", &d->id, d->chip, &hz, &d->aicore_num,
				   &used) != 4 ||
			    v[used])
				return 0;
		}
		d->counter_hz = hz;
		s->ndev++;
	}
#undef S
#undef U
	return ok;
}

int npuprof_session_load(struct npuprof_session *s, const char *dir, char *err, size_t errlen)
{
	char path[4352], line[2048], why[160] = "";
	uint32_t crc = 0;
	int lineno = 0, bad_line = 0, ndev_said = -1, version = 0, have_start = 0, crc_seen = 0;
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->exit_status = -1;
	s->rank = NPUPROF_RANK_NONE;
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/%s", dir, NPUPROF_SESSION_FILE);
	f = fopen(path, "r");
	if (!f) {
		int r = -errno;

		npuprof_seterr(err, errlen, "%s: %s (not an npuprof session directory?)", path,
			       strerror(errno));
		return r;
	}
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');
		size_t l = strlen(line);

		lineno++;
		if (crc_seen) {
			if (!bad_line)
				snprintf(why, sizeof(why), "text after the crc line");
			bad_line = bad_line ? bad_line : lineno;
			continue;
		}
		if (l && line[l - 1] == '\n') {
			line[l - 1] = 0;
		} else {
			if (!bad_line)
				snprintf(why, sizeof(why), "%s",
					 feof(f) ? "truncated (the last line has no end)" :
						   "a line too long");
			bad_line = bad_line ? bad_line : lineno;
			break;
		}
		if (!strncmp(line, "crc=", 4)) {
			char hex[16];

			crc_seen = 1;
			snprintf(hex, sizeof(hex), "%08x", (unsigned)crc);
			if (strcmp(line + 4, hex)) {
				if (!bad_line)
					snprintf(
						why, sizeof(why),
						"checksum mismatch (crc=%.16s, the text above has %s)",
						line + 4, hex);
				bad_line = bad_line ? bad_line : lineno;
			}
			continue;
		}
		crc = npuprof_crc32(crc, line, l - 1);
		crc = npuprof_crc32(crc, "\n", 1);
		if (!eq || eq == line ||
		    strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789_.") != (size_t)(eq - line)) {
			if (!bad_line)
				snprintf(why, sizeof(why), "not a key=value line");
			bad_line = bad_line ? bad_line : lineno;
			continue;
		}
		*eq = 0;
		if (!session_field(s, line, eq + 1, &ndev_said, &version, &have_start) &&
		    !bad_line) {
			bad_line = lineno;
			snprintf(why, sizeof(why), "%.40s: bad value '%.60s'", line, eq + 1);
		}
	}
	fclose(f);
	if (bad_line) {
		npuprof_seterr(err, errlen, "%s: damaged: line %d: %s", path, bad_line, why);
		return -EBADMSG;
	}
	if (!version || have_start != 3 || !s->start_realtime_ns) {
		npuprof_seterr(err, errlen, "%s: damaged: no %s", path,
			       !version ? "version line" : "start clock pair");
		return -EBADMSG;
	}
	if (version >= 2 && !crc_seen) {
		npuprof_seterr(err, errlen, "%s: damaged: truncated (no crc line after line %d)",
			       path, lineno);
		return -EBADMSG;
	}
	if (ndev_said >= 0 && ndev_said != s->ndev) {
		npuprof_seterr(err, errlen, "%s: damaged: devices=%d but %d device lines", path,
			       ndev_said, s->ndev);
		return -EBADMSG;
	}
	if ((s->end_realtime_ns && s->end_realtime_ns < s->start_realtime_ns) ||
	    (s->end_monotonic_ns && s->end_monotonic_ns < s->start_monotonic_ns)) {
		npuprof_seterr(
			err, errlen,
			"%s: damaged: the end (end_realtime_ns=%llu end_monotonic_ns=%llu) is before the start (%llu, %llu)",
			path, (unsigned long long)s->end_realtime_ns,
			(unsigned long long)s->end_monotonic_ns,
			(unsigned long long)s->start_realtime_ns,
			(unsigned long long)s->start_monotonic_ns);
		return -EBADMSG;
	}
	return 0;
}

void npuprof_session_clock_sync(const struct npuprof_session *s, npuprof_record_fn fn, void *ctx)
{
	const struct npuprof_device_backend *b = npuprof_device_find(s->device_backend);

	if (!b)
		b = npuprof_device_probe();
	for (int i = 0; i < s->ndev; i++) {
		struct npuprof_clock_sample cs[4];
		struct npuprof_record r;
		int n = b->clock_sync(s->dev[i].id, cs, 4);

		for (int k = 0; k < n; k++) {
			npuprof_encode_clock_sync(&r, s->dev[i].id, cs[k].host_ns, cs[k].dev_cnt,
						  s->dev[i].counter_hz);
			npuprof_encode_hdr(&r, cs[k].host_ns, 0, (uint32_t)getpid(), 0);
			fn(ctx, &r);
		}
	}
}
