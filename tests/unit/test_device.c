/*
 * test_device.c - the device-backend interface (user/device/device.h) on a
 * host without an NPU driver: the "noclock" backend is in charge, sees no
 * device and gives no clock samples; the npusim backend sees none either;
 * backends are found by name; and the session records the backend that
 * enumerated its devices and reads it back. (The npusim backend with
 * devices, and its clock samples in a recording, are tested in the VM:
 * suite_70_replay.sh.)
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "npuprof/session.h"
#include "testutil.h"

static int no_driver(void)
{
	return access("/dev/npusim0", F_OK) != 0 && access("/proc/trs_chan", F_OK) != 0;
}

START_TEST(backends_by_name)
{
	ck_assert_ptr_eq(npuprof_device_find("npusim"), &npuprof_device_npusim);
	ck_assert_ptr_eq(npuprof_device_find("noclock"), &npuprof_device_noclock);
	ck_assert_ptr_null(npuprof_device_find("cuda"));
	ck_assert_ptr_null(npuprof_device_find(""));
	ck_assert_ptr_null(npuprof_device_find(NULL));
	ck_assert_ptr_nonnull(npuprof_device_probe());
}
END_TEST

START_TEST(no_driver_no_devices_no_clock)
{
	struct npuprof_device_info dev[4];
	struct npuprof_clock_sample cs[4];

	if (!no_driver()) {
		printf("no_driver_no_devices_no_clock: skipped (an NPU driver is present)\n");
		return;
	}
	ck_assert_ptr_eq(npuprof_device_probe(), &npuprof_device_noclock);
	ck_assert_int_eq(npuprof_device_noclock.enumerate(dev, 4), 0);
	ck_assert_int_eq(npuprof_device_npusim.enumerate(dev, 4), 0);
	ck_assert_int_eq(npuprof_device_noclock.clock_sync(0, cs, 4), 0);
	/* npusim without its device node: an error, not samples */
	ck_assert_int_lt(npuprof_device_npusim.clock_sync(0, cs, 4), 0);
	ck_assert_int_eq(npuprof_device_npusim.clock_sync(0, cs, 0), 0);
}
END_TEST

static int nrec;
static int count(void *ctx, const struct npuprof_record *r)
{
	nrec++;
	return 0;
}

START_TEST(session_records_the_backend)
{
	struct npuprof_session *s = calloc(1, sizeof(*s)), *l = calloc(1, sizeof(*l));
	char parent[] = "/tmp/npuprof-device-XXXXXX", err[512];

	ck_assert_ptr_nonnull(mkdtemp(parent));
	npuprof_session_init(s);
	ck_assert_str_eq(s->device_backend, npuprof_device_probe()->name);
	if (no_driver()) {
		ck_assert_int_eq(s->ndev, 0);
		nrec = 0;
		npuprof_session_clock_sync(s, count, NULL);
		ck_assert_int_eq(nrec, 0);
	}
	/* a session of a real host: two devices, no clock-sync source */
	snprintf(s->device_backend, sizeof(s->device_backend), "noclock");
	s->ndev = 2;
	s->dev[0].id = 0;
	snprintf(s->dev[0].chip, sizeof(s->dev[0].chip), "Ascend910B");
	s->dev[1].id = 3;
	snprintf(s->dev[1].chip, sizeof(s->dev[1].chip), "Ascend910B");
	s->dev[1].counter_hz = 50000000;
	nrec = 0;
	npuprof_session_clock_sync(s, count, NULL);
	ck_assert_int_eq(nrec, 0);
	ck_assert_int_eq(npuprof_session_create(s, parent, err, sizeof(err)), 0);
	ck_assert_int_eq(npuprof_session_finish(s, err, sizeof(err)), 0);
	ck_assert_int_eq(npuprof_session_load(l, s->dir, err, sizeof(err)), 0);
	ck_assert_str_eq(l->device_backend, "noclock");
	ck_assert_int_eq(l->ndev, 2);
	ck_assert_uint_eq(l->dev[1].id, 3);
	ck_assert_uint_eq(l->dev[1].counter_hz, 50000000);
	tu_rm_rf(parent);
	free(s);
	free(l);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("device");
	TCase *tc = tcase_create("backends");

	tcase_add_test(tc, backends_by_name);
	tcase_add_test(tc, no_driver_no_devices_no_clock);
	tcase_add_test(tc, session_records_the_backend);
	suite_add_tcase(s, tc);
	return s;
}
