/*
 * check_main.c - the one main() of every unit-test binary: each
 * tests/unit/test_<name>.c defines unit_suite() and is linked with this.
 * CK_FORK (scripts/run-unit.sh sets it) and the other CK_* variables apply
 * as Check documents.
 */
#include <check.h>
#include <stdlib.h>

Suite *unit_suite(void);

int main(void)
{
	SRunner *sr = srunner_create(unit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
