/*
 * torch_ext.cpp - npuprof.torch._C: the framework layer's recorder over
 * torch's RecordFunction callbacks (torch 1.13, Debian's libtorch).
 *
 * While a profile's active steps run, one global RecordFunction callback
 * (every scope, with inputs when shapes are recorded or the device mirror
 * needs them) turns each torch op into one npuprof_fwk_op report at its end
 * through CANN's reporter ABI (libprofapi.so's MsprofReportAdditionalInfo,
 * the framework extension of profiling/npuprof_ext.h, fwk_report.h): name,
 * start and end (MsprofSysCycleTime), the thread, the autograd sequence number, the
 * forward thread of a backward op (torch's internal thread id translated to
 * the kernel tid of the thread that ran the forward op), input dtypes and
 * shapes, and the Python stack. The per-op state lives in a per-thread
 * stack of frames: no allocation on the hot path; strings become
 * MsprofGetHashId ids registered once per thread (a small cache of ids seen).
 *
 * With profile_memory, a torch ProfilerStateBase pushed as the enabling
 * thread's PROFILER_STATE debug info (the mechanism through which torch's
 * CPU allocator reports every allocation and release when memory
 * profiling is on: c10::reportMemoryUsageToProfiler asks that debug info;
 * it propagates to autograd's backward on the same graph task) writes
 * npuprof_fwk_mem reports with the allocator's running totals. It
 * tells torch that no profiler of its own is enabled, so torch's profiler
 * can still start above it (the events then go to torch's while it runs);
 * if torch's profiler is already running, memory is not recorded.
 *
 * The device mirror (mirror.h, libnpuprof_mirror.so) is called at the end
 * of each top-level aten op, before the op's end time is taken, with the
 * inputs captured at its start. Its symbols are weak: without the library
 * the extension records without a mirror.
 *
 * Also here: session control (aclprofInit/CreateConfig/Start, Stop/
 * Finalize), the step and range records written from Python, GC records,
 * and the dispatch benchmark of `make bench`.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>

#include <ATen/core/ivalue.h>
#include <ATen/record_function.h>
#include <ATen/ATen.h>
#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/csrc/profiler/orchestration/observer.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "acl/acl_prof.h"
#include "fwk_report.h"
#include "mirror.h"

/* The mirror is linked when it is built (python/mirror.mk); weak so that
 * the extension also loads without it. */
extern "C" {
int npuprof_mirror_open(int32_t device, char *err, size_t errlen) __attribute__((weak));
void npuprof_mirror_close(void) __attribute__((weak));
int npuprof_mirror_is_open(void) __attribute__((weak));
int npuprof_mirror_op(const char *name, const struct npuprof_mirror_tensor *in, size_t n_in)
	__attribute__((weak));
int npuprof_mirror_sync(void) __attribute__((weak));
}

