// IPC events between two processes (A runs B, forked and exec'd): process A
// makes an ACL_EVENT_IPC event and passes its handle through a pipe;
// process B opens it, on A's device and (two devices or more) on another.
// Each round: A's record waits on the device behind a gate A opens 300 ms
// later; B sees it in flight (query), B's stream wait blocks until it has
// run; then B records behind a gate of its own and A's query and
// synchronize see that. Round 0: B destroys first; round 1: A destroys
// first and B's event still records and waits. A handle whose event every
// process destroyed no longer opens.
// Device tasks, for the database check (suite 40): of two rounds, A has 2
// IPC_EVENT_RECORD and 2 IPC_EVENT_WAIT, B 3 and 3.
#include <cstring>
#include <ctime>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

namespace
{

struct Msg {
	int tag;
	int64_t ns;
	aclrtIpcEventHandle handle;
};
enum {
	HANDLE = 1,
	A_PENDING,
	B_WAITING,
	A_RELEASE,
	A_SEEN,
	B_PENDING,
	B_RELEASE,
	B_DESTROYED,
	A_DESTROYED,
	DONE
};

const int64_t kDelayNs = 300000000; // how long a gate stays shut
int g_out, g_in; // this process's pipe ends

int64_t Now()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void Send(int tag, int64_t ns = 0, const aclrtIpcEventHandle *h = nullptr)
{
	Msg m;
	std::memset(&m, 0, sizeof(m));
	m.tag = tag;
	m.ns = ns;
	if (h)
		m.handle = *h;
	TRUE(write(g_out, &m, sizeof(m)) == static_cast<ssize_t>(sizeof(m)));
}

Msg Recv(int tag)
{
	Msg m;
	TRUE(read(g_in, &m, sizeof(m)) == static_cast<ssize_t>(sizeof(m)));
	EXPECT(m.tag, tag);
	return m;
}

aclrtEventRecordedStatus Status(aclrtEvent e)
{
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
	OK(aclrtQueryEventStatus(e, &st));
	return st;
}

int Rounds()
{
	uint32_t n = 0;
	OK(aclrtGetDeviceCount(&n));
	TRUE(n >= 1);
	return n >= 2 ? 2 : 1;
}

int RunA()
{
	aclrtStream s, gateStream;
	aclrtEvent plain;
	aclrtIpcEventHandle h, last;
	OK(aclInit(nullptr));
	int rounds = Rounds();
	OK(aclrtSetDevice(0));
	OK(aclrtCreateStream(&s));
	OK(aclrtCreateStream(&gateStream));
	// only an ACL_EVENT_IPC event has a handle; IPC goes with no other flag
	OK(aclrtCreateEvent(&plain));
	EXPECT(aclrtIpcGetEventHandle(plain, &h), ACL_ERROR_RT_PARAM_INVALID);
	OK(aclrtDestroyEvent(plain));
	EXPECT(aclrtCreateEventExWithFlag(&plain, ACL_EVENT_IPC | ACL_EVENT_SYNC),
	       ACL_ERROR_INVALID_PARAM);
	for (int r = 0; r < rounds; r++) {
		aclrtEvent x, gate;
		OK(aclrtCreateEventExWithFlag(&x, ACL_EVENT_IPC));
		OK(aclrtCreateEvent(&gate));
		EXPECT(Status(x), ACL_EVENT_RECORDED_STATUS_COMPLETE); // never recorded
		OK(aclrtIpcGetEventHandle(x, &h));
		last = h;
		Send(HANDLE, 0, &h);
		// A's record, held on the device behind the gate
		OK(aclrtStreamWaitEvent(s, gate));
		OK(aclrtRecordEvent(x, s));
		EXPECT(Status(x), ACL_EVENT_RECORDED_STATUS_NOT_READY);
		Send(A_PENDING);
		Recv(B_WAITING);
		usleep(kDelayNs / 1000);
		Send(A_RELEASE, Now());
		OK(aclrtRecordEvent(gate, gateStream));
		OK(aclrtSynchronizeEvent(x));
		EXPECT(Status(x), ACL_EVENT_RECORDED_STATUS_COMPLETE);
		Send(A_SEEN);
		// B's record, held behind B's gate: A's query and synchronize see it
		Recv(B_PENDING);
		EXPECT(Status(x), ACL_EVENT_RECORDED_STATUS_NOT_READY);
		OK(aclrtSynchronizeEvent(x));
		int64_t done = Now();
		int64_t released = Recv(B_RELEASE).ns;
		TRUE(done >= released);
		EXPECT(Status(x), ACL_EVENT_RECORDED_STATUS_COMPLETE);
		// B's record is there: A's stream passes it
		OK(aclrtStreamWaitEvent(s, x));
		OK(aclrtSynchronizeStream(s));
		if (r == 0) {
			Recv(B_DESTROYED);
			OK(aclrtDestroyEvent(x));
		} else {
			OK(aclrtDestroyEvent(x));
			Send(A_DESTROYED);
		}
		OK(aclrtDestroyEvent(gate));
	}
	Recv(DONE);
	// every process destroyed it: its handle no longer opens here either
	aclrtEvent stale;
	EXPECT(aclrtIpcOpenEventHandle(last, &stale), ACL_ERROR_RT_PARAM_INVALID);
	OK(aclrtDestroyStream(s));
	OK(aclrtDestroyStream(gateStream));
	OK(aclrtResetDevice(0));
	OK(aclFinalize());
	return rounds;
}

int RunB()
{
	aclrtIpcEventHandle h;
	aclrtEvent y;
	OK(aclInit(nullptr));
	int rounds = Rounds();
	OK(aclrtSetDevice(0));
	// a handle aclrtIpcGetEventHandle did not make
	std::memset(&h, 0x5a, sizeof(h));
	EXPECT(aclrtIpcOpenEventHandle(h, &y), ACL_ERROR_RT_PARAM_INVALID);
	for (int r = 0; r < rounds; r++) {
		int dev = r; // round 1: another device than the event's
		aclrtStream s, gateStream;
		aclrtEvent gate;
		OK(aclrtSetDevice(dev));
		OK(aclrtCreateStream(&s));
		OK(aclrtCreateStream(&gateStream));
		OK(aclrtCreateEvent(&gate));
		h = Recv(HANDLE).handle;
		OK(aclrtIpcOpenEventHandle(h, &y));
		Recv(A_PENDING);
		// A's record is in flight: B sees it, and B's stream waits for it
		EXPECT(Status(y), ACL_EVENT_RECORDED_STATUS_NOT_READY);
		OK(aclrtStreamWaitEvent(s, y));
		int64_t t0 = Now();
		Send(B_WAITING);
		OK(aclrtSynchronizeStream(s));
		int64_t t1 = Now();
		int64_t released = Recv(A_RELEASE).ns;
		std::printf(
			"round %d (device %d): B's wait blocked %lld ms, until %lld ms after A's release\n",
			r, dev, static_cast<long long>((t1 - t0) / 1000000),
			static_cast<long long>((t1 - released) / 1000000));
		TRUE(t1 >= released);
		TRUE(t1 - t0 >= kDelayNs / 2);
		EXPECT(Status(y), ACL_EVENT_RECORDED_STATUS_COMPLETE);
		OK(aclrtSynchronizeEvent(y));
		// B records behind its gate, once A has seen its own record done
		Recv(A_SEEN);
		OK(aclrtStreamWaitEvent(s, gate));
		OK(aclrtRecordEvent(y, s));
		Send(B_PENDING);
		usleep(kDelayNs / 1000);
		Send(B_RELEASE, Now());
		OK(aclrtRecordEvent(gate, gateStream));
		OK(aclrtSynchronizeEvent(y));
		EXPECT(Status(y), ACL_EVENT_RECORDED_STATUS_COMPLETE);
		if (r == 0) {
			OK(aclrtDestroyEvent(y));
			Send(B_DESTROYED);
		} else {
			// A destroyed its event: B's still records and waits
			Recv(A_DESTROYED);
			OK(aclrtRecordEvent(y, s));
			OK(aclrtSynchronizeEvent(y));
			OK(aclrtStreamWaitEvent(s, y));
			OK(aclrtSynchronizeStream(s));
			EXPECT(Status(y), ACL_EVENT_RECORDED_STATUS_COMPLETE);
			OK(aclrtDestroyEvent(y));
			EXPECT(aclrtQueryEventStatus(y, nullptr), ACL_ERROR_INVALID_PARAM);
			// every process destroyed it: its handle no longer opens
			EXPECT(aclrtIpcOpenEventHandle(h, &y), ACL_ERROR_RT_PARAM_INVALID);
		}
		OK(aclrtDestroyEvent(gate));
		OK(aclrtDestroyStream(s));
		OK(aclrtDestroyStream(gateStream));
	}
	Send(DONE);
	OK(aclrtResetDevice(0));
	if (rounds > 1)
		OK(aclrtResetDevice(1));
	OK(aclFinalize());
	return 0;
}

} // namespace

