// Public headers compile on their own (each linked unit is one header alone), and the status
// list they declare is complete.
#include <string.h>

#include "support.h"

int header_unit_sinew(void);
int header_unit_base(void);
int header_unit_vec2(void);
int header_unit_world(void);
int header_unit_particle(void);
int header_unit_constraints(void);
int header_unit_collide(void);
int header_unit_scene(void);
int header_unit_ik(void);
int header_unit_vec3(void);
int header_unit_ik3(void);

static void each_header_compiles_alone(void **state)
{
    (void)state;
    int units = header_unit_sinew() + header_unit_base() + header_unit_vec2() + header_unit_world() +
                header_unit_particle() + header_unit_constraints() + header_unit_collide() + header_unit_scene() + header_unit_ik() +
                header_unit_vec3() + header_unit_ik3();
    assert_int_equal(units, 11);
}

static void every_status_has_its_own_message(void **state)
{
    (void)state;
    for (int a = 0; a < SINEW_STATUS_COUNT; ++a) {
        const char *sa = sinew_status_string((sinew_status)a);
        assert_non_null(sa);
        assert_true(strlen(sa) > 0);
        for (int b = a + 1; b < SINEW_STATUS_COUNT; ++b) {
            assert_string_not_equal(sa, sinew_status_string((sinew_status)b));
        }
    }
    assert_string_equal(sinew_status_string(SINEW_OK), "ok");
    assert_string_equal(sinew_status_string((sinew_status)-1), "unknown status");
    assert_string_equal(sinew_status_string(SINEW_STATUS_COUNT), "unknown status");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_header_compiles_alone),
        cmocka_unit_test(every_status_has_its_own_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