namespace
{

constexpr int kMaxDepth = 128; /* nesting recorded per thread */
constexpr int kStrCache = 512; /* per-thread ids already registered */
constexpr int kMirrorIn = 16; /* inputs passed to the mirror */
constexpr int kMirrorDims = 8; /* dims per input passed to the mirror */
constexpr int kTidMap = 4096; /* torch thread ids translated */
constexpr size_t kStrMax = 16384; /* longest shapes/dtypes/stack string */
constexpr int kStackFrames = 128;

struct Frame {
	const at::RecordFunction *fn;
	uint64_t start;
	uint64_t dtypes_id;
	uint64_t shapes_id;
	uint64_t stack_id;
	bool aten; /* an aten:: op */
	bool top; /* aten:: op with no aten:: op around it on this thread */
};

struct MirrorInputs {
	size_t n;
	struct npuprof_mirror_tensor t[kMirrorIn];
	int64_t dims[kMirrorIn][kMirrorDims];
};

/* The dtypes/shapes ids of an input list seen before, keyed by the list's
 * exact descriptor (per input: kind and dtype, rank, sizes), so that a
 * repeated signature costs no formatting or hashing of strings. */
constexpr int kDescMax = 24; /* int64 words of a cached descriptor */
constexpr int kInCache = 128;
struct InEntry {
	uint64_t h;
	uint32_t len; /* words; 0: empty slot */
	int64_t desc[kDescMax];
	uint64_t dtypes_id, shapes_id;
};

struct TState {
	uint32_t tid = 0;
	int depth = 0; /* may exceed kMaxDepth: those frames are not recorded */
	int aten_depth = 0;
	uint64_t seen[kStrCache] = {};
	InEntry incache[kInCache] = {};
	Frame frames[kMaxDepth];
	MirrorInputs mirror;
};

thread_local TState *t_state;

/* ---- configuration, set by enable() ---- */
std::atomic<bool> g_on{ false };
bool g_shapes = false;
bool g_stack = false;
bool g_mirror = false;
at::CallbackHandle g_cb = at::INVALID_CALLBACK_HANDLE;
at::CallbackHandle g_empty_cb = at::INVALID_CALLBACK_HANDLE; /* bench only */
std::atomic<uint32_t> g_tidmap[kTidMap];

/* counters for tests and stats() */
std::atomic<uint64_t> g_ops{ 0 }, g_lost{ 0 }, g_mem{ 0 }, g_mirror_ops{ 0 }, g_mirror_err{ 0 },
	g_deep{ 0 };

TState &ts()
{
	TState *t = t_state;
	if (__builtin_expect(t != nullptr, 1))
		return *t;
	/* freed at process exit only: a thread's state may be reached by an
	 * end callback after Python's thread object is gone */
	t = new TState();
	t->tid = fwk_tid();
	uint64_t ttid = at::RecordFunction::currentThreadId();
	if (ttid < kTidMap)
		g_tidmap[ttid].store(t->tid, std::memory_order_relaxed);
	t_state = t;
	return *t;
}

/* The id of s, registered with libprofapi's dictionary once per thread. */
uint64_t str_id(TState &t, const char *s, size_t len)
{
	return fwk_str_id(t.seen, kStrCache, s, len);
}

/* A bounded string builder on the stack. */
struct Buf {
	char b[kStrMax];
	size_t n = 0;
	bool full = false;
	void put(const char *s, size_t len)
	{
		if (n + len >= sizeof(b)) {
			full = true;
			len = sizeof(b) - 1 - n;
		}
		memcpy(b + n, s, len);
		n += len;
		b[n] = '\0';
	}
	void put(const char *s)
	{
		put(s, strlen(s));
	}
	void put_i64(int64_t v)
	{
		char tmp[24];
		int k = sizeof(tmp);
		uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
		do {
			tmp[--k] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		if (v < 0)
			tmp[--k] = '-';
		put(tmp + k, sizeof(tmp) - (size_t)k);
	}
};

const char kSep[] = NPUPROF_EXT_FWK_SEP;

/* dtypes and shapes as torch's profiler reports them: a tensor's dtype
 * name (float, long int ...) and sizes "[5, 8]"; a scalar "Scalar" and
 * "[]"; None "None" and "[]"; anything else its IValue kind and "[]". */
/* The descriptor of fn's inputs into d (at most kDescMax words): its
 * length, or -1 if it does not fit or has an input the formatter names by
 * its IValue tag (not cached). */
int input_desc(const at::RecordFunction &fn, int64_t *d)
{
	int n = 0;
	for (const c10::IValue &v : fn.inputs()) {
		if (n >= kDescMax)
			return -1;
		if (v.isTensor()) {
			const at::Tensor &x = v.toTensor();
			if (!x.defined()) {
				d[n++] = 2;
				continue;
			}
			auto sizes = x.sizes();
			if (n + 2 + (int)sizes.size() > kDescMax)
				return -1;
			d[n++] = 0x100 + (int64_t)x.scalar_type();
			d[n++] = (int64_t)sizes.size();
			for (int64_t z : sizes)
				d[n++] = z;
		} else if (v.isScalar()) {
			d[n++] = 3;
		} else if (v.isNone()) {
			d[n++] = 2;
		} else if (v.isList()) {
			d[n++] = 4;
		} else if (v.isString()) {
			d[n++] = 5;
		} else if (v.isDevice()) {
			d[n++] = 6;
		} else {
			return -1;
		}
	}
	return n;
}

void format_inputs(TState &t, const at::RecordFunction &fn, Frame &f);

void record_inputs(TState &t, const at::RecordFunction &fn, Frame &f)
{
	int64_t d[kDescMax];
	int n = input_desc(fn, d);
	if (n <= 0) {
		format_inputs(t, fn, f);
		return;
	}
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
	for (int i = 0; i < n; i++)
		h = (h ^ (uint64_t)d[i]) * 0x100000001B3ULL;
	h ^= h >> 29;
	InEntry &e = t.incache[h & (kInCache - 1)];
	if (e.len == (uint32_t)n && e.h == h && !memcmp(e.desc, d, (size_t)n * sizeof(d[0]))) {
		f.dtypes_id = e.dtypes_id;
		f.shapes_id = e.shapes_id;
		return;
	}
	format_inputs(t, fn, f);
	e.h = h;
	e.len = (uint32_t)n;
	memcpy(e.desc, d, (size_t)n * sizeof(d[0]));
	e.dtypes_id = f.dtypes_id;
	e.shapes_id = f.shapes_id;
}

void format_inputs(TState &t, const at::RecordFunction &fn, Frame &f)
{
	Buf dt, sh;
	size_t i = 0;
	for (const c10::IValue &v : fn.inputs()) {
		if (i++) {
			dt.put(kSep, sizeof(kSep) - 1);
			sh.put(kSep, sizeof(kSep) - 1);
		}
		if (v.isTensor()) {
			const at::Tensor &x = v.toTensor();
			if (x.defined()) {
				auto name = x.dtype().name();
				dt.put(name.data(), name.size());
				sh.put("[");
				auto sizes = x.sizes();
				for (size_t d = 0; d < sizes.size(); d++) {
					if (d)
						sh.put(", ");
					sh.put_i64(sizes[d]);
				}
				sh.put("]");
			} else {
				dt.put("None");
				sh.put("[]");
			}
		} else if (v.isScalar()) {
			dt.put("Scalar");
			sh.put("[]");
		} else if (v.isNone()) {
			dt.put("None");
			sh.put("[]");
		} else {
			/* IValue::tagKind's names, without its std::string */
			dt.put(v.isList()   ? "GenericList" :
			       v.isString() ? "String" :
			       v.isDevice() ? "Device" :
					      v.tagKind().c_str());
			sh.put("[]");
		}
	}
	f.dtypes_id = i ? str_id(t, dt.b, dt.n) : NPUPROF_EXT_NO_STRING;
	f.shapes_id = i ? str_id(t, sh.b, sh.n) : NPUPROF_EXT_NO_STRING;
}

int32_t acl_dtype(c10::ScalarType s)
{
	switch (s) {
	case c10::ScalarType::Float: return 0; /* ACL_FLOAT */
	case c10::ScalarType::Half: return 1;
	case c10::ScalarType::Char: return 2;
	case c10::ScalarType::Int: return 3;
	case c10::ScalarType::Byte: return 4;
	case c10::ScalarType::Short: return 6;
	case c10::ScalarType::Long: return 9;
	case c10::ScalarType::Double: return 11;
	case c10::ScalarType::Bool: return 12;
	case c10::ScalarType::ComplexFloat: return 16;
	case c10::ScalarType::ComplexDouble: return 17;
	case c10::ScalarType::BFloat16: return 27;
	default: return -1; /* ACL_DT_UNDEFINED */
	}
}

void mirror_inputs(TState &t, const at::RecordFunction &fn)
{
	MirrorInputs &m = t.mirror;
	m.n = 0;
	for (const c10::IValue &v : fn.inputs()) {
		if (m.n == kMirrorIn)
			break;
		struct npuprof_mirror_tensor &o = m.t[m.n];
		o.dtype = -1;
		o.ndim = 0;
		o.dims = m.dims[m.n];
		if (v.isTensor() && v.toTensor().defined()) {
			const at::Tensor &x = v.toTensor();
			auto sizes = x.sizes();
			o.dtype = acl_dtype(x.scalar_type());
			/* More dims than the mirror takes: the leading ones fold
			 * into the first, so the element count stays exact. */
			size_t extra = sizes.size() > (size_t)kMirrorDims ?
					       sizes.size() - kMirrorDims :
					       0;
			o.ndim = (int32_t)(sizes.size() - extra);
			for (int d = 0; d < o.ndim; d++)
				m.dims[m.n][d] = sizes[extra + d];
			for (size_t d = 0; d < extra; d++)
				m.dims[m.n][0] *= sizes[d];
		}
		m.n++;
	}
}

/* The Python stack of the calling thread, "file(line): func" innermost
 * first, joined by NPUPROF_EXT_FWK_SEP; NO_STRING without Python frames. */
uint64_t python_stack(TState &t)
{
	if (!Py_IsInitialized() || _Py_IsFinalizing())
		return NPUPROF_EXT_NO_STRING;
	Buf b;
	PyGILState_STATE g = PyGILState_Ensure();
	PyFrameObject *fr = PyEval_GetFrame(); /* borrowed */
	Py_XINCREF(fr);
	int k = 0;
	while (fr && k < kStackFrames) {
		PyCodeObject *code = PyFrame_GetCode(fr);
		const char *file = PyUnicode_AsUTF8(code->co_filename);
		const char *func = PyUnicode_AsUTF8(code->co_name);
		if (k++)
			b.put(kSep, sizeof(kSep) - 1);
		b.put(file ? file : "?");
		b.put("(");
		b.put_i64(PyFrame_GetLineNumber(fr));
		b.put("): ");
		b.put(func ? func : "?");
		Py_DECREF(code);
		PyFrameObject *back = PyFrame_GetBack(fr);
		Py_DECREF(fr);
		fr = back;
	}
	Py_XDECREF(fr);
	if (PyErr_Occurred())
		PyErr_Clear();
	PyGILState_Release(g);
	return b.n ? str_id(t, b.b, b.n) : NPUPROF_EXT_NO_STRING;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction &fn)
{
	if (!g_on.load(std::memory_order_relaxed))
		return nullptr;
	TState &t = ts();
	if (t.depth >= kMaxDepth) {
		t.depth++;
		g_deep.fetch_add(1, std::memory_order_relaxed);
		return nullptr;
	}
	Frame &f = t.frames[t.depth++];
	const char *name = fn.name();
	f.fn = &fn;
	f.aten = name[0] == 'a' && strncmp(name, "aten::", 6) == 0;
	f.top = f.aten && t.aten_depth == 0;
	if (f.aten)
		t.aten_depth++;
	f.dtypes_id = f.shapes_id = NPUPROF_EXT_NO_STRING;
	if (g_shapes && fn.needsInputs())
		record_inputs(t, fn, f);
	f.stack_id = NPUPROF_EXT_NO_STRING;
	if (g_stack) {
		/* an op's nested ops share its Python stack */
		if (t.depth > 1 && t.frames[t.depth - 2].stack_id != NPUPROF_EXT_NO_STRING)
			f.stack_id = t.frames[t.depth - 2].stack_id;
		else
			f.stack_id = python_stack(t);
	}
	if (f.top && g_mirror && fn.needsInputs())
		mirror_inputs(t, fn);
	f.start = MsprofSysCycleTime();
	return nullptr;
}

void on_end(const at::RecordFunction &fn, at::ObserverContext *)
{
	TState *tp = t_state;
	if (!tp || tp->depth == 0)
		return; /* started before recording began */
	TState &t = *tp;
	if (t.depth > kMaxDepth) {
		t.depth--;
		return;
	}
	/* frames end in LIFO order on a thread; one that did not (an async
	 * range ended elsewhere) is dropped with everything above it */
	int i = t.depth - 1;
	while (i >= 0 && t.frames[i].fn != &fn)
		i--;
	if (i < 0)
		return;
	for (int j = t.depth - 1; j > i; j--)
		if (t.frames[j].aten)
			t.aten_depth--;
	t.depth = i;
	Frame &f = t.frames[i];
	if (f.aten)
		t.aten_depth--;
	if (!g_on.load(std::memory_order_relaxed))
		return;
	if (f.top && g_mirror && npuprof_mirror_op) {
		int r = npuprof_mirror_op(fn.name(), t.mirror.t, fn.needsInputs() ? t.mirror.n : 0);
		if (r > 0)
			g_mirror_ops.fetch_add(1, std::memory_order_relaxed);
		else if (r < 0)
			g_mirror_err.fetch_add(1, std::memory_order_relaxed);
	}
	uint64_t end = MsprofSysCycleTime();
	const char *name = fn.name();
	uint64_t name_id = str_id(t, name, strlen(name));
	uint32_t fwd = 0;
	uint64_t ftid = fn.forwardThreadId();
	if (ftid) {
		fwd = ftid < kTidMap ? g_tidmap[ftid].load(std::memory_order_relaxed) : 0;
		if (!fwd)
			fwd = (uint32_t)ftid; /* never seen: torch's own id */
	}
	if (fwk_report_op(t.tid, fwd, f.start, end, fn.seqNr(), name_id, f.dtypes_id, f.shapes_id,
			  f.stack_id, NPUPROF_EXT_FWK_API_OP)) {
		g_lost.fetch_add(1, std::memory_order_relaxed);
		return;
	}
	g_ops.fetch_add(1, std::memory_order_relaxed);
}

/* ---- memory ---- */
std::atomic<bool> g_mem_on{ false };

/* A thread's PROFILER_STATE debug info must be a torch ProfilerStateBase:
 * torch's profilers cast it to theirs and ask it whether a profiler is
 * enabled. Ours says no (config Disabled, type NONE), so torch's own
 * profiler may still start above it (and then gets the memory events while
 * it runs), while c10's allocator sees memory profiling on. */
struct MemReporter : public torch::profiler::impl::ProfilerStateBase {
	uint64_t component_id = NPUPROF_EXT_NO_STRING;