// A runs B as a program of its own (fork and exec, as CANN's examples run
// two programs): `rt_ipc_event B <in fd> <out fd>`.
int main(int argc, char **argv)
{
	int ab[2], ba[2], st = 0;
	if (argc == 4 && std::strcmp(argv[1], "B") == 0) {
		g_in = std::atoi(argv[2]);
		g_out = std::atoi(argv[3]);
		return RunB();
	}
	TRUE(pipe(ab) == 0 && pipe(ba) == 0);
	std::fflush(stdout);
	pid_t b = fork();
	TRUE(b >= 0);
	if (b == 0) {
		char in[16], out[16];
		close(ab[1]);
		close(ba[0]);
		std::snprintf(in, sizeof(in), "%d", ab[0]);
		std::snprintf(out, sizeof(out), "%d", ba[1]);
		execl("/proc/self/exe", argv[0], "B", in, out, static_cast<char *>(nullptr));
		std::perror("exec B");
		_exit(127);
	}
	g_out = ab[1];
	g_in = ba[0];
	close(ab[0]);
	close(ba[1]);
	int rounds = RunA();
	TRUE(waitpid(b, &st, 0) == b && WIFEXITED(st));
	EXPECT(WEXITSTATUS(st), 0);
	std::printf("%d round(s): A %d IPC_EVENT_RECORD and %d IPC_EVENT_WAIT tasks, B %d and %d\n",
		    rounds, rounds, rounds, 2 * rounds - 1, 2 * rounds - 1);
	std::printf("[SUCCESS] rt_ipc_event\n");
	return 0;
}