	MemReporter()
	    : torch::profiler::impl::ProfilerStateBase(torch::profiler::impl::ProfilerConfig(
		      torch::profiler::impl::ProfilerState::Disabled))
	{
	}
	void reportMemoryUsage(void *ptr, int64_t size, int64_t total_allocated,
			       int64_t total_reserved, c10::Device device) override
	{
		if (g_mem_on.load(std::memory_order_relaxed))
			write(ptr, size, total_allocated, total_reserved, device);
	}
	bool memoryProfilingEnabled() const override
	{
		return true;
	}
	torch::profiler::impl::ActiveProfilerType profilerType() override
	{
		return torch::profiler::impl::ActiveProfilerType::NONE;
	}

	void write(void *ptr, int64_t size, int64_t total_allocated, int64_t total_reserved,
		   c10::Device device)
	{
		TState &t = ts();
		struct NpuprofFwkMem m = {};
		/* CPU memory has no device: -1 as torch's Device index */
		m.deviceId = device.has_index() ? (uint32_t)device.index() : UINT32_MAX;
		m.ptr = (uint64_t)(uintptr_t)ptr;
		m.size = size;
		m.totalAllocated = total_allocated > 0 ? (uint64_t)total_allocated : 0;
		m.totalReserved = total_reserved > 0 ? (uint64_t)total_reserved : 0;
		m.totalActive = m.totalAllocated;
		m.stream = 0;
		m.componentId = component_id;
		if (fwk_report(NPUPROF_EXT_FWK_MEM_TYPE, t.tid, MsprofSysCycleTime(), &m,
			       (uint32_t)sizeof(m))) {
			g_lost.fetch_add(1, std::memory_order_relaxed);
			return;
		}
		g_mem.fetch_add(1, std::memory_order_relaxed);
	}
};

std::shared_ptr<MemReporter> g_mem_rep; /* pushed on the enabling thread */

/* ---- Python functions ---- */

PyObject *py_enable(PyObject *, PyObject *args)
{
	int shapes, stack, memory, mirror;
	if (!PyArg_ParseTuple(args, "pppp", &shapes, &stack, &memory, &mirror))
		return nullptr;
	if (g_cb != at::INVALID_CALLBACK_HANDLE) {
		PyErr_SetString(PyExc_RuntimeError, "npuprof.torch: recording is already on");
		return nullptr;
	}
	g_shapes = shapes;
	g_stack = stack;
	int memory_ok = memory;
	g_mirror = mirror && npuprof_mirror_op && npuprof_mirror_is_open &&
		   npuprof_mirror_is_open();
	ts(); /* the enabling thread's torch id -> tid, for fwdThreadId */
	try {
		g_cb = at::addGlobalCallback(at::RecordFunctionCallback(on_start, on_end)
						     .needsInputs(g_shapes || g_mirror));
		if (memory) {
			/* under another profiler's state we would be asked in
			 * its place: then memory is not recorded */
			if (c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE)) {
				memory_ok = 0;
			} else {
				auto rep = std::make_shared<MemReporter>();
				rep->component_id = MsprofGetHashId("PTA", 3);
				c10::ThreadLocalDebugInfo::_push(c10::DebugInfoKind::PROFILER_STATE,
								 rep);
				g_mem_rep = rep;
				g_mem_on.store(true);
			}
		}
	} catch (const std::exception &e) {
		PyErr_SetString(PyExc_RuntimeError, e.what());
		return nullptr;
	}
	g_on.store(true);
	return PyBool_FromLong(memory_ok);
}

PyObject *py_disable(PyObject *, PyObject *)
{
	g_on.store(false);
	g_mem_on.store(false);
	try {
		if (g_cb != at::INVALID_CALLBACK_HANDLE)
			at::removeCallback(g_cb);
		g_cb = at::INVALID_CALLBACK_HANDLE;
		if (g_mem_rep) {
			/* ours is on top unless the program pushed another
			 * PROFILER_STATE after enable(): then leave both */
			if (c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE) ==
			    g_mem_rep.get())
				c10::ThreadLocalDebugInfo::_pop(c10::DebugInfoKind::PROFILER_STATE);
			g_mem_rep.reset();
		}
	} catch (const std::exception &e) {
		PyErr_SetString(PyExc_RuntimeError, e.what());
		return nullptr;
	}
	Py_RETURN_NONE;
}

PyObject *py_now(PyObject *, PyObject *)
{
	return PyLong_FromUnsignedLongLong(MsprofSysCycleTime());
}

/* range(name, start_ns, end_ns, type): a FWK_OP written from Python (a
 * ProfilerStep#<n>, an mstx range) on the calling thread. */
PyObject *py_range(PyObject *, PyObject *args)
{
	const char *name;
	unsigned long long start, end;
	unsigned int type;
	if (!PyArg_ParseTuple(args, "sKKI", &name, &start, &end, &type))
		return nullptr;
	TState &t = ts();
	uint64_t id = str_id(t, name, strlen(name));
	if (fwk_report_op(t.tid, 0, start, end, -1, id, NPUPROF_EXT_NO_STRING, NPUPROF_EXT_NO_STRING,
			  NPUPROF_EXT_NO_STRING, type)) {
		g_lost.fetch_add(1, std::memory_order_relaxed);
		Py_RETURN_FALSE;
	}
	Py_RETURN_TRUE;
}

PyObject *py_gc(PyObject *, PyObject *args)
{
	unsigned long long start, end;
	unsigned int gen;
	if (!PyArg_ParseTuple(args, "KKI", &start, &end, &gen))
		return nullptr;
	TState &t = ts();
	struct NpuprofFwkGc g = {};
	g.generation = gen;
	g.durationNs = end > start ? end - start : 0;
	if (fwk_report(NPUPROF_EXT_FWK_GC_TYPE, t.tid, start, &g, (uint32_t)sizeof(g))) {
		g_lost.fetch_add(1, std::memory_order_relaxed);
		Py_RETURN_FALSE;
	}
	Py_RETURN_TRUE;
}

PyObject *py_stats(PyObject *, PyObject *)
{
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K}", "ops", (unsigned long long)g_ops.load(),
			     "lost", (unsigned long long)g_lost.load(), "mem",
			     (unsigned long long)g_mem.load(), "mirror_ops",
			     (unsigned long long)g_mirror_ops.load(), "mirror_errors",
			     (unsigned long long)g_mirror_err.load(), "too_deep",
			     (unsigned long long)g_deep.load());
}

/* ---- session control ---- */
aclprofConfig *g_config;

/* session_start(dir, devices, switches): aclprofInit(dir),
 * aclprofCreateConfig(devices, ACL_AICORE_NONE, switches), aclprofStart. */
PyObject *py_session_start(PyObject *, PyObject *args)
{
	const char *dir;
	PyObject *devs;
	unsigned long long switches;
	if (!PyArg_ParseTuple(args, "sOK", &dir, &devs, &switches))
		return nullptr;
	if (g_config) {
		PyErr_SetString(PyExc_RuntimeError, "npuprof.torch: a session is already running");
		return nullptr;
	}
	uint32_t ids[64];
	Py_ssize_t n = PySequence_Length(devs);
	if (n < 0 || n > 64) {
		PyErr_SetString(PyExc_ValueError, "devices: a sequence of at most 64 ids");
		return nullptr;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *o = PySequence_GetItem(devs, i);
		unsigned long v = o ? PyLong_AsUnsignedLong(o) : 0;
		Py_XDECREF(o);
		if (PyErr_Occurred())
			return nullptr;
		ids[i] = (uint32_t)v;
	}
	aclError e = aclprofInit(dir, strlen(dir));
	if (e != ACL_SUCCESS) {
		PyErr_Format(PyExc_RuntimeError, "aclprofInit(%s) failed: %d", dir, (int)e);
		return nullptr;
	}
	g_config = aclprofCreateConfig(n ? ids : nullptr, (uint32_t)n, ACL_AICORE_NONE, nullptr,
				       switches);
	if (!g_config) {
		aclprofFinalize();
		PyErr_Format(PyExc_RuntimeError,
			     "aclprofCreateConfig failed (%zd devices, switches 0x%llx)", n,
			     switches);
		return nullptr;
	}
	e = aclprofStart(g_config);
	if (e != ACL_SUCCESS) {
		aclprofDestroyConfig(g_config);
		g_config = nullptr;
		aclprofFinalize();
		PyErr_Format(PyExc_RuntimeError, "aclprofStart failed: %d", (int)e);
		return nullptr;
	}
	Py_RETURN_NONE;
}

PyObject *py_session_stop(PyObject *, PyObject *)
{
	if (!g_config)
		Py_RETURN_NONE;
	aclError e1, e2;
	Py_BEGIN_ALLOW_THREADS;
	e1 = aclprofStop(g_config);
	aclprofDestroyConfig(g_config);
	g_config = nullptr;
	e2 = aclprofFinalize();
	Py_END_ALLOW_THREADS;
	if (e1 != ACL_SUCCESS || e2 != ACL_SUCCESS) {
		PyErr_Format(PyExc_RuntimeError, "aclprofStop/aclprofFinalize failed: %d/%d",
			     (int)e1, (int)e2);
		return nullptr;
	}
	Py_RETURN_NONE;
}

/* ---- mirror ---- */
PyObject *py_mirror_available(PyObject *, PyObject *)
{
	return PyBool_FromLong(npuprof_mirror_open && npuprof_mirror_op && npuprof_mirror_close &&
			       npuprof_mirror_is_open);
}

PyObject *py_mirror_is_open(PyObject *, PyObject *)
{
	return PyBool_FromLong(npuprof_mirror_is_open && npuprof_mirror_is_open());
}

PyObject *py_mirror_open(PyObject *, PyObject *args)
{
	int dev;
	if (!PyArg_ParseTuple(args, "i", &dev))
		return nullptr;
	if (!npuprof_mirror_open) {
		PyErr_SetString(
			PyExc_RuntimeError,
			"npuprof.torch: built without the device mirror (libnpuprof_mirror.so)");
		return nullptr;
	}
	char err[512] = "";
	int r;
	Py_BEGIN_ALLOW_THREADS;
	r = npuprof_mirror_open(dev, err, sizeof(err));
	Py_END_ALLOW_THREADS;
	if (r < 0) {
		PyErr_Format(PyExc_RuntimeError, "device mirror on device %d: %s", dev,
			     err[0] ? err : strerror(-r));
		return nullptr;
	}
	Py_RETURN_NONE;
}

PyObject *py_mirror_close(PyObject *, PyObject *)
{
	if (npuprof_mirror_close && npuprof_mirror_is_open && npuprof_mirror_is_open()) {
		Py_BEGIN_ALLOW_THREADS;
		npuprof_mirror_close();
		Py_END_ALLOW_THREADS;
	}
	Py_RETURN_NONE;
}

PyObject *py_mirror_sync(PyObject *, PyObject *)
{
	int r = 0;
	if (npuprof_mirror_sync && npuprof_mirror_is_open && npuprof_mirror_is_open()) {
		Py_BEGIN_ALLOW_THREADS;
		r = npuprof_mirror_sync();
		Py_END_ALLOW_THREADS;
	}
	return PyLong_FromLong(r);
}

/* ---- benchmark: the dispatch cost of a small op ---- */
std::unique_ptr<at::ObserverContext> empty_start(const at::RecordFunction &)
{
	return nullptr;
}
void empty_end(const at::RecordFunction &, at::ObserverContext *)
{
}

/* bench_ops(n, mode): ns per at::add of two 1-element tensors, n times,
 * on the calling thread (GIL released). mode 0: as configured now (no
 * callback unless recording is on); 1: with an empty global callback
 * (needsInputs as recording would). */
PyObject *py_bench_ops(PyObject *, PyObject *args)
{
	long long n;
	int mode, inputs;
	if (!PyArg_ParseTuple(args, "Lip", &n, &mode, &inputs))
		return nullptr;
	if (n <= 0) {
		PyErr_SetString(PyExc_ValueError, "n must be > 0");
		return nullptr;
	}
	double ns = 0;
	try {
		at::Tensor a = at::ones({ 1 }), b = at::ones({ 1 }), out = at::empty({ 1 });
		if (mode == 1)
			g_empty_cb = at::addGlobalCallback(
				at::RecordFunctionCallback(empty_start, empty_end)
					.needsInputs(inputs));
		Py_BEGIN_ALLOW_THREADS;
		for (int w = 0; w < 1000; w++)
			at::add_out(out, a, b);
		auto t0 = std::chrono::steady_clock::now();
		for (long long i = 0; i < n; i++)
			at::add_out(out, a, b);
		auto t1 = std::chrono::steady_clock::now();
		ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / (double)n;
		Py_END_ALLOW_THREADS;
		if (mode == 1) {
			at::removeCallback(g_empty_cb);
			g_empty_cb = at::INVALID_CALLBACK_HANDLE;
		}
	} catch (const std::exception &e) {
		PyErr_SetString(PyExc_RuntimeError, e.what());
		return nullptr;
	}
	return PyFloat_FromDouble(ns);
}

PyMethodDef methods[] = {
	{ "enable", py_enable, METH_VARARGS,
	  "enable(record_shapes, with_stack, profile_memory, mirror): start recording torch ops; "
	  "False if memory cannot be recorded (another profiler's state is on the thread)" },
	{ "disable", py_disable, METH_NOARGS, "stop recording torch ops" },
	{ "now", py_now, METH_NOARGS, "the recorder's clock (CLOCK_MONOTONIC ns)" },
	{ "range", py_range, METH_VARARGS, "range(name, start_ns, end_ns, type): one FWK_OP" },
	{ "gc", py_gc, METH_VARARGS, "gc(start_ns, end_ns, generation): one FWK_GC" },
	{ "stats", py_stats, METH_NOARGS, "counters of what was recorded" },
	{ "session_start", py_session_start, METH_VARARGS,
	  "session_start(dir, devices, switches): aclprofInit, CreateConfig, Start" },
	{ "session_stop", py_session_stop, METH_NOARGS, "aclprofStop, DestroyConfig, Finalize" },
	{ "mirror_available", py_mirror_available, METH_NOARGS,
	  "True if the device mirror is linked" },
	{ "mirror_open", py_mirror_open, METH_VARARGS, "mirror_open(device)" },
	{ "mirror_is_open", py_mirror_is_open, METH_NOARGS, "True while the mirror is open" },
	{ "mirror_close", py_mirror_close, METH_NOARGS, "close the device mirror" },
	{ "mirror_sync", py_mirror_sync, METH_NOARGS, "wait for the mirror's stream" },
	{ "bench_ops", py_bench_ops, METH_VARARGS, "bench_ops(n, mode, inputs): ns per op" },
	{ nullptr, nullptr, 0, nullptr },
};

struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "_C", "npuprof.torch's recorder over RecordFunction", -1, methods,
};

} // namespace

PyMODINIT_FUNC PyInit__C(void)
{
	fwk_register_types(); /* at load, as CANN's components register */
	return PyModule_Create(&module);
}
